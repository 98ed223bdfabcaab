"""``lclfqa ask`` and ``chat``: answers with citations, one question or a conversation."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from lclfqa.cli.common import (
    DEFAULT_INDEX,
    BackendOption,
    ConfigOption,
    IndexOption,
    MilvusUriOption,
    ScopeOption,
    backend_overrides,
    console,
    fail,
    load_settings,
)

if TYPE_CHECKING:
    from lclfqa.config import Settings

PipelineOption = Annotated[
    str | None, typer.Option("--pipeline", help="'lclf' (default), 'longrag' or 'rag' (baselines).")
]
ModelOption = Annotated[
    str | None, typer.Option("--model", "--chat-model", help="'local' (default), 'local-tiny' or 'openai:<model>'.")
]


def _open_index(index: Path, settings: Settings) -> Any:
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import open_index

    try:
        return open_index(settings, index)
    except IndexStoreError as e:
        fail(str(e), e.exit_code)


def _qa_graph(index: Path, settings: Settings, checkpointer: Any = None, idx: Any = None) -> Any:
    """The QA graph over ``index`` (``idx``: the index already opened); an index that cannot be opened exits
    with its error's ``exit_code`` (2: none there; 1: corrupted)."""
    from lclfqa.graph.build import load_graph

    index_ = idx if idx is not None else _open_index(index, settings)  # (an index of 0 chunks is falsy)
    return load_graph(index, settings, index=index_, checkpointer=checkpointer)


def _qa_errors(exc: Exception) -> None:
    from lclfqa.llm.calls import model_failure

    message = model_failure(exc)
    if message is not None:
        fail(message, 1)
    if isinstance(exc, RuntimeError | ValueError):
        fail(str(exc), 1)
    raise exc


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
    """Answer QUESTION from the indexed documents, citing document, page and section of each source.

    With the setting server_url (LCLFQA_SERVER_URL) naming a running `lclfqa serve` over this index, the
    server answers it, models already loaded; otherwise, or if it cannot, it is answered in this process."""
    if not question.strip():
        fail('the question is empty: give it in quotes, e.g. lclfqa ask "Who may claim the AOTC?"')
    settings = load_settings(
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
    # a server holds an index that exists: one missing here is said at once, not after a call to the server
    indexed = settings.index_backend != "embedded" or (Path(index) / "CURRENT").is_file()
    if settings.server_url and indexed and _ask_served(settings, index, question, as_json, show_steps):
        return
    from lclfqa.repl import print_sources, print_steps, run_streaming

    logging.basicConfig(level=logging.ERROR)
    graph = _qa_graph(index, settings)
    try:
        if as_json:
            with console.status("answering", spinner="dots"):
                result = graph.invoke({"question": question})
            json.dump(result.to_json(), sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
            return
        result = run_streaming(graph, question, out=sys.stdout, status=console)
    except KeyboardInterrupt:
        fail("cancelled", 130)
    except Exception as e:
        _qa_errors(e)
    out = Console()
    print_sources(result, out)
    if show_steps:
        out.print("")
        print_steps(result, out)


def _ask_served(settings: Settings, index: Path, question: str, as_json: bool, show_steps: bool) -> bool:
    """Answer through the server at ``settings.server_url`` (:mod:`lclfqa.cli.remote`) and print as the
    in-process path does; ``False`` (one line on stderr says why) when it cannot take the question."""
    from lclfqa.cli.remote import ServerFailed, ServerUnavailable, ask_server
    from lclfqa.repl import print_sources, print_steps, show_streaming

    url = str(settings.server_url)
    events = ask_server(url, question, index, settings.as_record(), tokens=not as_json)
    try:
        if as_json:
            with console.status(f"answering (lclfqa serve at {url})", spinner="dots"):
                result = next((payload for kind, payload in events if kind == "state"), None)
            json.dump(result, sys.stdout, ensure_ascii=False, indent=2)
            sys.stdout.write("\n")
            return True
        shown = show_streaming(events, out=sys.stdout, status=console)
    except ServerUnavailable as exc:
        console.print(f"lclfqa: {exc}; answering in this process", highlight=False, markup=False, soft_wrap=True)
        return False
    except ServerFailed as exc:
        fail(f"the server failed answering: {exc}", 1)
    except KeyboardInterrupt:
        fail("cancelled", 130)
    finally:
        events.close()
    out = Console()
    print_sources(shown, out)
    if show_steps:
        out.print("")
        print_steps(shown, out)
    return True


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
    settings = load_settings(
        config,
        chat_model=model,
        pipeline=pipeline,
        document_scope=document_scope,
        **backend_overrides(backend, milvus_uri),
    )
    db = memory or Path(index).parent / "chat.sqlite"
    idx = _open_index(index, settings)  # a missing index leaves no chat.sqlite behind
    db.parent.mkdir(parents=True, exist_ok=True)
    try:  # strict: a planted file cannot run code, and no file but a chat memory is written to (safe_load.py)
        saver = open_chat_memory(db)
    except ValueError as e:
        fail(f"--memory: {e}" if memory else str(e))
    conn = saver.conn
    try:
        graph = _qa_graph(index, settings, checkpointer=saver, idx=idx)
        try:
            chat_loop(graph, thread, Console(), sys.stdout)
        except Exception as e:
            _qa_errors(e)
    finally:
        conn.close()
