"""The exception hierarchy: one root, a few meaningful subclasses.

Driver errors are translated into these at the store boundary, so callers never
need to know which wire protocol sits underneath.
"""

from __future__ import annotations


class MragentError(Exception):
    """Root of every error mragent raises on purpose."""


class ConfigError(MragentError):
    """A configuration value (genome, option, URL) is invalid.

    Attributes:
        errors: One human-readable line per invalid field.
    """

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or [message]


class ArgumentError(ConfigError, TypeError):
    """A call passed an argument of the wrong type (a number for a text, a string
    for a list of scopes): a one-line message naming the argument. Also a
    :class:`TypeError`, as Python's own would be."""


class EmbedderUnavailable(ConfigError):
    """An embedder's package or model is not installed (a configuration to fix, exit 2)."""


class BackendUnavailable(MragentError):
    """The graph database could not be reached or started."""


class QueryError(MragentError):
    """A named query failed on the database.

    Attributes:
        query_name: The registry name of the query that failed.
    """

    def __init__(self, query_name: str, message: str) -> None:
        super().__init__(f"query {query_name!r} failed: {message}")
        self.query_name = query_name


class CorpusError(MragentError):
    """An input file is malformed.

    Attributes:
        path: The file that was being read.
        record: Where in the file (record index or key), if known.
    """

    def __init__(self, path: str, record: str | None, message: str) -> None:
        where = f"{path}: record {record}" if record is not None else path
        super().__init__(f"{where}: {message}")
        self.path = path
        self.record = record


class NamespaceMissing(MragentError):
    """A namespace holds nothing to read: it was never written, or was deleted."""


class EmbeddingMismatch(MragentError):
    """A write would mix two embedding spaces in one namespace."""


class WriteRefused(MragentError):
    """A write the memory's rules forbid: re-remembering forgotten text, reviewing
    one's own memory, correcting a superseded version, an unknown id."""


class AccessDenied(MragentError):
    """A caller is not who it claims to be, or reaches beyond its grants: a wrong
    token, a claimed principal other than the authenticated one, a scope it may not
    read or write, a credentials file others can read."""


class ReembedInProgress(EmbeddingMismatch):
    """A namespace is being re-embedded: its cues are in two spaces at once.

    A subclass of :class:`EmbeddingMismatch` so every caller that already
    refuses a mixed embedding space refuses this one too.

    Attributes:
        namespace: The namespace.
        source: Identity text the namespace is stamped with (the old space).
        target: Identity text it is migrating to.
        spec: The spec that builds the target (named in the message; default ``target``).
    """

    def __init__(
        self, namespace: str, source: str | None, target: str, spec: str | None = None
    ) -> None:
        super().__init__(
            f"namespace {namespace!r} is being re-embedded from {source} to {target}; "
            f"reads and writes are refused until it finishes (re-run 'mragent reembed "
            f"--ns {namespace} --embedder {spec or target}' to finish it)"
        )
        self.namespace, self.source, self.target = namespace, source, target


class LegacyNamespace(MragentError):
    """A namespace was written in an older store schema; ``mragent migrate`` upgrades it."""
