"""Layout-aware vs plain chunking (ablation H3) on the tax dev set, retrieval side only: no LLM.

For every dev question with gold evidence, hybrid retrieval with the question alone (no rewrites), then:
evidence recall of the top-k children, and of what the reader would get after the graph's ``expand``
(parents with footnotes injected, within the context budget); DRM@k against the question's gold
documents; characters handed to the reader. Both indexes must hold the same PDFs:

    lclfqa ingest ../shared/data/pdfs --index /tmp/taxqa/index-layout
    lclfqa ingest ../shared/data/pdfs --index /tmp/taxqa/index-plain --chunking plain
    python benchmarks/bench_layout.py --layout /tmp/taxqa/index-layout --plain /tmp/taxqa/index-plain
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from lclfqa.config import Settings
from lclfqa.eval.answer_metrics import context_texts, retrieval_curve
from lclfqa.eval.datasets import load_qa_jsonl
from lclfqa.eval.retrieval_metrics import evidence_recall
from lclfqa.graph.evidence.refs import chunk_ref
from lclfqa.graph.nodes.expand import build_sources
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.search import RetrievalParams, search
from lclfqa.llm.models import get_embeddings

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tax-qa" / "dev.jsonl"
KS = (4, 8, 16)


def measure(index_dir: Path, dataset: Path) -> dict[str, float]:
    settings = Settings()
    index = EmbeddedBackend.load(index_dir)
    embeddings = get_embeddings(index.embedding_model)
    rows: dict[str, list[float]] = {}
    for item in load_qa_jsonl(dataset):
        if not item.evidence:
            continue
        params = RetrievalParams.from_settings(settings, k=max(KS), document_scope=False)
        _, hits = search(index, embeddings, item.question, params)
        retrieved = [chunk_ref(h.chunk) for h in hits]
        curve = retrieval_curve(item, {"retrieved": retrieved}, KS)  # what `eval qa` reports per run
        for k in KS:
            rows.setdefault(f"children@{k}", []).append(curve["evidence_recall"][k])
            rows.setdefault(f"DRM@{k}", []).append(curve["drm"][k])
        sources, _ = build_sources(
            retrieved[: settings.top_k], index, parents=True, expand_footnotes=True, budget=settings.context_chars
        )
        context = context_texts({"sources": sources})  # parents with their injected footnotes
        quotes = [e.quote for e in item.evidence]
        rows.setdefault(f"expanded@{settings.top_k}", []).append(evidence_recall(quotes, context))
        rows.setdefault("chars to reader", []).append(sum(len(t) for t in context))
    index.close()
    return {name: statistics.fmean(values) for name, values in rows.items()} | {"questions": len(rows["DRM@4"])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layout", type=Path, required=True, help="index built with the default (layout) chunking")
    ap.add_argument("--plain", type=Path, required=True, help="index built with --chunking plain")
    ap.add_argument("--dataset", type=Path, default=DEV)
    args = ap.parse_args()
    results = {"layout": measure(args.layout, args.dataset), "plain": measure(args.plain, args.dataset)}
    names = list(results["layout"])
    print("| chunking | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for mode, r in results.items():
        cells = [f"{r[n]:.0f}" if n in ("chars to reader", "questions") else f"{r[n]:.3f}" for n in names]
        print(f"| {mode} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
