"""A memory: one namespace in one graph store, read by reconstruction, as it is now.

:class:`MemoryReader` holds what a question needs besides the database: a
:class:`~mragent.memory.live_index.LiveIndex` of the namespace's cues and
contents (dense and sparse cue search, passage BM25), tied to the namespace
version it reflects. It starts from the newest persisted copy (or builds one
from the database once), then follows the change feed: never a copy of the
namespace per process.

:meth:`MemoryReader.reconstruct` proposes entry candidates from its indexes and
sends them in ONE round trip (``traverse.cypher``) that checks the namespace
version, confirms each candidate under the read view, traverses, walks the
bridges and returns the key, title and text of every content handed back. If
the version the database read differs from the reader's, the reader applies the
change feed and answers again (at most :data:`MAX_RETRIES` times), so a write
followed by a recall is reflected in the next round trip; and since every
content handed to synthesis comes from that round trip, a forgotten, rejected,
superseded or out-of-scope text can never come from a stale index.
"""

from __future__ import annotations

import logging
import math
import os
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mragent.core.embedding import Embedder, EmbedderIdentity
from mragent.core.errors import NamespaceMissing
from mragent.core.genome import Genome, default_genome
from mragent.core.retrieval.abstention import AbstentionRule
from mragent.core.retrieval.blend import blend, bridge_walk
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.retrieval.evidence import Evidence, profile, uncovered
from mragent.core.retrieval.extractive import ExtractiveSynthesizer
from mragent.core.retrieval.passages import Scored, merge_cues
from mragent.core.retrieval.reconstruct import Candidate, Provenance, Traversal, traverse
from mragent.core.retrieval.rerank import Ranked, rerank
from mragent.core.retrieval.rounds import Population
from mragent.core.retrieval.synthesis import Answer, Context, Synthesizer, assemble
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.memory import index_files, rounds
from mragent.memory.live_index import LiveIndex
from mragent.memory.space import check_space, space_embedder

MAX_RETRIES = 3  # answers again after a concurrent write, at most this often
STANDBY = 4  # entry candidates beyond cueK, for those the database refuses
LOG = logging.getLogger(__name__)
BESIDE_MIN = 250_000
"""Contents from which a question's passage scoring runs in a worker thread beside its
cue search. Both score every document sharing a word with the question (at a million
contents, 114k content and 21k cue postings on average), mostly in numpy calls that
release the GIL, so on a second core they overlap: at a million contents 0.7 ms of
5.9 saved (2.2 of 9.9 before common terms' scoring was kept), none at 100k, where the
handoff costs what it saves."""
_worker: tuple[int, ThreadPoolExecutor] | None = None


def _beside_worker() -> ThreadPoolExecutor:
    """This process's pool for passage scoring (a forked child makes its own: the
    parent's threads do not exist in it, though its pool would count them idle)."""
    global _worker
    if _worker is None or _worker[0] != os.getpid():
        _worker = (os.getpid(), ThreadPoolExecutor(thread_name_prefix="mragent-passages"))
    return _worker[1]


@dataclass
class Reconstruction:
    """Everything one question's reconstruction produced and cost."""

    question: str
    cues: list[CueHit]
    candidates: list[Candidate]
    ranked: list[Ranked]
    context: Context
    answer: Answer
    timings_ms: dict[str, float] = field(default_factory=dict)
    cue_work: int = 0
    bridge_work: int = 0
    version: int = 0
    evidence: dict[str, float] = field(default_factory=dict)  # the evidence profile
    round_trips: int = 1  # traversal round trips of the answer's attempt (one per round)
    round_work: int = 0  # graph elements of later rounds' paths to contents already reached
    records: dict[str, Provenance] = field(default_factory=dict)  # when asked: by content id

    @property
    def retrieved_keys(self) -> list[str]:
        """Content keys in final rank order (the whole reranked pool)."""
        return [r.candidate.key for r in self.ranked]

    @property
    def hops(self) -> int:
        """Deepest LINKED_TO hop count among the contents handed to synthesis."""
        return max((r.candidate.hops for r in self.context.items), default=0)

    @property
    def work(self) -> int:
        """Deterministic cost: HNSW beam width, graph elements on surviving paths (of
        every round) and on the bridge walk's patterns."""
        graph = sum(c.elements for c in self.candidates)
        return self.cue_work + graph + self.bridge_work + self.round_work

    @property
    def latency_ms(self) -> float:
        return sum(self.timings_ms.values())


class MemoryReader:
    """Reads one namespace by reconstruction.

    Args:
        store: An open graph store.
        ns: The namespace.
        embedder: Must match the namespace's stamp (default: the stamped one).
        synthesizer: Defaults to the extractive synthesizer.
        abstention: A fitted rule that decides, on each reconstruction's evidence
            profile, whether to answer at all (default: the genome's coverage rule,
            :func:`~mragent.core.retrieval.evidence.uncovered` with
            ``abstainCoverage`` and ``abstainNames``); the synthesizer is asked only
            when it does not abstain.
        view: Scopes, trust states and record time read (default: the shared
            scope, accepted memories, now). Forgotten, rejected, superseded and
            out-of-scope memories are in no retrieval path: every entry cue, passage
            seed, traversed and bridged content is confirmed under this view by the
            database in the question's own round trip.
        index_dir: Where index copies are persisted (default
            :func:`~mragent.memory.index_files.index_dir`); None there disables it.

    Attributes:
        version: The namespace version the reader's indexes reflect.
        default_genome: The genome a question is answered with when none is given.
    """

    def __init__(
        self,
        store: GraphStore,
        ns: str,
        embedder: Embedder | None = None,
        synthesizer: Synthesizer | None = None,
        view: ReadView | None = None,
        index_dir: Path | None = None,
        abstention: AbstentionRule | None = None,
    ) -> None:
        self.store, self.ns = store, ns
        self.abstention = abstention
        self.view = view or ReadView()
        self.index_dir = index_dir or index_files.index_dir()
        space = self._space_row()
        self.embedder = space_embedder(ns, space, embedder, "read")
        self.identity: EmbedderIdentity = self.embedder.identity
        self.default_genome = default_genome(self.identity.lexical)
        self._mask_key: tuple[LiveIndex | None, int] = (None, -1)
        self._mask_until = 0.0
        self._mask_cache: tuple[np.ndarray, np.ndarray] = (np.zeros(0, bool), np.zeros(0, bool))
        self._population: tuple[tuple[LiveIndex | None, int], Population | None] = (
            (None, -1),
            None,
        )
        found = index_files.load(space, ns, self.view.scopes, self.identity, self.index_dir)
        self.index = found or LiveIndex.empty(ns, self.view.scopes, self.identity)
        self._sync(space)
        self.synthesizer = synthesizer or ExtractiveSynthesizer(self.idf)

    @property
    def version(self) -> int:
        return self.index.version

    def _space_row(self) -> dict:
        rows = self.store.run("get_space", {"ns": self.ns})
        if not rows:
            raise NamespaceMissing(
                f"namespace {self.ns!r} holds no memories (ingest something first)"
            )
        return rows[0]

    def _space(self) -> dict:
        space = self._space_row()
        check_space(self.ns, space, self.identity, "read")
        return space

    def _sync(self, space: dict) -> None:
        if self.index.stale(space):
            self.index = LiveIndex.empty(self.ns, self.view.scopes, self.identity)
        full = self.index.version < 0
        self.index.refresh(self.store, space)
        if full or self.index.unsaved >= index_files.SAVE_AFTER:
            try:
                index_files.save(self.index, self.index_dir)
            except OSError as exc:  # a copy only saves the next reader a rebuild
                LOG.warning("index copy not saved under %s: %s", self.index_dir, exc)

    def refresh(self) -> int:
        """Bring the indexes to the namespace's current version (the change feed).

        Returns:
            The version now reflected.

        Raises:
            NamespaceMissing: when the namespace is gone.
            MigrationInProgress, EmbeddingMismatch: when it is being re-embedded, or
                now stamps another embedder.
        """
        self._sync(self._space())
        return self.index.version

    def idf(self, word: str) -> float:
        """Rarity of a word among the contents this reader sees (unknown: rarest)."""
        return self.index.passages.idf(word, self._masks()[1])

    def _masks(self) -> tuple[np.ndarray, np.ndarray]:
        """The cue and content slots the view admits, computed once per index version
        (and again when the clock passes a record or trust time of a view read now)."""
        index, now = self.index, time.time()
        held, version = self._mask_key
        if held is not index or version != index.version or now >= self._mask_until:
            cues = index.cues.admitted(self.view.scopes)
            contents = index.passages.admitted(self.view, now)
            self._mask_cache = (cues, contents)
            self._mask_key = (index, index.version)
            fixed = self.view.as_of is not None
            self._mask_until = math.inf if fixed else index.passages.next_change(now)
        return self._mask_cache

    def snapshot(self) -> list[dict]:
        """Every content of the view as rows (``content_snapshot``): a full copy, for
        flat baselines only; reconstruction never takes one."""
        return self.store.run("content_snapshot", {"ns": self.ns, **self.view.params()})

    def candidates(
        self,
        question: str,
        genome: Genome,
        native_vector_index: bool = False,
        vector: np.ndarray | None = None,
    ) -> tuple[list[CueHit], object]:
        """Entry candidates (cue hits and passage seeds, merged, best first) and the
        question's passage relevance, from the reader's indexes (``vector``: the
        question's query embedding, when already computed)."""
        index = self.index
        if vector is None:
            vector = self.embedder.embed_queries([question])[0]
        cue_mask, content_mask = self._masks()
        dense = None
        if native_vector_index:
            dense = index.cues.native_dense(self.store, self.ns, self.view.scopes, vector, cue_mask)
        want = genome.cueK + STANDBY
        beside: Future[Scored] | None = None
        if genome.rounds == 1 and len(index.passages.ids) >= BESIDE_MIN:
            scoring = index.passages.entry
            beside = _beside_worker().submit(scoring, question, vector, content_mask, genome)
        found = index.cues.search(question, vector, genome, cue_mask, want, dense)
        if genome.rounds > 1:
            state = rounds.start(index, question, vector, self._masks(), self.population(), genome)
            seeds = rounds.seed_hits(state, index, cue_mask, state.pool[: 2 * genome.cueK])
            return merge_cues(found, seeds)[: genome.cueK + want], state
        if beside is not None:
            scored = beside.result()
        else:
            scored = index.passages.entry(question, vector, content_mask, genome)
        seeds = scored.seeds(genome.cueK, index.cues, cue_mask)
        return merge_cues(found, seeds)[: genome.cueK + want], scored.relevance()

    def population(self) -> Population:
        """The sample of admitted passage vectors later rounds' z-scores are taken over
        (drawn once per index version)."""
        key = (self.index, self.index.version)
        held, sample = self._population
        if held != key or sample is None:
            passages = self.index.passages
            present = passages.dense.present[: len(passages.ids)]
            slots = np.flatnonzero(self._masks()[1][: len(present)] & present)
            # In key order: the sample, and the float sums over it, are the same whatever
            # order the engine stored the contents in.
            by_key = np.argsort(np.asarray([passages.keys[int(s)] for s in slots]), kind="stable")
            sample = Population.of(passages.dense.vectors, slots[by_key])
            self._population = (key, sample)
        return sample

    def reconstruct(
        self,
        question: str,
        genome: Genome | None = None,
        native_vector_index: bool = False,
        vector: np.ndarray | None = None,
        provenance: bool = False,
    ) -> Reconstruction:
        """Answer ``question`` by cue search, traversal, rerank and synthesis.

        Args:
            question: The question.
            genome: The pipeline's parameters (default: the namespace's,
                :attr:`default_genome`: ``real-model`` for a namespace stamped with a
                real model, ``default`` for the hashing embedder).
            native_vector_index: Take dense cue candidates from the database's
                vector index instead of the in-process HNSW index.
            vector: The question's query embedding, when the caller computed it
                already (evolution embeds its questions once per run).
            provenance: Read every returned content's provenance in the same round
                trips (:attr:`Reconstruction.records`), for a caller that shows it.

        Raises:
            NamespaceMissing: when the namespace was deleted since the reader was built.
        """
        genome = genome or self.default_genome
        start = time.perf_counter()
        if vector is None:
            vector = self.embedder.embed_queries([question])[0]  # once, for every attempt
        timings: dict[str, float] = {
            "embed": (time.perf_counter() - start) * 1000,
            "cue_search": 0.0,
            "traversal": 0.0,
        }
        found: Traversal | None = None
        for attempt in range(MAX_RETRIES + 1):
            start = time.perf_counter()
            proposed, relevance = self.candidates(question, genome, native_vector_index, vector)
            mark = time.perf_counter()
            timings["cue_search"] += (mark - start) * 1000
            found = traverse(self.store, self.ns, self.view, proposed, genome, records=provenance)
            if found is None:
                raise NamespaceMissing(f"namespace {self.ns!r} no longer exists")
            if isinstance(relevance, rounds.RoundsState):
                handing = {hit.id: [hit.seed] for hit in found.entries if hit.seed}
                rounds.absorb(relevance, found, handing)
                # A stale first round is answered again: no later round from it, unless
                # it is the last attempt.
                if self._current(found, relevance) or attempt == MAX_RETRIES:
                    rounds.later_rounds(
                        relevance, self.store, self.ns, self.view, self.index, question,
                        self._masks()[0], genome, provenance,
                    )  # fmt: skip
            timings["traversal"] += (time.perf_counter() - mark) * 1000
            if self._current(found, relevance):
                break
            if attempt < MAX_RETRIES:
                self.refresh()  # a write landed: read what changed, answer again
        assert found is not None  # the loop ran at least once
        return self._synthesise(question, genome, found, relevance, timings)

    def _current(self, found: Traversal, relevance: object) -> bool:
        """Whether every round trip read the version the reader's indexes reflect."""
        trips = [found]
        if isinstance(relevance, rounds.RoundsState):
            trips += relevance.traversals
        held = (self.index.uid, self.index.version)
        return all((trip.uid, trip.version) == held for trip in trips)

    def _synthesise(
        self,
        question: str,
        genome: Genome,
        found: Traversal,
        relevance: object,
        timings: dict[str, float],
    ) -> Reconstruction:
        mark = time.perf_counter()
        walk = bridge_walk(found.seeds, genome.traversalDepth, found.bridges)
        candidates, extra, trips, later = found.candidates, walk.extra, 1, 0
        records = dict(found.records)
        if isinstance(relevance, rounds.RoundsState):
            for later_trip in relevance.traversals:
                records.update(later_trip.records)
            candidates, extra = rounds.merged(relevance, walk.extra)
            trips = len(relevance.traversals)
            # Rows a later round walked to a content an earlier one returned cost work too.
            walked = sum(c.elements for t in relevance.traversals for c in t.candidates)
            later = walked - sum(c.elements for c in candidates)
            relevance = relevance.chains.scaled()
        entries = {hit.id: hit.score for hit in found.entries}
        ranked = blend(
            rerank(candidates, genome.rerank, entries, genome.damping),
            relevance,  # type: ignore[arg-type]
            walk.scores,
            extra,
            max(len(candidates), genome.maxContent * 2),
            genome,
        )
        context = assemble(ranked, genome.promptStrategy, genome.maxContent)
        evidence = profile(Evidence(question, found.entries, ranked, context, self.idf))
        if self.abstention is not None:
            abstains = self.abstention.abstains(evidence)
        else:
            # Read off the profile just computed: no second pass over the context.
            abstains = uncovered(evidence, genome.abstainCoverage, genome.abstainNames)
        answer = Answer(None) if abstains else self.synthesizer.answer(question, context)
        timings["synthesis"] = (time.perf_counter() - mark) * 1000
        return Reconstruction(
            question,
            found.entries,
            candidates,
            ranked,
            context,
            answer,
            timings,
            cue_work=genome.efSearch,
            bridge_work=walk.elements,
            version=found.version,
            evidence=evidence,
            round_trips=trips,
            round_work=later,
            records=records,
        )
