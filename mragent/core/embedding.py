"""Embedders: pluggable; the default is deterministic and dependency free.

An embedder's identity (kind, model, dimension, normalisation) is stamped on a
namespace at its first write; a write with another identity is refused.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass
from typing import Protocol

import numpy as np

from mragent.core.errors import ConfigError, EmbeddingMismatch

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class EmbedderIdentity:
    """What produced a vector; two identities must match to share an index."""

    kind: str
    model: str
    dimension: int
    normalised: bool

    def as_text(self) -> str:
        """A stable string form, stored on the namespace."""
        return f"{self.kind}:{self.model}:{self.dimension}:{'norm' if self.normalised else 'raw'}"

    @classmethod
    def from_text(cls, text: str) -> EmbedderIdentity:
        kind, model, dim, norm = text.rsplit(":", 3)
        return cls(kind, model, int(dim), norm == "norm")

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class Embedder(Protocol):
    """Turns texts into vectors of a fixed dimension."""

    identity: EmbedderIdentity

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return a float32 array of shape ``(len(texts), dimension)``."""
        ...


class HashingEmbedder:
    """Feature hashing of words and character trigrams, L2-normalised.

    Dependency free and deterministic across processes and machines (it hashes
    with BLAKE2, not Python's salted ``hash``). Character trigrams make it match
    across inflections ("founded" and "founders") where a word index does not,
    which is the part of a paraphrase a model-free embedder can carry.

    Args:
        dimension: Vector size.
    """

    def __init__(self, dimension: int = 256) -> None:
        self.dimension = dimension
        self.identity = EmbedderIdentity("hashing", "word+char3-blake2", dimension, True)
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

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                slot, sign = self._slot("w:" + word)
                out[row, slot] += 2.0 * sign
                padded = f"#{word}#"
                for i in range(len(padded) - 2):
                    slot, sign = self._slot("c:" + padded[i : i + 3])
                    out[row, slot] += sign
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def check_identity(namespace: str, stamped: str | None, mine: EmbedderIdentity) -> None:
    """Refuse a write whose embedder differs from the namespace's stamp.

    Raises:
        EmbeddingMismatch: naming both identities.
    """
    if stamped is not None and stamped != mine.as_text():
        raise EmbeddingMismatch(
            f"namespace {namespace!r} was written with embedder {stamped}; "
            f"refusing a write with {mine.as_text()} (use 'mragent reembed' to migrate)"
        )


def default_embedder() -> HashingEmbedder:
    """The embedder used when none is configured."""
    return HashingEmbedder()


MAX_DIMENSION = 4096  # the largest vector the native indexes take (schema_vector render bound)
DEFAULT_SPEC = "hashing"
ACCEPTED_SPECS = (
    "'hashing' (256 dimensions), 'hashing:DIM' (DIM an integer in 1..4096), or a stamped "
    "identity such as 'hashing:word+char3-blake2:256:norm'"
)


def embedder_from_spec(spec: str, option: str = "--embedder") -> Embedder:
    """Name an embedder by a short string (a CLI option or a config value).

    Accepted forms:

    * ``hashing``: :class:`HashingEmbedder` with 256 dimensions, the default
      embedder (same identity, so namespaces written by default stay valid);
    * ``hashing:DIM``: the same with ``DIM`` dimensions;
    * an identity text as stamped on a namespace (``EmbedderIdentity.as_text()``,
      e.g. ``hashing:word+char3-blake2:128:norm``), so the stamp an error message
      quotes can be passed back to finish a migration.

    Args:
        spec: The specification.
        option: The option or setting it came from, named in the error.

    Raises:
        ConfigError: naming ``option``, the value and the accepted forms.
    """
    parts = spec.strip().split(":")
    model = HashingEmbedder(1).identity.model  # from the class, so the two cannot drift
    dimension: str | None = None
    if parts == ["hashing"]:
        dimension = "256"
    elif len(parts) == 2 and parts[0] == "hashing":
        dimension = parts[1]
    elif len(parts) == 4 and parts[0] == "hashing" and parts[1] == model and parts[3] == "norm":
        dimension = parts[2]
    # isdigit alone would take "٣" and "²"; the index and the stamp need ASCII digits.
    if dimension is not None and dimension.isascii() and dimension.isdigit():
        value = int(dimension)
        if 1 <= value <= MAX_DIMENSION:
            return HashingEmbedder(value)
    raise ConfigError(f"{option} {spec!r}: expected {ACCEPTED_SPECS}")
