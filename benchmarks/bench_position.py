"""Do the CoT filter and the extractor choose by content or by position? The calls of an ``eval qa`` run, asked
again with their references in reverse order.

Reads the filter and extractor calls an ``lclfqa eval qa --llm-cache FILE`` run stored (their prompts, as the
graph built them), asks each with ``--model`` twice — as it was, and with its ``<reference i>`` blocks
reversed and renumbered (each sentence marker ``[k.j]`` moves with its reference; in an extractor call the
filter's booleans in its turn are reversed with them) — and maps the reversed call's choices back to the
original references. A model that reads the references keeps the same ones in either order; one that follows
position keeps the same places. Prints per call the two choices, then:

- filter: calls whose kept set is the same in both orders (by content), calls whose reversed kept set is the
  same places (by position), and calls keeping every reference (which agree both ways);
- extractor: of the sentences named in the original order, how many are named again as the same sentence
  (content) and how many at the same number (position).

The calls as they were are answered from ``FILE`` when ``--model`` is the run's (nothing is run again); the
reversed calls are added to ``FILE``, so a second run is instant. Log: 2026-11-29-filter-by-position.md.

    python benchmarks/bench_position.py --cache /tmp/run/llm.sqlite [--model local] [--limit 15]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import warnings
from dataclasses import dataclass
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

BLOCK = re.compile(r"<reference (\d+)>(.*?)</reference \1>", re.S)
MARKER = re.compile(r"\[(\d+)\.(\d+)\]")
RELEVANT = re.compile(r'("relevant"\s*:\s*\[)([^\]]*)(\])')


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
            lambda s, k=k, pos=pos: f"[{pos}.{s.group(2)}]" if s.group(1) == k else s.group(0), m.group(2)
        )
        sentences += [f"{a}.{b}" for a, b in MARKER.findall(body) if a == str(pos)]
        out.append(f"<reference {pos}>{body}</reference {pos}>")
    gaps = [text[blocks[i].end() : blocks[i + 1].start()] for i in range(n - 1)]
    joined = out[0] + "".join(g + b for g, b in zip(gaps, out[1:], strict=True))
    return Reversed(text[: blocks[0].start()] + joined + text[blocks[-1].end() :], n, sentences)


def reverse_booleans(reply: str) -> str:
    """The filter's reply with its ``"relevant"`` list reversed (unchanged where it has none)."""
    m = RELEVANT.search(reply)
    if not m:
        return reply
    values = [v.strip() for v in m.group(2).split(",")]
    return reply[: m.start(2)] + ", ".join(reversed(values)) + reply[m.end(2) :]


def back(number: str, n: int) -> str:
    """A sentence number of the reversed call as the original call numbered it."""
    ref, sentence = number.split(".")
    return f"{n + 1 - int(ref)}.{sentence}"


def stored_calls(cache: Path, filter_ask: str, extract_ask: str) -> tuple[list, list]:
    """The filter calls (system, references, instruction) and extractor calls (… filter's turn, instruction)
    stored in an ``--llm-cache`` file, as message lists."""
    from langchain_core.load import loads

    filters, extracts = [], []
    con = sqlite3.connect(f"file:{cache}?mode=ro", uri=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for (prompt,) in con.execute("SELECT DISTINCT prompt FROM full_llm_cache"):
            if filter_ask not in prompt and extract_ask not in prompt:
                continue
            msgs = loads(prompt, allowed_objects="messages")  # message classes only: nothing else is built
            last = str(msgs[-1].content)
            if len(msgs) == 3 and last.startswith(filter_ask):
                filters.append(msgs)
            elif len(msgs) == 5 and last.startswith(extract_ask):
                extracts.append(msgs)
    con.close()
    return filters, extracts


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
    filters, extracts = stored_calls(args.cache, filter_ask, extract_ask)
    if args.limit:
        filters, extracts = filters[: args.limit], extracts[: args.limit]
    llm = get_chat_model(args.model, settings=Settings(llm_cache=str(args.cache)))
    print(f"{len(filters)} filter and {len(extracts)} extractor calls from {args.cache}; model {args.model}")

    def ask(msgs: list[BaseMessage], **kwargs: object) -> str:
        return chat(llm, msgs, Meter("position"), **kwargs)  # type: ignore[arg-type]

    same_content = same_place = all_kept = 0
    for msgs in filters:
        rev = reverse_references(str(msgs[1].content))
        kw = {"max_tokens": THOUGHT_CHARS // 3 + 12 * rev.n + 40, "schema": verdict_schema(rev.n)}
        before, _ = parsing.booleans(ask(msgs, **kw), rev.n)
        after, _ = parsing.booleans(ask([msgs[0], HumanMessage(rev.text), msgs[2]], **kw), rev.n)
        mapped = list(reversed(after))
        all_kept += all(before) and all(after)
        same_content += before == mapped
        same_place += before == after
        show = "".join("T" if b else "F" for b in before), "".join("T" if b else "F" for b in after)
        print(f"filter  kept {show[0]}  reversed {show[1]}")
    named = by_content = by_place = 0
    for msgs in extracts:
        rev = reverse_references(str(msgs[1].content))
        numbers = MARKER.findall(str(msgs[1].content))
        kw = {"max_tokens": 8 * MAX_QUOTES + 40}
        original = ask(msgs, schema=quotes_schema([f"{a}.{b}" for a, b in numbers]), **kw)
        turn = AIMessage(reverse_booleans(str(msgs[3].content)))
        reversed_reply = ask(
            [msgs[0], HumanMessage(rev.text), msgs[2], turn, msgs[4]], schema=quotes_schema(rev.sentences), **kw
        )
        before = set(json.loads(original).get("sentences", [])) if parsing.json_object(original) else set()
        after = set(json.loads(reversed_reply).get("sentences", [])) if parsing.json_object(reversed_reply) else set()
        named += len(before)
        by_content += len(before & {back(s, rev.n) for s in after})
        by_place += len(before & after)
        print(f"extract named {sorted(before)}  reversed {sorted(after)}")
    if filters:
        print(
            f"filter: {len(filters)} calls; the same kept set by content {same_content}, by place {same_place} "
            f"(both where every reference is kept: {all_kept})"
        )
    if extracts:
        print(f"extractor: {named} sentences named; named again by content {by_content}, by place {by_place}")


if __name__ == "__main__":
    main()
