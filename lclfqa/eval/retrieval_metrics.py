"""Retrieval metrics of LegalBench-RAG and the SAC paper, as small pure functions you can check by hand.

For one query, its ranked retrieved chunks and its gold spans, at a cut-off ``k``:

- **DRM@k** (document-level retrieval mismatch): share of the top-k chunks whose document is not a gold
  document.
- **character precision@k**: characters of the top-k chunks that fall inside a gold span, over all
  characters of the top-k chunks. **character recall@k**: gold characters covered by the top-k chunks,
  over all gold characters. Ranges are merged per document first, so overlapping chunks (or overlapping
  gold spans) are never counted twice. A chunk without offsets (a PDF chunk) counts its text length as
  retrieved characters that cover nothing: it can only lower precision.
- **document recall@k**: share of the gold documents that at least one top-k chunk comes from.

:func:`mean_scores` averages per-query scores over queries, per ``k``. :func:`evidence_recall` is the
LLM-free check for the tax-QA sets: which gold quotes are inside the retrieved text.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from lclfqa.eval.datasets import GoldSpan

__all__ = [
    "RetrievalScores",
    "RetrievedSpan",
    "as_retrieved",
    "char_precision_recall_at_k",
    "document_recall_at_k",
    "drm_at_k",
    "evidence_recall",
    "intersection_length",
    "mean_scores",
    "merge_intervals",
    "normalize_evidence",
    "normalize_whitespace",
    "score_ranking",
]

Interval = tuple[int, int]


@dataclass(frozen=True)
class RetrievedSpan:
    """Where a retrieved chunk comes from: ``document`` and characters ``[start, end)`` of it.

    ``start``/``end`` are ``None`` when the chunk has no offsets; ``length`` is then its size in characters.
    """

    document: str
    start: int | None = None
    end: int | None = None
    length: int = 0

    @property
    def size(self) -> int:
        return self.end - self.start if self.start is not None and self.end is not None else self.length


def as_retrieved(item: Any) -> RetrievedSpan:
    """A :class:`RetrievedSpan` from anything with ``document``, ``start``, ``end`` (and ``text``): a
    :class:`~lclfqa.ingest.document.Chunk`, a retrieval ``Hit`` (its ``chunk``), or a RetrievedSpan."""
    if isinstance(item, RetrievedSpan):
        return item
    chunk = getattr(item, "chunk", item)
    start, end = getattr(chunk, "start", None), getattr(chunk, "end", None)
    if start is None or end is None:
        return RetrievedSpan(chunk.document, None, None, len(getattr(chunk, "text", "") or ""))
    return RetrievedSpan(chunk.document, start, end)


# ----------------------------------------------------------------------------------------- intervals


def merge_intervals(ranges: Iterable[Interval]) -> list[Interval]:
    """Sorted, non-overlapping, non-touching ``[start, end)`` intervals covering the same characters.

    Empty ranges (``start >= end``) are dropped: ``[(5, 9), (0, 3), (2, 4), (9, 9)] -> [(0, 4), (5, 9)]``.
    """
    merged: list[list[int]] = []
    for start, end in sorted((a, b) for a, b in ranges if a < b):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(a, b) for a, b in merged]


def covered_length(merged: Sequence[Interval]) -> int:
    """Characters in merged intervals."""
    return sum(b - a for a, b in merged)


def intersection_length(a: Sequence[Interval], b: Sequence[Interval]) -> int:
    """Characters in both of two lists of merged intervals (two-pointer sweep)."""
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            total += hi - lo
        if a[i][1] <= b[j][1]:
            i += 1
        else:
            j += 1
    return total


# --------------------------------------------------------------------------------------- per query


def drm_at_k(retrieved: Sequence[Any], gold_documents: Iterable[str], k: int) -> float:
    """Share of the top-``k`` retrieved chunks whose document is not a gold document.

    The denominator is the number of chunks actually in the top ``k`` (fewer when fewer were retrieved);
    nothing retrieved gives 0.0.
    """
    gold = set(gold_documents)
    top = [as_retrieved(r) for r in retrieved[:k]]
    if not top:
        return 0.0
    return sum(r.document not in gold for r in top) / len(top)


def document_recall_at_k(retrieved: Sequence[Any], gold_documents: Iterable[str], k: int) -> float:
    """Share of the gold documents that at least one of the top-``k`` chunks comes from (0.0 if none)."""
    gold = set(gold_documents)
    if not gold:
        return 0.0
    found = {as_retrieved(r).document for r in retrieved[:k]}
    return len(gold & found) / len(gold)


def char_precision_recall_at_k(retrieved: Sequence[Any], gold: Sequence[GoldSpan], k: int) -> tuple[float, float]:
    """``(precision, recall)`` of the top-``k`` chunks' characters against the gold spans.

    Per document, retrieved ranges and gold spans are each merged, then intersected. Precision is
    overlapping characters / retrieved characters (0.0 if nothing was retrieved); recall is overlapping
    characters / gold characters (0.0 if the gold spans are empty).
    """
    located: dict[str, list[Interval]] = defaultdict(list)
    unlocated = 0
    for r in map(as_retrieved, retrieved[:k]):
        if r.start is None or r.end is None:
            unlocated += r.length
        else:
            located[r.document].append((r.start, r.end))
    merged_retrieved = {doc: merge_intervals(rs) for doc, rs in located.items()}
    gold_by_doc: dict[str, list[Interval]] = defaultdict(list)
    for s in gold:
        gold_by_doc[s.file_path].append((s.start, s.end))
    merged_gold = {doc: merge_intervals(gs) for doc, gs in gold_by_doc.items()}

    retrieved_chars = unlocated + sum(covered_length(m) for m in merged_retrieved.values())
    gold_chars = sum(covered_length(m) for m in merged_gold.values())
    overlap = sum(intersection_length(merged_retrieved.get(doc, []), m) for doc, m in merged_gold.items())
    precision = overlap / retrieved_chars if retrieved_chars else 0.0
    recall = overlap / gold_chars if gold_chars else 0.0
    return precision, recall


@dataclass(frozen=True)
class RetrievalScores:
    """The four metrics for one query (or their means over queries) at one ``k``."""

    drm: float
    char_precision: float
    char_recall: float
    doc_recall: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def score_ranking(retrieved: Sequence[Any], gold: Sequence[GoldSpan], ks: Iterable[int]) -> dict[int, RetrievalScores]:
    """All metrics of one ranked list against one query's gold spans, for every ``k`` in ``ks``."""
    docs = {s.file_path for s in gold}
    out: dict[int, RetrievalScores] = {}
    for k in ks:
        precision, recall = char_precision_recall_at_k(retrieved, gold, k)
        out[k] = RetrievalScores(
            drm=drm_at_k(retrieved, docs, k),
            char_precision=precision,
            char_recall=recall,
            doc_recall=document_recall_at_k(retrieved, docs, k),
        )
    return out


def mean_scores(per_query: Sequence[Mapping[int, RetrievalScores]]) -> dict[int, RetrievalScores]:
    """Mean of each metric over queries, per ``k`` (the ``k``s of the first query); ``{}`` for no queries."""
    if not per_query:
        return {}
    n = len(per_query)
    out = {}
    for k in per_query[0]:
        rows = [q[k] for q in per_query]
        out[k] = RetrievalScores(
            drm=math.fsum(r.drm for r in rows) / n,
            char_precision=math.fsum(r.char_precision for r in rows) / n,
            char_recall=math.fsum(r.char_recall for r in rows) / n,
            doc_recall=math.fsum(r.doc_recall for r in rows) / n,
        )
    return out


# ---------------------------------------------------------------------------------- evidence recall

_WS = re.compile(r"\s+")


def normalize_whitespace(text: str) -> str:
    """Runs of whitespace (line breaks included) become one space; ends are stripped."""
    return _WS.sub(" ", text).strip()


_BARE_SMALL_NUMBER = re.compile(r"(?<!\S)\d{1,2}(?!\S)")
_BROKEN_WORD = re.compile(r"(?<=\w)- (?=\w)")


def normalize_evidence(text: str) -> str:
    """The matching key of an evidence quote and of the text searched for it.

    Whitespace-normalised, and on both sides without what a quote copied from the printed page carries
    but the parser's clean text does not: an enrolled bill's printed line numbers (every bare one- or
    two-digit number goes, on both sides) and words hyphenated across a line break (``Com- pare`` reads
    ``Compare``).
    """
    text = normalize_whitespace(_BARE_SMALL_NUMBER.sub(" ", text))
    return _BROKEN_WORD.sub("", text)


def evidence_recall(quotes: Sequence[str], texts: Sequence[str]) -> float:
    """Share of ``quotes`` found verbatim in the retrieved ``texts``, both keyed by :func:`normalize_evidence`.

    The texts are joined with a space before searching, so a quote that runs across two consecutive
    retrieved chunks still counts. No quotes (a question the corpus does not answer) gives ``nan``:
    leave such questions out of an average.
    """
    wanted = [normalize_evidence(q) for q in quotes]
    wanted = [q for q in wanted if q]
    if not wanted:
        return math.nan
    haystack = " ".join(normalize_evidence(t) for t in texts)
    return sum(q in haystack for q in wanted) / len(wanted)
