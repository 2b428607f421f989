"""A memory: one namespace in one graph store, read by reconstruction.

:class:`Memory` owns what a question needs besides the database: the cue
index snapshot and word rarities. :meth:`Memory.reconstruct` runs the three
stages and returns a :class:`Reconstruction` with per-stage wall times and the
deterministic work count.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field

from mragent.core.embedding import Embedder, EmbedderIdentity
from mragent.core.errors import MragentError
from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit, CueIndex
from mragent.core.retrieval.extractive import ExtractiveSynthesizer
from mragent.core.retrieval.passage_entry import DensePassages, fused_passages
from mragent.core.retrieval.passages import PassageSeeder, blend, merge_cues
from mragent.core.retrieval.reconstruct import Candidate, ContentTexts, traverse
from mragent.core.retrieval.rerank import Ranked, rerank
from mragent.core.retrieval.synthesis import Answer, Context, Synthesizer, assemble
from mragent.core.store.base import GraphStore
from mragent.core.text import content_words
from mragent.core.view import ReadView
from mragent.memory.space import space_embedder


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
        """Deterministic cost: HNSW beam width, graph elements on surviving paths and
        on the bridge walk's patterns."""
        return self.cue_work + sum(c.elements for c in self.candidates) + self.bridge_work

    @property
    def latency_ms(self) -> float:
        return sum(self.timings_ms.values())


class Memory:
    """Reads one namespace by reconstruction.

    Args:
        store: An open graph store.
        ns: The namespace.
        embedder: Must match the namespace's stamp (default: the stamped one).
        synthesizer: Defaults to the extractive synthesizer.
        view: Scopes, trust states and record time read (default: the shared
            scope, accepted memories, now). Forgotten, rejected, superseded and
            out-of-scope memories are in no retrieval path: cue search, passage
            seeding, traversal, bridge walk and the flat baselines all read
            through this view.
    """

    def __init__(
        self,
        store: GraphStore,
        ns: str,
        embedder: Embedder | None = None,
        synthesizer: Synthesizer | None = None,
        view: ReadView | None = None,
    ) -> None:
        self.store, self.ns = store, ns
        self.view = view or ReadView()
        rows = store.run("get_space", {"ns": ns})
        if not rows:
            raise MragentError(f"namespace {ns!r} holds no memories (ingest something first)")
        self.embedder = space_embedder(ns, rows[0], embedder, "read")
        self.identity: EmbedderIdentity = self.embedder.identity
        self.cue_index = CueIndex.from_store(store, ns, self.embedder, self.view)
        self.contents = store.run("content_snapshot", {"ns": ns, **self.view.params()})
        self.texts = ContentTexts(self.contents)
        self.passages = PassageSeeder(self.contents, self.cue_index)
        self.dense_passages = DensePassages(self.contents, self.identity.dimension)
        df: Counter[str] = Counter()
        for row in self.contents:
            df.update(set(content_words(f"{row['title'] or ''} {row['text']}")))
        n = max(1, len(self.contents))
        self._idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self._unknown_idf = math.log(1 + n)
        self.synthesizer = synthesizer or ExtractiveSynthesizer(self.idf)

    def idf(self, word: str) -> float:
        """Rarity of a word among this memory's contents (unknown: rarest)."""
        return self._idf.get(word, self._unknown_idf)

    def reconstruct(
        self, question: str, genome: Genome, native_vector_index: bool = False
    ) -> Reconstruction:
        """Answer ``question`` by cue search, traversal, rerank and synthesis.

        Args:
            question: The question.
            genome: The pipeline's parameters.
            native_vector_index: Take dense cue candidates from the database's
                vector index instead of the in-process HNSW index.
        """
        timings: dict[str, float] = {}
        start = time.perf_counter()
        vector = self.embedder.embed_queries([question])[0]
        mark = time.perf_counter()
        timings["embed"], start = (mark - start) * 1000, mark
        if native_vector_index:
            dense = self.cue_index.native_dense(self.store, self.ns, self.view.scopes, vector)
        else:
            dense = self.cue_index.dense(vector, genome.efSearch)
        cues = self.cue_index.search(question, genome, dense)
        entry = fused_passages(
            self.passages.bm25.scores(question), self.dense_passages, vector, genome
        )
        seeds = self.passages.seeds(question, genome.cueK, entry)
        cues = merge_cues(cues, seeds, genome.cueK)
        kept = [s for s in seeds if s in cues]
        mark = time.perf_counter()
        timings["cue_search"] = (mark - start) * 1000
        # One round trip: the traversal from the entry cues and the seeds' bridge walk.
        found = traverse(
            self.store,
            self.ns,
            self.view,
            cues,
            genome,
            self.texts,
            seeds=self.passages.seed_ids(kept, genome.traversalDepth),
        )
        candidates = found.candidates
        walk = self.passages.bridges(kept, genome.traversalDepth, found.bridges)
        now = time.perf_counter()
        timings["traversal"], mark = (now - mark) * 1000, now
        ranked = blend(
            rerank(candidates, genome.rerank),
            self.passages.relevance(question, entry),
            walk.scores,
            walk.extra,
            max(len(candidates), genome.maxContent * 2),
        )
        context = assemble(ranked, genome.promptStrategy, genome.maxContent)
        answer = self.synthesizer.answer(question, context)
        timings["synthesis"] = (time.perf_counter() - mark) * 1000
        return Reconstruction(
            question,
            cues,
            candidates,
            ranked,
            context,
            answer,
            timings,
            cue_work=genome.efSearch,
            bridge_work=walk.elements,
        )
