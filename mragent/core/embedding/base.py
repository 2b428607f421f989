"""The embedder interface: identity, query and passage methods, batching.

An embedder's identity (kind, model, dimension, normalisation) is stamped on a
namespace at its first write; a read or write with another identity is refused.
Its spec (the short string that builds it, see :mod:`mragent.core.embedding.spec`)
is stamped beside it, so a reader of an existing namespace gets the same
embedder without naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Protocol

import numpy as np

from mragent.core.errors import EmbeddingMismatch

EMBED_BATCH = 32  # texts per model call: large enough to amortise it, small enough to report


@dataclass(frozen=True)
class EmbedderIdentity:
    """What produced a vector; two identities must match to share an index."""

    kind: str
    model: str
    dimension: int
    normalised: bool

    @property
    def lexical(self) -> bool:
        """Whether the vectors count the text's words (feature hashing) rather than carry
        its meaning. Over passages such vectors hold the evidence BM25 already weighs
        better, so a reader enters passages by BM25 alone for them."""
        return self.kind == "hashing"

    def as_text(self) -> str:
        """A stable string form, stored on the namespace."""
        return f"{self.kind}:{self.model}:{self.dimension}:{'norm' if self.normalised else 'raw'}"

    @classmethod
    def from_text(cls, text: str) -> EmbedderIdentity:
        """Parse :meth:`as_text` (a model name may itself hold colons).

        Raises:
            ValueError: when ``text`` is not an identity text.
        """
        kind, _, rest = text.partition(":")
        model, dim, norm = rest.rsplit(":", 2)
        if not kind or not model or norm not in ("norm", "raw"):
            raise ValueError(f"not an embedder identity: {text!r}")
        return cls(kind, model, int(dim), norm == "norm")

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


class Embedder(Protocol):
    """Turns texts into vectors of a fixed dimension.

    Questions and stored texts (passages, cues) are embedded by separate methods:
    asymmetric models (E5 and its kin) are trained with a different prefix on each
    side, and symmetric ones implement both alike.

    Attributes:
        identity: What its vectors are (stamped on the namespace).
        spec: The spec string that builds it again (stamped beside the identity).
    """

    identity: EmbedderIdentity
    spec: str

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Embed questions: a float32 array of shape ``(len(texts), dimension)``."""
        ...

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        """Embed stored texts (contents and cues): shape ``(len(texts), dimension)``."""
        ...


def passage_text(title: str | None, text: str) -> str:
    """The text a content is embedded and searched by: its title, then its text."""
    return f"{title} {text}" if title else text


def embed_all(
    embed: Callable[[list[str]], np.ndarray],
    texts: Sequence[str],
    dimension: int,
    *,
    batch_size: int = EMBED_BATCH,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Embed ``texts`` batch by batch, reporting each finished batch.

    Texts are batched by length (and the vectors put back in order), so a model
    pads each batch to about its own length instead of to the longest text.

    Args:
        embed: One of an embedder's methods.
        texts: The texts, in order.
        dimension: The embedder's dimension (for an empty input and the shape check).
        batch_size: Texts per call.
        progress: Called with the number of texts each finished batch embedded.

    Raises:
        EmbeddingMismatch: when the embedder returns vectors of another shape.
    """
    out = np.zeros((len(texts), dimension), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), batch_size):
        rows = order[start : start + batch_size]
        vectors = np.asarray(embed([texts[i] for i in rows]), dtype=np.float32)
        if vectors.shape != (len(rows), dimension):
            # An embedder that lies about its dimension would corrupt a namespace for good.
            raise EmbeddingMismatch(
                f"the embedder returned vectors of shape {vectors.shape}, "
                f"expected ({len(rows)}, {dimension})"
            )
        out[rows] = vectors
        if progress:
            progress(len(rows))
    return out


def normalise(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise the rows (a zero row stays zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def check_identity(
    namespace: str, stamped: str | None, mine: EmbedderIdentity, action: str = "write"
) -> None:
    """Refuse a read or write whose embedder differs from the namespace's stamp.

    Args:
        namespace: The namespace.
        stamped: Its stamped identity text (None: never written).
        mine: The identity of the embedder about to be used.
        action: ``read`` or ``write``, named in the message.

    Raises:
        EmbeddingMismatch: naming both identities.
    """
    if stamped is not None and stamped != mine.as_text():
        raise EmbeddingMismatch(
            f"namespace {namespace!r} was written with embedder {stamped}; "
            f"refusing a {action} with {mine.as_text()} (omit --embedder to use the "
            "namespace's, or run 'mragent reembed' to migrate)"
        )
