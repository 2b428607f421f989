"""A small OpenAI-compatible embeddings server for the tests, run as its own process.

``python -m tests.embedding_server --dim 64 [--key SECRET]`` listens on a free
loopback port, prints it on one line, and answers ``POST /v1/embeddings``
(``{"model", "input"}``) with real vectors from the hashing embedder of that
dimension, in the API's response shape. It answers the items in reverse order
(their ``index`` fields say where each belongs, as the API allows), 401 without
the bearer key when one is set, 404 for a model other than ``hash-<dim>``, and
``GET /stats`` with the number of embedding requests served.
"""

from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from mragent.core.embedding import HashingEmbedder


def serve(dimension: int, key: str | None) -> None:
    embedder = HashingEmbedder(dimension)
    model = f"hash-{dimension}"
    served = {"requests": 0}

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(200, served)

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/embeddings":
                self._answer(404, {"error": {"message": f"no route {self.path}"}})
            elif key and self.headers.get("Authorization") != f"Bearer {key}":
                self._answer(401, {"error": {"message": "invalid api key"}})
            elif request.get("model") != model:
                self._answer(404, {"error": {"message": f"model {request.get('model')!r}"}})
            else:
                served["requests"] += 1
                texts = request["input"]
                vectors = embedder.embed_passages(texts)
                data = [
                    {"object": "embedding", "index": i, "embedding": vectors[i].tolist()}
                    for i in reversed(range(len(texts)))
                ]
                self._answer(200, {"object": "list", "data": data, "model": model})

        def log_message(self, *args: object) -> None:
            pass  # quiet: the tests read stdout for the port only

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--key")
    args = parser.parse_args()
    serve(args.dim, args.key)
