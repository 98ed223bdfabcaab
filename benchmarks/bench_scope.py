"""Document scope on the tax dev set, retrieval side only: no LLM.

Each dev question with gold evidence is searched twice with the question alone (no rewrites): over the
whole index, and with the document scope the graph's ``retrieve`` node applies (``lclfqa/scope.py``: a
question that names an indexed document, "In Dobbs, …", "the IRA 'buyback tax'", is searched in that
document only, ranked without the naming words). Printed per question: the scope found; then, over
all questions and over the scoped ones, evidence recall of the top-k children and DRM@k:

    lclfqa ingest ../shared/data/pdfs --index /tmp/taxqa/index-layout
    python benchmarks/bench_scope.py --index /tmp/taxqa/index-layout
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from lclfqa.config import Settings
from lclfqa.eval.answer_metrics import retrieval_curve
from lclfqa.eval.datasets import load_qa_jsonl
from lclfqa.ingest.index import Index
from lclfqa.models import get_embeddings
from lclfqa.nodes.refs import chunk_ref
from lclfqa.retrieval import hybrid_search, scoped_queries

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tax-qa" / "dev.jsonl"
KS = (4, 8, 16)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True, help="an index of ../shared/data/pdfs")
    ap.add_argument("--dataset", type=Path, default=DEV)
    args = ap.parse_args()
    settings = Settings()
    index = Index.load(args.index)
    embeddings = get_embeddings(index.embedding_model)
    rows: dict[tuple[str, str], list[float]] = {}
    for item in load_qa_jsonl(args.dataset):
        if not item.evidence:
            continue
        scope, queries, _ = scoped_queries(index, item.question, [item.question], [item.question])
        print(f"{item.id}: {'; '.join(scope.documents) or '(whole index)'}", f"| {scope.query}" if scope else "")
        for mode in ("unscoped", "scoped"):
            if mode == "scoped" and scope:
                hits = hybrid_search(
                    index, embeddings, queries, k=max(KS), depth=settings.retrieval_depth, documents=scope.documents
                )
            else:
                hits = hybrid_search(index, embeddings, [item.question], k=max(KS), depth=settings.retrieval_depth)
            curve = retrieval_curve(item, {"retrieved": [chunk_ref(h.chunk) for h in hits]}, KS)
            for subset in ("all", "named") if scope else ("all",):
                for k in KS:
                    rows.setdefault((subset, f"{mode} evidence@{k}"), []).append(curve["evidence_recall"][k])
                    rows.setdefault((subset, f"{mode} DRM@{k}"), []).append(curve["drm"][k])
    index.close()
    for subset in ("all", "named"):
        n = len(rows.get((subset, "unscoped DRM@4"), []))
        print(f"\n{subset} questions with evidence ({n}):")
        for (s, name), values in rows.items():
            if s == subset:
                print(f"  {name:22s} {statistics.fmean(values):.3f}")


if __name__ == "__main__":
    main()
