"""The command line (``lclfqa``): :data:`app` is the Typer app the ``lclfqa`` script runs
(``python -m lclfqa.cli`` runs it too). See :mod:`lclfqa.cli.app` for how the commands are laid out."""

from __future__ import annotations

from lclfqa.cli.app import app, main

__all__ = ["app", "main"]
