"""The ``mragent`` command line (Typer)."""

from mragent.cli.app import app, main

__all__ = ["app", "main"]
