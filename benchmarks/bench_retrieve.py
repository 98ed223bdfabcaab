"""The graph's ``retrieve`` node on the tax dev set, ablated: query2doc rewrites 0 / 1 / 3 × document scope.

Retrieval side only; the LLM writes only the query2doc passage and rewrites (``--rewrites 1,3``, two
calls per question each, cached in ``--llm-cache``). For every dev question with gold evidence, each
variant searches exactly as ``retrieve`` does (acronyms expanded; BM25 gets the question ×5 + passage;
dense gets question, question + passage and each rewrite; with the scope, only the documents the
question names, without its naming clause), then: evidence recall of the top-k children, DRM@k, and
evidence recall of what the reader would get after ``expand`` (parents with footnotes, within the
context budget). Prints per question the scope, and a table over all questions and the named ones:

    lclfqa ingest ../shared/data/pdfs --index /tmp/taxqa/index-layout
    python benchmarks/bench_retrieve.py --index /tmp/taxqa/index-layout --rewrites 0,1,3 \\
        --llm-cache /tmp/taxqa/llm.sqlite
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from lclfqa import prompts
from lclfqa.config import Settings
from lclfqa.eval.answer_metrics import context_texts, retrieval_curve
from lclfqa.eval.datasets import load_qa_jsonl
from lclfqa.eval.retrieval_eval import graph_rewriter
from lclfqa.eval.retrieval_metrics import evidence_recall
from lclfqa.graph.evidence.refs import chunk_ref
from lclfqa.graph.nodes.expand import build_sources
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.scope import find_scope
from lclfqa.index.search import RetrievalParams, search
from lclfqa.llm.models import get_chat_model, get_embeddings

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tax-qa" / "dev.jsonl"
KS = (4, 8, 16)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True, help="an index of ../shared/data/pdfs")
    ap.add_argument("--dataset", type=Path, default=DEV)
    ap.add_argument("--rewrites", default="0", help="comma-separated from 0, 1, 3 (1 and 3 call --model)")
    ap.add_argument("--model", default=None, help="chat model for the rewrites (default: the settings')")
    ap.add_argument("--llm-cache", default=None, help="SQLite file caching LLM responses")
    args = ap.parse_args()
    counts = [int(n) for n in args.rewrites.split(",")]
    settings = Settings.load(chat_model=args.model, llm_cache=args.llm_cache)
    index = EmbeddedBackend.load(args.index)
    embeddings = get_embeddings(index.embedding_model)
    llm = get_chat_model(settings.chat_model, settings.openai_base_url, settings=settings) if max(counts) else None
    rewriters = {n: graph_rewriter(llm, n, embeddings) for n in counts if n}
    rows: dict[tuple[str, str, str], list[float]] = {}
    seconds: dict[int, float] = {n: 0.0 for n in counts}
    items = [item for item in load_qa_jsonl(args.dataset) if item.evidence]
    for item in items:
        question = prompts.expand_acronyms(item.question)
        named = find_scope(question, index.documents)
        print(f"{item.id}: {'; '.join(named.documents) or '(whole index)'}", flush=True)
        subsets = ("all", "named") if named else ("all",)
        for n in counts:
            t0 = time.perf_counter()
            sparse, dense = rewriters[n](item.question) if n else ([question], [question])
            seconds[n] += time.perf_counter() - t0
            for scoped in (False, True):
                params = RetrievalParams.from_settings(settings, k=max(KS), document_scope=scoped)
                _, hits = search(index, embeddings, question, params, sparse_queries=sparse, dense_queries=dense)
                retrieved = [chunk_ref(h.chunk) for h in hits]
                curve = retrieval_curve(item, {"retrieved": retrieved}, KS)
                sources, _ = build_sources(
                    retrieved[: settings.top_k],
                    index,
                    parents=True,
                    expand_footnotes=True,
                    budget=settings.context_chars,
                )
                expanded = evidence_recall([e.quote for e in item.evidence], context_texts({"sources": sources}))
                variant = f"rewrites {n}{', scope' if scoped else ''}"
                for subset in subsets:
                    for k in KS:
                        rows.setdefault((subset, variant, f"evidence@{k}"), []).append(curve["evidence_recall"][k])
                    rows.setdefault((subset, variant, "DRM@8"), []).append(curve["drm"][8])
                    rows.setdefault((subset, variant, f"expanded@{settings.top_k}"), []).append(expanded)
    index.close()
    metrics = [*(f"evidence@{k}" for k in KS), "DRM@8", f"expanded@{settings.top_k}"]
    for subset in ("all", "named"):
        variants = list(dict.fromkeys(v for s, v, _ in rows if s == subset))
        if not variants:
            continue
        n_q = len(rows[(subset, variants[0], "DRM@8")])
        print(f"\n{subset} questions with evidence ({n_q}):")
        print("| variant | " + " | ".join(metrics) + " |")
        print("|---|" + "---|" * len(metrics))
        for v in variants:
            print(f"| {v} | " + " | ".join(f"{statistics.fmean(rows[(subset, v, m)]):.3f}" for m in metrics) + " |")
    print("\nrewriter seconds per question: " + ", ".join(f"{n}: {seconds[n] / len(items):.1f}" for n in counts))


if __name__ == "__main__":
    main()
