"""The ``lclfqa`` command: every subcommand registered on one Typer app.

Commands live by job — :mod:`.documents` (parse, ingest, info), :mod:`.search`, :mod:`.answers` (ask,
chat), :mod:`.serve` (the local server ``ask`` uses when it is up; its client is :mod:`.remote`),
:mod:`.evaluate` (the ``eval`` group: retrieval, qa, synth) — and share :mod:`.common` (errors, exit
codes, options, settings). Heavy imports happen inside the commands, so ``--help`` stays fast.
"""

from __future__ import annotations

from typing import Annotated

import typer

from lclfqa import environment
from lclfqa.cli import answers, documents, search, serve
from lclfqa.cli.common import new_app
from lclfqa.cli.evaluate import eval_app

app = new_app("Long-context, long-form question answering over tax and legal documents (LCLF-QA).")


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"lclfqa {version('lclfqa')}")
        except PackageNotFoundError:  # run from a checkout that was not installed
            typer.echo("lclfqa (not installed: no version recorded)")
        raise typer.Exit()


@app.callback()
def _configure(
    _version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print lclfqa's version and exit."),
    ] = False,
) -> None:
    """Every command starts here: telemetry of the libraries off (:func:`lclfqa.environment.configure`)."""
    environment.configure()


app.command()(documents.parse)
app.command()(documents.ingest)
app.command()(search.search)
app.command()(documents.info)
app.command()(answers.ask)
app.command()(answers.chat)
app.command()(serve.serve)
app.add_typer(
    eval_app, name="eval", help="Evaluation: retrieval metrics, QA batches with judged answers, synthetic QA."
)


def main() -> None:  # pragma: no cover - console entry point
    app()
