"""``lclfqa parse``, ``ingest`` and ``info``: documents into an index, and what an index holds."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from lclfqa.cli.common import (
    DEFAULT_INDEX,
    BackendOption,
    ConfigOption,
    IndexOption,
    MilvusUriOption,
    backend_overrides,
    console,
    fail,
    load_settings,
)


def parse(
    file: Annotated[Path, typer.Argument(help="A PDF, .txt, .md, .html, .docx or .eml file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the parsed structure as JSON.")] = False,
) -> None:
    """Show how a document parses: sections with their heading paths and pages, footnotes, dropped headers."""
    from lclfqa.ingest.document import UnreadableDocument
    from lclfqa.ingest.formats import parse_file

    try:
        doc = parse_file(file)
    except UnreadableDocument as e:
        fail(f"{e.path}: {e.reason}")
    except FileNotFoundError:
        fail(f"{file}: no such file")
    if as_json:
        json.dump(doc.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    out = Console()
    out.print(
        f"[bold]{doc.name}[/]: {doc.pages} pages, {len(doc.sections)} sections, {len(doc.footnotes)} footnotes, "
        f"dropped {doc.dropped_headers} header and {doc.dropped_footers} footer lines"
        + (f" ({', '.join(f'{rule} {n}' for rule, n in doc.dropped_by_rule)})" if doc.dropped_by_rule else "")
    )
    for s in doc.sections:
        pages = f"p. {s.page_start}" if s.page_start == s.page_end else f"pp. {s.page_start}-{s.page_end}"
        out.print(f"[cyan]{pages:>10}[/]  {' › '.join(s.path) or '(no heading)'}", highlight=False)
    for f in doc.footnotes:
        out.print(f"[magenta]  fn {f.number:>4} p. {f.page}[/] {f.text[:100]}", highlight=False)


def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (searched recursively).")],
    index: IndexOption = DEFAULT_INDEX,
    config: ConfigOption = None,
    parent_size: Annotated[int | None, typer.Option(help="L: parent chunk size in characters.")] = None,
    child_size: Annotated[int | None, typer.Option(help="Child chunk size in characters.")] = None,
    footnote_chunks: Annotated[
        str | None, typer.Option(help="'page' (one footnote chunk per page) or 'footnote'.")
    ] = None,
    chunking: Annotated[
        str | None,
        typer.Option(
            help="'layout' (default: sections, footnote chunks; LCLF-QA §3.2) or 'plain' (ablation H3: "
            "recursive fixed-size chunks of the page text, no sections or footnote links)."
        ),
    ] = None,
    summaries: Annotated[
        bool | None, typer.Option("--summaries/--no-summaries", help="SAC document summaries (needs a chat model).")
    ] = None,
    embedding_model: Annotated[
        str | None,
        typer.Option(
            help="'local:all-MiniLM-L6-v2' (the default for a new index), 'local:all-MiniLM-L6-v2-int8' (1.7x "
            "faster) or 'openai:<model>'; unset, an existing index keeps its own."
        ),
    ] = None,
    chat_model: Annotated[
        str | None, typer.Option(help="Chat model for summaries: 'local' or 'openai:<model>'.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    follow_symlinks: Annotated[
        bool,
        typer.Option(
            "--follow-symlinks", help="Also follow symbolic links that lead outside the folders given (off: reported)."
        ),
    ] = False,
    no_wait: Annotated[
        bool,
        typer.Option("--no-wait", help="If another ingest is writing this index, fail (exit 3) instead of waiting."),
    ] = False,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Ingest documents into a hybrid (BM25 + dense) index; re-running adds new and replaces changed files.

    Exit codes: 0 all indexed; 1 some files skipped or kept from before (a table says which and why);
    2 a mistake in the command or settings; 3 the index is busy (--no-wait); 130 interrupted.
    """
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.ingest import ingest as run_ingest
    from lclfqa.index.lock import IndexBusy
    from lclfqa.progress import stage_bars

    logging.basicConfig(level=logging.ERROR)
    settings = load_settings(
        config,
        parent_size=parent_size,
        child_size=child_size,
        footnote_chunks=footnote_chunks,
        chunking=chunking,
        summaries=summaries,
        embedding_model=embedding_model,
        chat_model=chat_model,
        **backend_overrides(backend, milvus_uri),
    )
    summarizer = None
    if settings.summaries:
        from lclfqa.ingest.summaries import make_summarizer

        try:
            summarizer = make_summarizer(settings)
        except Exception as e:  # no model available: say what to do
            fail(f"cannot make document summaries: {e}")
    with stage_bars(console, quiet=quiet) as progress:
        try:
            report = run_ingest(
                paths,
                index,
                settings,
                summarizer=summarizer,
                progress=progress,
                follow_symlinks=follow_symlinks,
                wait=not no_wait,
                on_wait=lambda message: console.print(f"[yellow]waiting:[/] {message}", highlight=False),
            )
        except IndexBusy as e:
            fail(str(e), 3)
        except Exception as e:
            if isinstance(e, OSError | ValueError | RuntimeError | IndexStoreError):  # RuntimeError: an embedder
                fail(str(e), e.exit_code if isinstance(e, IndexStoreError) else 2)
            raise
        except KeyboardInterrupt:
            fail("interrupted: the previous index (if any) is unchanged", 130)
    where = index if settings.index_backend == "embedded" else f"{index} (milvus)"
    console.print(f"[green]indexed[/] {report.summary_line()} -> {where}", highlight=False)
    for path, name, why in report.renamed:
        console.print(f"[yellow]named {escape(name)}[/] ({escape(why)}): {escape(path)}", highlight=False)
    if report.other:
        from lclfqa.ingest.discovery import other_types
        from lclfqa.ingest.formats import supported_list

        console.print(
            f"[yellow]not read:[/] {escape(other_types(report.other))} (types lclfqa does not read; it reads "
            f"{supported_list()}: convert the others to PDF to index them)",
            highlight=False,
        )
    if not report.ok:
        _print_problems(report)
        raise typer.Exit(1)


def _print_problems(report: Any) -> None:
    """The files an ingest left out or kept from before, one row each, and what to do."""
    from rich.table import Table

    table = Table(title="Not indexed as asked", title_justify="left", show_lines=False)
    table.add_column("status", style="yellow", no_wrap=True)
    table.add_column("file or document", overflow="fold")
    table.add_column("reason", overflow="fold")
    for path, reason in report.skipped:
        table.add_row("skipped", escape(path), escape(reason))
    for name, reason in report.kept:
        table.add_row("kept old", escape(name), escape(reason))
    for path, reason in report.damaged:
        table.add_row("damaged", escape(path), escape(reason))
    console.print(table)
    console.print(
        f"{len(report.skipped)} skipped, {len(report.kept)} kept from before, {len(report.damaged)} damaged: "
        "fix or remove them and ingest again (exit code 1)",
        highlight=False,
    )


def info(
    index: IndexOption = DEFAULT_INDEX,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Verify every file's checksum and SQLite's integrity; exit 1 if the index is corrupted."
        ),
    ] = False,
    config: ConfigOption = None,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """What an index holds: documents, pages, chunks, embedding model, and the names that scope a question
    to a document ('In Dobbs, …')."""
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import check_files, check_revision, open_index
    from lclfqa.index.ingest import PARSER_VERSION, parser_behind
    from lclfqa.index.scope import scope_names

    settings = load_settings(config, **backend_overrides(backend, milvus_uri))
    if check:
        try:
            problems = check_files(settings, index)
        except IndexStoreError as e:
            fail(str(e), e.exit_code)
        if problems:
            for p in problems:
                console.print(f"[bold red]corrupted:[/] {p}", highlight=False)
            fail(f"index corrupted: {index}: {len(problems)} problem(s); re-ingest (delete it, run ingest again)", 1)
        console.print(f"[green]ok:[/] {index}: every checksum matches, SQLite integrity_check ok", highlight=False)
    try:
        idx = open_index(settings, index, check_vectors=False)  # what it holds, even where it must be rebuilt
        stats = idx.stats()
    except IndexStoreError as e:
        fail(str(e), e.exit_code)
    try:
        check_revision(idx)
    except IndexStoreError as e:  # every other command refuses it: say so here
        console.print(f"[bold yellow]warning:[/] {e}", highlight=False)
    if (old := parser_behind(idx)) is not None:
        console.print(
            f"[bold yellow]note:[/] parsed by parser version {old}; this lclfqa parses with {PARSER_VERSION}. "
            "Ingest the same files again to re-parse them (texts that did not change keep their vectors).",
            highlight=False,
        )
    chunking = idx.recorded_settings.get("chunking")
    mode = chunking.get("chunking", "layout") if isinstance(chunking, dict) else "layout"
    out = Console()
    out.print(
        f"{stats.location}: {stats.documents} documents, {stats.parents} parents, {stats.searchable} searchable "
        f"chunks, embedding model {stats.embedding_model} ({stats.dimension}-d), {mode} chunking",
        highlight=False,
    )
    names = scope_names(idx.documents)
    for rec in sorted(idx.documents.values(), key=lambda r: r.name):
        out.print(
            f"  {rec.name}: {rec.pages} pages, {rec.sections} sections, {rec.footnotes} footnotes", highlight=False
        )
        if names[rec.name]:
            out.print(f"    named by: {'; '.join(names[rec.name])}", highlight=False, markup=False)
