"""Reading a corpus file as a stream: one record at a time, in bounded memory.

:func:`corpus_records` parses the file with ijson and yields each record of
``contents``, ``links`` and ``questions`` as soon as it is complete, so a
100,000-content file is never held whole. It is the only reader of corpus
files: :func:`read_corpus` collects its records into a
:class:`~mragent.core.corpus.Corpus`, and ingest reads the file through it
twice (statistics, then batches).

Every failure is one :class:`~mragent.core.errors.CorpusError` line naming the
file (and the record where there is one): malformed JSON, bytes that are not
UTF-8, nesting deeper than :data:`MAX_DEPTH`, a number too large to represent,
a top-level key given twice.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import ijson

from mragent.core.corpus import (
    MAX_FILE_BYTES,
    Content,
    Corpus,
    CorpusChecker,
    Link,
    Question,
    check_input_file,
)
from mragent.core.errors import CorpusError

MAX_DEPTH = 32
SECTIONS = ("contents", "links", "questions")
_CHUNK = 1 << 16
# yajl (ijson's C backend) turns a lone high-surrogate escape such as \ud800 into
# "?" instead of failing; a file with surrogate escapes is parsed by ijson's
# pure-Python backend, which keeps them, so validation can refuse a lone one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_STARTS = frozenset({"start_map", "start_array"})
_ENDS = frozenset({"end_map", "end_array"})


@dataclass(frozen=True)
class Record:
    """One record of a corpus file.

    Attributes:
        section: ``contents``, ``links``, ``questions`` or ``format``.
        index: Position in its section (0 for ``format``).
        value: The decoded JSON value.
    """

    section: str
    index: int
    value: Any


class _Hashing:
    """A binary file wrapper that hashes every byte read (to see a file change)."""

    def __init__(self, handle: IO[bytes], name: str) -> None:
        self._handle = handle
        self.name = name
        self.total = 0
        self.sha256 = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self._handle.read(size)
        self.sha256.update(data)
        self.total += len(data)
        if self.total > MAX_FILE_BYTES:
            # A file that grows while it is read is bounded too, not only by its stat.
            raise CorpusError(self.name, None, f"file is over {MAX_FILE_BYTES} bytes")
        return data


def _backend(path: Path) -> Any:
    tail = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            if _SURROGATE_ESCAPE.search(tail + chunk):
                return ijson.get_backend("python")
            tail = chunk[-5:]
    return ijson


def _message(path: Path, exc: Exception) -> str:
    """One line for a parse error: where Python's own parser places it, else the
    first line of ijson's message (yajl adds the input and a caret, no position).

    Python's parser reads the whole file, but only here, for a file already refused.
    """
    try:
        json.loads(path.read_bytes())
    except json.JSONDecodeError as located:
        return f"malformed JSON at line {located.lineno} column {located.colno}: {located.msg}"
    except (OSError, ValueError, RecursionError):
        pass
    text = str(exc)
    if text.startswith(("b'", 'b"')):
        text = text[2:-1].replace("\\n", "\n")
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    if "invalid bytes in UTF8" in first or isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    return f"malformed JSON: {first}"


def corpus_records(path: Path, digest: list[str] | None = None) -> Iterator[Record]:
    """Yield the records of a corpus file in file order.

    Args:
        path: The corpus file.
        digest: When given, receives the sha256 hex of the bytes read, once the
            whole file was read.

    Raises:
        CorpusError: naming the file, for anything that is not a corpus object.
    """
    name = str(path)
    try:
        check_input_file(path)
        backend = _backend(path)
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the generator
    except OSError as exc:
        raise CorpusError(name, None, f"cannot read: {exc.strerror or exc}") from None
    with handle:
        hashing = _Hashing(handle, name)
        try:
            yield from _records(name, backend.parse(hashing, use_float=True))
        except CorpusError:
            raise
        except (ijson.JSONError, ValueError, UnicodeError, OverflowError) as exc:
            raise CorpusError(name, None, _message(path, exc)) from None
        if digest is not None:
            digest.append(hashing.sha256.hexdigest())


def _records(name: str, events: Iterator[tuple[str, str, Any]]) -> Iterator[Record]:
    """Turn ijson events into records: depth-checked, one value built at a time."""
    depth = 0
    # The keys seen so far in each object being read, innermost last: a key given
    # twice would otherwise keep only its last value, silently.
    maps: list[set[str] | None] = []
    key = ""  # the current top-level key
    builder: Any = None
    counts = dict.fromkeys(SECTIONS, 0)
    for prefix, event, value in events:
        if event in _STARTS:
            depth += 1
            if depth > MAX_DEPTH:
                raise CorpusError(name, None, f"JSON nested deeper than {MAX_DEPTH} levels")
            maps.append(set() if event == "start_map" else None)
        elif event in _ENDS:
            depth -= 1
            maps.pop()
        if prefix == "" and event not in ("start_map", "end_map", "map_key"):
            raise CorpusError(name, None, "top level must be a JSON object with 'contents'")
        if event == "map_key":
            _once(name, maps[-1], value, depth, key, counts)
        if depth == 1 and event == "map_key":
            key = value
            continue
        if prefix == key and key in SECTIONS and depth <= 2:
            if event in ("start_array", "end_array") or (event == "null" and key != "contents"):
                continue
            raise CorpusError(name, None, f"{key!r} must be a list")
        section_item = key in SECTIONS and prefix == f"{key}.item"
        whole_value = key == "format" and prefix == "format"
        if not (section_item or whole_value) and builder is None:
            continue  # inside an unknown top-level key: parsed, depth-checked, skipped
        if builder is None:
            builder = ijson.ObjectBuilder()
        builder.event(event, value)
        level = 2 if section_item else 1
        if depth == level and event not in _STARTS:
            if section_item:
                yield Record(key, counts[key], builder.value)
                counts[key] += 1
            else:
                yield Record("format", 0, builder.value)
            builder = None


def _once(
    name: str, keys: set[str] | None, value: str, depth: int, section: str, counts: dict
) -> None:
    """Note ``value`` as a key of the object being read; refuse it the second time."""
    assert keys is not None  # a map_key event is always inside an object
    if value in keys:
        if depth == 1:
            raise CorpusError(name, None, f"top-level key {value!r} appears twice")
        where = f"{section}[{counts[section]}]" if section in counts else section
        raise CorpusError(name, where, f"key {value!r} appears twice in one object")
    keys.add(value)


@dataclass
class CheckedCorpus:
    """What :func:`checked_contents` keeps besides the contents it yields."""

    checker: CorpusChecker
    links: list[Link] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def checked_contents(
    path: Path, kept: CheckedCorpus | None = None, *, again: bool = False
) -> Iterator[Content]:
    """Yield the validated contents of a corpus file; links and questions go to ``kept``.

    The questions are checked once the contents are (they name content ids), so
    they are in ``kept`` only when the generator is exhausted.

    Args:
        again: The file was read whole before, and the caller checks that it has not
            changed since (as an ingest compares its batches' digests): its ids, found
            distinct then, are not kept again, nor are its questions read.

    Raises:
        CorpusError: naming the file and record.
    """
    kept = kept or CheckedCorpus(CorpusChecker(str(path), distinct_ids=not again))
    checker = kept.checker
    questions: list[Any] = []
    count = 0
    for record in corpus_records(path):
        if record.section == "contents":
            yield checker.content(record.index, record.value)
            count += 1
        elif record.section == "links":
            kept.links.append(checker.link(record.index, record.value))
        elif record.section == "questions":
            if not again:
                questions.append(record.value)
        else:
            checker.check_format(record.value)
    checker.finish(count)
    kept.questions = checker.questions(questions)


def read_corpus(path: Path) -> Corpus:
    """Read and validate a whole corpus file into memory (bench, evolve, explain).

    Raises:
        CorpusError: naming the file and record.
    """
    kept = CheckedCorpus(CorpusChecker(str(path)))
    contents = list(checked_contents(path, kept))
    return Corpus(contents, kept.questions, kept.links, name=path.stem)
