"""The zero-dependency default embedder: feature hashing of words and trigrams."""

from __future__ import annotations

import hashlib
import re

import numpy as np

from mragent.core.embedding.base import EmbedderIdentity, normalise

_WORD = re.compile(r"[a-z0-9]+")
DEFAULT_DIMENSION = 256
_CACHED = 500_000  # features (and words) whose hashes are kept
_WEIGHTS = np.array([-2.0, -1.0, 1.0, 2.0])
"""The signed weights a word's codes name (its own: 2, each trigram: 1)."""
_CODES = {weight: code for code, weight in enumerate(_WEIGHTS.tolist())}


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
        self._words: dict[str, np.ndarray] = {}

    def _slot(self, feature: str) -> tuple[int, float]:
        hit = self._cache.get(feature)
        if hit is None:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            hit = (value % self.dimension, 1.0 if (value >> 63) & 1 else -1.0)
            if len(self._cache) < _CACHED:
                self._cache[feature] = hit
        return hit

    def _word(self, word: str) -> np.ndarray:
        """What one occurrence of ``word`` adds: the word itself (weight 2) and each
        character trigram of ``#word#`` (weight 1), each at its slot with its sign,
        coded as ``slot * 4 + k``, ``_WEIGHTS[k]`` being the signed weight.

        One small array per word: as an array of slots and another of weights, the
        140k words of 300k generated texts took 111 MB, and 70 MB this way."""
        hit = self._words.get(word)
        if hit is None:
            padded = f"#{word}#"
            features = [("w:" + word, 2.0)]
            features += [("c:" + padded[i : i + 3], 1.0) for i in range(len(padded) - 2)]
            hashed = ((*self._slot(feature), weight) for feature, weight in features)
            hit = np.array([slot * 4 + _CODES[sign * weight] for slot, sign, weight in hashed])
            if len(self._words) < _CACHED:
                self._words[word] = hit
        return hit

    def _embed(self, texts: list[str]) -> np.ndarray:
        dimension = self.dimension
        codes: list[np.ndarray] = []
        for row, text in enumerate(texts):
            offset = row * dimension * 4  # the row's slots follow the rows before it
            codes.extend(self._word(word) + offset for word in _WORD.findall(text.lower()))
        if not codes:
            return np.zeros((len(texts), dimension), np.float32)
        coded = np.concatenate(codes)
        # One weighted count over every row: the sums are small integers, exact in
        # float32, so this is the vector adding the features one by one gives.
        counts = np.bincount(coded >> 2, _WEIGHTS[coded & 3], minlength=len(texts) * dimension)
        return normalise(counts.reshape(len(texts), dimension).astype(np.float32))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)
