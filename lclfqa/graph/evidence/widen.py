"""Quotes widened to the passage they belong to: whole footnotes, and neighbours joined into one quote.

The extractor names single sentences, and a sentence alone often drops what decides the answer: the
extractor picks the first and last sentences of an example and skips the one between them that states the
fact ("A's brother is not her employee"); it picks a footnote's opening line ("The exact scope of the term
is subject to some debate.") and leaves out the footnote's answer to it. Here, with no LLM:

- a quote from a footnote child becomes the whole footnote when it is at most :data:`FOOTNOTE_CHARS`
  (a footnote is one note; its sentences are read together);
- quotes from the same child whose sentences lie at most :data:`GAP` sentences apart become one quote
  spanning them (so the sentences between come along), while it stays within :data:`PASSAGE_CHARS`;
- a quote that ends in a question the source asks ("May the partner deduct the loss?") takes the
  sentences after it up to the first that is not a question — the source's answer ("In our view, it may
  not …"; the extractor had picked the question alone), when that fits in :data:`PASSAGE_CHARS`.

A widened quote is still the source's own text (one span of one child), so it stays verbatim and checked;
it takes the place of the first quote it joins, so the extractor's order is kept.

"""

from __future__ import annotations

import re
from typing import Any

from lclfqa.graph.evidence.quotes import quote_record
from lclfqa.graph.evidence.sentences import spans
from lclfqa.ingest.document import FOOTNOTE

FOOTNOTE_CHARS = 1000
"""Longest footnote quoted whole (a longer one is quoted by its sentences, as the extractor named them)."""
PASSAGE_CHARS = 700
"""Longest quote that joining neighbours may make."""
GAP = 2
"""Most sentences between two quotes of one child that are taken along to join them."""


def _sentence_range(text: str, sents: list[tuple[int, int]], quote: str) -> tuple[int, int] | None:
    """``(first, last)`` indices of the sentences ``sents`` of ``text`` that ``quote`` covers, or ``None`` when
    the quote is not a span of the text (a fuzzy quote the model copied loosely keeps its own words)."""
    start = text.find(quote)
    if start < 0 or not quote:
        return None
    end = start + len(quote)
    inside = [i for i, (a, b) in enumerate(sents) if a < end and b > start]
    return (inside[0], inside[-1]) if inside else None


_ASKS = re.compile(r"\?[\s\"”’')\]\d]*$")


def with_answer(text: str, sents: list[tuple[int, int]], first: int, last: int) -> tuple[int, int]:
    """``(first, last)`` taken on to the first sentence after ``last`` that is not a question — the source's
    answer — when sentence ``last`` is a question the source asks and the quote then stays within
    :data:`PASSAGE_CHARS`; else as it was (more questions with no answer are no help)."""
    end = last
    while end + 1 < len(sents) and _ASKS.search(text[sents[end][0] : sents[end][1]]):
        end += 1
        if not _ASKS.search(text[sents[end][0] : sents[end][1]]):
            return (first, end) if sents[end][1] - sents[first][0] <= PASSAGE_CHARS else (first, last)
    return first, last


def widened(quotes: list[dict[str, Any]], children: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """``(quotes, changed)``: ``quotes`` (records of :func:`lclfqa.graph.evidence.quotes.quote_record` over
    ``children``) with footnotes whole and near neighbours joined (module docstring); ``changed`` counts the
    quotes that grew or were absorbed."""
    by_id = {c["id"]: (n, c) for n, c in enumerate(children, 1)}
    sentences = {c["id"]: spans(c["text"], c.get("section", ())) for c in children}  # once per child
    ranges: list[tuple[str, int, int] | None] = []
    originals: list[tuple[str, int, int] | None] = []  # what each quote covered itself
    for q in quotes:
        found = by_id.get(q.get("child", ""))
        covered = _sentence_range(found[1]["text"], sentences[found[1]["id"]], q["text"]) if found else None
        if found and covered is not None:
            child = found[1]
            originals.append((child["id"], *covered))
            if child.get("kind") == FOOTNOTE and len(child["text"].strip()) <= FOOTNOTE_CHARS:
                covered = (0, len(sentences[child["id"]]) - 1)
            elif _ASKS.search(q["text"]):  # the quote itself ends in the question
                covered = with_answer(child["text"], sentences[child["id"]], *covered)
            ranges.append((child["id"], *covered))
        else:
            ranges.append(None)
            originals.append(None)
    out: list[dict[str, Any]] = []
    changed = 0
    placed: dict[int, tuple[str, int, int]] = {}  # position in out → (child, first, last) it spans
    own: dict[int, tuple[str, int, int] | None] = {}  # … and what its first quote covered itself
    for q, r, original in zip(quotes, ranges, originals, strict=True):
        if r is None:
            out.append(q)
            continue
        cid, first, last = r
        sents = sentences[cid]
        joined = False
        for pos, (pid, pfirst, plast) in placed.items():
            if pid != cid:
                continue
            lo, hi = min(first, pfirst), max(last, plast)
            near = first - plast - 1 <= GAP and pfirst - last - 1 <= GAP
            if near and sents[hi][1] - sents[lo][0] <= PASSAGE_CHARS:
                placed[pos] = (cid, lo, hi)
                joined = True
                changed += 1
                break
        if not joined:
            placed[len(out)] = (cid, first, last)
            own[len(out)] = original
            out.append(q)
    for pos, (cid, first, last) in placed.items():
        if (cid, first, last) == own[pos]:  # neither joined nor a whole footnote: the quote as it was
            continue
        number, child = by_id[cid]
        sents = sentences[cid]
        out[pos] = quote_record(child, number, sents[first][0], sents[last][1], out[pos]["how"])
        changed += 1
    return _distinct(out), changed


def _distinct(quotes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``quotes`` without repeats: of two quotes of one child where one holds the other, the larger, in the
    earlier one's place."""
    out: list[dict[str, Any]] = []
    for q in quotes:
        if any(p.get("child") == q.get("child") and q["text"] in p["text"] for p in out):
            continue
        # a kept quote that this one holds gives way to it, in the kept quote's place
        held = [i for i, p in enumerate(out) if p.get("child") == q.get("child") and p["text"] in q["text"]]
        if held:
            out[held[0]] = q
            out = [p for i, p in enumerate(out) if i not in held[1:]]
            continue
        out.append(q)
    return out
