"""What every command shares: the error console and its exit codes, the index/settings/backend options, and
the one way settings are loaded from ``--config`` and the command's overrides.

Exit codes: 0 done; 1 the work failed or was partly done (a table or message says what); 2 a mistake in
the command or settings; 3 the index is busy (``--no-wait``); 130 interrupted.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from lclfqa.config import DEFAULT_INDEX as DEFAULT_INDEX  # the commands take it from here

if TYPE_CHECKING:
    from lclfqa.config import Settings

console = Console(stderr=True)

IndexOption = Annotated[Path, typer.Option("--index", "-i", help="Index directory.")]
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML settings file (fields of lclfqa.config.Settings).")
]
BackendOption = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="Index backend: 'embedded' (files in the --index folder) or 'milvus' (default: the settings').",
    ),
]
MilvusUriOption = Annotated[
    str | None,
    typer.Option(
        "--milvus-uri",
        help="With --backend milvus: a local FILE.db (Milvus Lite) or http://host:19530 (a Milvus server); "
        "default: milvus.db in the --index folder.",
    ),
]
ScopeOption = Annotated[
    bool | None,
    typer.Option(
        "--document-scope/--no-document-scope",
        help="Search only the documents a question names ('In Dobbs, …'); on unless settings say otherwise.",
    ),
]


def folded(doc: str | None) -> str | None:
    """A docstring as a command's help: each paragraph on one line, for the terminal to wrap. Typer's rich help
    keeps a docstring's line breaks, so a sentence wrapped at 120 columns in the source broke mid-line there."""
    if not doc:
        return doc
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


class _App(typer.Typer):
    """A Typer app whose commands take their help from their docstrings, folded (:func:`folded`)."""

    def command(self, *args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        make = super().command

        def register(f: Callable[..., Any]) -> Callable[..., Any]:
            if kwargs.get("help") is None:
                kwargs["help"] = folded(f.__doc__)
            return make(*args, **kwargs)(f)

        return register


def new_app(help_text: str) -> typer.Typer:
    """A Typer app (or command group) as every ``lclfqa`` one is made: no completion install, no pretty
    tracebacks (errors go through :func:`fail`), help when called without a command, each paragraph of a
    command's help folded into one line for the terminal to wrap."""
    return _App(help=help_text, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` (markup-escaped, no traceback) and exit with ``code``."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def backend_overrides(backend: str | None, milvus_uri: str | None) -> dict[str, Any]:
    """Settings overrides for ``--backend``/``--milvus-uri`` (``None``: leave the settings' value)."""
    return {"index_backend": backend, "milvus_uri": milvus_uri}


def load_settings(config: Path | None, **overrides: Any) -> Settings:
    """Settings from ``config`` (TOML), ``LCLFQA_*`` and the command's ``overrides`` (``None`` values are
    ignored); a bad file or value exits 2 with its message."""
    from lclfqa.config import EMBEDDER_NAMES, Settings, embedder_known, unknown_variables

    for name in unknown_variables():
        console.print(f"[yellow]warning:[/] {name} is not an lclfqa setting; it is ignored", highlight=False)
    try:
        settings = checked_stores(Settings.load(config).with_overrides(**overrides))
    except (ValueError, OSError) as e:
        fail(str(e))
    if settings.embedding_model and not embedder_known(settings.embedding_model):  # not "re-ingest with 'bogus'"
        fail(f"unknown embedding model {settings.embedding_model!r}: use {EMBEDDER_NAMES}")
    if overrides.get("milvus_uri") and settings.index_backend != "milvus":
        console.print("[yellow]warning:[/] --milvus-uri is ignored without --backend milvus", highlight=False)
    return settings


def checked_stores(settings: Settings) -> Settings:
    """``settings``, once its ``llm_cache`` is known to be a file the cache may write to
    (:func:`lclfqa.safe_load.check_store`): a ``ValueError`` naming the file otherwise. The cache checks it
    again when it opens; checked here too because the chat model loads only after retrieval."""
    if settings.llm_cache:
        from lclfqa.safe_load import check_store

        check_store(settings.llm_cache, "LLM cache")
    return settings
