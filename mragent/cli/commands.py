"""The sub-commands of ``mragent``, loaded only when one of them runs.

Importing every command module would import every layer below (the memory,
numpy, pydantic, the stores) for ``mragent --help`` or ``--version`` too. The
root group instead knows each command by the module that defines it and the
one-line summary its listing shows, and imports the module when the command
is invoked or asked for its own help. ``tests/test_cli_commands.py`` keeps
every summary equal to its command's own help, so the two cannot drift.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

# Click's Context, Command and HelpFormatter are private to typer (it ships its own
# copy of Click), so signatures below name them Any; the classes used are typer's.


@dataclass(frozen=True)
class CommandEntry:
    """Where a sub-command lives and what the root listing says of it.

    Attributes:
        module: The module defining it.
        attr: A command function, or a ``typer.Typer`` of sub-commands, in that module.
        summary: The first paragraph of its help, shown by ``mragent --help``.
    """

    module: str
    attr: str
    summary: str


COMMANDS: dict[str, CommandEntry] = {
    "ingest": CommandEntry(
        "mragent.cli.ingest",
        "ingest_command",
        "Load a corpus into a namespace (streamed; idempotent; validated before any write; "
        "audited).",
    ),
    "bench": CommandEntry(
        "mragent.cli.bench",
        "bench_command",
        "Run a genome over a corpus and print it beside flat BM25, dense and hybrid baselines "
        "(the dense ones on the namespace's embedder).",
    ),
    "evolve": CommandEntry(
        "mragent.cli.evolve",
        "evolve_command",
        "Evolve the retrieval genome (DEAP: NSGA-II with TPE proposals) and gate the winner.",
    ),
    "explain": CommandEntry(
        "mragent.cli.explain",
        "explain_command",
        "Explain how one question is answered: cues, paths, pruning, ranking, answer, timings.",
    ),
    "remember": CommandEntry(
        "mragent.cli.memory",
        "remember_command",
        "Remember a text. Agents' memories start pending unless the namespace trusts them.",
    ),
    "recall": CommandEntry(
        "mragent.cli.memory",
        "recall_command",
        "Answer a question from memory by reconstruction (accepted memories by default).",
    ),
    "correct": CommandEntry(
        "mragent.cli.memory",
        "correct_command",
        "Write a new version of a memory; the old one stays readable with --as-of.",
    ),
    "forget": CommandEntry(
        "mragent.cli.memory",
        "forget_command",
        "Forget a memory (every version): gone from every retrieval path, a tombstone kept. "
        "An agent forgets only what it wrote, and a human reviews it.",
    ),
    "purge": CommandEntry(
        "mragent.cli.memory",
        "purge_command",
        "Forget a memory and erase its text; only the tombstone's hash remains (humans only).",
    ),
    "history": CommandEntry(
        "mragent.cli.memory",
        "history_command",
        "Show every version of a memory, with trust, valid time and record time.",
    ),
    "reembed": CommandEntry(
        "mragent.cli.reembed",
        "reembed_command",
        "Re-embed every cue and content of a namespace (every scope) with --embedder, and "
        "restamp it.",
    ),
    "migrate": CommandEntry(
        "mragent.cli.memory",
        "migrate_command",
        "Upgrade a namespace written by an earlier mragent (its memories gain provenance).",
    ),
    "export": CommandEntry(
        "mragent.cli.transfer",
        "export_command",
        "Write a namespace's memories (every version, oldest first) to FILE, atomically.",
    ),
    "import": CommandEntry(
        "mragent.cli.transfer",
        "import_command",
        "Import FILE into a namespace; every record is checked before anything is written.",
    ),
    "mcp": CommandEntry(
        "mragent.cli.mcp",
        "mcp_command",
        # Text, so that `mragent --help` loads no layer below the CLI: the tools are
        # declared in mragent/mcp_server/catalog.py, and tests/test_mcp_tools.py keeps
        # this equal to the summary written from it (the command's own help).
        "Serve the memory's agent tools (remember, recall, correct, forget, history, explain) "
        "over MCP. No review, accept, reject, trust or purge tool: those stay with humans.",
    ),
    "hook": CommandEntry(
        "mragent.cli.hook",
        "hook_app",
        "Coding-agent hooks: recall memories into a prompt's context, remember what the "
        "person marked.",
    ),
    "db": CommandEntry("mragent.cli.db", "app", "Start, stop and inspect the embedded FalkorDB."),
    "genome": CommandEntry(
        "mragent.cli.genome", "app", "Show the genes, their ranges and the presets."
    ),
    "review": CommandEntry(
        "mragent.cli.review", "review_app", "Review what agents wrote, corrected and forgot."
    ),
    "trust": CommandEntry(
        "mragent.cli.review", "trust_app", "Choose the agents whose memories start accepted."
    ),
    "audit": CommandEntry(
        "mragent.cli.audit", "audit_app", "Check and read the hash-chained audit log."
    ),
    "principal": CommandEntry(
        "mragent.cli.principal",
        "principal_app",
        "Manage principals and their grants (the credentials file).",
    ),
}


def load_command(name: str) -> Any:
    """Import the module of sub-command ``name`` and build its Click command.

    Args:
        name: A key of :data:`COMMANDS`.

    Returns:
        The command (a group for a ``typer.Typer`` of sub-commands), named ``name``.
    """
    entry = COMMANDS[name]
    target = getattr(importlib.import_module(entry.module), entry.attr)
    # A holder without completion options, as the root has none: mounted under it,
    # the command gets exactly the parameters it had as a direct sub-command.
    holder = typer.Typer(add_completion=False)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
        group = typer.main.get_command(holder)
        assert isinstance(group, TyperGroup)
        return group.commands[name]
    holder.command(name)(target)
    return typer.main.get_command(holder)


class LazyCommands(TyperGroup):
    """The root group: lists :data:`COMMANDS` from their summaries, imports one to run it."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._loaded: dict[str, Any] = {}
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        """Every sub-command, in the order the root help lists them."""
        return [*super().list_commands(ctx), *COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        """The sub-command to run (imported now), or its summary while the root help lists it."""
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        if self._listing:
            summary = COMMANDS[cmd_name].summary
            return TyperCommand(cmd_name, help=summary, short_help=summary)
        if cmd_name not in self._loaded:
            self._loaded[cmd_name] = load_command(cmd_name)
        return self._loaded[cmd_name]

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The root help, listing the sub-commands without importing them."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
