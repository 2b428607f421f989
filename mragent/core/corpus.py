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
the record.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from mragent.core.errors import CorpusError
from mragent.core.paths import shipped

FORMAT = "mragent-corpus/1"
MAX_TEXT = 20_000
MAX_NAME = 200
MAX_FILE_BYTES = 512 * 1024 * 1024
NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


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
    if not isinstance(ns, str) or not NAMESPACE.match(ns):
        raise CorpusError(
            "--ns",
            None,
            f"namespace {ns!r} is invalid: use 1-64 of A-Z a-z 0-9 _ . - (starting alphanumeric)",
        )
    return ns


class _Reader:
    """Field access that reports the file and record on every failure."""

    def __init__(self, path: str, where: str, record: Any) -> None:
        self.path, self.where = path, where
        if not isinstance(record, dict):
            self.fail(f"must be an object, got {type(record).__name__}")
        self.record: dict[str, Any] = record

    def fail(self, message: str) -> NoReturn:
        raise CorpusError(self.path, self.where, message)

    def text(self, key: str, limit: int = MAX_NAME) -> str:
        value = self.optional_text(key, limit)
        if value is None:
            self.fail(f"missing field {key!r}")
        return value

    def optional_text(self, key: str, limit: int = MAX_NAME) -> str | None:
        value = self.record.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(f"field {key!r} must be a string, got {type(value).__name__}")
        if not value.strip():
            self.fail(f"field {key!r} is empty")
        if len(value) > limit:
            self.fail(f"field {key!r} is {len(value)} characters (limit {limit})")
        return value

    def names(self, key: str) -> tuple[str, ...] | None:
        value = self.record.get(key)
        if value is None:
            return None
        if not isinstance(value, list):
            self.fail(f"field {key!r} must be a list of strings")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                self.fail(f"field {key!r}[{i}] must be a non-empty string")
            if len(item) > MAX_NAME:
                self.fail(f"field {key!r}[{i}] is {len(item)} characters (limit {MAX_NAME})")
        return tuple(item.strip() for item in value)

    def number(self, key: str, default: float) -> float:
        value = self.record.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            self.fail(f"field {key!r} must be a number in [0, 1]")
        return float(value)


def load_json(path: Path) -> Any:
    """Read a JSON file, turning every failure into a one-line CorpusError."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise CorpusError(str(path), None, f"file is {size} bytes (limit {MAX_FILE_BYTES})")
        raw = path.read_bytes()
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


def parse_corpus(data: Any, path: str = "<memory>") -> Corpus:
    """Validate decoded JSON in the project's format into a :class:`Corpus`."""
    if not isinstance(data, dict):
        raise CorpusError(path, None, "top level must be a JSON object with 'contents'")
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise CorpusError(path, None, f"format {fmt!r} is not {FORMAT!r}")
    raw_contents = data.get("contents")
    if not isinstance(raw_contents, list) or not raw_contents:
        raise CorpusError(path, None, "'contents' must be a non-empty list")
    contents: list[Content] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_contents):
        r = _Reader(path, f"contents[{i}]", raw)
        key = r.text("id")
        if key in seen:
            r.fail(f"duplicate id {key!r}")
        seen.add(key)
        contents.append(
            Content(
                key=key.strip(),
                text=r.text("text", limit=MAX_TEXT),
                title=r.optional_text("title"),
                tags=r.names("tags"),
                cues=r.names("cues"),
                source=r.optional_text("source"),
            )
        )
    links = []
    for i, raw in enumerate(data.get("links") or []):
        r = _Reader(path, f"links[{i}]", raw)
        links.append(Link(r.text("from"), r.text("to"), r.number("weight", 1.0)))
    questions = parse_questions(data.get("questions") or [], path, seen)
    return Corpus(contents, questions, links, name=Path(path).stem)


def parse_questions(items: Any, path: str, content_keys: set[str]) -> list[Question]:
    """Validate the ``questions`` list of a corpus."""
    if not isinstance(items, list):
        raise CorpusError(path, None, "'questions' must be a list")
    out = []
    ids: set[str] = set()
    for i, raw in enumerate(items):
        r = _Reader(path, f"questions[{i}]", raw)
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
                question=r.text("question", limit=MAX_TEXT),
                answers=((answer,) if answer else ()) + aliases,
                supporting=supporting,
                kind=r.optional_text("kind") or "",
                answerable=answerable,
            )
        )
    return out


def load_corpus(path: str | Path) -> Corpus:
    """Load and validate a corpus file in the project's format."""
    path = Path(path)
    return parse_corpus(load_json(path), str(path))


def reference_corpus_path() -> Path:
    """The reference corpus shipped with mragent."""
    return shipped("_corpus/reference.json", "corpus/reference.json")
