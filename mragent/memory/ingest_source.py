"""A corpus read in passes, so ingest works in bounded memory.

Edge weights need corpus-wide statistics (how often tags occur and co-occur,
how specific a keyword is) before the first batch can be built. A
:class:`CorpusSource` therefore reads its contents three times, holding only
the statistics between passes, never the contents:

1. **check**: validate every record (nothing is written on bad input), hash
   every text into the audit record's digest, keep the texts identical to a
   forgotten memory (matched against the namespace's few tombstones, so no
   hash of every text is held), and fit the extractor (word frequencies, titles);
2. **count**: extract each content and count tags, keywords and co-occurrences,
   spilling the extractions to an anonymous temporary file (compressed: 3.4 MB
   for a generated corpus of 100k contents);
3. **build**: read each batch's extractions back and yield self-contained batches
   of :data:`~mragent.memory.ingest.BATCH_SIZE` contents. Extracting again was about
   a fifth of the client's time in this pass, which runs beside the database's writes.

A file source streams the file each pass (:mod:`mragent.core.corpus_stream`)
and refuses to go on if a batch of a later pass reads differently from the first
pass (the file changed under it). A list source (a :class:`~mragent.core.corpus.Corpus`
already in memory) goes through the same passes.
"""

from __future__ import annotations

import hashlib
import marshal
import math
import pickle
import struct
import tempfile
import unicodedata
import zlib
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import IO, TYPE_CHECKING

from mragent.core.corpus import Content, Corpus, CorpusChecker, Link, Question
from mragent.core.corpus_stream import CheckedCorpus, checked_contents
from mragent.core.errors import CorpusError
from mragent.core.extract import Extraction, ExtractionModel, Extractor
from mragent.memory.pair_counts import PairCounts

if TYPE_CHECKING:
    from concurrent.futures import Future

PARALLEL_MIN = 20_000
"""The fewest contents a check pass extracts in worker processes (starting them costs
about half a second)."""


def text_hash(text: str) -> str:
    """Stable hash of a text (used for dedup, tombstones and the audit log)."""
    return hashlib.sha256(text.encode()).hexdigest()


def forget_key(text: str) -> str:
    """Hash of a text with its whitespace normalised (NFC, each run of whitespace one
    space, none at the ends): what a forgotten text is recognised by, so a trailing
    space or a re-wrapped line does not bring it back."""
    return text_hash(" ".join(unicodedata.normalize("NFC", text).split()))


@dataclass
class CorpusStats:
    """The corpus-wide counts link weights come from (filled by :meth:`add`).

    Tags are numbered as they are first seen, so their co-occurrences are counted
    as pairs of integers (:class:`PairCounts`), not tuples of strings: at a million
    contents the pairs were the largest thing an ingest held.
    """

    n: int = 0
    kw_df: Counter[str] = field(default_factory=Counter)
    _tag_ids: dict[str, int] = field(default_factory=dict, init=False)
    _tag_names: list[str] = field(default_factory=list, init=False)
    _tag_df: array[int] = field(default_factory=lambda: array("q"), init=False)
    _cooc: PairCounts = field(default_factory=PairCounts, init=False)

    def add(self, ex: Extraction) -> None:
        self.n += 1
        ids = [self._tag_id(tag) for tag in ex.tags]
        for tag_id in ids:
            self._tag_df[tag_id] += 1
        self.kw_df.update(ex.keywords)
        primary = self._tag_id(ex.primary)
        for other in ids[1:]:
            self._cooc.add(primary, other)

    def tag_df(self, tag: str) -> int:
        """How many contents carry ``tag``."""
        tag_id = self._tag_ids.get(tag)
        return 0 if tag_id is None else self._tag_df[tag_id]

    def cooc(self, primary: str, other: str) -> int:
        """How many contents have ``primary`` as their primary tag and ``other`` too."""
        a, b = self._tag_ids.get(primary), self._tag_ids.get(other)
        return 0 if a is None or b is None else self._cooc.count(a, b)

    def tag_number(self, tag: str) -> int | None:
        """The number ``tag`` was given when first counted (None: never counted)."""
        return self._tag_ids.get(tag)

    def tag_name(self, number: int) -> str:
        """The tag counted as ``number``."""
        return self._tag_names[number]

    @property
    def tags(self) -> int:
        """How many distinct tags were counted."""
        return len(self._tag_names)

    def _tag_id(self, tag: str) -> int:
        tag_id = self._tag_ids.setdefault(tag, len(self._tag_ids))
        if tag_id == len(self._tag_df):
            self._tag_df.append(0)
            self._tag_names.append(tag)
        return tag_id

    def idf(self, df: int) -> float:
        """Specificity in [0, 1]: 1 for a term in one content of many."""
        max_idf = math.log(1 + self.n)
        return math.log(1 + self.n / df) / max_idf if max_idf else 1.0


class NameMarks:
    """A set of names, most of them tags the corpus statistics counted: a byte per
    counted tag, and a set for the others (keyword cues, names only an explicit link
    gives). An ingest keeps two, the tags and the cue texts it wrote; as sets of
    strings they held a second copy of every name at a million contents.

    Args:
        stats: The finished statistics (names counted later are kept as others).
    """

    def __init__(self, stats: CorpusStats) -> None:
        self._stats = stats
        self._marks = bytearray(stats.tags)
        self._others: set[str] = set()

    def add(self, name: str) -> None:
        """Mark ``name``."""
        number = self._stats.tag_number(name)
        if number is None or number >= len(self._marks):
            self._others.add(name)
        else:
            self._marks[number] = 1

    def update(self, names: Iterable[str]) -> None:
        """Mark every one of ``names``."""
        for name in names:
            self.add(name)

    def __contains__(self, name: object) -> bool:
        number = self._stats.tag_number(name) if isinstance(name, str) else None
        if number is None or number >= len(self._marks):
            return name in self._others
        return bool(self._marks[number])

    def __len__(self) -> int:
        return self._marks.count(1) + len(self._others)

    def sorted(self) -> list[str]:
        """The marked names in sorted order."""
        counted = (self._stats.tag_name(i) for i, mark in enumerate(self._marks) if mark)
        return sorted([*counted, *self._others])


Handle = int | str
"""A node's handle (the ``handle`` fragment): an integer on FalkorDB and Memgraph, the
element id on Neo4j."""
_NO_HANDLE = -1  # no engine gives a node a negative integer id


class NameHandles(NameMarks):
    """Marked names with, once the database returned it, the handle of each one's node:
    integers in an array slot per counted tag (8 bytes each, 4 MB for the 543k tags of a
    million contents), other names and handles (Neo4j's are strings) in a dict.

    Args:
        stats: The finished statistics.
    """

    def __init__(self, stats: CorpusStats) -> None:
        super().__init__(stats)
        self._numbered = array("q", [_NO_HANDLE]) * stats.tags
        self._named: dict[str, Handle] = {}

    def hold(self, name: str, handle: Handle) -> None:
        """Keep ``handle`` as the handle of ``name``'s node."""
        number = self._stats.tag_number(name)
        if isinstance(handle, int) and number is not None and number < len(self._numbered):
            self._numbered[number] = handle
        else:
            self._named[name] = handle

    def handle(self, name: str) -> Handle | None:
        """The handle held for ``name`` (None: none yet)."""
        number = self._stats.tag_number(name)
        if number is not None and number < len(self._numbered):
            held = self._numbered[number]
            if held != _NO_HANDLE:
                return held
        return self._named.get(name)


@dataclass(frozen=True)
class Tombstones:
    """The text hashes of a namespace's forgotten memories, as the check pass matches them.

    Attributes:
        keys: Their :func:`forget_key` (whitespace normalised).
        hashes: The exact :func:`text_hash` of tombstones written before forget keys
            were kept (they have no key).
    """

    keys: frozenset[str] = frozenset()
    hashes: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.keys or self.hashes)


@dataclass
class CorpusScan:
    """What the check pass learned.

    Attributes:
        count: Contents in the corpus.
        digest: sha256 over the texts' hashes in order (the audit record's ``after``).
        hashes: text hash -> index of the first content holding that text, for the
            texts matching a legacy tombstone's hash (:class:`Tombstones`).
        keys: :func:`forget_key` -> index of the first content holding that text, for
            the texts matching a tombstone's key.
        links: The explicit Tag->Tag links.
        questions: The validated questions.
    """

    count: int = 0
    digest: str = ""
    hashes: dict[str, int] = field(default_factory=dict)
    keys: dict[str, int] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    batch_digests: list[str] = field(default_factory=list)


class CorpusSource:
    """A corpus that can be read again: from a file, or from a list in memory.

    Args:
        name: The corpus name (default ``source`` of its contents, audit target).
        contents: Returns a fresh iterator over the validated contents.
        batch_size: Contents per batch.
    """

    def __init__(
        self, name: str, contents: Callable[[], Iterator[Content]], batch_size: int
    ) -> None:
        self.name = name
        self._contents = contents
        self.batch_size = batch_size
        self.scan = CorpusScan()
        self._links: list[Link] | None = None
        self._model: ExtractionModel | None = None
        self._stats: CorpusStats | None = None
        self._extracted: IO[bytes] | None = None
        self._path: str | None = None

    @classmethod
    def of_corpus(cls, corpus: Corpus, batch_size: int) -> CorpusSource:
        """A source over a corpus already validated in memory."""
        source = cls(corpus.name, lambda: iter(corpus.contents), batch_size)
        source._links = list(corpus.links)
        source.scan.questions = list(corpus.questions)
        return source

    @classmethod
    def of_file(cls, path: Path, batch_size: int) -> CorpusSource:
        """A source streaming ``path`` on each pass."""
        # The passes after the first read it again; the batches' digests are compared
        # with the first read's (_same_batches), so any change is refused before its write.
        source = cls(path.stem, lambda: checked_contents(path, again=True), batch_size)
        source._path = str(path)
        return source

    def check(
        self, extractor: Extractor, forgotten: Tombstones | None = None, workers: int = 1
    ) -> CorpusScan:
        """Pass 1 and 2: validate everything, then gather the statistics.

        Args:
            forgotten: The tombstones the texts are matched against (none: nothing
                can match).
            workers: Processes extracting the contents of pass 2 (:func:`_extracted`),
                for a corpus of at least :data:`PARALLEL_MIN` contents; 1: this one.

        Raises:
            CorpusError: for the first invalid record, naming the file and record.
        """
        self.close()
        model = extractor.fit(self._checked(forgotten or Tombstones()))
        stats = CorpusStats()
        # Anonymous (unlinked at once, readable by this process only): gone with it.
        # Closed by batches() once read, or by close().
        self._extracted = spill = tempfile.TemporaryFile()  # noqa: SIM115
        if self.scan.count < PARALLEL_MIN:
            workers = 1
        for packed in _extracted(model, self._same_batches(), workers):
            for row in _unpacked(packed):
                stats.add(Extraction(*row))
            spill.write(_LENGTH.pack(len(packed)) + packed)
        spill.seek(0)
        self._model, self._stats = model, stats
        return self.scan

    def close(self) -> None:
        """Drop the extractions pass 2 spilled, if :meth:`batches` did not read them."""
        if self._extracted:
            self._extracted.close()
            self._extracted = None

    def _checked(self, forgotten: Tombstones) -> Iterator[Content]:
        """The contents of pass 1, recording the digests, the texts matching
        ``forgotten``, links and questions."""
        scan = self.scan
        digest = hashlib.sha256()
        contents = self._file_check(self._path) if self._path else self._contents()
        for batch in _chunks(contents, self.batch_size):
            for content in batch:
                hashed = text_hash(content.text)
                digest.update(("\n" if scan.count else "").encode() + hashed.encode())
                _match(scan, scan.count, content.text, hashed, forgotten)
                scan.count += 1
                yield content
            scan.batch_digests.append(_batch_digest(batch))
        scan.digest = digest.hexdigest()

    def match(self, forgotten: Tombstones) -> None:
        """Read the contents once more, recording in :attr:`scan` the texts matching
        ``forgotten`` (tombstones written since the check pass read them).

        Raises:
            CorpusError: when the contents differ from what the first pass read.
        """
        for number, batch in enumerate(self._same_batches()):
            for offset, content in enumerate(batch):
                index = number * self.batch_size + offset
                _match(self.scan, index, content.text, text_hash(content.text), forgotten)

    def _file_check(self, path: str) -> Iterator[Content]:
        """Every record of the file validated; contents yielded, links and questions kept."""
        kept = CheckedCorpus(CorpusChecker(path))
        yield from checked_contents(Path(path), kept)
        self.scan.questions = kept.questions
        self._links = kept.links

    def batches(self) -> Iterator[list[tuple[Content, Extraction]]]:
        """Pass 3: the contents with their extraction, one batch at a time (the
        extractions pass 2 spilled, the first time; extracted again after that).

        Raises:
            CorpusError: when a batch differs from what the first pass read.
        """
        model = self._model
        assert model is not None, "check() first"
        spill, self._extracted = self._extracted, None
        try:
            for batch in self._same_batches():
                extractions = (
                    _unspill(spill) if spill else [model.extract(content) for content in batch]
                )
                yield list(zip(batch, extractions, strict=True))
        finally:
            if spill:
                spill.close()

    def _same_batches(self) -> Iterator[list[Content]]:
        """The contents again, one batch at a time, each checked against the first pass.

        Raises:
            CorpusError: when a batch differs from what the first pass read.
        """
        for number, batch in enumerate(_chunks(self._contents(), self.batch_size)):
            known = self.scan.batch_digests
            if number >= len(known) or _batch_digest(batch) != known[number]:
                raise CorpusError(
                    self._path or self.name, None, "changed while it was being ingested"
                )
            yield batch

    @property
    def stats(self) -> CorpusStats:
        assert self._stats is not None, "check() first"
        return self._stats

    @property
    def links(self) -> list[Link]:
        return self._links or []


def _match(scan: CorpusScan, index: int, text: str, hashed: str, forgotten: Tombstones) -> None:
    """Record content ``index`` in ``scan`` if its text matches a tombstone."""
    if not forgotten:
        return
    if hashed in forgotten.hashes:
        scan.hashes.setdefault(hashed, index)
    if (key := forget_key(text)) in forgotten.keys:
        scan.keys.setdefault(key, index)


_LENGTH = struct.Struct("<I")


def _extracted(
    model: ExtractionModel, batches: Iterator[list[Content]], workers: int
) -> Iterator[bytes]:
    """Each batch's extractions, packed (:func:`_packed`), in order: made here, or by
    ``workers`` processes while this one reads and counts (the check pass is this
    process's alone: the database waits for it, and a second core would idle).

    Workers are spawned, not forked (the caller may run threads), each given the
    model once; at most two batches per worker are in flight, so memory stays bounded.
    """
    if workers <= 1:
        for batch in batches:
            yield _packed([model.extract(content) for content in batch])
        return
    # Imported here: a recall imports this module, and never starts a process.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    held = pickle.dumps(model)
    with ProcessPoolExecutor(workers, context, _hold_model, (held,)) as pool:
        pending: deque[Future[bytes]] = deque()
        for batch in batches:
            pending.append(pool.submit(_extract_packed, batch))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


_worker_model: ExtractionModel | None = None


def _hold_model(held: bytes) -> None:
    """A worker's start: the model it extracts with (pickled by its parent)."""
    global _worker_model
    _worker_model = pickle.loads(held)


def _extract_packed(batch: list[Content]) -> bytes:
    """A worker's task: one batch's extractions, packed."""
    assert _worker_model is not None, "_hold_model first"
    return _packed([_worker_model.extract(content) for content in batch])


def _packed(extractions: list[Extraction]) -> bytes:
    """One batch's extractions as spilled (marshal of plain tuples of strings, nothing
    that runs code when read back; zlib level 1)."""
    rows = [(e.primary, e.tags, e.keywords) for e in extractions]
    return zlib.compress(marshal.dumps(rows), 1)


def _unpacked(packed: bytes) -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """The rows :func:`_packed` packed."""
    rows: list[tuple[str, tuple[str, ...], tuple[str, ...]]] = marshal.loads(
        zlib.decompress(packed)
    )
    return rows


def _unspill(file: IO[bytes]) -> list[Extraction]:
    """The next batch's extractions the check pass spilled to ``file``."""
    (size,) = _LENGTH.unpack(file.read(_LENGTH.size))
    return [Extraction(*row) for row in _unpacked(file.read(size))]


def _chunks(items: Iterator[Content], size: int) -> Iterator[list[Content]]:
    while batch := list(islice(items, size)):
        yield batch


def _batch_digest(batch: list[Content]) -> str:
    digest = hashlib.sha256()
    for content in batch:
        digest.update(f"{content.key}\0{text_hash(content.text)}\0".encode())
    return digest.hexdigest()
