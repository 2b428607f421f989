"""The ``mragent`` command line (Typer): the top layer, thin over every layer below."""

from mragent.cli.app import app, main

__all__ = ["app", "main"]
