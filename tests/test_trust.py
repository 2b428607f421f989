"""Memory you can correct and trust, on every engine: tombstones, trust states and
review, bitemporal versions, enforced scopes, principals, the negative evaluation
and the audit log as the command line verifies it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mragent.apps.baselines import FlatRetriever
from mragent.apps.negative.report import CATEGORIES, LONG_LIVED
from mragent.apps.negative.run import ABSENCE_SURFACES, run_negative
from mragent.cli import app
from mragent.core.errors import ConfigError, WriteRefused
from mragent.core.genome import PRESETS
from mragent.core.store.base import GraphStore
from mragent.core.view import ReadView
from mragent.memory.audit import AuditLog
from mragent.memory.forgetting import MemoryForgetting
from mragent.memory.ingest import text_hash
from mragent.memory.principal import Principal, parse_principal
from mragent.memory.reader import MemoryReader
from mragent.memory.writer import MemoryWriter
from tests.fixtures import feed_page

runner = CliRunner()
ANA = Principal("human", "ana")
BOB = Principal("human", "bob")
SCOUT = Principal("agent", "scout")
GENOME = PRESETS["default"]

TARGET = "The Orion archive is guarded by Tomas Brandt."
QUESTION = "Who guards the Orion archive?"
NEIGHBOURS = (
    "The Perseus bridge was built by Anton Weiss.",
    "The Andromeda library is kept by Lena Holm.",
)


def _clock(start: float = 1_000_000.0, step: float = 100.0) -> Callable[[], float]:
    """A clock at known times: start, start + step, ..."""
    ticks = iter(range(10_000))
    return lambda: start + step * next(ticks)


@pytest.fixture
def memories(store: GraphStore, ns: str, audit_log_path: Path) -> MemoryWriter:
    return MemoryWriter(store, ns, AuditLog(audit_log_path))


@pytest.fixture
def url(store: GraphStore, engine_urls: dict[str, str | None]) -> str:
    """The URL of the engine ``store`` is open on (for the command line)."""
    found = engine_urls[store.capabilities.engine]
    assert found is not None
    return found


def _snapshot(store: GraphStore, ns: str, view: ReadView | None = None) -> list[dict]:
    return store.run("content_snapshot", {"ns": ns, **(view or ReadView()).params()})


def _cues(store: GraphStore, ns: str, *scopes: str) -> list[dict]:
    """Every cue of ``scopes`` (the change feed from the start)."""
    return feed_page(store, "index_cues", ns, *scopes)


def _cue_texts(store: GraphStore, ns: str) -> set[str]:
    return {row["text"] for row in _cues(store, ns)}


def _seen(memory: MemoryReader, question: str) -> dict[str, set[str]]:
    """Ids and texts each retrieval path returns for ``question``."""
    rec = memory.reconstruct(question, GENOME)
    paths = {
        "traversal": {c.id for c in rec.candidates},
        "pool": {r.candidate.id for r in rec.ranked},
        "context": {r.candidate.id for r in rec.context.items},
    }
    contents = memory.snapshot()
    for method in ("bm25", "dense"):
        flat = FlatRetriever(contents, method, memory.embedder)
        hits = flat.search(question, len(contents))
        paths[f"flat_{method}"] = {contents[i]["id"] for i in hits}
    paths["snapshot"] = {row["id"] for row in contents}
    return paths


def _everywhere(memory: MemoryReader, question: str) -> set[str]:
    return set().union(*_seen(memory, question).values())


# --- tombstones --------------------------------------------------------------------------


def test_a_forgotten_memory_is_in_no_retrieval_path(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    for text in NEIGHBOURS:
        memories.remember(text, principal=ANA)
    target = memories.remember(TARGET, principal=ANA)
    before = _seen(MemoryReader(store, ns), QUESTION)
    # The control: every path finds it while it is live, so its absence below means something.
    assert all(target.id in ids for ids in before.values()), before
    assert "Tomas Brandt" in _cue_texts(store, ns)

    assert memories.forget(target.id, principal=BOB, reason="wrong") == [target.id]

    for view in (ReadView(), ReadView(include_pending=True)):
        memory = MemoryReader(store, ns, view=view)
        after = _seen(memory, QUESTION)
        assert not any(target.id in ids for ids in after.values()), after
        assert all(row["text"] != TARGET for row in _snapshot(store, ns, view))
        # Cue search: the cues only it gave rise to are gone with it.
        cues = memory.index.cues
        assert "Tomas Brandt" not in {cues.texts[s] for s in cues.live.nonzero()[0]}
        rec = memory.reconstruct(QUESTION, GENOME)
        assert "Tomas Brandt" not in rec.context.text and "Brandt" not in (rec.answer.text or "")
    assert "Tomas Brandt" not in _cue_texts(store, ns)
    assert memories.get(target.id).forgotten_at is not None
    assert memories.get(target.id).forget_reason == "wrong"


def test_identical_text_is_refused_after_forget_unless_readmitted(memories: MemoryWriter) -> None:
    first = memories.remember(TARGET, principal=ANA)
    memories.forget(first.id, principal=ANA, reason="retracted")
    with pytest.raises(WriteRefused, match="forgotten"):
        memories.remember(TARGET, principal=ANA)
    with pytest.raises(WriteRefused, match="forgotten"):
        memories.remember(TARGET, principal=SCOUT)
    again = memories.remember(TARGET, principal=ANA, readmit=True)
    assert again.created and again.id != first.id and again.lineage != first.lineage
    assert memories.get(again.id).current and memories.get(first.id).forgotten


def test_purge_erases_the_text_but_keeps_the_hash_and_the_refusal(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    first = memories.remember(TARGET, principal=ANA)
    second = memories.correct(first.id, TARGET.replace("Tomas", "Tom"), principal=ANA)
    purged = memories.purge(first.id, principal=BOB, reason="personal data")
    assert sorted(purged) == sorted([first.id, second.id])
    for version, text in ((first, TARGET), (second, TARGET.replace("Tomas", "Tom"))):
        record = memories.get(version.id)
        assert record.text is None and record.purged_at is not None and record.forgotten
        assert record.hash == text_hash(text)
    with pytest.raises(WriteRefused, match="forgotten"):
        memories.remember(TARGET, principal=ANA)
    every = store.run("memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True})
    assert {row["id"] for row in every} == {first.id, second.id}
    assert _snapshot(store, ns, ReadView(include_pending=True)) == []


# --- trust states and review ---------------------------------------------------------------


def test_agent_writes_start_pending_until_a_human_trusts_the_agent(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    pending = memories.remember("The Vega ferry leaves at dawn.", principal=SCOUT)
    assert pending.trust == "pending"
    assert memories.get(pending.id).trust == "pending"
    assert [row["id"] for row in memories.pending()] == [pending.id]
    assert pending.id not in {r["id"] for r in _snapshot(store, ns)}
    assert pending.id in {r["id"] for r in _snapshot(store, ns, ReadView(include_pending=True))}
    assert memories.remember("A human's note.", principal=ANA).trust == "accepted"
    assert memories.remember("The tool's note.", principal=Principal("system", "x")).trust == (
        "accepted"
    )

    with pytest.raises(WriteRefused, match="human"):
        memories.set_trust(SCOUT, principal=SCOUT, trusted=True)
    assert memories.set_trust(SCOUT, principal=ANA, trusted=True) == ["agent:scout"]
    trusted = memories.remember("The Vega ferry has two decks.", principal=SCOUT)
    assert trusted.trust == "accepted"
    other = Principal("agent", "other")
    assert memories.remember("The Vega ferry is red.", principal=other).trust == "pending"
    assert memories.set_trust(SCOUT, principal=ANA, trusted=False) == []
    assert memories.remember("The Vega ferry is slow.", principal=SCOUT).trust == "pending"

    accepted = memories.accept(pending.id, principal=BOB)
    assert (accepted.trust, accepted.reviewed_by) == ("accepted", "human:bob")
    assert pending.id in {r["id"] for r in _snapshot(store, ns)}


def test_review_needs_a_human_other_than_the_writer(memories: MemoryWriter) -> None:
    by_agent = memories.remember("The Vega ferry leaves at dawn.", principal=SCOUT)
    by_ana = memories.remember("The Lyra observatory opened in 1962.", principal=ANA)
    with pytest.raises(WriteRefused, match="human"):
        memories.accept(by_agent.id, principal=Principal("agent", "reviewer"))
    with pytest.raises(WriteRefused, match="human"):
        memories.reject(by_agent.id, principal=Principal("system", "x"))
    with pytest.raises(WriteRefused, match="cannot review"):
        memories.accept(by_ana.id, principal=ANA)
    with pytest.raises(WriteRefused, match="cannot review"):
        memories.reject(by_ana.id, principal=ANA)
    assert memories.get(by_agent.id).trust == "pending"
    assert memories.get(by_ana.id).trust == "accepted"
    assert memories.get(by_ana.id).reviewed_by is None
    assert memories.reject(by_ana.id, principal=BOB) == []
    assert memories.get(by_ana.id).trust == "rejected"


def test_rejection_demotes_dependents_transitively(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    a = memories.remember("The Lyra observatory opened in 1962.", principal=ANA)
    b = memories.remember(
        "Its first director was Mara Voss, hired in 1962.", principal=ANA, depends_on=[a.id]
    )
    c = memories.remember("Mara Voss named the comet Kestrel.", principal=ANA, depends_on=[b.id])
    unrelated = memories.remember("The Perseus bridge was built by Anton Weiss.", principal=ANA)
    assert memories.get(c.id).depends_on == [b.id]

    assert memories.reject(a.id, principal=BOB) == sorted([b.id, c.id])
    assert memories.get(a.id).trust == "rejected"
    assert (memories.get(b.id).trust, memories.get(c.id).trust) == ("pending", "pending")
    assert memories.get(unrelated.id).trust == "accepted"
    assert {r["id"] for r in _snapshot(store, ns)} == {unrelated.id}
    with_pending = {r["id"] for r in _snapshot(store, ns, ReadView(include_pending=True))}
    assert with_pending == {b.id, c.id, unrelated.id}  # rejected: never read
    assert {r["id"] for r in memories.pending()} == {b.id, c.id}


# --- bitemporal ------------------------------------------------------------------------------


def test_correct_closes_the_old_version_and_as_of_reads_either_side(
    store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    memories = MemoryWriter(store, ns, AuditLog(audit_log_path), clock=_clock(1_000_000.0, 100.0))
    for text in NEIGHBOURS:
        memories.remember(text, principal=ANA)  # at 1_000_000 and 1_000_100
    old = memories.remember(TARGET, principal=ANA)  # at 1_000_200
    new = memories.correct(old.id, TARGET.replace("Tomas Brandt", "Ilse Kruger"), principal=BOB)
    written_old, written_new = 1_000_200.0, 1_000_300.0

    old_record, new_record = memories.get(old.id), memories.get(new.id)
    assert old_record.recorded_at == written_old and old_record.superseded_at == written_new
    assert new_record.recorded_at == written_new and new_record.superseded_at is None
    assert new_record.supersedes == [old.id] and new.lineage == old.id == new_record.lineage
    assert [v.id for v in memories.history(new.id)] == [old.id, new.id]
    with pytest.raises(WriteRefused, match="superseded"):
        memories.correct(old.id, "another text", principal=ANA)

    def believed(as_of: float | None) -> set[str]:
        memory = MemoryReader(store, ns, view=ReadView(as_of=as_of))
        texts = {row["text"] for row in memory.snapshot()}
        context = memory.reconstruct(QUESTION, GENOME).context.text
        assert ("Tomas Brandt" in context) == (TARGET in texts)
        assert ("Ilse Kruger" in context) == any("Ilse Kruger" in t for t in texts)
        return {name for name in ("Tomas Brandt", "Ilse Kruger") if any(name in t for t in texts)}

    assert believed(written_old - 1) == set()
    assert believed(written_old) == {"Tomas Brandt"}
    assert believed((written_old + written_new) / 2) == {"Tomas Brandt"}
    assert believed(written_new) == {"Ilse Kruger"}
    assert believed(None) == {"Ilse Kruger"}


# --- scopes ------------------------------------------------------------------------------------


def test_scope_a_never_sees_scope_b(memories: MemoryWriter, store: GraphStore, ns: str) -> None:
    secret = memories.remember(TARGET, principal=ANA, scope="team-a")
    for text in NEIGHBOURS:
        memories.remember(text, principal=ANA, scope="team-b")
    a_cues = {row["id"] for row in _cues(store, ns, "team-a")}
    assert a_cues

    seen_by_a = MemoryReader(store, ns, view=ReadView(scopes=("team-a",)))
    assert secret.id in _everywhere(seen_by_a, QUESTION)  # the control
    for view in (ReadView(scopes=("team-b",)), ReadView(scopes=("team-b", "shared"))):
        memory = MemoryReader(store, ns, view=view)
        assert secret.id not in _everywhere(memory, QUESTION)
        cues = memory.index.cues
        assert not a_cues & set(cues.ids)
        assert all(row["text"] != TARGET for row in memory.snapshot())
        vector = memory.embedder.embed_queries([QUESTION])[0]
        mask = cues.admitted(view.scopes)
        native = cues.native_dense(store, ns, view.scopes, vector, mask, k=50)
        assert not a_cues & set(native)
        assert not a_cues & {row["id"] for row in _cues(store, ns, *view.scopes)}
    with pytest.raises(WriteRefused, match="no memory"):
        memories.get(secret.id, scope="team-b")
    with pytest.raises(WriteRefused, match="no memory"):
        memories.forget(secret.id, principal=ANA, reason="x", scope="team-b")
    assert memories.get(secret.id, scope="team-a").current


def test_the_scope_is_validated() -> None:
    for bad in ("", "Team", "a b", "-a", "x" * 65, "a'b"):
        with pytest.raises(ConfigError, match="scope"):
            ReadView(scopes=(bad,))


# --- principals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", [None, "", "ana", "human:", "robot:x", "human:a b", "human:" + "a" * 65, " human:a"]
)
def test_a_malformed_or_missing_principal_is_refused(text: str | None) -> None:
    with pytest.raises(ConfigError, match="--principal"):
        parse_principal(text)


def test_a_principal_parses() -> None:
    assert parse_principal("agent:scout-1") == Principal("agent", "scout-1")
    assert str(parse_principal("human:ana@example.org")) == "human:ana@example.org"


@pytest.fixture
def no_principal_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("MRAGENT_PRINCIPAL", raising=False)
    yield


@pytest.mark.parametrize(
    "command",
    [
        ["remember", "The Orion archive has a vault."],
        ["correct", "ID", "A corrected text."],
        ["forget", "ID", "--reason", "why"],
        ["purge", "ID", "--reason", "why"],
        ["review", "accept", "ID"],
        ["review", "reject", "ID"],
        ["trust", "grant", "agent:scout"],
        ["trust", "revoke", "agent:scout"],
    ],
)
def test_no_write_command_runs_without_a_principal(
    command: list[str],
    memories: MemoryWriter,
    store: GraphStore,
    ns: str,
    url: str,
    audit_log_path: Path,
    no_principal_env: None,
) -> None:
    existing = memories.remember("The Vega ferry leaves at dawn.", principal=SCOUT)
    lines = audit_log_path.read_bytes()
    args = [existing.id if arg == "ID" else arg for arg in command]
    result = runner.invoke(app, [*args, "--ns", ns, "--db", url])
    assert result.exit_code == 2, result.output
    assert "--principal is required" in result.output
    assert audit_log_path.read_bytes() == lines
    ids = store.run("memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True})
    assert [row["id"] for row in ids] == [existing.id]
    assert memories.get(existing.id).trust == "pending" and memories.get(existing.id).current


# --- the negative evaluation ---------------------------------------------------------------


def test_the_negative_evaluation_finds_nothing_on_this_engine(store: GraphStore) -> None:
    report = run_negative(store)
    assert report.ok, "\n".join(report.failures())
    assert report.absence == dict.fromkeys(CATEGORIES, 1.0)
    assert report.presence == dict.fromkeys(CATEGORIES, 1.0)
    # Readers opened before the changes, asked again after them without reopening.
    assert report.long_lived == dict.fromkeys(CATEGORIES, 1.0)
    lived = {c.category for c in report.checks if c.view in LONG_LIVED and c.expect == "absent"}
    assert lived == set(CATEGORIES) - {"as_of"}
    absent = [c for c in report.checks if c.expect == "absent"]
    assert {c.category for c in absent} == set(CATEGORIES)
    assert all(set(c.found) == set(ABSENCE_SURFACES) for c in absent)
    assert store.run("get_space", {"ns": report.ns}) == []  # the scratch namespace is gone


@pytest.mark.parametrize(
    "predicate, leaks",
    [
        (" IN $trust", {"rejected", "pending"}),
        ("m.forgotten_at IS NULL", {"forgotten"}),
        ("(m.superseded_at IS NULL OR m.superseded_at > $as_of)", {"superseded"}),
        ("m.recorded_at <= $as_of", {"as_of"}),
        ("m.scope IN $scopes", {"out_of_scope"}),
    ],
)
def test_the_negative_evaluation_catches_a_dropped_view_predicate(
    store: GraphStore, predicate: str, leaks: set[str]
) -> None:
    # The real database, with one predicate of the read view removed from every query:
    # the evaluation must see what leaks through (it is not vacuous).
    execute = store._execute

    def without_predicate(name: str, text: str, params: dict) -> list[dict]:
        # The trust test drops ` IN $trust`, leaving a condition that always holds.
        replacement = " IS NOT NULL" if predicate == " IN $trust" else "true"
        return execute(name, text.replace(predicate, replacement), params)

    store._execute = without_predicate  # type: ignore[method-assign]
    try:
        report = run_negative(store)
    finally:
        store._execute = execute  # type: ignore[method-assign]
    assert not report.ok
    assert {category for category, rate in report.absence.items() if rate < 1.0} >= leaks


def test_bench_prints_the_negative_evaluation_and_can_skip_it(
    corpus_file: Path, url: str, ns: str, tmp_path: Path
) -> None:
    report_path = tmp_path / "bench.json"
    args = ["bench", "--corpus", str(corpus_file), "--ns", ns, "--db", url]
    bench = runner.invoke(app, [*args, "--out", str(report_path)])
    assert bench.exit_code == 0, bench.output
    assert "negative evaluation" in bench.output
    negative = json.loads(report_path.read_text())["negative"]
    assert negative["ok"] and negative["failures"] == []
    assert negative["absence"] == dict.fromkeys(CATEGORIES, 1.0)
    skipped = runner.invoke(app, [*args, "--no-negative", "--out", str(report_path)])
    assert skipped.exit_code == 0, skipped.output
    assert "negative evaluation" not in skipped.output
    assert "negative" not in json.loads(report_path.read_text())


def test_bench_exits_5_when_something_leaks(
    corpus_file: Path,
    store: GraphStore,
    url: str,
    ns: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every connection the command opens reads rejected and pending memories as accepted.
    execute = type(store)._execute

    def leaky(self: GraphStore, name: str, text: str, params: dict) -> list[dict]:
        return execute(self, name, text.replace(" IN $trust", " IS NOT NULL"), params)

    monkeypatch.setattr(type(store), "_execute", leaky)
    report_path = tmp_path / "bench.json"
    args = ["bench", "--corpus", str(corpus_file), "--ns", ns, "--db", url]
    bench = runner.invoke(app, [*args, "--out", str(report_path)])
    assert bench.exit_code == 5, bench.output
    assert "FAILED: rejected" in bench.output
    negative = json.loads(report_path.read_text())["negative"]
    assert not negative["ok"] and negative["absence"]["rejected"] < 1.0


# --- the audit log, verified from the command line -------------------------------------------


def test_audit_verify_detects_an_edited_record(
    memories: MemoryWriter, ns: str, url: str, audit_log_path: Path
) -> None:
    first = memories.remember(TARGET, principal=ANA)
    memories.correct(first.id, TARGET.replace("Tomas", "Tom"), principal=ANA)
    memories.remember("The Vega ferry leaves at dawn.", principal=SCOUT)
    verify = ["audit", "verify", "--db", url, "--ns", ns]
    intact = runner.invoke(app, verify)
    assert intact.exit_code == 0, intact.output
    assert "3 record(s), intact" in intact.output

    lines = audit_log_path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    assert record["action"] == "correct"
    record["principal"] = "human:mallory"  # the hash is left as it was
    lines[1] = (json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n").encode()
    audit_log_path.write_bytes(b"".join(lines))
    tampered = runner.invoke(app, verify)
    assert tampered.exit_code == 4, tampered.output
    assert "TAMPERED" in tampered.output and "line 2" in tampered.output

    audit_log_path.write_bytes(b"".join(lines[:1]) + b"".join(lines[2:]))  # delete it instead
    deleted = runner.invoke(app, verify)
    assert deleted.exit_code == 4, deleted.output


# --- trust in record time ------------------------------------------------------------


def test_as_of_reads_the_trust_state_a_memory_had_then(
    store: GraphStore, ns: str, audit_log_path: Path
) -> None:
    # t=0 an agent writes A (pending); t=100 a human writes B resting on A (accepted);
    # t=200 A is accepted; t=300 A is rejected, which returns B to pending.
    memories = MemoryWriter(store, ns, AuditLog(audit_log_path), clock=_clock(0.0, 100.0))
    a = memories.remember("Marie Curie was born in Warsaw.", principal=SCOUT)
    b = memories.remember("The Vistula flows through Krakow.", principal=ANA, depends_on=[a.id])
    memories.accept(a.id, principal=ANA)
    assert memories.reject(a.id, principal=BOB) == [b.id]

    def visible(at: float, pending: bool = False) -> set[str]:
        view = ReadView(as_of=at, include_pending=pending)
        return {row["id"] for row in _snapshot(store, ns, view)} & {a.id, b.id}

    def reached(at: float) -> set[str]:
        memory = MemoryReader(store, ns, view=ReadView(as_of=at))
        return _everywhere(memory, "Where was Marie Curie born?") & {a.id, b.id}

    assert visible(50) == set() and visible(50, pending=True) == {a.id}
    assert visible(150) == {b.id}
    assert visible(250) == {a.id, b.id} and reached(250) == {a.id, b.id}
    assert visible(350) == set() and reached(350) == set()
    assert visible(350, pending=True) == {b.id}  # demoted, not rejected
    record = memories.get(b.id)
    assert (record.trust_log, record.trust_at) == (["accepted", "pending"], [100.0, 300.0])
    assert memories.get(a.id).trust_log == ["pending", "accepted", "rejected"]


def test_a_forget_run_again_prunes_what_an_interrupted_one_left(
    memories: MemoryWriter, store: GraphStore, ns: str
) -> None:
    # A crash between the tombstone statement and the pruning leaves orphan tags and
    # cues behind; forgetting again must still remove them.
    memories.remember("Quorvex Halden founded the Ivrel guild.", principal=ANA)
    kept = memories.remember("The Ivrel guild meets in Lisbon.", principal=ANA)
    target = memories.remember("Quorvex Halden was born in Zmarta.", principal=ANA)
    prune = MemoryForgetting._prune_orphans

    def crash(self: MemoryForgetting, scope: str, tags: list[str]) -> None:
        raise RuntimeError("crashed before pruning")

    MemoryForgetting._prune_orphans = crash  # type: ignore[method-assign]
    try:
        with pytest.raises(RuntimeError):
            memories.forget(target.id, principal=ANA, reason="test")
    finally:
        MemoryForgetting._prune_orphans = prune  # type: ignore[method-assign]
    assert "Zmarta" in _cue_texts_all(store, ns)  # left behind by the crash
    memories.forget(target.id, principal=ANA, reason="test")
    assert "Zmarta" not in _cue_texts_all(store, ns)
    assert memories.get(kept.id).current


def _cue_texts_all(store: GraphStore, ns: str) -> set[str]:
    """Every cue text of the namespace, whatever it leads to."""
    rows = store._execute(
        "cue_texts", "MATCH (c:Cue) WHERE c.ns = $ns RETURN c.text AS text", {"ns": ns}
    )
    return {row["text"] for row in rows}
