"""An OpenAI-compatible embeddings endpoint (``openai:MODEL@URL``).

Any server that answers ``POST {URL}/embeddings`` with ``{"model", "input"}`` as
the OpenAI API does (vLLM, llama.cpp's server, Ollama, text-embeddings-inference,
LiteLLM, the hosted API) can embed a namespace. The key comes from the
environment only (``MRAGENT_EMBEDDER_API_KEY``, else ``OPENAI_API_KEY``), never
from a spec, so it is neither stamped on a namespace nor shown in a process list.
The standard library's HTTP client is enough for one JSON POST; the vendor SDK
would add a dependency for nothing.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import numpy as np

from mragent.core.embedding.base import EmbedderIdentity, normalise
from mragent.core.errors import BackendUnavailable, ConfigError, MragentError

KEY_VARIABLES = ("MRAGENT_EMBEDDER_API_KEY", "OPENAI_API_KEY")
TIMEOUT_SECONDS = 120.0
REQUEST_BATCH = 64  # inputs per request: servers cap it (the hosted API at 2048)


def parse_endpoint(spec: str, option: str) -> tuple[str, str]:
    """Split ``openai:MODEL@URL`` into the model name and the base URL.

    Raises:
        ConfigError: naming ``option`` when the form, the scheme or the URL is wrong,
            or when the URL carries credentials (the key belongs in the environment).
    """
    model, _, url = spec.removeprefix("openai:").partition("@")
    form = (
        f"{option} {spec!r}: expected openai:MODEL@URL, e.g. openai:bge-m3@http://127.0.0.1:8080/v1"
    )
    if not model.strip() or not url.strip():
        raise ConfigError(form)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{form} (URL {url!r} is not http(s)://HOST...)")
    if parts.username or parts.password:
        raise ConfigError(
            f"{option}: the URL must not carry credentials; set {KEY_VARIABLES[0]} instead"
        )
    return model.strip(), url.rstrip("/")


class EndpointEmbedder:
    """Embeds through an OpenAI-compatible ``/embeddings`` endpoint.

    The dimension is learnt from one probe request when the embedder is built, so
    a wrong URL or model fails before anything is written. Vectors are
    L2-normalised here whatever the server does. The API has no query/passage
    distinction, so both methods send the text as it is.

    Args:
        model: The model name the server knows.
        url: Base URL (the part before ``/embeddings``), e.g. ``http://host:8080/v1``.

    Raises:
        BackendUnavailable: when the server does not answer.
        ConfigError: when it refuses the key or the model.
        MragentError: when its answer is not an embeddings response.
    """

    def __init__(self, model: str, url: str) -> None:
        self.model, self.url = model, url
        self.spec = f"openai:{model}@{url}"
        self._key = next((os.environ[v] for v in KEY_VARIABLES if os.environ.get(v)), None)
        dimension = int(self._request(["dimension probe"]).shape[1])
        self.identity = EmbedderIdentity("openai", model, dimension, True)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def _embed(self, texts: list[str]) -> np.ndarray:
        parts = [
            self._request(texts[i : i + REQUEST_BATCH]) for i in range(0, len(texts), REQUEST_BATCH)
        ]
        if not parts:
            return np.zeros((0, self.identity.dimension), dtype=np.float32)
        return normalise(np.concatenate(parts))

    def _request(self, texts: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": texts}).encode()
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(f"{self.url}/embeddings", body, headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise self._refusal(exc) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise BackendUnavailable(
                f"embedder endpoint {self.url} unreachable: {reason}"
            ) from None
        except ValueError:
            raise MragentError(
                f"embedder endpoint {self.url} answered something not JSON"
            ) from None
        return self._vectors(answer, len(texts))

    def _refusal(self, exc: urllib.error.HTTPError) -> MragentError:
        detail = exc.read()[:200].decode("utf-8", "replace").strip()
        where = f"embedder endpoint {self.url} (model {self.model!r})"
        if exc.code in (401, 403):
            return ConfigError(
                f"{where} refused the key (HTTP {exc.code}); set {KEY_VARIABLES[0]}: {detail}"
            )
        if exc.code in (400, 404, 422):
            return ConfigError(f"{where} refused the request (HTTP {exc.code}): {detail}")
        return MragentError(f"{where} failed (HTTP {exc.code}): {detail}")

    def _vectors(self, answer: object, count: int) -> np.ndarray:
        try:
            data = sorted(answer["data"], key=lambda item: item["index"])  # type: ignore[index]
            vectors = np.array([item["embedding"] for item in data], dtype=np.float32)
        except (KeyError, TypeError, ValueError):
            raise MragentError(
                f"embedder endpoint {self.url} answered without data[].embedding"
            ) from None
        if vectors.ndim != 2 or vectors.shape[0] != count or vectors.shape[1] == 0:
            raise MragentError(
                f"embedder endpoint {self.url} returned {vectors.shape[0]} vectors "
                f"for {count} inputs"
            )
        return vectors
