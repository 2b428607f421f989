"""Bad input: one line naming the file, record or option, exit 2, nothing written.

The cases a careless or hostile user tried (NUL bytes, lone surrogates, deep
nesting, 5,000-digit numbers, files that are not UTF-8, a namespace ending in a
newline, genes given as true or "5", an edited checkpoint), then property-based
tests (hypothesis) over the corpus, genome, checkpoint and import parsers:
whatever the bytes, a parser returns a valid value or raises the one-line
error its command turns into exit 2, and a refused ingest writes nothing.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from mragent.apps.transfer.export import export_memories
from mragent.apps.transfer.file import read_memories_file
from mragent.cli import app
from mragent.core.corpus import load_corpus
from mragent.core.errors import ConfigError, CorpusError
from mragent.core.genome import Genome, load_genome
from mragent.core.store import open_store
from mragent.evolution.checkpoint import load_checkpoint, save_checkpoint
from mragent.evolution.study import Study
from mragent.memory.audit import AuditLog
from mragent.memory.writer import MemoryWriter
from tests.fixtures import CHAIN, TESTER
from tests.test_evolution import _fake_evaluate

runner = CliRunner()
AS_TESTER = ("--principal", "human:tester")
GOOD = {"id": "a", "text": "Acme was founded by Jane Roe."}
INPUT_ERRORS = (CorpusError, ConfigError)


def _one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    return lines[0]


def _nothing_written(url: str, ns: str, audit: Path) -> None:
    with open_store(url) as store:
        assert [r for r in store.run("namespaces", {}) if r["ns"] == ns] == []
        assert (
            store.run("memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True})
            == []
        )
    assert not audit.exists() or audit.read_text() == ""


def _corpus(**content: Any) -> bytes:
    return json.dumps({"contents": [{**GOOD, **content}]}).encode()


CORPORA: list[tuple[str, bytes, str]] = [
    (
        "nul in text",
        _corpus(text="Acme\u0000 was founded."),
        "contents[0]: field 'text' contains a NUL",
    ),
    ("nul in id", _corpus(id="a\u0000b"), "contents[0]: field 'id' contains a NUL"),
    ("nul in tag", _corpus(tags=["x\u0000"]), "contents[0]: field 'tags'[0] contains a NUL"),
    (
        "lone surrogate",
        b'{"contents":[{"id":"a","text":"Acme \\ud800 founded."}]}',
        "lone surrogate",
    ),
    ("lone low surrogate", b'{"contents":[{"id":"a\\udc00","text":"x y"}]}', "lone surrogate"),
    (
        "deep nesting",
        b'{"contents":[{"id":"a","text":"x","n":' + b"[" * 50000 + b"]" * 50000 + b"}]}",
        "nested deeper",
    ),
    (
        "5000 digits",
        b'{"contents":[{"id":"a","text":"x","n":' + b"9" * 5000 + b"}]}",
        "malformed JSON",
    ),
    ("not utf-8", b'{"contents":[{"id":"\xe9","text":"x"}]}', "not UTF-8"),
    (
        "ids collide once stripped",
        json.dumps({"contents": [GOOD, {**GOOD, "id": " a"}]}).encode(),
        "contents[1]: duplicate id ' a'",
    ),
    ("trailing comma", b'{"contents":[{"id":"a","text":"x"},]}', "malformed JSON at line 1"),
    ("unknown field", _corpus(tag=["Acme"]), "contents[0]: unknown field 'tag'"),
    (
        "unknown question field",
        json.dumps(
            {"contents": [GOOD], "questions": [{"id": "q", "question": "Who?", "answr": "x"}]}
        ).encode(),
        "questions[0]: unknown field 'answr'",
    ),
    (
        "duplicate key",
        b'{"contents":[{"id":"a","text":"Acme was founded.","text":"Acme was sold."}]}',
        "record contents[0]: key 'text' appears twice",
    ),
    (
        "duplicate key in a later record",
        b'{"contents":[{"id":"a","text":"x"},{"id":"b","id":"c","text":"y"}]}',
        "record contents[1]: key 'id' appears twice",
    ),
]


@pytest.mark.parametrize(("case", "data", "needle"), CORPORA, ids=[c[0] for c in CORPORA])
def test_bad_corpus_exits_2_naming_it_and_writes_nothing(
    tmp_path: Path, falkordb_url: str, audit_log_path: Path, case: str, data: bytes, needle: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    ns = f"t-{uuid.uuid4().hex[:10]}"
    result = runner.invoke(app, ["ingest", str(path), "--ns", ns, "--db", falkordb_url, *AS_TESTER])
    line = _one_line(result.output)
    assert result.exit_code == 2, result.output
    assert str(path) in line and needle in line, line
    _nothing_written(falkordb_url, ns, audit_log_path)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["remember", "Acme\u0000 was founded."], "the memory text contains a NUL"),
        (["remember", "Acme \udcff was founded."], "lone surrogate"),
        (["remember", "Acme was founded.", "--tag", "x\u0000"], "--tag[0] contains a NUL"),
        (["remember", "Acme was founded.", "--title", "\u0007bell"], "--title contains a control"),
        (["remember", "Acme was founded.", "--ns", "nl\n"], "namespace 'nl\\n' is invalid"),
        (["remember", "Acme was founded.", "--scope", "team\n"], "--scope 'team\\n'"),
        (["remember", "Acme was founded.", "--principal", "human:ana\n"], "--principal"),
    ],
)
def test_bad_options_exit_2_naming_them_and_write_nothing(
    falkordb_url: str, audit_log_path: Path, args: list[str], needle: str
) -> None:
    ns = f"t-{uuid.uuid4().hex[:10]}"
    full = [*args[:2], "--ns", ns, "--db", falkordb_url, *AS_TESTER, *args[2:]]
    result = runner.invoke(app, full)
    assert result.exit_code == 2, result.output
    assert needle in _one_line(result.output)
    _nothing_written(falkordb_url, ns, audit_log_path)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b'{"cueK": true}', "gene cueK=True is invalid"),
        (b'{"cueK": "5"}', "gene cueK='5' is invalid"),
        (b'{"cueK": ' + b"9" * 5000 + b"}", "not a readable genome JSON file"),
        (b'{"cueK": 5, "fusion": "\xe9"}', "not UTF-8"),
        (b"[" * 50000 + b"]" * 50000, "nested too deeply"),
    ],
)
def test_bad_genome_exits_2_naming_it(tmp_path: Path, data: bytes, needle: str) -> None:
    path = tmp_path / "genome.json"
    path.write_bytes(data)
    result = runner.invoke(app, ["genome", "show", str(path)])
    assert result.exit_code == 2, result.output
    line = _one_line(result.output)
    assert str(path) in line and needle in line


def _study(**kwargs: Any) -> Study:
    return Study(_fake_evaluate, population=4, generations=2, seed=5, **kwargs)


def test_an_edited_checkpoint_generation_is_refused(tmp_path: Path) -> None:
    study = _study()
    study.optimize()
    path = tmp_path / "checkpoint.json"
    save_checkpoint(path, study, {"seed": 5})
    state = json.loads(path.read_text())
    state["generation"] = 999
    path.write_text(json.dumps(state))
    with pytest.raises(CorpusError, match="generation 999 does not match the logbook") as info:
        load_checkpoint(path, _study(), {"seed": 5})
    assert "\n" not in str(info.value) and str(path) in str(info.value)


def test_an_infinite_number_in_a_checkpoint_is_refused(tmp_path: Path) -> None:
    study = _study()
    study.optimize()
    path = tmp_path / "checkpoint.json"
    save_checkpoint(path, study, {"seed": 5})
    state = json.loads(path.read_text())
    state["rng_state"][1][0] = 1e400  # written as 1e400: read back as infinity
    path.write_text(json.dumps(state).replace("Infinity", "1e400"))
    with pytest.raises(CorpusError, match="corrupt checkpoint") as info:
        load_checkpoint(path, _study(), {"seed": 5})
    assert "\n" not in str(info.value)


# -- property-based ------------------------------------------------------------------

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec=None, categories=None), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(["id", "text", "title", "tags", "cues", "source", "weight", "x"])
RECORD = st.dictionaries(FIELDS, JSON | st.text(max_size=30), max_size=6)


def _mutations(base: bytes) -> st.SearchStrategy[bytes]:
    """A valid file, then a byte range replaced by random bytes (or cut)."""

    @st.composite
    def mutate(draw: st.DrawFn) -> bytes:
        start = draw(st.integers(0, len(base)))
        end = draw(st.integers(start, min(len(base), start + 16)))
        return base[:start] + draw(st.binary(max_size=8)) + base[end:]

    return mutate()


def _accepts_or_refuses(parse: Any, path: Path) -> Any:
    try:
        return parse(path)
    except INPUT_ERRORS as exc:
        message = str(exc)
        assert "\n" not in message and str(path) in message, message
        return None


PROPERTY = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@PROPERTY
@given(
    records=st.lists(RECORD, max_size=4),
    extra=st.dictionaries(
        st.sampled_from(["format", "links", "questions", "contents"]), JSON, max_size=2
    ),
)
def test_corpus_parser_accepts_or_refuses_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, records: list[dict[str, Any]], extra: dict[str, Any]
) -> None:
    path = tmp_path_factory.mktemp("prop") / "corpus.json"
    path.write_text(json.dumps({"contents": records, **extra}))
    corpus = _accepts_or_refuses(load_corpus, path)
    if corpus is not None:
        for content in corpus.contents:
            assert content.key == content.key.strip() and content.text.strip()
            content.text.encode("utf-8")


@PROPERTY
@given(data=_mutations(json.dumps(CHAIN).encode()))
def test_corrupted_corpus_ingest_writes_nothing_when_refused(
    tmp_path_factory: pytest.TempPathFactory, falkordb_url: str, data: bytes
) -> None:
    home = tmp_path_factory.mktemp("ingest")
    path, audit = home / "corpus.json", home / "audit.jsonl"
    path.write_bytes(data)
    ns = f"t-{uuid.uuid4().hex[:10]}"
    result = runner.invoke(
        app,
        [
            "ingest",
            str(path),
            "--ns",
            ns,
            "--db",
            falkordb_url,
            "--audit-log",
            str(audit),
            *AS_TESTER,
        ],
    )
    try:
        assert result.exit_code in (0, 2), result.output
        if result.exit_code == 2:
            assert str(path) in _one_line(result.output)
            _nothing_written(falkordb_url, ns, audit)
    finally:
        with open_store(falkordb_url) as store:
            store.run("delete_namespace", {"ns": ns})


@PROPERTY
@given(data=_mutations(json.dumps(Genome(cueK=7).to_json_dict()).encode()))
def test_genome_parser_accepts_or_refuses_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    path = tmp_path_factory.mktemp("genome") / "genome.json"
    path.write_bytes(data)
    genome = _accepts_or_refuses(load_genome, path)
    assert genome is None or isinstance(genome, Genome)


@pytest.fixture(scope="module")
def checkpoint_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    study = _study()
    study.optimize()
    path = tmp_path_factory.mktemp("ckpt") / "checkpoint.json"
    save_checkpoint(path, study, {"seed": 5})
    return path.read_bytes()


@PROPERTY
@given(edit=st.data())
def test_checkpoint_loader_accepts_or_refuses_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, checkpoint_bytes: bytes, edit: st.DataObject
) -> None:
    path = tmp_path_factory.mktemp("ckpt") / "checkpoint.json"
    path.write_bytes(edit.draw(_mutations(checkpoint_bytes)))
    study = _study()
    loaded = _accepts_or_refuses(lambda p: load_checkpoint(p, study, {"seed": 5}), path)
    if loaded is not None:
        assert study.generation == study.logbook[-1]["gen"]


@pytest.fixture(scope="module")
def export_bytes(tmp_path_factory: pytest.TempPathFactory, falkordb_url: str) -> bytes:
    ns = f"t-{uuid.uuid4().hex[:10]}"
    home = tmp_path_factory.mktemp("export")
    with open_store(falkordb_url) as store:
        mem = MemoryWriter(store, ns, AuditLog(home / "audit.jsonl"))
        mem.remember("Acme was founded by Jane Roe.", principal=TESTER, title="Acme", tags=["Acme"])
        mem.remember("Jane Roe was born in Lisbon.", principal=TESTER)
        export_memories(store, ns, home / "export.json", scopes=["shared"])
        store.run("delete_namespace", {"ns": ns})
    return (home / "export.json").read_bytes()


@PROPERTY
@given(edit=st.data())
def test_import_reader_accepts_or_refuses_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, export_bytes: bytes, edit: st.DataObject
) -> None:
    path = tmp_path_factory.mktemp("import") / "memories.json"
    path.write_bytes(edit.draw(_mutations(export_bytes)))
    _accepts_or_refuses(read_memories_file, path)
