"""Embeddings kept on disk by (embedder identity, side, text hash).

A real model embeds a few passages a second on a small machine, so the bench,
the quality guard and evolution (which embed the same data sets again and again,
in fresh homes and fresh databases) wrap their embedder in
:class:`CachedEmbedder`: a text embedded once is never embedded again by the
same model. The cache is one SQLite file per embedder identity (SQLite, not a
file per vector: one atomic, concurrent-safe store that many processes may read
and write at once), readable by its owner only.

It is used for benchmark and evaluation data only, never for an agent's
memories: a vector is derived from its text, and a memory that is purged must
leave nothing behind (the writer's embedder is never wrapped).
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mragent.core.embedding.base import Embedder, EmbedderIdentity

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS vectors"
    " (side TEXT, hash BLOB, vector BLOB, PRIMARY KEY (side, hash))"
)


def cache_dir() -> Path:
    """``$MRAGENT_EMBEDDING_CACHE``, else ``$XDG_CACHE_HOME/mragent/embeddings``
    (``~/.cache/mragent/embeddings``)."""
    configured = os.environ.get("MRAGENT_EMBEDDING_CACHE")
    if configured:
        return Path(configured).resolve()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mragent" / "embeddings"


def _file_name(identity: EmbedderIdentity) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.+-]", "_", identity.as_text())
    return f"{safe}.sqlite"


class CachedEmbedder:
    """An embedder whose vectors are looked up on disk before they are computed.

    Args:
        inner: The embedder that computes what the cache lacks.
        root: The cache directory (default :func:`cache_dir`).

    Attributes:
        computed: Texts the inner embedder embedded through this object (a second
            run over the same data computes none).
    """

    def __init__(self, inner: Embedder, root: Path | None = None) -> None:
        self.inner = inner
        self.identity = inner.identity
        self.spec = inner.spec
        self.computed = 0
        directory = root or cache_dir()
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = directory / _file_name(self.identity)
        self.path.touch(mode=0o600, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)
        self._db.commit()

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed("query", texts, self.inner.embed_queries)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed("passage", texts, self.inner.embed_passages)

    def _embed(
        self, side: str, texts: list[str], compute: Callable[[list[str]], np.ndarray]
    ) -> np.ndarray:
        dimension = self.identity.dimension
        out = np.zeros((len(texts), dimension), dtype=np.float32)
        hashes = [hashlib.sha256(text.encode("utf-8")).digest() for text in texts]
        found: dict[bytes, np.ndarray] = {}
        unique = list(dict.fromkeys(hashes))
        for start in range(0, len(unique), 500):  # SQLite's bound on host parameters
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT hash, vector FROM vectors WHERE side = ? AND hash IN ({marks})",
                [side, *chunk],
            )
            for digest, blob in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (dimension,):
                    found[digest] = vector
        missing = [i for i, digest in enumerate(hashes) if digest not in found]
        if missing:
            wanted = list(dict.fromkeys(texts[i] for i in missing))
            vectors = np.asarray(compute(wanted), dtype=np.float32).reshape(len(wanted), -1)
            by_text = dict(zip(wanted, vectors, strict=True))
            self.computed += len(wanted)
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                    [
                        (side, hashlib.sha256(t.encode("utf-8")).digest(), v.tobytes())
                        for t, v in by_text.items()
                    ],
                )
            for i in missing:
                found[hashes[i]] = by_text[texts[i]]
        for i, digest in enumerate(hashes):
            out[i] = found[digest]
        return out

    def close(self) -> None:
        """Close the cache file."""
        self._db.close()


def cached(embedder: Embedder | None) -> Embedder | None:
    """``embedder`` behind the disk cache, unless it is cheaper to compute than to
    look up (the hashing embedder) or none was named."""
    if embedder is None or embedder.identity.lexical:
        return embedder
    return CachedEmbedder(embedder)
