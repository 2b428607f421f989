"""The zero-dependency default embedder: feature hashing of words and trigrams."""

from __future__ import annotations

import hashlib
import re

import numpy as np

from mragent.core.embedding.base import EmbedderIdentity, normalise

_WORD = re.compile(r"[a-z0-9]+")
DEFAULT_DIMENSION = 256


class HashingEmbedder:
    """Feature hashing of words and character trigrams, L2-normalised.

    Dependency free and deterministic across processes and machines (it hashes
    with BLAKE2, not Python's salted ``hash``). Character trigrams make it match
    across inflections ("founded" and "founders") where a word index does not,
    which is the part of a paraphrase a model-free embedder can carry. It is
    symmetric: questions and passages are embedded alike.

    Args:
        dimension: Vector size.
    """

    MODEL = "word+char3-blake2"

    def __init__(self, dimension: int = DEFAULT_DIMENSION) -> None:
        self.dimension = dimension
        self.identity = EmbedderIdentity("hashing", self.MODEL, dimension, True)
        self.spec = "hashing" if dimension == DEFAULT_DIMENSION else f"hashing:{dimension}"
        self._cache: dict[str, tuple[int, float]] = {}

    def _slot(self, feature: str) -> tuple[int, float]:
        hit = self._cache.get(feature)
        if hit is None:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            hit = (value % self.dimension, 1.0 if (value >> 63) & 1 else -1.0)
            if len(self._cache) < 500_000:
                self._cache[feature] = hit
        return hit

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                slot, sign = self._slot("w:" + word)
                out[row, slot] += 2.0 * sign
                padded = f"#{word}#"
                for i in range(len(padded) - 2):
                    slot, sign = self._slot("c:" + padded[i : i + 3])
                    out[row, slot] += sign
        return normalise(out)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)
