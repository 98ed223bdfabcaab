"""Do the CoT filter and the extractor choose by content or by position? The calls of an ``eval qa`` run, made
again with the references in reverse order.

Reads each question's filter and extractor calls from the ``--llm-cache FILE`` of an ``lclfqa eval qa`` run
(their prompts, as the graph built them), and makes them again as the graph would with the ``<reference i>``
blocks reversed and renumbered (each sentence marker ``[k.j]`` moves with its reference): the filter call from
an empty KV cache (as each eval row starts), then the extractor continuing its conversation with the reply the
reversed filter call gave. The choices are mapped back to the original references. A model that reads the
references keeps the same ones in either order; one that follows position keeps the same places. Prints per
question both choices, then:

- filter: questions whose kept set is the same in both orders (by content), whose reversed kept set is the
  same places (by position), keeping every reference in both (which agree both ways), and of the references
  kept by a strict subset, how many the reversed call keeps again (content) and how many of their places;
- extractor: of the sentences named in the original order, how many are named again as the same sentence
  (content) and how many at the same number (position).

``FILE`` is only read: every call goes through a copy of it made beside it at the first run
(``*.reversed.sqlite``), so the calls in the original order are answered from the run's own replies when
``--model`` and the settings (``LCLFQA_*``) are the run's, and a second run is instant.
Log: ``benchmarks/log/2026-11-29-filter-by-position.md``.

    python benchmarks/bench_position.py --cache /tmp/run/llm.sqlite [--model local] [--limit 15]
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

BLOCK = re.compile(r"<reference (\d+)>(.*?)</reference \1>", re.S)
MARKER = re.compile(r"^\[(\d+)\.(\d+)\] ", re.M)
"""A sentence's number, opening its line (``[2.3] …``); brackets inside a sentence are its text."""


@dataclass
class Reversed:
    """A references message with its blocks in reverse order."""

    text: str
    n: int
    sentences: list[str]
    """Every sentence number of the reversed text, in order (the extractor's schema)."""


def reverse_references(text: str) -> Reversed:
    """``text`` (the reading conversation's references message) with its ``<reference i>`` blocks in reverse
    order, renumbered 1…n, each sentence marker ``[k.j]`` renumbered with its block; what is around the blocks
    (the heading before, the question after) is kept as it is."""
    blocks = list(BLOCK.finditer(text))
    if not blocks:
        raise ValueError("no <reference i> blocks in the message")
    n = len(blocks)
    out, sentences = [], []
    for pos, m in enumerate(reversed(blocks), 1):
        k = m.group(1)
        body = MARKER.sub(
            lambda s, k=k, pos=pos: f"[{pos}.{s.group(2)}] " if s.group(1) == k else s.group(0), m.group(2)
        )
        sentences += numbers(body)
        out.append(f"<reference {pos}>{body}</reference {pos}>")
    gaps = [text[blocks[i].end() : blocks[i + 1].start()] for i in range(n - 1)]
    joined = out[0] + "".join(g + b for g, b in zip(gaps, out[1:], strict=True))
    return Reversed(text[: blocks[0].start()] + joined + text[blocks[-1].end() :], n, sentences)


def numbers(text: str) -> list[str]:
    """The sentence numbers opening the lines of ``text``, in order (what the extractor may name)."""
    return [f"{a}.{b}" for a, b in MARKER.findall(text)]


def back(number: str, n: int) -> str:
    """A sentence number of the reversed call as the original call numbered it."""
    ref, sentence = number.split(".")
    return f"{n + 1 - int(ref)}.{sentence}"


def stored_questions(cache: Path, filter_ask: str, extract_ask: str) -> list[list[BaseMessage]]:
    """Each question's extractor call (system, references, filter instruction, filter reply, extractor
    instruction) stored in an ``--llm-cache`` file; its first three messages are the question's filter call."""
    from langchain_core.load import loads

    out = []
    con = sqlite3.connect(f"file:{cache}?mode=ro", uri=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for (prompt,) in con.execute("SELECT DISTINCT prompt FROM full_llm_cache ORDER BY rowid"):
            if extract_ask not in prompt:
                continue
            msgs = loads(prompt, allowed_objects="messages")  # message classes only: nothing else is built
            if len(msgs) == 5 and str(msgs[2].content).startswith(filter_ask):
                if str(msgs[4].content).startswith(extract_ask):
                    out.append(msgs)
    con.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cache", type=Path, required=True, help="the --llm-cache file of an eval qa run")
    ap.add_argument("--model", default="local", help="chat model asked (default: local)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many calls of each kind (0: all)")
    args = ap.parse_args()

    from lclfqa.config import Settings
    from lclfqa.graph.evidence.reading import instruction
    from lclfqa.graph.nodes.extract import MAX_QUOTES, quotes_schema
    from lclfqa.graph.nodes.filter import THOUGHT_CHARS, verdict_schema
    from lclfqa.llm import parsing
    from lclfqa.llm.calls import Meter, chat
    from lclfqa.llm.models import get_chat_model

    filter_ask = instruction("filter_cot", n=1).split("\n")[0]
    extract_ask = instruction("extract", max_quotes=MAX_QUOTES).split(".")[0]
    questions = stored_questions(args.cache, filter_ask, extract_ask)[: args.limit or None]
    if not questions:
        raise SystemExit(f"no filter and extractor calls of the lclf pipeline in {args.cache}")
    sidecar = args.cache.with_name(args.cache.stem + ".reversed.sqlite")  # the run's file is never written
    if not sidecar.exists():
        shutil.copyfile(args.cache, sidecar)
    llm = get_chat_model(args.model, settings=Settings.load(llm_cache=str(sidecar)))
    print(f"{len(questions)} questions' filter and extractor calls from {args.cache}; model {args.model}")

    def run(model: Any, system: BaseMessage, refs: str, ask: BaseMessage, then: BaseMessage, n: int) -> tuple[str, str]:
        """The filter call from an empty KV cache, then the extractor continuing it (the graph's order)."""
        forget = getattr(model, "forget_prompt", None)
        if forget:
            forget()
        head = [system, HumanMessage(refs), ask]
        kw = {"max_tokens": THOUGHT_CHARS // 3 + 12 * n + 40, "schema": verdict_schema(n)}
        reply = chat(model, head, Meter("position"), **kw)
        schema = quotes_schema(numbers(refs))
        picks = chat(
            model, [*head, AIMessage(reply), then], Meter("position"), max_tokens=8 * MAX_QUOTES + 40, schema=schema
        )
        return reply, picks

    def named(reply: str) -> set[str]:
        obj = parsing.json_object(reply)
        return {str(s) for s in obj.get("sentences", [])} if obj else set()

    same_content = same_place = all_kept = kept = kept_content = kept_place = 0
    count = by_content = by_place = 0
    for msgs in questions:
        system, refs, ask, _, then = msgs
        rev = reverse_references(str(refs.content))
        n = rev.n
        reply, picks = run(llm, system, str(refs.content), ask, then, n)
        rev_reply, rev_picks = run(llm, system, rev.text, ask, then, n)
        before, _ = parsing.booleans(reply, n)
        after, _ = parsing.booleans(rev_reply, n)
        mapped = list(reversed(after))
        all_kept += all(before) and all(after)
        same_content += before == mapped
        same_place += before == after
        if not all(before):  # a strict subset: which of its references are kept again, by content and by place
            kept += sum(before)
            kept_content += sum(b and m for b, m in zip(before, mapped, strict=True))
            kept_place += sum(b and a for b, a in zip(before, after, strict=True))
        first, second = named(picks), named(rev_picks)
        count += len(first)
        by_content += len(first & {back(s, n) for s in second})
        by_place += len(first & second)
        show = "".join("T" if b else "F" for b in before), "".join("T" if b else "F" for b in after)
        print(f"kept {show[0]} reversed {show[1]}; named {sorted(first)} reversed {sorted(second)}", flush=True)
    print(
        f"filter: {len(questions)} questions; the same kept set by content {same_content}, by place {same_place} "
        f"(both where every reference is kept: {all_kept}); of the {kept} references kept by a strict subset, "
        f"kept again by content {kept_content}, by place {kept_place}"
    )
    print(f"extractor: {count} sentences named; named again by content {by_content}, by place {by_place}")


if __name__ == "__main__":
    main()
