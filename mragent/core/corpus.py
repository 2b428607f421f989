"""The project's own corpus format, and its validation.

A corpus file is one JSON object::

    {
      "format": "mragent-corpus/1",
      "contents": [
        {"id": "acme-1", "text": "Acme was founded by Jane Roe.",
         "title": "Acme", "tags": ["Acme", "Jane Roe"], "source": "notes"}
      ],
      "links": [{"from": "Acme", "to": "Jane Roe", "weight": 0.9}],
      "questions": [
        {"id": "q1", "question": "Who founded Acme?", "answer": "Jane Roe",
         "aliases": ["J. Roe"], "supporting": ["acme-1"], "kind": "direct"}
      ]
    }

``contents`` is required (``id`` and ``text`` required; ``title``, ``tags``,
``cues``, ``source`` optional: tags and keyword cues not given are derived by
the extractor; an empty list means "none"). ``links`` adds
explicit Tag->Tag edges. ``questions`` is optional and used by ``mragent bench``;
``answerable: false`` marks a question whose correct outcome is abstention.

Validation reads the whole file before anything is written, and the first
problem ends it with a :class:`~mragent.core.errors.CorpusError` naming the file and
the record. Names (ids, titles, tags, cues, sources) are normalised (NFC, outer
whitespace stripped) and texts to NFC; a NUL, a control character in a name or
a lone surrogate is refused.
"""

from __future__ import annotations

import json
import re
import stat
import unicodedata
from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from mragent.core.errors import CorpusError
from mragent.core.paths import shipped

FORMAT = "mragent-corpus/1"
MAX_TEXT = 20_000
MAX_NAME = 200
MAX_NAMES = 1_000  # tags or cues given to one content
CONTENT_FIELDS = frozenset({"id", "text", "title", "tags", "cues", "source"})
LINK_FIELDS = frozenset({"from", "to", "weight"})
QUESTION_FIELDS = frozenset(
    {"id", "question", "answer", "aliases", "supporting", "kind", "answerable"}
)
MAX_FILE_BYTES = 512 * 1024 * 1024
NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Control characters (C0, DEL, C1) have no place in a name; text keeps \t and \n.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Content:
    """One memory item as read from a corpus."""

    key: str
    text: str
    title: str | None = None
    tags: tuple[str, ...] | None = None
    cues: tuple[str, ...] | None = None
    source: str | None = None


@dataclass(frozen=True)
class Question:
    """A question with its gold answer, for evaluation."""

    id: str
    question: str
    answers: tuple[str, ...]  # the answer first, then aliases
    supporting: tuple[str, ...] = ()
    kind: str = ""
    answerable: bool = True


@dataclass(frozen=True)
class Link:
    """An explicit Tag->Tag association."""

    src: str
    dst: str
    weight: float


@dataclass
class Corpus:
    """A validated corpus."""

    contents: list[Content]
    questions: list[Question] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    name: str = "corpus"


def validate_namespace(ns: str) -> str:
    """Return ``ns`` if it is a legal namespace name.

    Raises:
        CorpusError: naming the option and the allowed characters.
    """
    # fullmatch: `$` would also match before a trailing newline.
    if not isinstance(ns, str) or not NAMESPACE.fullmatch(ns):
        raise CorpusError(
            "--ns",
            None,
            f"namespace {ns!r} is invalid: use 1-64 of A-Z a-z 0-9 _ . - (starting alphanumeric)",
        )
    return ns


def clean_text(value: str, field: str) -> str:
    """A memory's text in canonical form (NFC), refused if it cannot be stored.

    Raises:
        ValueError: naming ``field``, for a NUL character or a lone surrogate.
    """
    _refuse_unstorable(value, field)
    return unicodedata.normalize("NFC", value)


def clean_name(value: str, field: str) -> str:
    """An id, title, tag, cue or source in canonical form: NFC, outer whitespace stripped.

    Two spellings of one name (``"d"`` and ``" d"``, composed and decomposed
    accents) become one, so they cannot make two nodes on one engine and one on
    another.

    Raises:
        ValueError: naming ``field``, for a control character or a lone surrogate,
            or a name that is empty once stripped.
    """
    _refuse_unstorable(value, field)
    if _CONTROL.search(value):
        raise ValueError(f"{field} contains a control character")
    cleaned = unicodedata.normalize("NFC", value).strip()
    if not cleaned:
        raise ValueError(f"{field} is empty")
    return cleaned


def checked_name(value: object, field: str, limit: int = MAX_NAME) -> str:
    """A name (id, title, tag, cue, source) as every write path stores it: a string,
    :func:`clean_name`'d, at most ``limit`` characters (the limits ingest applies).

    Raises:
        ValueError: naming ``field``.
    """
    return _bounded(clean_name(_string(value, field), field), field, limit)


def checked_body(value: object, field: str) -> str:
    """A free text (a memory's text, a question) as every write path stores it: a
    string, :func:`clean_text`'d, not blank, at most :data:`MAX_TEXT` characters.

    Raises:
        ValueError: naming ``field``.
    """
    text = _bounded(clean_text(_string(value, field), field), field, MAX_TEXT)
    if not text.strip():
        raise ValueError(f"{field} is empty")
    return text


def checked_names(values: object, field: str) -> tuple[str, ...]:
    """A list of names (tags, cues, aliases) each :func:`checked_name`'d, duplicates
    dropped in order; at most :data:`MAX_NAMES` of them.

    Raises:
        ValueError: naming ``field`` and the position.
    """
    if isinstance(values, str) or not isinstance(values, list | tuple):
        raise ValueError(f"{field} must be a list of strings, got {type(values).__name__}")
    if len(values) > MAX_NAMES:
        raise ValueError(f"{field} has {len(values)} entries (limit {MAX_NAMES})")
    cleaned = [checked_name(item, f"{field}[{i}]") for i, item in enumerate(values)]
    return tuple(dict.fromkeys(cleaned))


def _string(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{field} must be a string, got {type(value).__name__}")
    return value


def _bounded(value: str, field: str, limit: int) -> str:
    if len(value) > limit:
        raise ValueError(f"{field} is {len(value)} characters (limit {limit})")
    return value


def _refuse_unstorable(value: str, field: str) -> None:
    if "\x00" in value:
        raise ValueError(f"{field} contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{field} contains a lone surrogate (not Unicode text)") from None


class _Reader:
    """Field access that reports the file and record on every failure."""

    def __init__(
        self, path: str, where: str, record: Any, fields: frozenset[str] | None = None
    ) -> None:
        self.path, self.where = path, where
        if not isinstance(record, dict):
            self.fail(f"must be an object, got {type(record).__name__}")
        self.record: dict[str, Any] = record
        # The project's own format names every field: an unknown one is a typo
        # ("tag", "titel") that would otherwise be dropped without a word.
        unknown = sorted(set(record) - fields) if fields is not None else []
        if unknown:
            self.fail(f"unknown field {unknown[0]!r} (known: {', '.join(sorted(fields or ()))})")

    def fail(self, message: str) -> NoReturn:
        raise CorpusError(self.path, self.where, message)

    def text(self, key: str, limit: int = MAX_NAME) -> str:
        value = self.optional_text(key, limit)
        if value is None:
            self.fail(f"missing field {key!r}")
        return value

    def optional_text(self, key: str, limit: int = MAX_NAME) -> str | None:
        """A name-like field (id, title, source, ...): see :func:`checked_name`."""
        value = self.record.get(key)
        if value is None:
            return None
        try:
            return checked_name(value, f"field {key!r}", limit)
        except ValueError as exc:
            self.fail(str(exc))

    def body(self, key: str) -> str:
        """A free-text field (a memory's text, a question): see :func:`checked_body`."""
        value = self.record.get(key)
        if value is None:
            self.fail(f"missing field {key!r}")
        try:
            return checked_body(value, f"field {key!r}")
        except ValueError as exc:
            self.fail(str(exc))

    def names(self, key: str) -> tuple[str, ...] | None:
        value = self.record.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            self.fail(f"field {key!r} must be a list of strings")
        try:
            return checked_names(value, f"field {key!r}")
        except ValueError as exc:
            self.fail(str(exc))

    def number(self, key: str, default: float) -> float:
        value = self.record.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            self.fail(f"field {key!r} must be a number in [0, 1]")
        return float(value)


def check_input_file(path: Path) -> None:
    """Refuse an input that is no regular file or is too large, before it is opened:
    ``/dev/zero`` would be read forever and a FIFO would block the open.

    Raises:
        CorpusError: naming the file.
        OSError: when it cannot be examined (the caller names the file).
    """
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a device, FIFO or socket"
        raise CorpusError(str(path), None, f"is {kind}, not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise CorpusError(str(path), None, f"file is {info.st_size} bytes (limit {MAX_FILE_BYTES})")


def load_json(path: Path) -> Any:
    """Read a JSON file, turning every failure into a one-line CorpusError."""
    try:
        check_input_file(path)
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise CorpusError(str(path), None, f"file is over {MAX_FILE_BYTES} bytes")
    except OSError as exc:
        raise CorpusError(str(path), None, f"cannot read: {exc.strerror or exc}") from None
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise CorpusError(str(path), None, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise CorpusError(
            str(path), None, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise CorpusError(str(path), None, "JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise CorpusError(str(path), None, f"malformed JSON: {exc}") from None


class CorpusChecker:
    """Validates a corpus one record at a time, as a file is read (streamed or whole).

    Every name is normalised (:func:`clean_name`); an id that equals an earlier one
    once normalised is refused, naming both records.

    Args:
        path: The file, for error messages.
        distinct_ids: Whether to check that ids are distinct (and keep them, for the
            questions' supporting ids): False for a file read again, whose ids an
            earlier read found distinct. At a million contents they are 100 MB.
    """

    def __init__(self, path: str, distinct_ids: bool = True) -> None:
        self.path = path
        self.distinct_ids = distinct_ids
        self.keys: dict[str, int] = {}  # normalised id -> index of its record
        self._written: dict[int, str] = {}  # index -> the id as written, when it differed

    def check_format(self, value: Any) -> None:
        if value != FORMAT:
            raise CorpusError(self.path, None, f"format {value!r} is not {FORMAT!r}")

    def content(self, index: int, raw: Any) -> Content:
        """The validated content of ``contents[index]``."""
        r = _Reader(self.path, f"contents[{index}]", raw, CONTENT_FIELDS)
        key = r.text("id")
        if self.distinct_ids:
            self._distinct(r, index, key)
        return Content(
            key=key,
            text=r.body("text"),
            title=r.optional_text("title"),
            tags=r.names("tags"),
            cues=r.names("cues"),
            source=r.optional_text("source"),
        )

    def _distinct(self, r: _Reader, index: int, key: str) -> None:
        earlier = self.keys.get(key)
        if earlier is not None:
            written, first = r.record["id"], self._written.get(earlier, key)
            if written == first:
                r.fail(f"duplicate id {key!r} (also contents[{earlier}])")
            r.fail(
                f"duplicate id {written!r}: it is {key!r} once normalised (stripped, NFC), "
                f"the id of contents[{earlier}] ({first!r})"
            )
        self.keys[key] = index
        if r.record["id"] != key:
            self._written[index] = r.record["id"]

    def link(self, index: int, raw: Any) -> Link:
        r = _Reader(self.path, f"links[{index}]", raw, LINK_FIELDS)
        return Link(r.text("from"), r.text("to"), r.number("weight", 1.0))

    def questions(self, items: Any) -> list[Question]:
        """Validate the ``questions`` list (after every content was checked)."""
        assert self.distinct_ids or not items, "questions name ids: they need the ids kept"
        return parse_questions(items, self.path, self.keys)

    def finish(self, contents: int) -> None:
        if not contents:
            raise CorpusError(self.path, None, "'contents' must be a non-empty list")


def parse_corpus(data: Any, path: str = "<memory>") -> Corpus:
    """Validate decoded JSON in the project's format into a :class:`Corpus`."""
    if not isinstance(data, dict):
        raise CorpusError(path, None, "top level must be a JSON object with 'contents'")
    checker = CorpusChecker(path)
    checker.check_format(data.get("format", FORMAT))
    raw_contents = data.get("contents")
    if not isinstance(raw_contents, list):
        raise CorpusError(path, None, "'contents' must be a non-empty list")
    contents = [checker.content(i, raw) for i, raw in enumerate(raw_contents)]
    checker.finish(len(contents))
    raw_links = data.get("links") or []
    if not isinstance(raw_links, list):
        raise CorpusError(path, None, "'links' must be a list")
    links = [checker.link(i, raw) for i, raw in enumerate(raw_links)]
    questions = checker.questions(data.get("questions") or [])
    return Corpus(contents, questions, links, name=Path(path).stem)


def parse_questions(items: Any, path: str, content_keys: Container[str]) -> list[Question]:
    """Validate the ``questions`` list of a corpus."""
    if not isinstance(items, list):
        raise CorpusError(path, None, "'questions' must be a list")
    out = []
    ids: set[str] = set()
    for i, raw in enumerate(items):
        r = _Reader(path, f"questions[{i}]", raw, QUESTION_FIELDS)
        qid = r.text("id")
        if qid in ids:
            r.fail(f"duplicate question id {qid!r}")
        ids.add(qid)
        answerable = r.record.get("answerable", True)
        if not isinstance(answerable, bool):
            r.fail("field 'answerable' must be true or false")
        answer = r.optional_text("answer", limit=MAX_TEXT)
        if answerable and answer is None:
            r.fail("missing field 'answer' (required unless answerable is false)")
        aliases = r.names("aliases") or ()
        supporting = r.names("supporting") or ()
        for key in supporting:
            if key not in content_keys:
                r.fail(f"supporting id {key!r} is not a content id")
        out.append(
            Question(
                id=qid,
                question=r.body("question"),
                answers=((answer,) if answer else ()) + aliases,
                supporting=supporting,
                kind=r.optional_text("kind") or "",
                answerable=answerable,
            )
        )
    return out


def load_corpus(path: str | Path) -> Corpus:
    """Load and validate a corpus file in the project's format.

    The file is read as a stream (:mod:`mragent.core.corpus_stream`), the same
    reader ``mragent ingest`` uses, so both refuse the same files.
    """
    from mragent.core.corpus_stream import read_corpus

    return read_corpus(Path(path))


def reference_corpus_path() -> Path:
    """The reference corpus shipped with mragent."""
    return shipped("_corpus/reference.json", "corpus/reference.json")
