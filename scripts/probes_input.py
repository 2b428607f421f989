"""Probes of issue 29's input and caller items: times, limits, special files,
corpus fields, the audit log's guards, blank tokens, forgotten-text spellings,
the HTML page's mode, and who may ingest, persist and stop the database.

Imported by ``probes.py`` (``PROBES``); each probe takes its ``Lab``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import uuid
from pathlib import Path
from typing import Any

MRAGENT = shutil.which("mragent") or "mragent"
TEXT = "The Glimmer Tower stands in Vardø since 1901."


def _unchanged(lab: Any, run: Any) -> tuple[int, str, bool]:
    """Run ``run()``; report its exit code, output and whether the audit log stayed as it was."""
    log = lab.home / "audit.jsonl"
    before = log.read_bytes() if log.exists() else b""
    code, out = run()
    return code, out, (log.read_bytes() if log.exists() else b"") == before


def probe_times(lab: Any) -> None:
    """Times that are no finite time, on the command line and the facade."""
    ns = f"p-time-{uuid.uuid4().hex[:6]}"
    for option, value, command in [
        ("--valid-from", "soon", "remember"),
        ("--valid-from", "inf", "remember"),
        ("--valid-to", "1e400", "remember"),
        ("--as-of", "nan", "recall"),
    ]:
        args = [command, TEXT, option, value, "--ns", ns, "--principal", "human:ana"]
        code, out, clean = _unchanged(lab, lambda args=args: lab.cli(*args))
        ok = code == 2 and len(out.splitlines()) == 1 and option in out and clean
        lab.record(f"{command} {option} {value}", "falkordb", ok, out)
    snippet = (
        "from mragent import open_memory\n"
        f"m = open_memory({ns!r}, principal='agent:bot')\n"
        "try:\n    m.remember('The ferry sails.', valid_from='soon')\n"
        "except Exception as e:\n    print(type(e).__name__, e)\n"
    )
    code, out, clean = _unchanged(lab, lambda: _python(lab, snippet))
    lab.record("facade remember(valid_from='soon')", "falkordb",
               "ConfigError" in out and "valid_from" in out and clean, out)  # fmt: skip


def _python(lab: Any, code: str) -> tuple[int, str]:
    done = subprocess.run(["python3", "-c", code], env=lab.env(), capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    return done.returncode, (done.stdout + done.stderr).strip()


def probe_limits_and_files(lab: Any) -> None:
    """Oversized names, special files, unknown fields and duplicate keys."""
    ns = f"p-lim-{uuid.uuid4().hex[:6]}"
    for name, args in [
        ("remember --title of 100,000 characters", ["--title", "t" * 100_000]),
        ("remember --tag of 5,000 characters", ["--tag", "g" * 5_000]),
        ("remember --source of 10,000 characters", ["--source", "s" * 10_000]),
    ]:
        argv = ["remember", TEXT, *args, "--ns", ns, "--principal", "human:ana"]
        code, out, clean = _unchanged(lab, lambda argv=argv: lab.cli(*argv))
        lab.record(name, "falkordb", code == 2 and "(limit 200)" in out and clean, out)
    fifo = lab.root / "pipe"
    if not fifo.exists():
        os.mkfifo(fifo)
    for target in (Path("/dev/zero"), fifo):
        argv = ["ingest", str(target), "--ns", ns, "--principal", "human:ana"]
        code, out, clean = _unchanged(lab, lambda argv=argv: lab.cli(*argv))
        lab.record(f"ingest {target.name}", "falkordb",
                   code == 2 and "not a regular file" in out and clean, out)  # fmt: skip
    for name, data in [
        ("corpus with an unknown field", b'{"contents":[{"id":"a","text":"x","titel":"A"}]}'),
        ("corpus with a duplicate key", b'{"contents":[{"id":"a","text":"x","text":"y"}]}'),
    ]:
        path = lab.file(f"c-{uuid.uuid4().hex[:6]}.json", data)
        argv = ["ingest", str(path), "--ns", ns, "--principal", "human:ana"]
        code, out, clean = _unchanged(lab, lambda argv=argv: lab.cli(*argv))
        ok = code == 2 and "contents[0]" in out and str(path) in out and clean
        lab.record(name, "falkordb", ok, out)
    page = lab.root / "trace.html"
    lab.cli("remember", TEXT, "--ns", ns, "--principal", "human:ana")
    lab.cli("explain", "Where is the Glimmer Tower?", "--ns", ns, "--html", str(page))
    mode = stat.S_IMODE(page.stat().st_mode) if page.exists() else None
    lab.record("explain --html writes 0600", "falkordb", mode == 0o600, oct(mode or 0))


def probe_forgotten_spellings(lab: Any) -> None:
    """A forgotten text with a trailing space, re-wrapped, in another scope."""
    ns = f"p-fsp-{uuid.uuid4().hex[:6]}"
    code, out = lab.cli("remember", TEXT, "--ns", ns, "--principal", "human:ana", "--json")
    memory = json.loads(out)["id"] if code == 0 else ""
    lab.cli("forget", memory, "--reason", "probe", "--ns", ns, "--principal", "human:ana")
    for name, text, scope in [
        ("trailing space", TEXT + " ", "shared"),
        ("re-wrapped", TEXT.replace(" stands ", "\nstands  "), "shared"),
        ("another scope", TEXT, "ops"),
    ]:
        argv = ["remember", text, "--ns", ns, "--scope", scope, "--principal", "human:ana"]
        code, out = lab.cli(*argv)
        lab.record(f"forgotten text re-remembered: {name}", "falkordb",
                   code == 3 and "was forgotten" in out, out)  # fmt: skip


def probe_guards(lab: Any) -> None:
    """The audit log's and the credentials' guards, and the callers' grants, in a
    home of their own (credentials configured there)."""
    home = lab.root / f"guarded-{uuid.uuid4().hex[:6]}"
    home.mkdir()
    base = {"MRAGENT_HOME": str(home), "MRAGENT_AUDIT_LOG": str(home / "audit.jsonl"),
            "MRAGENT_DB": lab.server.secret_url}  # fmt: skip

    def cli(*args: str, **env: str) -> tuple[int, str]:
        done = subprocess.run([MRAGENT, *args], env={**lab.env(), **base, **env},
                              capture_output=True, text=True, timeout=300)  # fmt: skip
        return done.returncode, (done.stdout + done.stderr).strip()

    where = home / "logs"
    where.mkdir()
    code, out = cli("remember", TEXT, "--ns", "p-g", "--principal", "human:ana",
                    "--audit-log", str(where))  # fmt: skip
    lab.record("--audit-log is a directory", "falkordb",
               code == 1 and len(out.splitlines()) == 1, out)  # fmt: skip
    cli("remember", TEXT, "--ns", "p-g", "--principal", "human:ana")
    (home / "audit.jsonl.key").chmod(0o644)
    code, out = cli("remember", "The harbour opens at five.", "--ns", "p-g",
                    "--principal", "human:ana")  # fmt: skip
    lab.record("audit key at 0644", "falkordb", code != 0 and "open to others" in out, out)
    (home / "audit.jsonl.key").chmod(0o600)
    cli("principal", "add", "human:ana")  # bound to the OS account running the probes
    code, out = cli("principal", "add", "agent:peek", "--read", "shared", "--write", "ops",
                    "--json")  # fmt: skip
    token = json.loads(out).get("token", "") if code == 0 and out.startswith("{") else ""
    (home / "empty.key").write_text("")
    (home / "empty.key").chmod(0o600)
    for name, env in [
        ('MRAGENT_TOKEN="   "', {"MRAGENT_TOKEN": "   "}),
        ("empty token file", {"MRAGENT_TOKEN_FILE": str(home / "empty.key")}),
    ]:
        code, out = cli("remember", TEXT, "--ns", "p-g", **env)
        lab.record(name, "falkordb", code == 3 and "is empty" in out, out)
    agent = {"MRAGENT_TOKEN": token}
    corpus = lab.file(
        f"evil-{uuid.uuid4().hex[:6]}.json",
        json.dumps({"contents": [{"id": "e", "text": "Evil was accepted."}]}),
    )
    fresh = f"p-new-{uuid.uuid4().hex[:6]}"
    for name, argv in [
        ("read-only agent explain --corpus",
         ["explain", "What?", "--ns", fresh, "--corpus", str(corpus)]),
        ("read-only agent explain --persist", ["explain", "What?", "--ns", "p-g", "--persist"]),
        ("agent db stop", ["db", "stop"]),
    ]:  # fmt: skip
        code, out = cli(*argv, **agent)
        lab.record(name, "falkordb", bool(token) and code == 3, out)


PROBES = [probe_times, probe_limits_and_files, probe_forgotten_spellings, probe_guards]
