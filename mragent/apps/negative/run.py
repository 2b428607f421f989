"""Negative evaluation: what must not be recalled is not recalled, on any path.

:func:`run_negative` builds a scratch namespace of known facts, then forgets
one, rejects one, corrects (supersedes) one, keeps one in another scope and
leaves one pending. It asks a question aimed at each and looks for the fact's
distinctive text (and its version ids) on every surface a reader can see:

* ``entry_cues``: the cue-search entry cues' texts;
* ``traversal``: the contents the graph traversal reached;
* ``pool``, ``context``, ``answer``: the reranked pool, the synthesis context
  and the synthesised answer;
* ``flat_bm25``, ``flat_dense``: everything the flat baselines could return
  (their whole ranking over the view's contents);
* ``native``: the same reconstruction with dense cues from the database's own
  vector index (entry cues, traversal, pool, context and answer together).

Each category's *absence rate* is the share of (probe, surface) pairs where the
text is absent; it must be 100%. The *presence* checks are the controls that
keep this from passing vacuously: the same question finds the fact before it is
forgotten or rejected, finds the corrected version, finds the old version when
read ``as_of`` a time before the correction, finds the other scope's fact from
a view of that scope, and finds the pending fact with ``include_pending``.

Long-lived readers: two readers (the default view, and with pending memories)
are opened before the changes, take the "found before" controls, and are asked
again after the forget, the rejection, the correction and the other scope's
write, without being reopened: what a reader that lives across writes returns
(:data:`LONG_LIVED` views, reported apart as :attr:`NegativeReport.long_lived`).

The run is deterministic (fixed texts, a fixed clock, no model), writes to its
own audit log in a temporary directory and deletes its namespace afterwards.
"""

from __future__ import annotations

import itertools
import tempfile
import uuid
from pathlib import Path
from typing import Any

from mragent.apps.baselines import FlatRetriever
from mragent.apps.negative.facts import (
    DISTRACTORS,
    FORGOTTEN,
    NEW_VERSION,
    OLD_VERSION,
    OUT_OF_SCOPE,
    PENDING,
    REJECTED,
    Fact,
)
from mragent.apps.negative.report import LONG_LIVED, Check, NegativeReport
from mragent.core.embedding import Embedder, default_embedder
from mragent.core.errors import MragentError
from mragent.core.genome import PRESETS, Genome
from mragent.core.store.base import GraphStore
from mragent.core.view import DEFAULT_SCOPE, ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.principal import Principal
from mragent.memory.reader import MemoryReader, Reconstruction
from mragent.memory.writer import MemoryWriter, WriteResult

ABSENCE_SURFACES = (
    "entry_cues",
    "traversal",
    "pool",
    "context",
    "answer",
    "flat_bm25",
    "flat_dense",
    "native",
)
# The controls need only show the question reaches the fact: the database's vector
# index is shared by every namespace (and eventually consistent on Neo4j), so the
# native run is an absence surface only.
PRESENCE_SURFACES = ("pool", "context", "answer", "flat_bm25", "flat_dense")

OTHER_SCOPE = "negative-eval-private"
WRITER = Principal("human", "negative-writer")
REVIEWER = Principal("human", "negative-reviewer")
AGENT = Principal("agent", "negative-agent")
EPOCH = 1_700_000_000.0  # the scratch memory's clock starts here (a known past time)
TICK = 60.0  # seconds between two writes


Item = tuple[str | None, str]  # (id of the content or cue, text) on one surface


class _Reader:
    """One read view of the scratch namespace: a memory and its flat baselines.

    The memory lives as long as the reader (it follows the namespace's writes by
    itself); the flat baselines rank a copy of the view taken at each question.
    """

    def __init__(
        self, store: GraphStore, ns: str, view: ReadView, embedder: Embedder, genome: Genome
    ) -> None:
        self.memory = MemoryReader(store, ns, embedder=embedder, view=view)
        self.embedder, self.genome = embedder, genome

    def surfaces(self, question: str, *, flat_k: int | None, native: bool) -> dict[str, list]:
        """Surface -> items seen, for one question.

        Args:
            flat_k: How many flat hits count (None: the whole ranking).
            native: Also run the reconstruction on the native vector index.
        """
        rec = self.memory.reconstruct(question, self.genome)
        seen = _reconstruction_items(rec)
        rows = self.memory.snapshot()
        for method in ("bm25", "dense"):
            flat = FlatRetriever(rows, method, self.embedder)
            hits = flat.search(question, len(rows) if flat_k is None else flat_k)
            seen[f"flat_{method}"] = [(rows[i]["id"], _row_text(rows[i])) for i in hits]
        if native:
            native_rec = self.memory.reconstruct(question, self.genome, native_vector_index=True)
            seen["native"] = [
                i for items in _reconstruction_items(native_rec).values() for i in items
            ]
        return seen


def _row_text(row: dict[str, Any]) -> str:
    return f"{row['title'] or ''} {row['text']}"


def _reconstruction_items(rec: Reconstruction) -> dict[str, list[Item]]:
    return {
        "entry_cues": [(cue.id, cue.text) for cue in rec.cues],
        "traversal": [(c.id, f"{c.title} {c.text}") for c in rec.candidates],
        "pool": [(r.candidate.id, f"{r.candidate.title} {r.candidate.text}") for r in rec.ranked],
        "context": [(r.candidate.id, r.candidate.text) for r in rec.context.items]
        + [(None, rec.context.text)],
        "answer": [(None, rec.answer.text or ""), (None, rec.answer.sentence)],
    }


def _found(items: list[Item], text: str, ids: frozenset[str]) -> bool:
    return any(text in body or (item_id is not None and item_id in ids) for item_id, body in items)


class _Evaluation:
    """The scratch namespace's write side, its read views and the checks collected."""

    def __init__(
        self, store: GraphStore, ns: str, audit: AuditLog, embedder: Embedder, genome: Genome
    ) -> None:
        ticks = itertools.count()
        self.store, self.ns, self.embedder, self.genome = store, ns, embedder, genome
        self.memories = MemoryWriter(
            store, ns, audit, embedder=embedder, clock=lambda: EPOCH + TICK * next(ticks)
        )
        self.report = NegativeReport(store.capabilities.engine, ns)

    def reader(self, view: ReadView) -> _Reader:
        return _Reader(self.store, self.ns, view, self.embedder, self.genome)

    def check(
        self,
        readers: dict[str, _Reader],
        category: str,
        fact: Fact,
        expect: str,
        ids: frozenset[str] = frozenset(),
    ) -> None:
        """Ask each of ``fact``'s probes through each reader; record where its text is."""
        present = expect == "present"
        surfaces = PRESENCE_SURFACES if present else ABSENCE_SURFACES
        # A control looks for the text only: ids would find a version by another route.
        look_ids = frozenset() if present else ids
        flat_k = self.genome.maxContent if present else None
        for view_name, reader in readers.items():
            for question, text in fact.probes():
                seen = reader.surfaces(question, flat_k=flat_k, native=not present)
                found = {s: _found(seen[s], text, look_ids) for s in surfaces}
                self.report.checks.append(Check(category, view_name, question, text, expect, found))


def run_negative(
    store: GraphStore,
    genome: Genome | None = None,
    *,
    embedder: Embedder | None = None,
) -> NegativeReport:
    """Run the negative evaluation in a scratch namespace of ``store``.

    Args:
        store: An open store (any engine).
        genome: The reconstruction's parameters (default: the default preset).
        embedder: The embedder to write and read with (default: the default one).

    Returns:
        The report; ``report.ok`` is False if anything leaked or a control failed.
    """
    genome = genome or PRESETS["default"]
    embedder = embedder or default_embedder()
    ns = f"negative-eval-{uuid.uuid4().hex[:12]}"
    with tempfile.TemporaryDirectory(prefix="mragent-negative-") as tmp:
        evaluation = _Evaluation(store, ns, AuditLog(Path(tmp) / "audit.jsonl"), embedder, genome)
        try:
            _evaluate(evaluation)
        finally:
            store.run("delete_namespace", {"ns": ns})
    return evaluation.report


def _evaluate(ev: _Evaluation) -> None:
    """Write the facts, take the controls, apply the changes, probe every view."""
    mem = ev.memories
    written = _write_facts(mem)
    lived = dict(zip(LONG_LIVED, (ReadView(), ReadView(include_pending=True)), strict=True))
    long_lived = {name: ev.reader(view) for name, view in lived.items()}
    _controls_before_changes(ev, long_lived)
    # Every fact is recorded by now; the changes below come later on the clock.
    before = mem.versions.clock()
    mem.forget(written["forgotten"].id, principal=WRITER, reason="negative evaluation")
    mem.reject(written["rejected"].id, principal=REVIEWER)
    written["correction"] = mem.correct(written["old"].id, NEW_VERSION.text, principal=WRITER)
    written["private"] = mem.remember(OUT_OF_SCOPE.text, principal=WRITER, scope=OTHER_SCOPE)
    views = {
        "default": ev.reader(ReadView()),
        "include_pending": ev.reader(ReadView(include_pending=True)),
        "as_of": ev.reader(ReadView(as_of=before)),
        "as_of+include_pending": ev.reader(ReadView(include_pending=True, as_of=before)),
    }
    ids = {name: frozenset({w.id}) for name, w in written.items()}
    _absence_checks(ev, views, ids)
    _long_lived_checks(ev, long_lived, ids)
    _controls_after_changes(ev, views)


def _write_facts(mem: MemoryWriter) -> dict[str, WriteResult]:
    """Remember the distractors and the facts; what was written, by role."""
    for text in DISTRACTORS:
        mem.remember(text, principal=WRITER)
    written = {
        "forgotten": mem.remember(FORGOTTEN.text, principal=WRITER),
        "rejected": mem.remember(REJECTED.text, principal=AGENT),
        "old": mem.remember(OLD_VERSION.text, principal=WRITER),
        "pending": mem.remember(PENDING.text, principal=AGENT),
    }
    if (written["rejected"].trust, written["pending"].trust) != ("pending", "pending"):
        raise MragentError("negative evaluation: an agent's memory did not start pending")
    return written


def _controls_before_changes(ev: _Evaluation, lived: dict[str, _Reader]) -> None:
    """The questions do reach the facts before they are forgotten, rejected or corrected,
    through the readers that will still be asked afterwards."""
    default = {LONG_LIVED[0]: lived[LONG_LIVED[0]]}
    ev.check(default, "forgotten", FORGOTTEN, "present")
    ev.check(default, "superseded", OLD_VERSION, "present")
    ev.check({LONG_LIVED[1]: lived[LONG_LIVED[1]]}, "rejected", REJECTED, "present")


def _long_lived_checks(
    ev: _Evaluation, lived: dict[str, _Reader], ids: dict[str, frozenset[str]]
) -> None:
    """The readers opened before the changes see them: nothing hidden since comes back,
    and the live counterparts are found."""
    default = {LONG_LIVED[0]: lived[LONG_LIVED[0]]}
    ev.check(lived, "forgotten", FORGOTTEN, "absent", ids["forgotten"])
    ev.check(lived, "rejected", REJECTED, "absent", ids["rejected"])
    ev.check(lived, "superseded", OLD_VERSION, "absent", ids["old"])
    ev.check(lived, "out_of_scope", OUT_OF_SCOPE, "absent", ids["private"])
    ev.check(default, "pending", PENDING, "absent", ids["pending"])
    ev.check(default, "superseded", NEW_VERSION, "present")
    ev.check({LONG_LIVED[1]: lived[LONG_LIVED[1]]}, "pending", PENDING, "present")


def _absence_checks(
    ev: _Evaluation, views: dict[str, _Reader], ids: dict[str, frozenset[str]]
) -> None:
    """Each fact is absent from every view that must not see it (``ids``: by role)."""

    def pick(*names: str) -> dict[str, _Reader]:
        return {name: views[name] for name in names}

    ev.check(views, "forgotten", FORGOTTEN, "absent", ids["forgotten"])
    # Before its rejection the agent's memory was pending: a read at that record time
    # with pending memories sees it (a control below), every other view must not.
    readers = pick("default", "include_pending", "as_of")
    ev.check(readers, "rejected", REJECTED, "absent", ids["rejected"])
    readers = pick("default", "include_pending")
    ev.check(readers, "superseded", OLD_VERSION, "absent", ids["old"])
    ev.check(views, "out_of_scope", OUT_OF_SCOPE, "absent", ids["private"])
    ev.check(pick("default", "as_of"), "pending", PENDING, "absent", ids["pending"])
    readers = pick("as_of", "as_of+include_pending")
    ev.check(readers, "as_of", NEW_VERSION, "absent", ids["correction"])


def _controls_after_changes(ev: _Evaluation, views: dict[str, _Reader]) -> None:
    """The live counterpart of each change is found where it should be."""
    ev.check({"default": views["default"]}, "superseded", NEW_VERSION, "present")
    ev.check({"as_of": views["as_of"]}, "as_of", OLD_VERSION, "present")
    ev.check(
        {OTHER_SCOPE: ev.reader(ReadView(scopes=(OTHER_SCOPE,)))},
        "out_of_scope",
        OUT_OF_SCOPE,
        "present",
    )
    ev.check({"include_pending": views["include_pending"]}, "pending", PENDING, "present")
    readers = {"as_of+include_pending": views["as_of+include_pending"]}
    ev.check(readers, "rejected", REJECTED, "present")
    both = ReadView(scopes=(DEFAULT_SCOPE, OTHER_SCOPE))
    ev.check({"both scopes": ev.reader(both)}, "out_of_scope", OUT_OF_SCOPE, "present")
