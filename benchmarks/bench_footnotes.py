"""Footnote child chunks: one per page (``footnote_chunks="page"``, the default) or one per footnote?

Run: python benchmarks/bench_footnotes.py
     python benchmarks/bench_footnotes.py --footnotes 60 --seed 7 --ks 4 8 16 --json /tmp/fn.json

What it does
------------
1. Ingests the Dobbs slip opinion twice with the default local embedder (all-MiniLM-L6-v2), once per
   setting, each into a fresh temporary index, and prints ingest seconds and chunk counts (the model is
   loaded once beforehand, so its load time is not in either figure).
2. Questions:

   - **dev**: every question of ``tax-qa/dev.jsonl`` whose ``documents`` include the Dobbs PDF; gold =
     its Dobbs evidence quotes. Few, so reported per question.
   - **span** (synthetic): ``--footnotes`` footnotes of ``parse_pdf(...).footnotes`` sampled with
     ``--seed`` (among those with >= 15 words and >= 2 capitalised phrases); query = the 12 words in the
     middle of the footnote, verbatim; gold = the footnote's text.
   - **keywords** (synthetic): the same footnotes; query = the 3 longest capitalised names/terms of the
     footnote (case names "X v. Y" first), joined with spaces, e.g. "Smith v. Jones Doe v. Roe Brown v.
     Green"; gold = the footnote's text. Harder and closer to what a user types:
     the same names often appear in the body text and in other footnotes.

3. Retrieval is ``lclfqa.index.search.search`` with the question alone (no rewrites, no document scope),
   BM25 + dense, RRF, depth 50.
   For each k: evidence recall of the top-k children's text (``evidence_recall``); evidence recall after
   parent expansion without a budget (children + for a section child its first parent, for a footnote
   child all its ``parent_ids``, as ``nodes/expand.py`` does); the same through the graph's own
   ``build_sources`` with the default 8,000-character ``context_chars`` budget; MRR@k of the first child
   that contains a gold quote; and the mean characters handed on (children only / expanded / graph).

"Contains" is whitespace-normalised substring matching, as in ``evidence_recall``. Synthetic gold is the
whole footnote, so it is only ever inside a footnote child (parents hold section text only): for that set
the expanded recall adds nothing but context cost.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
PDF = SHARED / "pdfs" / "court-opinions" / "dobbs-v-jackson-2022-slip-opinion.pdf"
DEV = SHARED / "tax-qa" / "dev.jsonl"
SETTINGS = ("page", "footnote")
SPAN_WORDS = 12

# ------------------------------------------------------------------------------- synthetic queries

_CONNECTORS = {"of", "and", "the", "for", "in", "on", "to", "v.", "ex", "rel.", "&", "de"}
# Capitalised words that are citation boilerplate or sentence openers, not names.
_BOILERPLATE = set(
    """See Id. Id Ibid. Ibid Cf. But The In And Compare Brief Amicus Amici Curiae As Ante Post This That It We A
    An Supp. Stat. Ct. App. Rev. Cong. Sess. Pet. Resp. Ann. Code Laws U. S. J. L. Tr. Oral Arg. Accord Also
    For If Of On To With Under Ed. No. Justice Justices Court Court’s Court's Moreover Indeed Here There Some
    Those These Although While When Even Yet Nor Or So Thus Because Our My He She They Its His Her Their One
    However""".split()
)
_CAPITALISED = re.compile(r"[A-Z][A-Za-z'’\-]*[.,;:]?$")


def dehyphenate(text: str) -> str:
    """Whitespace-normalised text with line-break hyphens joined ("Com- pare" -> "Compare")."""
    return re.sub(r"(\w)- +(\w)", r"\1\2", re.sub(r"\s+", " ", text)).strip()


def capitalised_phrases(text: str) -> list[str]:
    """Runs of capitalised words (with "of", "v.", "and" … inside), case names first, then longest first."""
    found: list[str] = []
    run: list[str] = []

    def close() -> None:
        words = list(run)
        run.clear()
        while words and (words[0] in _BOILERPLATE or words[0] in _CONNECTORS):
            words.pop(0)
        while words and (words[-1] in _BOILERPLATE or words[-1] in _CONNECTORS):
            words.pop()
        words = [w.rstrip(",;:") for w in words]
        phrase = " ".join(words[:7])
        if words and len(phrase) >= 5 and not all(len(w.strip(".’'")) <= 2 for w in words):
            found.append(phrase)

    for token in dehyphenate(text).split(" "):
        core = token.strip('(“"‘')
        if (_CAPITALISED.match(core) and core not in _BOILERPLATE) or (run and core in _CONNECTORS):
            run.append(core)
            # a sentence end ("England.") or a list comma closes the run; "Servs." and "v." do not
            if core.endswith((",", ";", ":")) or (core.endswith(".") and len(core) > 6) or token.endswith((")", "”")):
                close()
        else:
            close()
    close()
    unique = list(dict.fromkeys(found))
    unique.sort(key=lambda p: (" v. " not in p, -len(p)))
    return unique


def middle_span(text: str, n: int = SPAN_WORDS) -> str:
    words = re.sub(r"\s+", " ", text).strip().split(" ")
    start = max(0, (len(words) - n) // 2)
    return " ".join(words[start : start + n])


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    quotes: tuple[str, ...]
    shared_page: bool = False  # the footnote shares its page with others: the only case where settings differ


def synthetic_queries(pdf: Path, n: int, seed: int) -> tuple[list[Query], list[Query], int, int]:
    """``(span queries, keyword queries, footnotes, eligible)`` for ``n`` footnotes sampled with ``seed``."""
    from lclfqa.ingest.pdf import parse_pdf

    footnotes = parse_pdf(pdf).footnotes
    eligible = [
        (i, f) for i, f in enumerate(footnotes) if len(f.text.split()) >= 15 and len(capitalised_phrases(f.text)) >= 2
    ]
    sample = sorted(random.Random(seed).sample(eligible, min(n, len(eligible))), key=lambda x: x[0])
    per_page = Counter(f.page for f in footnotes)
    span, keywords = [], []
    for _, f in sample:
        qid = f"fn{f.number}@p{f.page}"
        shared = per_page[f.page] > 1
        span.append(Query(qid, middle_span(f.text), (f.text,), shared))
        keywords.append(Query(qid, " ".join(capitalised_phrases(f.text)[:3]), (f.text,), shared))
    return span, keywords, len(footnotes), len(eligible)


def dev_queries(dev: Path, document: str) -> list[Query]:
    from lclfqa.eval.datasets import load_qa_jsonl

    out = []
    for item in load_qa_jsonl(dev):
        if document in item.documents:
            quotes = tuple(e.quote for e in item.evidence if e.document == document)
            out.append(Query(item.id, item.question, quotes))
    return out


# ------------------------------------------------------------------------------------------ scoring


def _norm(text: str) -> str:
    from lclfqa.eval.retrieval_metrics import normalize_whitespace

    return normalize_whitespace(text)


def contains_any(text: str, quotes: tuple[str, ...]) -> bool:
    haystack = _norm(text)
    return any(_norm(q) in haystack for q in quotes if _norm(q))


def expanded(index, children: list) -> list[str]:  # noqa: ANN001 - EmbeddedBackend, list[Chunk]
    """Texts handed on without a budget: footnote children + every parent they link to, section
    children's first parent (which holds the child), a child without parents itself. De-duplicated."""
    from lclfqa.ingest.document import FOOTNOTE

    texts: dict[str, str] = {}
    for c in children:
        pids = list(c.parent_ids) if c.kind == FOOTNOTE else list(c.parent_ids[:1])
        if c.kind == FOOTNOTE or not pids:
            texts.setdefault(c.id, c.text)
        for pid in pids:
            texts.setdefault(pid, index.chunk(pid).text)
    return list(texts.values())


def graph_context(index, children: list, budget: int) -> list[str]:  # noqa: ANN001
    """Texts the graph's ``expand`` node hands on (parents with injected footnotes, within ``budget``)."""
    from lclfqa.graph.evidence.refs import chunk_ref
    from lclfqa.graph.nodes.expand import build_sources

    sources, _ = build_sources(
        [chunk_ref(c) for c in children], index, parents=True, expand_footnotes=True, budget=budget
    )
    texts = []
    for s in sources:
        texts.append(s["text"])
        texts.extend(s.get("footnotes", []))
    return texts


def score_query(index, embeddings, q: Query, ks: list[int], budget: int) -> dict[int, dict[str, float]]:  # noqa: ANN001
    from lclfqa.eval.retrieval_metrics import evidence_recall
    from lclfqa.index.search import RetrievalParams, search

    _, hits = search(index, embeddings, q.text, RetrievalParams(k=max(ks), document_scope=False))
    chunks = [h.chunk for h in hits]
    first = next((r for r, c in enumerate(chunks, 1) if contains_any(c.text, q.quotes)), None)
    out = {}
    for k in ks:
        top = chunks[:k]
        exp = expanded(index, top)
        graph = graph_context(index, top, budget)
        out[k] = {
            "recall_children": evidence_recall(q.quotes, [c.text for c in top]),
            "recall_expanded": evidence_recall(q.quotes, exp),
            "recall_graph": evidence_recall(q.quotes, graph),
            "mrr": 1.0 / first if first is not None and first <= k else 0.0,
            "chars_children": float(sum(len(c.text) for c in top)),
            "chars_expanded": float(sum(map(len, exp))),
            "chars_graph": float(sum(map(len, graph))),
            "footnote_hits": float(sum(c.kind == "footnote" for c in top)),
        }
    return out


def mean(rows: list[dict[str, float]], key: str) -> float:
    values = [r[key] for r in rows if not math.isnan(r[key])]
    return statistics.fmean(values) if values else math.nan


# --------------------------------------------------------------------------------------------- main


def ingest_one(pdf: Path, setting: str, directory: Path, embeddings) -> dict:  # noqa: ANN001
    from lclfqa.config import Settings
    from lclfqa.index.ingest import ingest

    settings = Settings(footnote_chunks=setting)
    started = time.perf_counter()
    report = ingest([pdf], directory, settings, embeddings=embeddings)
    seconds = time.perf_counter() - started
    if report.skipped:
        sys.exit(f"ingest skipped {report.skipped}")
    return {"seconds": seconds, "report": report, "settings": settings}


def footnote_stats(index, embeddings) -> dict[str, float]:  # noqa: ANN001
    """Sizes of the footnote children and how many exceed the embedder's window (their tail is not embedded)."""
    from lclfqa.index.records import embedding_text
    from lclfqa.ingest.document import FOOTNOTE

    chunks = index.chunks(FOOTNOTE)
    sizes = [len(c.text) for c in chunks]
    model = getattr(embeddings, "_model", None)
    truncated = math.nan
    if model is not None:
        limit = model.max_seq_length
        lengths = [len(model.tokenizer(embedding_text(c), add_special_tokens=True)["input_ids"]) for c in chunks]
        truncated = sum(n > limit for n in lengths)
    return {
        "footnote_chunks": len(chunks),
        "mean_chars": statistics.fmean(sizes) if sizes else 0.0,
        "max_chars": max(sizes, default=0),
        "over_window": truncated,
        "mean_parents": statistics.fmean(len(c.parent_ids) for c in chunks) if chunks else 0.0,
    }


def reachable(index, queries: list[Query]) -> float:  # noqa: ANN001
    """Share of gold quotes present anywhere in the index (the ceiling of every recall figure)."""
    from lclfqa.eval.retrieval_metrics import evidence_recall

    texts = [c.text for c in index.chunks()]
    return mean([{"r": evidence_recall(q.quotes, texts)} for q in queries], "r")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pdf", type=Path, default=PDF, help="the Dobbs slip opinion")
    ap.add_argument("--dev", type=Path, default=DEV, help="tax-qa dev.jsonl")
    ap.add_argument("--footnotes", type=int, default=40, help="footnotes sampled for the synthetic sets")
    ap.add_argument("--seed", type=int, default=20261123, help="sampling seed")
    ap.add_argument("--ks", type=int, nargs="+", default=[4, 8, 16])
    ap.add_argument("--show-queries", action="store_true", help="print the synthetic queries")
    ap.add_argument("--json", type=Path, help="write all per-query figures here")
    args = ap.parse_args(argv)
    ks = sorted(set(args.ks))

    from lclfqa.config import Settings
    from lclfqa.index.embedded import EmbeddedBackend
    from lclfqa.llm.models import get_embeddings

    print(f"# bench_footnotes  {date.today()}  Python {platform.python_version()}  {os.cpu_count()} cores (CPU)")
    t = time.perf_counter()
    embeddings = get_embeddings(Settings().embedder())
    print(f"embedder {Settings().embedder()} loaded in {time.perf_counter() - t:.1f} s")

    span, keywords, n_fn, n_el = synthetic_queries(args.pdf, args.footnotes, args.seed)
    dev = dev_queries(args.dev, args.pdf.name)
    print(
        f"queries: {len(dev)} dev ({', '.join(q.id for q in dev)}), {len(span)} span + {len(keywords)} keyword "
        f"(footnotes sampled from {n_el} eligible of {n_fn}, seed {args.seed})"
    )
    if args.show_queries:
        for s, kq in zip(span, keywords, strict=True):
            print(f"  {s.id:12} span: {s.text!r}\n  {'':12} kw:   {kq.text!r}")
    sets = {"dev": dev, "span": span, "keywords": keywords}

    budget = Settings().context_chars
    results: dict[str, dict] = {}
    print("\n## ingest (fresh temporary index per setting)")
    print(
        "| setting | ingest s | parents | children | footnote chunks | mean / max fn chunk chars "
        "| fn chunks over embedder window | mean parents per fn chunk |"
    )
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="lclfqa-bench-fn-") as tmp:
        for setting in SETTINGS:
            run = ingest_one(args.pdf, setting, Path(tmp) / setting, embeddings)
            rep = run["report"]
            with EmbeddedBackend.load(Path(tmp) / setting) as index:
                st = footnote_stats(index, embeddings)
                ceiling = {name: reachable(index, qs) for name, qs in sets.items()}
                per_query = {
                    name: {q.id: score_query(index, embeddings, q, ks, budget) for q in qs} for name, qs in sets.items()
                }
            results[setting] = {"ingest_s": run["seconds"], "stats": st, "ceiling": ceiling, "per_query": per_query}
            print(
                f"| {setting} | {run['seconds']:.1f} | {rep.parents} | {rep.children} | {rep.footnote_chunks} "
                f"| {st['mean_chars']:.0f} / {st['max_chars']} | {st['over_window']} of {st['footnote_chunks']} "
                f"| {st['mean_parents']:.2f} |"
            )

    print(
        "\nceiling (gold quotes present anywhere in the index): "
        + "; ".join(f"{s}: " + ", ".join(f"{n} {v:.2f}" for n, v in results[s]["ceiling"].items()) for s in SETTINGS)
    )

    print(f"\n## synthetic footnote queries (n={len(span)} each), hybrid k children, graph budget {budget} chars")
    print(
        "| queries | setting | k | recall children | recall expanded | recall graph | MRR@k "
        "| chars children | chars expanded | chars graph |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in ("span", "keywords"):
        for setting in SETTINGS:
            for k in ks:
                rows = [v[k] for v in results[setting]["per_query"][name].values()]
                print(
                    f"| {name} | {setting} | {k} | {mean(rows, 'recall_children'):.3f} "
                    f"| {mean(rows, 'recall_expanded'):.3f} | {mean(rows, 'recall_graph'):.3f} "
                    f"| {mean(rows, 'mrr'):.3f} "
                    f"| {mean(rows, 'chars_children'):,.0f} | {mean(rows, 'chars_expanded'):,.0f} "
                    f"| {mean(rows, 'chars_graph'):,.0f} |"
                )

    kmax = ks[-1]
    shared_ids = {q.id for q in span if q.shared_page}
    print(
        f"\nby page type, MRR@{kmax} and recall children at each k (a footnote alone on its page is one chunk "
        "under both settings; only the rest of the index differs):"
    )
    print("| queries | footnotes | n | setting | " + " | ".join(f"recall@{k}" for k in ks) + f" | MRR@{kmax} |")
    print("|---|---|---|---|" + "---|" * (len(ks) + 1))
    for name in ("span", "keywords"):
        for group, keep in (("sharing a page", True), ("alone on page", False)):
            for setting in SETTINGS:
                pq = results[setting]["per_query"][name]
                ids = [q for q in pq if (q in shared_ids) == keep]
                recalls = " | ".join(f"{mean([pq[q][k] for q in ids], 'recall_children'):.3f}" for k in ks)
                mrr = mean([pq[q][kmax] for q in ids], "mrr")
                print(f"| {name} | {group} | {len(ids)} | {setting} | {recalls} | {mrr:.3f} |")

    print(f"\nper-query MRR@{kmax}, footnote vs page (wins / ties / losses for per-footnote chunks):")
    for name in ("span", "keywords"):
        a = results["footnote"]["per_query"][name]
        b = results["page"]["per_query"][name]
        diff = [a[q][kmax]["mrr"] - b[q][kmax]["mrr"] for q in a]
        print(f"  {name}: {sum(d > 0 for d in diff)} / {sum(d == 0 for d in diff)} / {sum(d < 0 for d in diff)}")

    print(f"\n## dev questions on Dobbs (per question; {len(dev)} questions)")
    print(
        "| question | quotes | setting | k | recall children | recall expanded | recall graph | MRR@k "
        "| chars children | chars expanded | chars graph |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for q in dev:
        for setting in SETTINGS:
            for k in ks:
                r = results[setting]["per_query"]["dev"][q.id][k]
                print(
                    f"| {q.id} | {len(q.quotes)} | {setting} | {k} | {r['recall_children']:.2f} "
                    f"| {r['recall_expanded']:.2f} | {r['recall_graph']:.2f} | {r['mrr']:.2f} "
                    f"| {r['chars_children']:,.0f} | {r['chars_expanded']:,.0f} | {r['chars_graph']:,.0f} |"
                )

    if args.json:
        payload = {
            "date": str(date.today()),
            "seed": args.seed,
            "ks": ks,
            "queries": {n: [q.__dict__ for q in qs] for n, qs in sets.items()},
            "results": results,
        }
        args.json.write_text(json.dumps(payload, indent=1, default=str), encoding="utf-8")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
