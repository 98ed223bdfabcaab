"""Answer metrics that need no LLM: coverage-score arithmetic, evidence recall, refusals, DRM over the
children a graph run retrieved.

- Coverage score (LCLF-QA §4): ``(2·complete + partial) / (2·total)``.
- Evidence recall: the share of gold evidence quotes (whitespace, printed line numbers and line-end
  hyphens aside) inside the context the reader saw — the expanded sources (parents with injected
  footnotes) and the filtered children — and inside the top-k children before filtering. Low top-k
  evidence recall is a retrieval failure; high evidence recall with a poor coverage category is a
  reading failure.
- Refusal: a question the corpus does not answer (no gold documents, and a gold answer that says so) is
  right when refused; an answerable one refused is a wrong refusal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from lclfqa.eval.datasets import QAItem
from lclfqa.eval.retrieval_metrics import evidence_recall
from lclfqa.graph.answer.tidy import is_refusal
from lclfqa.graph.evidence.refs import body


def coverage_score(categories: Iterable[str]) -> float:
    """``(2·complete + partial) / (2·total)``; ``nan`` for no answers."""
    cats = list(categories)
    if not cats:
        return math.nan
    return (2 * cats.count("COMPLETE") + cats.count("PARTIAL")) / (2 * len(cats))


def coverage_from_labels(labels: Iterable[str]) -> str:
    """The coverage category from a claim check of the *necessary* claims (the paper's definitions applied
    claim by claim): all entailed → COMPLETE; any contradicted → INCORRECT; some entailed → PARTIAL;
    none → INCORRECT (nothing necessary is there)."""
    labels = list(labels)
    if "Contradiction" in labels or "Entailment" not in labels:
        return "INCORRECT"
    return "COMPLETE" if all(label == "Entailment" for label in labels) else "PARTIAL"


def category_counts(categories: Iterable[str]) -> dict[str, int]:
    cats = list(categories)
    return {c: cats.count(c) for c in ("COMPLETE", "PARTIAL", "INCORRECT")}


def answerable(item: QAItem) -> bool:
    """False for a question the corpus does not answer: no gold documents or evidence, and a gold answer
    that says the documents do not address it. A grading key's ``unanswerable`` decides where present."""
    if item.key is not None:
        return not item.key.unanswerable
    return bool(item.documents or item.evidence or item.snippets) or not is_refusal(item.gold_answer)


def _doc_name(path: str) -> str:
    return PurePath(path).name


def documents_not_indexed(items: Iterable[QAItem], indexed: Iterable[str]) -> list[tuple[str, str]]:
    """``(question id, document)`` for each document a question names that is not among ``indexed`` (an index's
    document names), matched by file name as DRM and evidence recall match them (a set's paths may be relative
    to another folder than the one ingested)."""
    names = {_doc_name(d) for d in indexed}
    return [(item.id, d) for item in items for d in item.documents if _doc_name(d) not in names]


def context_texts(result: Mapping[str, Any]) -> list[str]:
    """What the reader saw (besides the extractor's notes): sources with footnotes, then kept children."""
    return [body(s) for s in result.get("sources", [])] + [body(c) for c in result.get("filtered", [])]


def topk_texts(result: Mapping[str, Any], k: int | None = None) -> list[str]:
    """The text of the top-``k`` retrieved children (all of them when ``k`` is None)."""
    retrieved = list(result.get("retrieved", []))
    return [c["text"] for c in retrieved[: k if k is not None else len(retrieved)]]


def evidence_scores(item: QAItem, result: Mapping[str, Any]) -> dict[str, float]:
    """Evidence recall in the reader's context and in the top-k children (``nan`` without gold quotes)."""
    quotes = [e.quote for e in item.evidence]
    return {
        "evidence_recall_context": evidence_recall(quotes, context_texts(result)),
        "evidence_recall_topk": evidence_recall(quotes, topk_texts(result)),
    }


def retrieval_curve(item: QAItem, result: Mapping[str, Any], ks: Sequence[int]) -> dict[str, dict[int, float]]:
    """DRM@k (share of the top-k children from a non-gold document) and evidence recall@k of one run, for
    the cut-offs ``ks`` (ascending) up to the number of children retrieved."""
    retrieved = list(result.get("retrieved", []))
    gold = {_doc_name(d) for d in item.documents}
    quotes = [e.quote for e in item.evidence]
    drm: dict[int, float] = {}
    ev: dict[int, float] = {}
    for k in ks:
        if k > len(retrieved) and k != ks[0]:
            break  # the run retrieved fewer: a longer cut-off would repeat the last figure
        top = retrieved[:k]
        if gold and top:
            drm[k] = sum(_doc_name(c["document"]) not in gold for c in top) / len(top)
        if quotes:
            ev[k] = evidence_recall(quotes, [c["text"] for c in top])
    return {"drm": drm, "evidence_recall": ev}


def refusal_outcome(item: QAItem, refused: bool) -> str:
    """``correct_refusal``, ``missed_refusal`` (answered an unanswerable question), ``wrong_refusal`` or
    ``answered``."""
    if not answerable(item):
        return "correct_refusal" if refused else "missed_refusal"
    return "wrong_refusal" if refused else "answered"


def mean(values: Iterable[float | None]) -> float:
    """Mean of the finite values; ``nan`` when there are none."""
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return math.fsum(vals) / len(vals) if vals else math.nan
