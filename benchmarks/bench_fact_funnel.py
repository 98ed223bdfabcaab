"""Where an `lclfqa eval qa` run loses the key facts: retrieved, widened, quoted, stated. No LLM, seconds.

For each answerable question with a grading key, and one variant of a stored run, a key fact counts (the matching
rules of the key-fact score) at each step of the way to the answer:

- **children**: in the text of the children retrieved (``retrieved`` of the row, read from the index);
- **context**: in those children and their parents, what the filter and the extractor choose from;
- **kept**: in the children the filter kept (``kept`` of ``retrieved``) and their parents, what the extractor
  quotes from;
- **quotes**: in the quotes the reader was given (``quotes``; for `rag`, none: it reads the children);
- **stated**: in the answer, and of those, the ones that were also in the quotes.

So a run's key-fact recall splits into what retrieval never found, what the quotes left out, and what the reader
did not say of what it was shown:

    python benchmarks/bench_fact_funnel.py validation=RUN:DATASET:INDEX fresh3=RUN:DATASET:INDEX [--variant lclf]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from lclfqa.eval.datasets import QAItem, load_qa_jsonl
from lclfqa.eval.key_facts import facts_found
from lclfqa.eval.qa_runner import read_rows

STEPS = ("facts", "children", "context", "kept", "quotes", "stated", "stated from quotes")


def funnel(
    rows: Iterable[dict[str, Any]],
    items: dict[str, QAItem],
    chunk_text: Callable[[str], str],
    parent_ids: Callable[[str], list[str]],
    variant: str = "lclf",
) -> dict[str, int]:
    """Key facts at each of :data:`STEPS` over ``rows`` of ``variant`` (answerable questions with a key only).
    ``chunk_text(id)`` is a chunk's text, ``parent_ids(id)`` a child's parents."""
    out = dict.fromkeys(STEPS, 0)
    for row in rows:
        item = items.get(str(row.get("id")))
        if (
            row.get("variant") != variant
            or item is None
            or not item.key
            or item.key.unanswerable
            or not item.key.key_facts
        ):
            continue
        retrieved = row.get("retrieved") or []
        kids = [str(r["id"]) for r in retrieved]
        kept = [str(r["id"]) for r in retrieved if r.get("kept", True)]
        children = " ".join(chunk_text(k) for k in kids)
        parents = " ".join(chunk_text(p) for p in dict.fromkeys(p for k in kids for p in parent_ids(k)))
        chosen = " ".join(chunk_text(k) for k in kept) + " "
        chosen += " ".join(chunk_text(p) for p in dict.fromkeys(p for k in kept for p in parent_ids(k)))
        quotes = " ".join(str(q.get("text", "")) for q in row.get("quotes") or [])
        said = facts_found(item, str(row.get("answer") or ""))
        quoted = facts_found(item, quotes)
        out["facts"] += len(item.key.key_facts)
        out["children"] += sum(facts_found(item, children))
        out["context"] += sum(facts_found(item, f"{children} {parents}"))
        out["kept"] += sum(facts_found(item, chosen))
        out["quotes"] += sum(quoted)
        out["stated"] += sum(said)
        out["stated from quotes"] += sum(s and q for s, q in zip(said, quoted, strict=True))
    return out


def _index_reader(index: Path) -> tuple[Callable[[str], str], Callable[[str], list[str]]]:
    generation = (index / "CURRENT").read_text(encoding="utf-8").strip()
    con = sqlite3.connect(f"file:{index / generation / 'chunks.sqlite'}?mode=ro", uri=True)
    rows = con.execute("select id, text, parent_ids from chunks").fetchall()
    con.close()
    texts = {i: t or "" for i, t, _ in rows}
    parents = {i: json.loads(p) if p else [] for i, _, p in rows}
    return (lambda k: texts.get(k, "")), (lambda k: parents.get(k, []))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="NAME=RUN_DIR:DATASET:INDEX, one per set")
    ap.add_argument("--variant", default="lclf")
    args = ap.parse_args()
    total = dict.fromkeys(STEPS, 0)
    print("| set | " + " | ".join(STEPS) + " |")
    print("|---" * (len(STEPS) + 1) + "|")
    for spec in args.runs:
        name, _, rest = spec.partition("=")
        run, dataset, index = rest.split(":")
        items = {i.id: i for i in load_qa_jsonl(Path(dataset))}
        text, parents = _index_reader(Path(index))
        counts = funnel(read_rows(Path(run) / "results.jsonl"), items, text, parents, args.variant)
        total = {k: total[k] + counts[k] for k in STEPS}
        print(f"| {name} | " + " | ".join(str(counts[k]) for k in STEPS) + " |")
    share = " | ".join(f"{total[k]} ({total[k] / max(total['facts'], 1):.0%})" for k in STEPS)
    print(f"| all | {share} |")


if __name__ == "__main__":
    main()
