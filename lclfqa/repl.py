"""Terminal front end of the graph: streamed answers, sources, steps, and the ``lclfqa chat`` loop.

A run is shown from its *events* (:data:`Event`): :func:`graph_events` makes them from an in-process graph,
and ``lclfqa serve`` sends the same events to ``ask`` (:mod:`lclfqa.cli.remote`), so one function,
:func:`show_streaming`, displays both. This module imports no LangGraph, torch or llama.cpp itself (the
graph's type is only a hint): ``ask`` shows a served answer without loading them.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.markup import escape

from lclfqa.graph.result import QAResult

if TYPE_CHECKING:
    from lclfqa.graph.build import QAGraph

Event = tuple[str, Any]
"""What a display is told, in order: ``("node", name)`` when a node has finished, ``("verdict", {"verdict":
"no", "word": "No"})`` when a yes/no question is decided (before the answer is written), ``("token",
text)`` for each piece of the reader's answer call, and last ``("state", final state)`` (a
:class:`~lclfqa.graph.result.QAResult`'s dict, or, from a server, its :meth:`~QAResult.to_json`)."""

OPENING_CHARS = 24
"""After an early verdict, the answer's first characters are held back until they show whether it opens
with that verdict ("No, …"), so it is not shown twice; longer than "In general, false, "."""

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
  /steps     what each step did for the last answer (rewrites, kept/dropped chunks, seconds per step,
             when the first words appeared)
  /reset     start a new conversation (new thread)
  /thread    show the thread id (resume later with --thread ID)
  /help      this text
  /quit      leave (or Ctrl-D); Ctrl-C cancels the answer being written"""


class _GlossStripper:
    """Drops the glossary's glosses from a token stream ("MFS (married filing separately)" → "MFS"), as the
    ``tidy`` stage drops them from the checked answer: the reader is shown the question with its acronyms
    glossed and may echo a gloss. The last :attr:`HOLD` characters wait, since a gloss arrives over several
    tokens (the longest expansion is under 60 characters)."""

    HOLD = 80

    def __init__(self) -> None:
        self.text = ""
        self.given = 0

    def feed(self, token: str) -> str:
        from lclfqa import prompts

        self.text += token
        clean = prompts.unexpand(self.text)
        stable = max(self.given, len(clean) - self.HOLD)
        out, self.given = clean[self.given : stable], stable
        return out

    def flush(self) -> str:
        from lclfqa import prompts

        clean = prompts.unexpand(self.text)
        out, self.given = clean[self.given :], len(clean)
        return out


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


def graph_events(
    graph: QAGraph, question: str, config: dict[str, Any] | None = None, *, tokens: bool = True
) -> Iterator[Event]:
    """Run one question through ``graph`` and yield its :data:`Event` s. Only the reader's first call
    streams tokens (a later call of the reader is not shown); the verdict call's JSON never does. With
    ``tokens=False`` no token is streamed (``ask --json``: the per-token callbacks are not paid)."""
    state: dict[str, Any] = {}
    first_message: str | None = None
    modes = ["messages", "updates", "custom", "values"] if tokens else ["updates", "custom", "values"]
    for mode, payload in graph.stream({"question": question}, config, stream_mode=modes):
        if mode == "messages":
            chunk, meta = payload
            if meta.get("langgraph_node") == "read" and isinstance(chunk.content, str) and chunk.content:
                first_message = first_message or chunk.id
                if chunk.id == first_message:
                    yield "token", chunk.content
        elif mode == "updates":
            for node in payload or {}:
                yield "node", node
        elif mode == "custom":
            if isinstance(payload, dict) and payload.get("word"):
                yield "verdict", payload
        elif mode == "values":
            state = payload
    yield "state", state


def run_streaming(
    graph: QAGraph,
    question: str,
    *,
    config: dict[str, Any] | None = None,
    out: TextIO,
    status: Console,
    early_verdict: bool = False,
) -> QAResult:
    """Run one question, printing the reader's tokens to ``out`` as they come; returns the final state
    (:func:`show_streaming` of :func:`graph_events`)."""
    return show_streaming(graph_events(graph, question, config), out=out, status=status, early_verdict=early_verdict)


def show_streaming(events: Iterable[Event], *, out: TextIO, status: Console, early_verdict: bool = False) -> QAResult:
    """Show a run's events: what the graph is doing (a spinner on ``status``) until the answer starts, the
    answer as it is written, then what the check changed. With ``early_verdict`` (``lclfqa chat``) a
    yes/no answer's first word is shown as soon as it is decided, and the written answer goes on from it,
    opening as the ``verdict`` stage will make it open. The result's ``shown`` records when the first
    words appeared (``first_words_s``), when the answer call's first token came (``first_token_s``) and
    the whole run (``total_s``), in seconds from the start."""
    started = time.monotonic()
    state: dict[str, Any] = {}
    stripper = _TagStripper()
    unglossed = _GlossStripper()
    shown: list[str] = []
    marks: dict[str, float] = {}
    decided: dict[str, Any] | None = None  # the verdict shown early, its opening not yet matched
    held = ""

    with status.status("rewriting the question (query2doc)", spinner="dots") as spinner:

        def write(text: str) -> None:
            if not text:
                return
            if "first_words_s" not in marks:
                marks["first_words_s"] = time.monotonic() - started
                spinner.stop()
            shown.append(text)
            out.write(text)
            out.flush()

        for kind, payload in events:
            if kind == "token":
                marks.setdefault("first_token_s", time.monotonic() - started)
                text = unglossed.feed(stripper.feed(payload))
                if decided is None:
                    write(text)
                    continue
                held += text
                if len(held) >= OPENING_CHARS:
                    write(_after_verdict(held, decided))
                    decided, held = None, ""
            elif kind == "verdict":
                if early_verdict and not shown and payload.get("word"):
                    decided = payload
                    write(str(payload["word"]))
            elif kind == "node":
                if not shown and payload in STATUS_AFTER:
                    spinner.update(STATUS_AFTER[payload])
            elif kind == "state":
                state = payload
    rest = unglossed.feed(stripper.flush()) + unglossed.flush()
    if decided is not None and (held or rest):
        write(_after_verdict(held + rest, decided))
    else:
        write(rest)
    result = QAResult(state)
    if shown:
        streamed_text, checked = " ".join("".join(shown).split()), " ".join(result.answer.split())
        if checked.startswith(streamed_text):  # the check kept it all and added the source's words
            out.write(f"{checked[len(streamed_text) :]}\n")
        else:
            out.write(f"\n\n{correction_note(result)}\n{result.answer}\n")
    else:  # nothing streamed (a refusal decided by rule, an answer from the cache): shown now
        marks.setdefault("first_words_s", time.monotonic() - started)
        out.write(result.answer + "\n")
    out.flush()
    marks["total_s"] = time.monotonic() - started
    result["shown"] = {k: round(v, 2) for k, v in marks.items()}
    return result


def _after_verdict(opening: str, decided: dict[str, Any]) -> str:
    """What follows the verdict word already shown: the answer's ``opening`` as the ``verdict`` stage makes
    it open (its own agreeing "No," kept once, a contrary or missing one replaced by the decided word)."""
    # imported here: ask's served path shows answers through this module without the graph's models
    from lclfqa.graph.answer.verdict import opening_verdict

    word = str(decided["word"])
    opened, _ = opening_verdict(opening, str(decided.get("verdict", "")))
    if opened[: len(word)].lower() == word.lower():
        return opened[len(word) :]
    return ". " + opened


def _removed(result: QAResult) -> list[tuple[str, str]]:
    """``(sentence, why)`` for each sentence the reader's stages removed (``steps.read.removed_by``; the
    rule without its stage's name), or the bare ``removed`` list where the steps are not there."""
    by = ((result.get("steps") or {}).get("read") or {}).get("removed_by") or []
    if by:
        return [(str(e.get("sentence", "")), str(e.get("by", "")).split(": ", 1)[-1]) for e in by]
    return [(str(t), "") for t in result.get("removed") or []]


def correction_note(result: QAResult) -> str:
    """What the stages did to the streamed answer: how many sentences they removed, and why."""
    removed = _removed(result)
    why = "; ".join(dict.fromkeys(w for _, w in removed if w))
    what = f"{len(removed)} sentence(s) removed ({why})" if why else f"{len(removed)} sentence(s) removed"
    return f"Checked against the quotes: {what if removed else 'it was corrected'}. The checked answer:"


def print_sources(result: QAResult, console: Console) -> None:
    """The warning about figures/quotations found in no source (if any), what the check removed and why,
    then the numbered sources."""
    removed = _removed(result)
    if removed:
        lines = "\n".join(f"  {escape(t)}" + (f" ({escape(w)})" if w else "") for t, w in removed)
        console.print(
            f"\n[dim]Removed by the check against the quotes ({len(removed)} sentence(s)):\n{lines}[/]",
            highlight=False,
        )
    if result.unsupported:
        console.print(f"\n[bold yellow]Warning.[/] {escape(result.warning_text())}", highlight=False)
    text = result.sources_text()
    if text:
        console.print("\n[bold]Sources[/]", highlight=False)
        console.print(text, highlight=False, markup=False)


def print_steps(result: QAResult, console: Console) -> None:
    """Rewrites, translation, retrieved children (kept/dropped), the verified quotes, per-node figures, and
    when the answer's first words were shown. ``result`` is a final state or a served answer's JSON (whose
    retrieved children say ``kept`` and whose quotes stand for the state's ``information``)."""
    retrieved = result.get("retrieved", [])
    dropped = set(result.get("dropped") or [r["id"] for r in retrieved if r.get("kept") is False])
    if result.get("standalone_question") and result["standalone_question"] != result.get("question"):
        console.print(f"[bold]Stand-alone question:[/] {result['standalone_question']}", highlight=False)
    for i, r in enumerate(result.get("rewrites", []), 1):
        console.print(f"[bold]Rewrite {i}:[/] {r}", highlight=False)
    if result.get("translation"):
        console.print(f"[bold]In plain terms:[/] {result['translation']}", highlight=False)
    if result.get("scope"):
        console.print(f"[bold]Searched only:[/] {'; '.join(result['scope'])} (named in the question)", highlight=False)
    console.print("[bold]Retrieved children[/] (RRF score; kept or dropped by the filter):")
    for r in retrieved:
        mark = "[red]dropped[/]" if r["id"] in dropped else "[green]kept[/]"
        where = escape(f"{r['document']} p. {r['pages'][0]} {' › '.join(r['section'][-2:])}")
        score = r.get("score") or 0
        source = f" [{r['source']}]" if r.get("source") is not None else ""  # a served answer has no number
        kind = f" {r['kind']:<8}" if r.get("kind") else ""
        console.print(f"  {mark}{source} {score:.4f}{kind} {where}")
    information = result.get("information") or "\n".join(
        f"[{i}] {q['text']}" for i, q in enumerate(result.get("quotes") or [], 1) if q.get("text")
    )
    if information:
        console.print("[bold]Verified quotes:[/]", highlight=False)
        console.print(information, highlight=False, markup=False)
    kept, removed = ((result.get("steps") or {}).get("read") or {}).get("sentences") or [], _removed(result)
    if kept or removed:
        console.print("[bold]The answer, sentence by sentence[/] (the stage that last wrote it; removed, by rule):")
        for e in kept:
            console.print(f"  {e['by']:<8} {e['sentence']}", highlight=False, markup=False)
        for sentence, why in removed:
            console.print(f"  removed  {sentence}  ({why})", highlight=False, markup=False)
    console.print("[bold]Steps[/]")
    shown_apart = ("seconds", "llm_calls", "prompt_tokens", "completion_tokens", "sentences", "removed_by")
    for node, s in result.get("steps", {}).items():
        extra = {k: v for k, v in s.items() if k not in shown_apart}
        console.print(
            f"  {node:<8} {s.get('seconds', 0):7.2f} s  {s.get('llm_calls', 0)} calls  "
            f"{s.get('prompt_tokens', 0)}+{s.get('completion_tokens', 0)} tokens  {json.dumps(extra)}",
            highlight=False,
            markup=False,
        )
    shown = result.get("shown") or {}
    if shown.get("total_s"):
        total = shown["total_s"]
        first = shown.get("first_words_s")
        line = f"  answered in {total:.1f} s"
        if first is not None:
            line += f"; first words after {first:.1f} s ({first / total:.0%})"
        if shown.get("first_token_s") is not None and shown["first_token_s"] != first:
            line += f", the answer call's first token after {shown['first_token_s']:.1f} s"
        console.print(line, highlight=False, markup=False)


def _earlier_turns(graph: QAGraph, thread: str) -> int | None:
    """How many questions chat thread ``thread`` holds in the graph's memory (``None``: no memory to ask)."""
    try:
        state = graph.get_state({"configurable": {"thread_id": thread}})
    except ValueError:  # a graph without a checkpointer
        return None
    history = (state.values or {}).get("history") or []
    return sum(1 for turn in history if turn.get("role") == "user")


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
    resumed = _earlier_turns(graph, thread) if thread else None
    thread = thread or uuid.uuid4().hex[:8]
    last: QAResult | None = None
    console.print(f"lclfqa chat — thread {thread}. Ask a question; /help for commands.", highlight=False)
    if resumed == 0:  # a mistyped id must not pass for the conversation the user meant
        console.print(f"No conversation {thread!r} was saved here: a new one starts under that id.", highlight=False)
    elif resumed:
        console.print(f"Resuming: {resumed} earlier question(s) in this conversation.", highlight=False)
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
            config = {"configurable": {"thread_id": thread}}
            last = run_streaming(graph, line, config=config, out=out, status=console, early_verdict=True)
            print_sources(last, console)
        except KeyboardInterrupt:
            console.print("\n[yellow]cancelled[/] (the conversation goes on)")
        except Exception as e:  # the model failing (its endpoint down, a time-out) ends this answer, not the chat
            from lclfqa.llm.calls import model_failure

            message = model_failure(e)
            if message is None:
                raise
            console.print(f"\n[red]error:[/] {escape(message)} (the conversation goes on)", highlight=False)
    if readline is not None and history_file is not None:
        try:
            readline.write_history_file(history_file)
        except OSError:
            pass
    console.print(f"Bye. Resume with: lclfqa chat --thread {thread}", highlight=False)
