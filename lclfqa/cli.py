"""The ``lclfqa`` command: parse, ingest, search, info."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from lclfqa import environment
from lclfqa.backend_options import BackendOption, MilvusUriOption, backend_overrides

app = typer.Typer(
    help="Long-context, long-form question answering over tax and legal documents (LCLF-QA).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
DEFAULT_INDEX = Path(".lclfqa/index")

IndexOption = Annotated[Path, typer.Option("--index", "-i", help="Index directory.")]
ConfigOption = Annotated[
    Path | None, typer.Option("--config", help="TOML settings file (fields of lclfqa.config.Settings).")
]


@app.callback()
def _configure() -> None:
    """Every command starts here: telemetry of the libraries off (:func:`lclfqa.environment.configure`)."""
    environment.configure()


def _fail(message: str, code: int = 2) -> None:
    console.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


@app.command()
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
        _fail(f"{e.path}: {e.reason}")
    except FileNotFoundError:
        _fail(f"{file}: no such file")
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


@app.command()
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
    embedding_model: Annotated[str | None, typer.Option(help="'local:all-MiniLM-L6-v2' or 'openai:<model>'.")] = None,
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
    from lclfqa.config import Settings
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.ingest import ingest as run_ingest
    from lclfqa.index.lock import IndexBusy
    from lclfqa.progress import stage_bars

    logging.basicConfig(level=logging.ERROR)
    try:
        settings = Settings.load(config).with_overrides(
            parent_size=parent_size,
            child_size=child_size,
            footnote_chunks=footnote_chunks,
            chunking=chunking,
            summaries=summaries,
            embedding_model=embedding_model,
            chat_model=chat_model,
            **backend_overrides(backend, milvus_uri),
        )
    except (ValueError, OSError) as e:
        _fail(str(e))
    summarizer = None
    if settings.summaries:
        from lclfqa.ingest.summaries import make_summarizer

        try:
            summarizer = make_summarizer(settings)
        except Exception as e:  # no model available: say what to do
            _fail(f"cannot make document summaries: {e}")
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
            _fail(str(e), 3)
        except (OSError, ValueError, RuntimeError, IndexStoreError) as e:  # RuntimeError: an embedder that cannot load
            _fail(str(e))
        except KeyboardInterrupt:
            _fail("interrupted: the previous index (if any) is unchanged", 130)
    where = index if settings.index_backend == "embedded" else f"{index} (milvus)"
    console.print(f"[green]indexed[/] {report.summary_line()} -> {where}", highlight=False)
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
        table.add_row("skipped", path, reason)
    for name, reason in report.kept:
        table.add_row("kept old", name, reason)
    for path, reason in report.damaged:
        table.add_row("damaged", path, reason)
    console.print(table)
    console.print(
        f"{len(report.skipped)} skipped, {len(report.kept)} kept from before, {len(report.damaged)} damaged: "
        "fix or remove them and ingest again (exit code 1)",
        highlight=False,
    )


ScopeOption = Annotated[
    bool | None,
    typer.Option(
        "--document-scope/--no-document-scope",
        help="Search only the documents a question names ('In Dobbs, …'); on unless settings say otherwise.",
    ),
]


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="The question or search terms.")],
    index: IndexOption = DEFAULT_INDEX,
    config: ConfigOption = None,
    k: Annotated[
        int | None, typer.Option("-k", "--top-k", help="How many child chunks to return (default: settings' top_k).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as JSON.")] = False,
    document_scope: ScopeOption = None,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Hybrid retrieval (BM25 + dense, fused by RRF): the child chunks that best match QUERY, with sources.

    Ranks exactly as `ask` retrieves for a question without rewrites: the same settings (--config,
    LCLFQA_*), document scope, depth and RRF weights."""
    from lclfqa.config import Settings
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import open_index
    from lclfqa.index.search import RetrievalParams
    from lclfqa.index.search import search as run_search
    from lclfqa.llm.models import get_embeddings

    if k is not None and k < 1:
        _fail(f"-k must be at least 1 (how many passages to return); got {k}")
    try:
        settings = Settings.load(config).with_overrides(**backend_overrides(backend, milvus_uri))
        params = RetrievalParams.from_settings(settings, k=k, document_scope=document_scope)
    except (ValueError, OSError) as e:
        _fail(str(e))
    try:
        idx = open_index(settings, index)
    except IndexStoreError as e:
        _fail(str(e))
    try:
        embedder = get_embeddings(idx.embedding_model, settings.openai_base_url)
    except Exception as e:  # an embedder this machine cannot load: say which and why
        idx.close()
        _fail(f"index {index} was built with embedding model {idx.embedding_model!r}, which cannot be loaded here: {e}")
    try:
        scope, hits = run_search(idx, embedder, query, params)
    except ValueError as e:  # e.g. an embedder of another dimension than the index's vectors
        _fail(str(e))
    finally:
        idx.close()
    if as_json:
        rows = [h.chunk.to_json() | {"score": round(h.score, 6)} for h in hits]
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    out = Console()
    if scope:
        out.print(f"Searched only: {'; '.join(scope.documents)} (named in the query)", highlight=False)
    if not hits:
        out.print("No matching passages in this index.")
    for n, h in enumerate(hits, 1):
        c = h.chunk
        out.print(f"[bold][{n}][/] {c.document}, p. {c.pages} — {' › '.join(c.section_path[-3:])}", highlight=False)
        snippet = " ".join(c.text.split())
        out.print(f"    {snippet[:400]}{'…' if len(snippet) > 400 else ''}", highlight=False)


@app.command()
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
    from lclfqa.config import Settings
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import check_files, open_index
    from lclfqa.index.scope import scope_names

    try:
        settings = Settings.load(config).with_overrides(**backend_overrides(backend, milvus_uri))
    except (ValueError, OSError) as e:
        _fail(str(e))
    if check:
        try:
            problems = check_files(settings, index)
        except IndexStoreError as e:
            _fail(str(e))
        if problems:
            for p in problems:
                console.print(f"[bold red]corrupted:[/] {p}", highlight=False)
            _fail(f"index corrupted: {index}: {len(problems)} problem(s); re-ingest (delete it, run ingest again)", 1)
        console.print(f"[green]ok:[/] {index}: every checksum matches, SQLite integrity_check ok", highlight=False)
    try:
        idx = open_index(settings, index)
        stats = idx.stats()
    except IndexStoreError as e:
        _fail(str(e))
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


# --- question answering -------------------------------------------------------------------------------

PipelineOption = Annotated[
    str | None, typer.Option("--pipeline", help="'lclf' (default), 'longrag' or 'rag' (baselines).")
]
ModelOption = Annotated[
    str | None, typer.Option("--model", "--chat-model", help="'local' (default), 'local-tiny' or 'openai:<model>'.")
]


def _qa_graph(
    index: Path,
    config: Path | None,
    checkpointer: Any = None,
    **overrides: Any,
) -> Any:
    from lclfqa.config import Settings
    from lclfqa.graph.build import load_graph
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import open_index

    try:
        settings = Settings.load(config).with_overrides(**overrides)
    except (ValueError, OSError) as e:
        _fail(str(e))
    try:
        idx = open_index(settings, index)
    except IndexStoreError as e:
        _fail(str(e))
    return load_graph(index, settings, index=idx, checkpointer=checkpointer)


def _qa_errors(exc: Exception) -> None:
    from lclfqa.llm.llama import LLMTimeout
    from lclfqa.llm.weights import WeightsError

    if isinstance(exc, LLMTimeout | WeightsError | RuntimeError | TimeoutError | ValueError):
        _fail(str(exc), 1)
    raise exc


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question, in your own lingo (acronyms are expanded).")],
    index: IndexOption = DEFAULT_INDEX,
    config: ConfigOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print answer, citations, rewrites, retrieved chunks, timings as JSON.")
    ] = False,
    show_steps: Annotated[
        bool, typer.Option("--show-steps", help="Also print rewrites, kept/dropped chunks, the verified quotes.")
    ] = False,
    model: ModelOption = None,
    pipeline: PipelineOption = None,
    rewrites: Annotated[int | None, typer.Option(help="query2doc rewrites: 0 (off), 1 or 3.")] = None,
    reader: Annotated[str | None, typer.Option(help="'domain' (default) or 'basic' reader.")] = None,
    top_k: Annotated[int | None, typer.Option("--top-k", "-k", help="Child chunks to retrieve (at least 1).")] = None,
    document_scope: ScopeOption = None,
    llm_cache: Annotated[
        str | None, typer.Option(help="SQLite file caching LLM responses (reruns cost nothing).")
    ] = None,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Answer QUESTION from the indexed documents, citing document, page and section of each source."""
    from lclfqa.repl import print_sources, print_steps, run_streaming

    logging.basicConfig(level=logging.ERROR)
    graph = _qa_graph(
        index,
        config,
        chat_model=model,
        pipeline=pipeline,
        rewrites=rewrites,
        reader=reader,
        top_k=top_k,
        document_scope=document_scope,
        llm_cache=llm_cache,
        **backend_overrides(backend, milvus_uri),
    )
    try:
        if as_json:
            with console.status("answering", spinner="dots"):
                result = graph.invoke({"question": question})
            json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
            return
        result = run_streaming(graph, question, out=sys.stdout, status=console)
    except KeyboardInterrupt:
        _fail("cancelled", 130)
    except Exception as e:
        _qa_errors(e)
    out = Console()
    print_sources(result, out)
    if show_steps:
        out.print("")
        print_steps(result, out)


@app.command()
def chat(
    index: IndexOption = DEFAULT_INDEX,
    config: ConfigOption = None,
    thread: Annotated[str | None, typer.Option(help="Resume this conversation (its id is printed on exit).")] = None,
    memory: Annotated[
        Path | None, typer.Option(help="SQLite file holding conversations (default: chat.sqlite next to the index).")
    ] = None,
    model: ModelOption = None,
    pipeline: PipelineOption = None,
    document_scope: ScopeOption = None,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """A multi-turn REPL over the index: streamed answers with sources; /help lists commands."""
    from lclfqa.repl import chat_loop
    from lclfqa.safe_load import open_chat_memory

    logging.basicConfig(level=logging.ERROR)
    db = memory or Path(index).parent / "chat.sqlite"
    if os.path.exists(db) and not os.path.isfile(db):
        _fail(f"--memory {db} is not a file; pass the path of a SQLite file")
    db.parent.mkdir(parents=True, exist_ok=True)
    saver = open_chat_memory(db)  # strict: a planted file cannot run code (lclfqa/safe_load.py)
    conn = saver.conn
    try:
        graph = _qa_graph(
            index,
            config,
            checkpointer=saver,
            chat_model=model,
            pipeline=pipeline,
            document_scope=document_scope,
            **backend_overrides(backend, milvus_uri),
        )
        try:
            chat_loop(graph, thread, Console(), sys.stdout)
        except Exception as e:
            _qa_errors(e)
    finally:
        conn.close()


def _mount_eval() -> None:
    from lclfqa.eval.cli import eval_app

    app.add_typer(
        eval_app, name="eval", help="Evaluation: retrieval metrics, QA batches with judged answers, synthetic QA."
    )


_mount_eval()


def main() -> None:  # pragma: no cover - console entry point
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
