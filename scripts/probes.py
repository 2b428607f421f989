"""Hostile and careless-user probes against the command line and the engines.

Usage:
    python scripts/probes.py [--neo4j bolt://127.0.0.1:7687] [--markdown OUT.md]

Each probe does what a hostile or careless user did (another local user at the
embedded engine's port and files, edits through the database, concurrent
writers, malformed files and options) through the installed ``mragent``
command, real processes and real engines, and checks that the memory held:
the attack was refused or detected, nothing was lost, nothing leaked. It
prints a table of probes tried and held and exits 1 if one did not hold. Run
as root, so that the cross-user probes can act as ``nobody``. Neo4j probes run
when ``--neo4j`` answers (password from ``MRAGENT_DB_PASSWORD``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis
from probes_input import PROBES as INPUT_PROBES  # scripts/ is on the path of a script

from mragent.core.errors import BackendUnavailable
from mragent.core.store import embedded, open_store

MRAGENT = shutil.which("mragent") or "mragent"
TEXT = "The Glimmer Tower stands in Vardø since 1901."


@dataclass
class Probe:
    """One probe's outcome."""

    name: str
    engine: str
    held: bool
    detail: str


class Lab:
    """A private MRAGENT_HOME with the embedded engine, and the command line to poke it."""

    def __init__(self, root: Path, neo4j: str | None) -> None:
        self.root = root
        self.home = root / "home"
        self.neo4j = neo4j
        self.results: list[Probe] = []
        self.server = embedded.ensure_running(self.home)

    def env(self, **extra: str) -> dict[str, str]:
        return {
            **os.environ,
            "MRAGENT_HOME": str(self.home),
            "MRAGENT_AUDIT_LOG": str(self.home / "audit.jsonl"),
            "COLUMNS": "200",
            **extra,
        }

    def cli(self, *args: str, db: str | None = None) -> tuple[int, str]:
        full = [MRAGENT, *args, *(["--db", db] if db else [])]
        done = subprocess.run(full, env=self.env(), capture_output=True, text=True, timeout=600)
        return done.returncode, (done.stdout + done.stderr).strip()

    def file(self, name: str, data: bytes | str) -> Path:
        path = self.root / name
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    def record(self, name: str, engine: str, held: bool, detail: str) -> None:
        self.results.append(Probe(name, engine, held, detail[:110].replace("\n", " ")))

    def engines(self) -> list[tuple[str, str | None]]:
        """(engine, --db value): the embedded FalkorDB, and Neo4j when it answers."""
        return [("falkordb", None)] + ([("neo4j", self.neo4j)] if self.neo4j else [])


def _as_nobody(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), user="nobody", capture_output=True, text=True, timeout=60)


def probe_private_engine(lab: Lab) -> None:
    """Another local user: the open port, the files, the process table."""
    port = lab.server.port
    ns = "p-private"
    lab.cli("remember", TEXT, "--ns", ns, "--principal", "human:ana")
    raw = (
        f"import socket; s = socket.create_connection(('127.0.0.1', {port})); "
        "s.sendall(b'*3\\r\\n$11\\r\\nGRAPH.QUERY\\r\\n$7\\r\\nmragent\\r\\n$32\\r\\n"
        "MATCH (m:Content) SET m.text = 1\\r\\n'); print(s.recv(200))"
    )
    # The system interpreter: any local user can run it, and it needs only the stdlib.
    reply = _as_nobody("/usr/bin/python3", "-c", raw).stdout
    lab.record(
        "nobody rewrites a memory over the loopback port",
        "falkordb",
        "NOAUTH" in reply or "Authentication" in reply,
        reply,
    )
    data = lab.home / "falkordb"
    for target in (data / "redis.conf", data / "data" / "dump.rdb", data / "server.log"):
        if target.exists() or target.name != "dump.rdb":
            read = _as_nobody("cat", str(target))
            lab.record(
                f"nobody reads {target.relative_to(lab.home)}",
                "falkordb",
                read.returncode != 0,
                read.stderr or "read",
            )
    aof = _as_nobody("grep", "-rl", "Glimmer", str(data / "data"))
    lab.record("nobody greps the append-only file", "falkordb", aof.returncode != 0, aof.stderr)
    seen = _password_in_cmdline(lab.root / "race")
    lab.record(
        "password visible in /proc/PID/cmdline over 20 starts",
        "falkordb",
        not seen,
        f"seen in {seen} of 20 starts",
    )
    bind = redis.Redis(port=port, password=lab.server.password).config_get("bind")["bind"]
    lab.record("server listens on loopback only", "falkordb", bind == "127.0.0.1", bind)


def _password_in_cmdline(home: Path) -> int:
    seen = 0
    for _ in range(20):
        embedded.stop(home)
        password = embedded.read_password(home / "falkordb")
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"from mragent.core.store import embedded; "
                f"from pathlib import Path; embedded.ensure_running(Path({str(home)!r}))",
            ]
        )
        hit = False
        while proc.poll() is None:
            for pid in os.listdir("/proc"):
                if pid.isdigit() and password:
                    try:
                        if password.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                            hit = True
                    except OSError:
                        pass
        seen += hit
    embedded.stop(home)
    return seen


def probe_audit(lab: Lab) -> None:
    """Edits through the database and of the log that `audit verify` must catch."""
    for engine, db in lab.engines():
        for name, cypher in [
            ("text rewritten in the database", "MATCH (m:Content) SET m.text = 'forged'"),
            ("pending memory flipped to accepted", "MATCH (m:Content) SET m.trust = 'accepted'"),
            ("anchor moved back", "MATCH (s:MemorySpace) SET s.audit_seq = 1"),
        ]:
            ns = f"p-audit-{uuid.uuid4().hex[:6]}"
            lab.cli("remember", TEXT, "--ns", ns, "--principal", "agent:bot", db=db)
            lab.cli(
                "remember",
                "The harbour opens at five.",
                "--ns",
                ns,
                "--principal",
                "human:ana",
                db=db,
            )
            code, out = lab.cli("audit", "verify", "--ns", ns, db=db)
            if code != 0:
                lab.record(f"audit verify before: {name}", engine, False, out)
                continue
            _raw(
                lab,
                db,
                cypher.replace("(m:Content)", f"(m:Content {{ns: '{ns}'}})").replace(
                    "(s:MemorySpace)", f"(s:MemorySpace {{ns: '{ns}'}})"
                ),
            )
            code, out = lab.cli("audit", "verify", "--ns", ns, db=db)
            lab.record(f"audit verify finds: {name}", engine, code == 4, out.splitlines()[-1])
    log = lab.home / "audit.jsonl"
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    from mragent.memory.audit_records import GENESIS, canonical_json, record_hash

    prev = GENESIS
    for obj in lines:
        obj["principal"] = "human:mallory"
        obj["prev"] = prev
        obj["hash"] = prev = record_hash(obj, b"attacker has no key")
    backup = log.read_bytes()
    log.write_text("".join(canonical_json(obj) + "\n" for obj in lines))
    code, out = lab.cli("audit", "verify", "--chain-only")
    lab.record("whole log re-hashed without the key", "falkordb", code == 4, out.splitlines()[0])
    log.write_bytes(backup)


def _raw(lab: Lab, db: str | None, cypher: str) -> None:
    """An edit the audit never saw, straight to the database."""
    if db is None:
        client = redis.Redis(port=lab.server.port, password=lab.server.password)
        client.execute_command("GRAPH.QUERY", "mragent", cypher)
        return
    with open_store(db) as store:
        store._execute("probe", cypher, {})


def probe_purge(lab: Lab) -> None:
    """After purge no copy of the text: files, telemetry, source, traces."""
    client = redis.Redis(port=lab.server.port, password=lab.server.password)
    client.config_set("rdbcompression", "no")  # a compressed RDB would hide a grep hit
    word = f"Zqx{uuid.uuid4().hex[:8]}"
    ns = "p-purge"
    code, out = lab.cli(
        "remember",
        f"The vault word is {word}.",
        "--ns",
        ns,
        "--principal",
        "human:ana",
        "--source",
        f"note {word}",
        "--json",
    )
    memory = json.loads(out)["id"]
    lab.cli("recall", f"What is the vault word {word}?", "--ns", ns)
    corpus = lab.file(
        "purge-corpus.json",
        json.dumps(
            {"contents": [{"id": "c1", "text": "The harbour opens at five.", "title": "Harbour"}]}
        ),
    )
    lab.cli(
        "explain",
        f"What is the vault word {word}?",
        "--ns",
        ns,
        "--persist",
        "--corpus",
        str(corpus),
    )
    code, out = lab.cli(
        "purge", memory, "--reason", "secret", "--ns", ns, "--principal", "human:ana"
    )
    hits = [str(p) for p in lab.home.rglob("*") if p.is_file() and word.encode() in p.read_bytes()]
    lab.record(
        "purged text grepped in the data directory",
        "falkordb",
        code == 0 and not hits,
        ", ".join(hits) or out,
    )
    streams = [k for k in client.scan_iter("telemetry*")]
    lab.record(
        "purged text in FalkorDB's query telemetry",
        "falkordb",
        not streams,
        f"{len(streams)} telemetry key(s)",
    )
    export = lab.root / "export.json"
    lab.cli("export", str(export), "--ns", ns, "--include-forgotten")
    lab.record(
        "purged source in export --include-forgotten",
        "falkordb",
        export.exists() and word not in export.read_text(),
        str(export),
    )
    traces = client.execute_command("GRAPH.QUERY", "mragent", "MATCH (t:Trace) RETURN t.question")
    lab.record(
        "purged text in explain --persist traces",
        "falkordb",
        word not in repr(traces),
        repr(traces)[:80],
    )


def probe_forgotten(lab: Lab) -> None:
    """Forgotten text must not come back through another write path."""
    for engine, db in lab.engines():
        ns = f"p-forget-{uuid.uuid4().hex[:6]}"
        code, out = lab.cli(
            "remember", TEXT, "--ns", ns, "--principal", "human:ana", "--json", db=db
        )
        memory = json.loads(out)["id"]
        export = lab.root / f"before-forget-{engine}.json"
        lab.cli("export", str(export), "--ns", ns, db=db)
        other = lab.cli(
            "remember",
            "The harbour opens at five.",
            "--ns",
            ns,
            "--principal",
            "human:ana",
            "--json",
            db=db,
        )[1]
        lab.cli(
            "forget", memory, "--reason", "wrong", "--ns", ns, "--principal", "human:ana", db=db
        )
        corpus = lab.file(
            f"forgotten-{engine}.json", json.dumps({"contents": [{"id": "x1", "text": TEXT}]})
        )
        for name, args in [
            ("remember", ["remember", TEXT]),
            ("correct", ["correct", json.loads(other)["id"], TEXT]),
            ("ingest", ["ingest", str(corpus)]),
            ("import", ["import", str(export)]),
        ]:
            code, out = lab.cli(*args, "--ns", ns, "--principal", "human:ana", db=db)
            lab.record(f"forgotten text comes back through {name}", engine, code == 3, out)


def probe_concurrency(lab: Lab) -> None:
    """8 processes remembering one text at once."""
    for engine, db in lab.engines():
        ns = f"p-conc-{uuid.uuid4().hex[:6]}"
        args = [
            MRAGENT,
            "remember",
            TEXT,
            "--ns",
            ns,
            "--principal",
            "human:ana",
            "--json",
            *(["--db", db] if db else []),
        ]
        procs = [
            subprocess.Popen(args, env=lab.env(), stdout=subprocess.PIPE, text=True)
            for _ in range(8)
        ]
        ids = {json.loads(p.communicate(timeout=300)[0])["id"] for p in procs}
        with open_store(db or lab.server.secret_url) as store:
            stored = store.run(
                "memory_ids", {"ns": ns, "scopes": ["shared"], "include_forgotten": True}
            )
        lab.record(
            "8 concurrent writers of one text",
            engine,
            len(ids) == len(stored) == 1,
            f"{len(stored)} stored",
        )


def probe_normalisation(lab: Lab) -> None:
    """Outer spaces in names, ids that collide once stripped."""
    for engine, db in lab.engines():
        ns = f"p-norm-{uuid.uuid4().hex[:6]}"
        corpus = lab.file(
            f"spaces-{engine}.json",
            json.dumps({"contents": [{"id": "w1", "text": TEXT, "title": "Glimmer Tower "}]}),
        )
        counts = []
        for _ in range(2):
            code, out = lab.cli(
                "ingest", str(corpus), "--ns", ns, "--principal", "human:ana", db=db
            )
            counts.append(out)
        code, out = lab.cli("recall", "Where does the Glimmer Tower stand?", "--ns", ns, db=db)
        added_twice = "0 cues, 0 tags, 0 contents, 0 links" in counts[1]
        lab.record(
            "title with a trailing space ingested twice",
            engine,
            added_twice and code == 0 and "Vardø" in out,
            counts[1],
        )
        collide = lab.file(
            "collide.json",
            json.dumps({"contents": [{"id": "d", "text": "One."}, {"id": " d", "text": "Two."}]}),
        )
        code, out = lab.cli("ingest", str(collide), "--ns", ns, "--principal", "human:ana", db=db)
        lab.record(
            "ids 'd' and ' d' in one corpus",
            engine,
            code == 2 and "contents[1]" in out and "contents[0]" in out,
            out,
        )


def probe_replace_failure(lab: Lab) -> None:
    """A database error in the middle of import --mode replace."""
    for engine, db in lab.engines():
        code = (
            "import sys, uuid; from pathlib import Path\n"
            "from mragent.core.store import open_store\n"
            "from mragent.core.errors import QueryError\n"
            "from mragent.apps.transfer.export import export_memories\n"
            "from mragent.apps.transfer.importer import import_memories\n"
            "from mragent.memory.audit import AuditLog\n"
            "from mragent.memory.ingest import namespace_stats\n"
            "from mragent.memory.principal import Principal\n"
            "from mragent.memory.writer import MemoryWriter\n"
            "ana = Principal('human', 'ana'); log = AuditLog()\n"
            "src, dst = 'p-rs-' + uuid.uuid4().hex[:6], 'p-rd-' + uuid.uuid4().hex[:6]\n"
            "with open_store(sys.argv[1] or None) as store:\n"
            "    writers = MemoryWriter(store, src, log), MemoryWriter(store, dst, log)\n"
            "    writers[0].remember('Acme was founded in 1990.', principal=ana)\n"
            "    writers[1].remember('Porto is in Portugal.', principal=ana)\n"
            "    export_memories(store, src, Path(sys.argv[2]), scopes=['shared'])\n"
            "    before = namespace_stats(store, dst)\n"
            "    real = store.run\n"
            "    def failing(name, params=None, **render):\n"
            "        if name == 'ingest_batch': raise QueryError(name, 'injected')\n"
            "        return real(name, params, **render)\n"
            "    store.run = failing\n"
            "    try: import_memories(store, dst, Path(sys.argv[2]), principal=ana, audit=log,"
            " mode='replace', confirm_replace=True)\n"
            "    except QueryError: pass\n"
            "    store.run = real\n"
            "    print(before == namespace_stats(store, dst), namespace_stats(store, dst))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, db or "", str(lab.root / f"replace-{engine}.json")],
            env=lab.env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        lab.record(
            "database error in the middle of import --mode replace",
            engine,
            done.stdout.startswith("True"),
            (done.stdout + done.stderr).strip(),
        )


def probe_bad_input(lab: Lab) -> None:
    """Item by item, the inputs that gave a traceback or a database error."""
    cases: list[tuple[str, list[str], bytes | None]] = [
        (
            "NUL byte in text",
            ["ingest"],
            json.dumps({"contents": [{"id": "a", "text": "x\u0000y"}]}).encode(),
        ),
        (
            "NUL byte in id",
            ["ingest"],
            json.dumps({"contents": [{"id": "a\u0000", "text": "xy"}]}).encode(),
        ),
        (
            "NUL byte in tag",
            ["ingest"],
            json.dumps({"contents": [{"id": "a", "text": "xy", "tags": ["t\u0000"]}]}).encode(),
        ),
        ("lone surrogate", ["ingest"], b'{"contents":[{"id":"a","text":"x\\ud800y"}]}'),
        (
            "deeply nested JSON",
            ["ingest"],
            b'{"contents":[{"id":"a","text":"x","n":' + b"[" * 100000 + b"]" * 100000 + b"}]}",
        ),
        (
            "5,000-digit number in a corpus",
            ["ingest"],
            b'{"contents":[{"id":"a","text":"x","n":' + b"9" * 5000 + b"}]}",
        ),
        ("5,000-digit number in a genome", ["genome", "show"], b'{"cueK":' + b"9" * 5000 + b"}"),
        ("genome file not UTF-8", ["genome", "show"], b'{"fusion":"\xe9"}'),
        ('"cueK": true as a gene', ["genome", "show"], b'{"cueK": true}'),
        ('"cueK": "5" as a gene', ["genome", "show"], b'{"cueK": "5"}'),
        ("--ns with a newline", ["remember", "Acme was founded."], None),
    ]
    for name, args, data in cases:
        ns = f"p-bad-{uuid.uuid4().hex[:6]}"
        log = lab.home / "audit.jsonl"
        before = log.read_bytes() if log.exists() else b""
        if data is not None:
            path = lab.file(f"bad-{uuid.uuid4().hex[:6]}.json", data)
            argv = [*args, str(path)]
        else:
            path, argv = None, list(args)
        if args[0] != "genome":
            argv += ["--ns", "nl\n" if "newline" in name else ns, "--principal", "human:ana"]
        code, out = lab.cli(*argv)
        spaces = [r["ns"] for r in _namespaces(lab)]
        one_line = len(out.splitlines()) == 1 and (path is None or str(path) in out)
        clean = ns not in spaces and "nl\n" not in spaces and log.read_bytes() == before
        lab.record(name, "falkordb", code == 2 and one_line and clean, out)
    checkpoint = _edited_checkpoint(lab.root)
    lab.record(
        'checkpoint edited to "generation": 999', "-", checkpoint.startswith("refused"), checkpoint
    )


def probe_audit_both_ways(lab: Lab) -> None:
    """The database checked against the log: deleted, moved and cut-tail memories."""
    for engine, db in lab.engines():
        for name, cypher in [
            ("memory deleted in the database", "MATCH (m:Content {ns: $ns}) DETACH DELETE m"),
            ("memory moved to another namespace", "MATCH (m:Content {ns: $ns}) SET m.ns = $to"),
        ]:
            ns = f"p-both-{uuid.uuid4().hex[:6]}"
            lab.cli("remember", TEXT, "--ns", ns, "--principal", "human:ana", db=db)
            _raw(lab, db, cypher.replace("$ns", f"'{ns}'").replace("$to", f"'{ns}-moved'"))
            code, out = lab.cli("audit", "verify", "--ns", ns, db=db)
            lab.record(f"audit verify finds: {name}", engine, code == 4, _problem(out))
            _raw(lab, db, f"MATCH (n) WHERE n.ns = '{ns}-moved' DETACH DELETE n")
        ns = f"p-tail-{uuid.uuid4().hex[:6]}"
        lab.cli("remember", TEXT, "--ns", ns, "--principal", "human:ana", db=db)
        log = lab.home / "audit.jsonl"
        kept = log.read_bytes()
        lab.cli("remember", "The harbour opens at five.", "--ns", ns, "--principal", "human:ana",
                db=db)  # fmt: skip
        log.write_bytes(kept)  # the last line cut
        last = json.loads(kept.splitlines()[-1])
        _raw(lab, db, f"MATCH (s:MemorySpace {{ns: '{ns}'}}) SET s.audit_seq = {last['seq']}, "
                      f"s.audit_head = '{last['hash']}'")  # fmt: skip
        code, out = lab.cli("audit", "verify", "--ns", ns, db=db)
        lab.record("audit verify finds: last line cut, anchor rolled back with the DB password",
                   engine, code == 4 and "without the audit key" in out, _problem(out))  # fmt: skip


def _problem(out: str) -> str:
    """The first problem line of an `audit verify` output (else its last line)."""
    problems = [line for line in out.splitlines() if "problem:" in line]
    return (problems or out.splitlines() or [""])[0].strip()


def probe_durability(lab: Lab) -> None:
    """Acknowledged writes survive a killed server; a lost tail is not called tampering."""
    client = redis.Redis(port=lab.server.port, password=lab.server.password)
    fsync = client.config_get("appendfsync").get("appendfsync")
    lab.record("embedded server fsyncs before it acknowledges", "falkordb", fsync == "always",
               f"appendfsync {fsync}")  # fmt: skip
    ns = "p-durable"
    ids = []
    for n in range(4):
        _, out = lab.cli("remember", f"Pier {n} opens at dawn.", "--ns", ns, "--principal",
                         "human:ana", "--json")  # fmt: skip
        ids.append(json.loads(out)["id"])
    os.kill(lab.server.pid, 9)
    lab.server = embedded.ensure_running(lab.home)
    with open_store(lab.server.secret_url) as store:
        found = store.run("memory_records", {"ns": ns, "scopes": ["shared"], "ids": ids})
    lab.record("kill -9 after 4 acknowledged remembers: all there", "falkordb",
               len(found) == 4, f"{len(found)} of 4")  # fmt: skip
    (space,) = [row for row in _namespaces(lab) if row["ns"] == ns]
    _, out = lab.cli("remember", "Pier 9 opens at noon.", "--ns", ns, "--principal",
                     "human:ana", "--json")  # fmt: skip
    lost = json.loads(out)["id"]
    _raw(lab, None, f"MATCH (m:Content {{id: '{lost}'}}) DETACH DELETE m")
    _raw(
        lab,
        None,
        f"MATCH (s:MemorySpace {{ns: '{ns}'}}) SET s.audit_seq = {space['audit_seq']}, "
        f"s.audit_head = '{space['audit_head']}', s.audit_mac = '{space['audit_mac']}'",
    )
    code, out = lab.cli("audit", "verify", "--ns", ns)
    lab.record(
        "database behind the log told apart from tampering",
        "falkordb",
        code == 4 and "lost it" in out and "without the audit key" not in out,
        _problem(out),
    )
    lab.cli("remember", "Pier 10 opens at dusk.", "--ns", ns, "--principal", "human:ana")
    code, out = lab.cli("audit", "verify", "--ns", ns)
    lab.record("a later write does not make a lost memory intact", "falkordb",
               code == 4 and lost in out, _problem(out))  # fmt: skip


def probe_port_impostor(lab: Lab) -> None:
    """After `db stop` a listener on the freed port must get no AUTH from a live session."""
    home = lab.root / "home-port"
    server = embedded.ensure_running(home)
    os.environ["MRAGENT_HOME"] = str(home)
    received: list[bytes] = []
    try:
        from mragent import open_memory

        session = open_memory("p-port", principal="human:ana",
                              audit_log=home / "audit.jsonl")  # fmt: skip
        session.remember(TEXT)
        embedded.stop(home)
        with socket.socket() as listener:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", server.port))
            listener.listen()
            listener.settimeout(5)
            taker = threading.Thread(target=_take, args=(listener, received))
            taker.start()
            try:
                session.remember("The harbour opens at five.")
                refused = ""
            except BackendUnavailable as exc:
                refused = str(exc)
            taker.join()
        again = embedded.ensure_running(home)
        leaked = any(server.password.encode() in data or b"AUTH" in data for data in received)
        lab.record("session reconnecting to a port another process took", "falkordb",
                   bool(refused) and not leaked, refused or "the write went through")  # fmt: skip
        lab.record("a new server gets a new password", "falkordb",
                   again.password != server.password, f"port {again.port}")  # fmt: skip
    finally:
        os.environ.pop("MRAGENT_HOME", None)
        embedded.stop(home)


def _take(listener: socket.socket, received: list[bytes]) -> None:
    """Accept connections on ``listener`` for a while, keeping what each one sent."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            return
        with conn:
            conn.settimeout(1)
            data = b""
            with contextlib.suppress(OSError):
                while chunk := conn.recv(4096):
                    data += chunk
            received.append(data)


def probe_revocation(lab: Lab) -> None:
    """`principal revoke` reaches an open facade session and a running stdio MCP server."""
    from mragent import open_memory
    from mragent.core.errors import AccessDenied
    from mragent.memory.credentials import editing, os_user
    from mragent.memory.principal import Principal

    path = lab.root / "credentials-revoke.json"
    with editing(path) as creds:
        creds.add(Principal("human", "ana"), read=["shared"], write=["shared"], user=os_user())
        token = creds.add(Principal("agent", "gone"), read=["shared"], write=["shared"])
    assert token is not None
    session = open_memory("p-revoke", token=token, db=lab.server.secret_url, credentials=path,
                          audit_log=lab.home / "audit.jsonl")  # fmt: skip
    session.remember(TEXT)
    mcp = subprocess.Popen(
        [MRAGENT, "mcp", "--ns", "p-revoke", "--db", lab.server.secret_url],
        env=lab.env(MRAGENT_TOKEN=token, MRAGENT_CREDENTIALS=str(path)),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert mcp.stdin is not None and mcp.stdout is not None
        _mcp_call(
            mcp,
            0,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "probe", "version": "1"},
            },
        )
        mcp.stdin.write(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
        )
        with editing(path) as creds:
            creds.revoke(Principal("agent", "gone"))
        try:
            session.remember("The harbour opens at five.")
            facade = "the write went through"
        except AccessDenied as exc:
            facade = f"refused: {exc}"
        reply = _mcp_call(
            mcp,
            1,
            "tools/call",
            {"name": "remember", "arguments": {"text": "The bay opens at six."}},
        )
    finally:
        mcp.kill()
        mcp.wait()
    lab.record("revoked agent's open facade session writes", "falkordb",
               facade.startswith("refused"), facade)  # fmt: skip
    refused = bool(reply.get("result", {}).get("isError"))
    lab.record("revoked agent's running stdio MCP server writes", "falkordb", refused,
               json.dumps(reply)[:110])  # fmt: skip


def _mcp_call(proc: subprocess.Popen[str], rid: int, method: str, params: dict) -> dict:
    """One JSON-RPC request over the server's stdin, and its reply."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                 "params": params}) + "\n")  # fmt: skip
    proc.stdin.flush()
    while line := proc.stdout.readline():
        reply = json.loads(line)
        if reply.get("id") == rid:
            return reply
    return {}


def probe_purge_residue(lab: Lab) -> None:
    """What a purge must also reach: a killed replace's staging, other index copies,
    a reader open across it, the graph slow log."""
    from mragent.apps.transfer.export import export_memories
    from mragent.apps.transfer.importer import import_memories
    from mragent.core.errors import QueryError
    from mragent.memory.audit import AuditLog
    from mragent.memory.principal import Principal
    from mragent.memory.reader import MemoryReader
    from mragent.memory.space import staging_namespace

    word = f"Zqx{uuid.uuid4().hex[:8]}"
    ns = "p-residue"
    _, out = lab.cli("remember", f"The vault word is {word}.", "--ns", ns, "--principal",
                     "human:ana", "--title", f"{word} vault", "--json")  # fmt: skip
    memory = json.loads(out)["id"]
    elsewhere = lab.root / "index-elsewhere"
    subprocess.run(
        [MRAGENT, "recall", f"What is the vault word {word}?", "--ns", ns],
        env=lab.env(MRAGENT_INDEX_DIR=str(elsewhere)),
        capture_output=True,
    )
    with open_store(lab.server.secret_url) as store:
        exported = lab.root / "residue.json"
        export_memories(store, ns, exported, scopes=["shared"])
        real = store.run

        def failing(name: str, params: dict | None = None, **render: int) -> object:
            if name == "import_swap":
                raise QueryError(name, "killed before the swap")
            return real(name, params, **render)

        store.run = failing  # type: ignore[method-assign]
        with contextlib.suppress(QueryError):
            import_memories(store, ns, exported, principal=Principal("human", "ana"),
                            audit=AuditLog(lab.home / "audit.jsonl"), mode="replace",
                            confirm_replace=True)  # fmt: skip
        store.run = real  # type: ignore[method-assign]
        os.environ["MRAGENT_INDEX_DIR"] = str(lab.root / "index-open")
        try:
            reader = MemoryReader(store, ns)
        finally:
            os.environ.pop("MRAGENT_INDEX_DIR")
        lab.cli("purge", memory, "--reason", "secret", "--ns", ns, "--principal", "human:ana")
        rows = store.run("audit_contents", {"ns": staging_namespace(ns), "after": "", "limit": 100})
        lab.record(
            "purged text in a killed import's staging namespace",
            "falkordb",
            not [r for r in rows if word in (r["text"] or "")],
            f"{len(rows)} staged",
        )
        reader.refresh()
        copies = _holding(lab.root / "index-open", word)
        lab.record("reader open across a purge saves the purged words", "falkordb",
                   word.lower() not in reader.index.passages.sparse.vocab and not copies,
                   ", ".join(copies) or "none")  # fmt: skip
    subprocess.run(
        [MRAGENT, "recall", "What opens the vault?", "--ns", ns],
        env=lab.env(MRAGENT_INDEX_DIR=str(elsewhere)),
        capture_output=True,
    )
    held = _holding(elsewhere, word)
    lab.record("purged title in an index copy under another MRAGENT_INDEX_DIR", "falkordb",
               not held, ", ".join(held) or "none")  # fmt: skip
    client = redis.Redis(port=lab.server.port, password=lab.server.password)
    slowlog = client.execute_command("GRAPH.SLOWLOG", "mragent")
    lab.record("purged text in GRAPH.SLOWLOG", "falkordb", word not in repr(slowlog),
               f"{len(slowlog)} entries")  # fmt: skip


def _holding(root: Path, word: str) -> list[str]:
    """Files under ``root`` that hold ``word`` in any case."""
    return [str(p) for p in root.rglob("*")
            if p.is_file() and word.lower().encode() in p.read_bytes().lower()]  # fmt: skip


def probe_index_copies(lab: Lab) -> None:
    """Index copies edited on disk: a crafted hnsw.bin, zeroed live masks."""
    import numpy as np

    ns = "p-index"
    lab.cli("remember", TEXT, "--ns", ns, "--principal", "human:ana", "--title", "Glimmer Tower")
    question = "Where does the Glimmer Tower stand?"
    index = lab.root / "index-crafted"
    env = lab.env(MRAGENT_INDEX_DIR=str(index))
    subprocess.run([MRAGENT, "recall", question, "--ns", ns], env=env, capture_output=True)
    for name in ("crafted hnsw.bin", "zeroed live masks"):
        (meta,) = index.rglob("meta.json")
        if name.startswith("crafted"):
            target = meta.parent / "hnsw.bin"
            data = bytearray(target.read_bytes())
            data[52:56] = (0x7FFFFFF0).to_bytes(4, "little")  # the entry point, out of range
            target.write_bytes(bytes(data))
        else:
            target = meta.parent / "cues.live.npy"  # one file per array since format 4
            np.save(target, np.zeros_like(np.load(target)), allow_pickle=False)
        done = subprocess.run([MRAGENT, "recall", question, "--ns", ns], env=env,
                              capture_output=True, text=True)  # fmt: skip
        lab.record(
            f"index copy with {name}",
            "falkordb",
            done.returncode == 0 and "Vardø" in done.stdout,
            f"rc {done.returncode}: {(done.stdout + done.stderr).strip()[:80]}",
        )


def _namespaces(lab: Lab) -> list[dict[str, object]]:
    with open_store(lab.server.secret_url) as store:
        return store.run("namespaces", {})


def _edited_checkpoint(root: Path) -> str:
    from mragent.core.errors import MragentError
    from mragent.evolution.checkpoint import load_checkpoint, save_checkpoint
    from mragent.evolution.study import Study

    def evaluate(genomes: list) -> list:  # the study's own fitness is irrelevant here
        from tests.test_evolution import _fake_evaluate

        return _fake_evaluate(genomes)

    study = Study(evaluate, population=4, generations=2, seed=1)
    study.optimize()
    path = root / "checkpoint.json"
    save_checkpoint(path, study, {"seed": 1})
    state = json.loads(path.read_text())
    state["generation"] = 999
    path.write_text(json.dumps(state))
    try:
        load_checkpoint(path, Study(evaluate, population=4, generations=2, seed=1), {"seed": 1})
    except MragentError as exc:
        return f"refused: {exc}"
    return "resumed"


PROBES: list[Callable[[Lab], None]] = [
    probe_private_engine,
    probe_audit,
    probe_purge,
    probe_forgotten,
    probe_concurrency,
    probe_normalisation,
    probe_replace_failure,
    probe_bad_input,
    probe_audit_both_ways,
    probe_durability,
    probe_port_impostor,
    probe_revocation,
    probe_purge_residue,
    probe_index_copies,
    *INPUT_PROBES,
]


def table(results: list[Probe]) -> str:
    held = sum(p.held for p in results)
    lines = [
        "| # | probe | engine | held | detail |",
        "| --- | --- | --- | --- | --- |",
        *(
            f"| {i} | {p.name} | {p.engine} | {'held' if p.held else 'NOT HELD'} | "
            f"{p.detail.replace('|', '/')} |"
            for i, p in enumerate(results, 1)
        ),
        "",
        f"{len(results)} tried, {held} held",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neo4j", default=os.environ.get("MRAGENT_TEST_NEO4J_URL"))
    parser.add_argument("--markdown", type=Path, help="Also write the table to this file.")
    args = parser.parse_args()
    neo4j = args.neo4j
    if neo4j:
        try:
            open_store(neo4j).close()
        except BackendUnavailable:
            neo4j = None
    root = Path(tempfile.mkdtemp(prefix="mragent-probes-"))
    root.chmod(0o755)  # other users may walk to the files: only mragent's modes protect them
    lab = Lab(root, neo4j)
    started = time.monotonic()
    try:
        for probe in PROBES:
            began = time.monotonic()
            probe(lab)
            print(f"{probe.__name__}: {time.monotonic() - began:.0f} s", file=sys.stderr)
    finally:
        embedded.stop(lab.home)
        shutil.rmtree(root, ignore_errors=True)
    text = table(lab.results) + f" in {time.monotonic() - started:.0f} s"
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0 if all(p.held for p in lab.results) else 1


if __name__ == "__main__":
    sys.exit(main())
