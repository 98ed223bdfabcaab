"""Terminal front end of the graph: streamed answers, sources, steps, and the ``lclfqa chat`` loop."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from lclfqa.graph.build import QAGraph
from lclfqa.graph.result import QAResult

# what the graph does next, once a node has reported
STATUS_AFTER = {
    "rewrite": "retrieving (BM25 + dense, RRF)",
    "retrieve": "expanding parents and footnotes",
    "expand": "judging which passages answer the question",
    "filter": "quoting the passages that answer it",
    "extract": "writing the answer from the verified quotes",
}

CHAT_HELP = """Commands:
  /sources   the sources of the last answer (document, pages, section)
  /steps     what each step did for the last answer (rewrites, kept/dropped chunks, timings)
  /reset     start a new conversation (new thread)
  /thread    show the thread id (resume later with --thread ID)
  /help      this text
  /quit      leave (or Ctrl-D); Ctrl-C cancels the answer being written"""


class _TagStripper:
    """Drops ``<answer>``/``</answer>`` from a token stream (tags may arrive split over tokens)."""

    TAGS = ("<answer>", "</answer>")

    def __init__(self) -> None:
        self.pending = ""

    def feed(self, token: str) -> str:
        self.pending += token
        for tag in self.TAGS:
            self.pending = self.pending.replace(tag, "")
        cut = self.pending.rfind("<")
        if cut != -1 and any(t.startswith(self.pending[cut:]) for t in self.TAGS):
            out, self.pending = self.pending[:cut], self.pending[cut:]
        else:
            out, self.pending = self.pending, ""
        return out

    def flush(self) -> str:
        out, self.pending = self.pending, ""
        return out


def run_streaming(
    graph: QAGraph,
    question: str,
    *,
    config: dict[str, Any] | None = None,
    out: TextIO,
    status: Console,
) -> QAResult:
    """Run one question, printing the reader's tokens to ``out`` as they come; returns the final state."""
    state: dict[str, Any] = {}
    stripper = _TagStripper()
    streamed = False
    first_message: str | None = None  # the reader's first call; a repair call is not streamed
    shown: list[str] = []
    with status.status("rewriting the question (query2doc)", spinner="dots") as spinner:
        for mode, payload in graph.stream(
            {"question": question}, config, stream_mode=["messages", "updates", "values"]
        ):
            if mode == "messages":
                chunk, meta = payload
                if meta.get("langgraph_node") == "read" and isinstance(chunk.content, str) and chunk.content:
                    first_message = first_message or chunk.id
                    if chunk.id != first_message:
                        continue
                    if not streamed:
                        spinner.stop()
                        streamed = True
                    text = stripper.feed(chunk.content)
                    shown.append(text)
                    out.write(text)
                    out.flush()
            elif mode == "updates" and not streamed:
                for node in payload:
                    if node in STATUS_AFTER:
                        spinner.update(STATUS_AFTER[node])
            elif mode == "values":
                state = payload
    result = QAResult(state)
    if streamed:
        shown.append(stripper.flush())
        out.write(shown[-1])
        streamed_text, checked = " ".join("".join(shown).split()), " ".join(result.answer.split())
        if checked.startswith(streamed_text):  # the check kept it all and added the source's words
            out.write(f"{checked[len(streamed_text) :]}\n")
        else:
            out.write(f"\n\n{correction_note(result)}\n{result.answer}\n")
    else:
        out.write(result.answer + "\n")
    out.flush()
    return result


def correction_note(result: QAResult) -> str:
    """What the check did to the streamed answer (``lclfqa.graph.answer.check``)."""
    removed = len(result.get("removed") or [])
    what = f"{removed} sentence(s) stating what no cited quote contains were removed" if removed else "it was corrected"
    return f"Checked against the quotes: {what}. The checked answer:"


def print_sources(result: QAResult, console: Console) -> None:
    """The warning about figures/quotations found in no source (if any), what the check removed, then the
    numbered sources."""
    if result.get("removed"):
        console.print(
            f"\n[dim]Removed by the check against the quotes ({len(result['removed'])} sentence(s)): "
            f"{escape(' '.join(result['removed']))}[/]",
            highlight=False,
        )
    if result.unsupported:
        console.print(f"\n[bold yellow]Warning.[/] {escape(result.warning_text())}", highlight=False)
    text = result.sources_text()
    if text:
        console.print("\n[bold]Sources[/]", highlight=False)
        console.print(text, highlight=False, markup=False)


def print_steps(result: QAResult, console: Console) -> None:
    """Rewrites, translation, retrieved children (kept/dropped), the verified quotes, per-node figures."""
    dropped = set(result.get("dropped", []))
    if result.get("standalone_question") and result["standalone_question"] != result.get("question"):
        console.print(f"[bold]Stand-alone question:[/] {result['standalone_question']}", highlight=False)
    for i, r in enumerate(result.get("rewrites", []), 1):
        console.print(f"[bold]Rewrite {i}:[/] {r}", highlight=False)
    if result.get("translation"):
        console.print(f"[bold]In plain terms:[/] {result['translation']}", highlight=False)
    if result.get("scope"):
        console.print(f"[bold]Searched only:[/] {'; '.join(result['scope'])} (named in the question)", highlight=False)
    console.print("[bold]Retrieved children[/] (RRF score; kept or dropped by the filter):")
    for r in result.get("retrieved", []):
        mark = "[red]dropped[/]" if r["id"] in dropped else "[green]kept[/]"
        where = f"{r['document']} p. {r['pages'][0]} {' › '.join(r['section'][-2:])}"
        console.print(f"  {mark} [{r.get('source', '?')}] {r.get('score', 0):.4f} {r['kind']:<8} {where}")
    if result.get("information"):
        console.print("[bold]Verified quotes:[/]", highlight=False)
        console.print(result["information"], highlight=False, markup=False)
    console.print("[bold]Steps[/]")
    for node, s in result.get("steps", {}).items():
        extra = {k: v for k, v in s.items() if k not in ("seconds", "llm_calls", "prompt_tokens", "completion_tokens")}
        console.print(
            f"  {node:<8} {s.get('seconds', 0):7.2f} s  {s.get('llm_calls', 0)} calls  "
            f"{s.get('prompt_tokens', 0)}+{s.get('completion_tokens', 0)} tokens  {json.dumps(extra)}",
            highlight=False,
            markup=False,
        )


def chat_loop(graph: QAGraph, thread: str | None, console: Console, out: TextIO) -> None:
    """The ``lclfqa chat`` REPL: multi-turn (checkpointed by thread), streamed, with slash commands."""
    try:
        import readline  # noqa: F401  (arrow keys and history for input())

        history_file = Path.home() / ".lclfqa_history"
        try:
            readline.read_history_file(history_file)
        except OSError:
            pass
    except ImportError:  # pragma: no cover - Windows
        readline = None  # type: ignore[assignment]
        history_file = None
    thread = thread or uuid.uuid4().hex[:8]
    last: QAResult | None = None
    console.print(f"lclfqa chat — thread {thread}. Ask a question; /help for commands.", highlight=False)
    while True:
        try:
            line = input("\n? ").strip()
        except EOFError:
            break
        except KeyboardInterrupt:
            console.print("")
            continue
        if not line:
            continue
        if line.startswith("/"):
            cmd = line.split()[0].lower()
            if cmd in ("/quit", "/exit", "/q"):
                break
            if cmd == "/help":
                console.print(CHAT_HELP, highlight=False, markup=False)
            elif cmd == "/sources":
                if last:
                    print_sources(last, console)
                else:
                    console.print("No answer yet.")
            elif cmd == "/steps":
                if last:
                    print_steps(last, console)
                else:
                    console.print("No answer yet.")
            elif cmd == "/reset":
                thread, last = uuid.uuid4().hex[:8], None
                console.print(f"New conversation: thread {thread}.", highlight=False)
            elif cmd == "/thread":
                console.print(thread, highlight=False)
            else:
                console.print(f"Unknown command {cmd}; /help lists them.", highlight=False)
            continue
        try:
            last = run_streaming(graph, line, config={"configurable": {"thread_id": thread}}, out=out, status=console)
            print_sources(last, console)
        except KeyboardInterrupt:
            console.print("\n[yellow]cancelled[/] (the conversation goes on)")
    if readline is not None and history_file is not None:
        try:
            readline.write_history_file(history_file)
        except OSError:
            pass
    console.print(f"Bye. Resume with: lclfqa chat --thread {thread}", highlight=False)
