"""Embedders named by a short string: ``--embedder SPEC``, ``MRAGENT_EMBEDDER``, a stamp."""

from __future__ import annotations

from mragent.core.embedding.base import Embedder, EmbedderIdentity
from mragent.core.embedding.hashing import DEFAULT_DIMENSION, HashingEmbedder
from mragent.core.embedding.models import DEFAULT_MODEL, MODELS, packaged_embedder
from mragent.core.errors import ConfigError

MAX_DIMENSION = 4096  # the largest vector the native indexes take (schema_vector render bound)
DEFAULT_SPEC = "hashing"
ACCEPTED_SPECS = (
    f"'hashing' ({DEFAULT_DIMENSION} dimensions, no dependency), 'hashing:DIM' (DIM in "
    f"1..{MAX_DIMENSION}), 'model' (the default real model, {DEFAULT_MODEL!r}: pip install "
    f"'mragent[models]'), a packaged model by name ({', '.join(repr(n) for n in MODELS)}), "
    "'openai:MODEL@URL' (an OpenAI-compatible endpoint), "
    "or a stamped identity such as 'hashing:word+char3-blake2:256:norm'"
)


def embedder_name(embedder: Embedder) -> str:
    """A short name for rows and namespaces: the spec, without an endpoint's URL."""
    return embedder.spec.partition("@")[0]


def default_embedder() -> HashingEmbedder:
    """The embedder a new namespace is written with when none is named."""
    return HashingEmbedder()


def embedder_from_spec(spec: str, option: str = "--embedder") -> Embedder:
    """Build the embedder a spec names.

    Accepted forms:

    * ``hashing``: :class:`HashingEmbedder` with 256 dimensions, the default;
    * ``hashing:DIM``: the same with ``DIM`` dimensions;
    * ``model``: the default packaged model (:data:`DEFAULT_MODEL`);
    * a packaged model's name (``e5-small``, ``minilm``), loaded from its package;
    * ``openai:MODEL@URL``: an OpenAI-compatible ``/embeddings`` endpoint, its key
      from the environment;
    * an identity text as stamped on a namespace (``EmbedderIdentity.as_text()``)
      of a hashing embedder or a packaged model, so the stamp an error message
      quotes can be passed back.

    Args:
        spec: The specification.
        option: The option or setting it came from, named in errors.

    Raises:
        ConfigError: naming ``option``, the value and the accepted forms.
        EmbedderUnavailable: when a packaged model's packages are missing.
        BackendUnavailable: when an endpoint does not answer.
    """
    text = spec.strip()
    if text.startswith("openai:"):
        # Imported for an endpoint only: its HTTP client (urllib.request, http.client,
        # email) is a tenth of a hashing namespace's start-up.
        from mragent.core.embedding.endpoint import EndpointEmbedder, parse_endpoint

        return EndpointEmbedder(*parse_endpoint(text, option))
    if text in MODELS or text == "model":
        return packaged_embedder(text)
    hashing = _hashing_dimension(text)
    if hashing is not None:
        return HashingEmbedder(hashing)
    model = _model_of_identity(text)
    if model is not None:
        return packaged_embedder(model)
    raise ConfigError(f"{option} {spec!r}: expected {ACCEPTED_SPECS}")


def _hashing_dimension(text: str) -> int | None:
    """The dimension a hashing spec or identity names; None for anything else."""
    parts = text.split(":")
    dimension: str | None = None
    if parts == ["hashing"]:
        dimension = str(DEFAULT_DIMENSION)
    elif len(parts) == 2 and parts[0] == "hashing":
        dimension = parts[1]
    elif len(parts) == 4 and parts[0] == "hashing" and parts[1] == HashingEmbedder.MODEL:
        dimension = parts[2] if parts[3] == "norm" else None
    # isdigit alone would take "٣" and "²"; the index and the stamp need ASCII digits.
    if dimension is not None and dimension.isascii() and dimension.isdigit():
        value = int(dimension)
        if 1 <= value <= MAX_DIMENSION:
            return value
    return None


def _model_of_identity(text: str) -> str | None:
    """The packaged model a stamped ``model:...`` identity names (any weights version:
    the loaded one's identity is then compared with the stamp, naming both)."""
    try:
        identity = EmbedderIdentity.from_text(text)
    except ValueError:
        return None
    if identity.kind != "model":
        return None
    name = identity.model.partition("@")[0]
    return next((m.name for m in MODELS.values() if m.model == name), None)
