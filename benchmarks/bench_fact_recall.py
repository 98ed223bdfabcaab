"""How many of the tax dev set's key facts retrieval puts in front of the reader: no LLM, seconds.

For every dev question with ``key_facts``, hybrid retrieval with the question alone (the graph's default:
no rewrites), exactly as ``ask`` retrieves (:func:`lclfqa.index.search.search` with the settings' top-k,
document scope on); a key fact counts when one of its accepted forms occurs in the top-k children's text
(the matching rules of ``lclfqa eval qa``'s key-fact score). This is the ceiling of the answer's key-fact
recall: the extractor quotes these children and nothing else. Compare indexes built from the same PDFs
by different parser/chunker versions:

    lclfqa ingest ../shared/data/pdfs --index /tmp/taxqa/index9
    python benchmarks/bench_fact_recall.py /tmp/taxqa/index /tmp/taxqa/index9 --k 8 10 12 16

One cut-off judges a change by flips at its edge: a child whose text did not change can fall from 8th to 9th
when other children change around it (BM25's statistics move with them). ``--curve K`` adds the mean of the
facts found at every cut-off 1…K, which such a flip moves by a fraction of a fact.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

from lclfqa.config import Settings
from lclfqa.eval.datasets import load_qa_jsonl
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.search import RetrievalParams, search
from lclfqa.llm.models import get_embeddings
from lclfqa.textnorm import matches, normalize

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tax-qa" / "dev.jsonl"


def measure(index_dir: Path, dataset: Path, ks: list[int]) -> tuple[dict[int, int], int, dict[str, list[int]]]:
    """``(facts found per k, facts in all, per question the facts found per k)``."""
    index = EmbeddedBackend.load(index_dir)
    embeddings = get_embeddings(index.embedding_model)
    base = RetrievalParams.from_settings(Settings())
    found = dict.fromkeys(ks, 0)
    total = 0
    rows: dict[str, list[int]] = {}
    for item in load_qa_jsonl(dataset):
        facts = item.key.key_facts if item.key else ()
        if not facts:
            continue
        total += len(facts)
        rows[item.id] = []
        for k in ks:
            _, hits = search(index, embeddings, item.question, replace(base, k=k))
            text = normalize(" ".join(h.chunk.text for h in hits))
            n = sum(any(matches(form, text) for form in forms) for forms in facts)
            found[k] += n
            rows[item.id].append(n)
    return found, total, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("indexes", nargs="+", type=Path)
    parser.add_argument("--dataset", type=Path, default=DEV)
    parser.add_argument("--k", type=int, nargs="+", default=[8])
    parser.add_argument("--curve", type=int, default=0, help="also the mean of facts found at k = 1…CURVE")
    args = parser.parse_args()
    for index_dir in args.indexes:
        found, total, rows = measure(index_dir, args.dataset, args.k)
        print(f"{index_dir}: key facts in the top-k children, of {total}")
        for qid, counts in rows.items():
            print(f"  {qid}: " + "  ".join(f"@{k} {n}" for k, n in zip(args.k, counts, strict=True)))
        print("  all: " + "  ".join(f"@{k} {found[k]}/{total}" for k in args.k))
        if args.curve > 0:
            ks = list(range(1, args.curve + 1))
            curve, _, _ = measure(index_dir, args.dataset, ks)
            print(f"  mean over k = 1…{args.curve}: {sum(curve.values()) / len(ks):.2f}/{total}")


if __name__ == "__main__":
    main()
