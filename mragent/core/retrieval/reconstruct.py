"""Stage 2: reconstruction (and the bridge walk), as one Cypher round trip per question.

Runs ``traverse.cypher``: it confirms the reader's entry candidates under the
read view, runs the literal ``(c:Cue)-[:LINKED_TO*1..N]->(t:Tag)-[:REFERENCES]
->(m:Content)`` shape (matched in two steps, the LINKED_TO walk first: see the
query's header) from the confirmed cues with ``N`` = ``traversalDepth``
rendered from the range-checked genome (and the view's REFERENCES rank property
from a closed set), walks the bridges of the confirmed seeds, and reports the
namespace version it read. Everything else is a parameter. Every content it
hands back carries the key, title and text the database returned under the view
in that round trip, and, when asked (``records``), its :class:`Provenance`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mragent.core.genome import Genome
from mragent.core.retrieval.cue_search import CueHit
from mragent.core.store.base import GraphStore, engine_float
from mragent.core.view import ReadView

HOP_DECAY = 0.8  # evidence kept per LINKED_TO hop beyond the first
NO_ALIAS = 2.0  # an alias threshold no similarity reaches
POOL_FACTOR = 2  # candidates fetched per content kept, so rerank has room to act
TRAILS_PER_CONTENT = 4
# A later round enters at the cues of the tags of the best contents that reference at
# most this many contents: on MuSiQue-100 the tags a question's two passages share
# reference 3 contents at the median, while a year or a country references hundreds.
HAND_REFS = 10


@dataclass(frozen=True)
class Trail:
    """One path from an entry cue to a content: node ids, cue first."""

    nodes: tuple[str, ...]
    evidence: float
    hops: int


@dataclass(frozen=True)
class Candidate:
    """A content reached by reconstruction (or handed over without a path)."""

    id: str
    key: str
    title: str
    text: str
    evidence: float  # strongest single path
    paths: int  # surviving paths that reach it
    elements: int  # graph elements (nodes + edges) on those paths
    hops: int  # LINKED_TO hops on its shortest surviving path
    trails: tuple[Trail, ...]
    tags: tuple[str, ...] = ()  # its specific tags (a later round's cues), when asked for

    @classmethod
    def plain(
        cls,
        content_id: str,
        key: str,
        title: str | None,
        text: str,
        hops: int = 0,
        tags: Sequence[str] = (),
    ) -> Candidate:
        """A content without trails (a seed passage, a bridged one)."""
        return cls(content_id, key, title or "", text, 0.0, 0, 0, hops, (), tuple(tags))


@dataclass(frozen=True)
class Provenance:
    """Where a content handed back comes from, read in the traversal's round trip.

    Attributes:
        id: The content (version) id.
        trust: Its trust state now.
        trust_times, trust_log: When its trust state changed and to what (parallel,
            oldest first; empty for a record that has had one state).
        scope, principal, source, lineage: Where it lives, who wrote it, where it
            comes from, which memory it is a version of.
        recorded_at: When it was written (epoch seconds).
    """

    id: str
    trust: str
    trust_times: tuple[float, ...]
    trust_log: tuple[str, ...]
    scope: str
    principal: str | None
    source: str | None
    lineage: str | None
    recorded_at: float

    @classmethod
    def of(cls, row: Sequence[Any]) -> Provenance:
        """From one ``records`` entry of the traversal."""
        cid, trust, times, log, scope, principal, source, lineage, recorded_at = row
        return cls(cid, trust, tuple(float(t) for t in times or ()), tuple(log or ()), scope,
                   principal, source, lineage, float(recorded_at))  # fmt: skip

    def trust_at(self, as_of: float | None) -> str:
        """The trust state it had at record time ``as_of`` (None: now)."""
        if as_of is None:
            return self.trust
        log = self.trust_log or (self.trust,)
        state = log[0]
        for since, value in zip(self.trust_times or (self.recorded_at,), log, strict=True):
            if since <= as_of:
                state = value
        return state


@dataclass(frozen=True)
class Traversal:
    """One round trip's answer.

    Attributes:
        version: The namespace version the database read at.
        uid: The namespace's identity.
        entries: The confirmed entry cues, in the reader's order (at most cueK).
        seeds: The confirmed passage seeds among them, each with its content.
        candidates: Contents reached from the entry cues, strongest evidence first.
        bridges: ``(seed content id, bridged content)`` pairs of the bridge walk.
        records: The provenance of every content handed back, by id (empty unless
            asked for).
    """

    version: int
    uid: str | None
    entries: list[CueHit]
    seeds: list[tuple[CueHit, Candidate]]
    candidates: list[Candidate]
    bridges: list[tuple[str, Candidate]]
    records: dict[str, Provenance] = field(default_factory=dict)


def rank_property(view: ReadView) -> str:
    """The REFERENCES rank a view's traversal follows (see the ``rank_references`` fragment)."""
    if view.as_of is not None:
        return "rank_all"
    return "rank_pending" if view.include_pending else "rank"


def walks_aliases(genome: Genome) -> bool:
    """Whether the traversal walks alias edges: a zero ``aliasWeight`` walks none (its
    threshold is then :data:`NO_ALIAS`, which no similarity reaches)."""
    return genome.aliasWeight > 0


def traverse_params(
    ns: str,
    view: ReadView,
    candidates: Sequence[CueHit],
    genome: Genome,
    *,
    bridges: bool = True,
    entries: int | None = None,
    limit: int | None = None,
    hand_on: bool | None = None,
    records: bool = False,
    link_fanout: int | None = None,
) -> dict[str, Any]:
    """The ``traverse.cypher`` parameters for one question (see :func:`traverse`)."""
    return {
        "ns": ns,
        **view.params(),
        "pending_weight": view.pending_weight,
        "candidates": [{"id": c.id, "score": c.score, "seed": c.seed} for c in candidates],
        "cue_k": genome.cueK if entries is None else entries,
        "fanout": genome.tagFanout,
        "link_fanout": genome.tagFanout if link_fanout is None else link_fanout,
        "alias_min": genome.aliasThreshold if walks_aliases(genome) else NO_ALIAS,
        "alias_weight": genome.aliasWeight,
        "decay": HOP_DECAY,
        "prune": genome.pruneThreshold,
        "limit": genome.maxContent * POOL_FACTOR if limit is None else limit,
        "paths_per_content": TRAILS_PER_CONTENT,
        "bridges": bridges and genome.traversalDepth >= 2,
        "hand_refs": HAND_REFS if (genome.rounds > 1 if hand_on is None else hand_on) else 0,
        "records": records,
    }


def traverse(
    store: GraphStore,
    ns: str,
    view: ReadView,
    candidates: Sequence[CueHit],
    genome: Genome,
    *,
    bridges: bool = True,
    entries: int | None = None,
    limit: int | None = None,
    depth: int | None = None,
    hand_on: bool | None = None,
    records: bool = False,
    link_fanout: int | None = None,
) -> Traversal | None:
    """Confirm entry candidates, expand them into contents, walk the seeds' bridges.

    Args:
        store: The graph store.
        ns: Namespace.
        view: Scopes, trust states and record time read (see :mod:`mragent.core.view`).
        candidates: Entry candidates in order (cue hits and passage seeds), scores in
            (0, 1]; the first ``cueK`` the database confirms are the entry points.
        genome: Supplies cueK, depth, fanout, prune threshold and maxContent.
        bridges: Walk the bridge hop from the seeds (only at traversalDepth >= 2).
        entries: How many confirmed candidates enter (default the genome's cueK; a
            later round lets every cue it hands on enter).
        limit: How many contents come back (default maxContent x POOL_FACTOR).
        depth: The LINKED_TO depth (default the genome's traversalDepth; a later
            round reads the handed tags' own contents, depth 1).
        hand_on: Whether the contents come with the tags they would hand on to a
            later round (default: when the genome has more than one round; the last
            round has none to hand them to).
        records: Whether every content handed back comes with its provenance.
        link_fanout: How many of a tag's strongest links to other tags are walked
            (default the genome's tagFanout; aliases are walked apart from it).

    Returns:
        The round trip's answer, or None when the namespace no longer exists.
    """
    rows = store.run(
        "traverse",
        traverse_params(
            ns,
            view,
            candidates,
            genome,
            bridges=bridges,
            entries=entries,
            limit=limit,
            hand_on=hand_on,
            records=records,
            link_fanout=link_fanout,
        ),
        depth=genome.traversalDepth if depth is None else depth,
        rank=rank_property(view),
    )
    if not rows:
        return None
    row = rows[0]
    seeds: list[tuple[CueHit, Candidate]] = []
    confirmed: list[CueHit] = []
    for position, seed_id, key, title, text, tags in row["entries"]:
        hit = candidates[int(position)]
        confirmed.append(hit)
        if seed_id is not None:
            seeds.append((hit, Candidate.plain(seed_id, key, title, text, tags=tags)))
    return Traversal(
        version=int(row["version"] or 0),
        uid=row["uid"],
        entries=confirmed,
        seeds=seeds,
        # Strongest first, ties on the key: the order the query sorted by.
        candidates=sorted(
            (_candidate(found) for found in row["found"]), key=lambda c: (-c.evidence, c.key)
        ),
        bridges=[
            (seed_id, Candidate.plain(cid, key, title, text, hops=1, tags=tags))
            for seed_id, cid, key, title, text, tags in row["bridged"]
        ],
        records={entry[0]: Provenance.of(entry) for entry in row["records"]},
    )


def _candidate(found: list[Any]) -> Candidate:
    """One ``found`` row of the traversal as a candidate."""
    content_id, key, title, text, evidence, paths, elements, hops, trails, tags = found
    return Candidate(
        id=content_id,
        key=key,
        title=title or "",
        text=text,
        evidence=engine_float(evidence),
        paths=int(paths),
        elements=int(elements),
        hops=int(hops),
        # Each trail is [evidence, hops, node ids...]: flat lists parse fastest.
        trails=tuple(Trail(tuple(t[2:]), engine_float(t[0]), int(t[1])) for t in trails),
        tags=tuple(tags),
    )
