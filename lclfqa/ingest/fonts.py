"""Font statistics of a document: the body size, per page and overall, from its own size histogram."""

from __future__ import annotations

from collections import Counter

from lclfqa.ingest.layout import Line


def body_height(lines: list[Line]) -> float:
    """The most common line height, weighted by characters: the size the body is set in."""
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[ln.height] += len(ln.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def page_body_height(lines: list[Line]) -> float:
    """The largest line height that carries at least a fifth of the page's characters.

    A page whose footnotes outweigh its body text still has the body as reference; bold lines (a long
    title in display type) are not the body.
    """
    weights: Counter[float] = Counter()
    for ln in [x for x in lines if not x.bold] or lines:
        weights[ln.height] += len(ln.text)
    total = sum(weights.values())
    big = [h for h, w in weights.items() if w >= 0.2 * total]
    return max(big) if big else 0.0


MIN_SHARE = 0.03  # a size cluster carries at least this share of the document's characters
DEFAULT_GAP = 0.8  # without a note cluster, notes are at least this much smaller than the body


def note_ratio(lines: list[Line], body: float) -> float:
    """The largest ratio of line size to body size that a footnote line may have in this document.

    The document's own size histogram decides: the heaviest size cluster below the body (a note
    size, ≥ 3 % of the characters) puts the cut half-way between it and the body, so 10.9 pt notes
    under an 11.6 pt body are found and 8 pt notes under 13 pt as well. Sizes within 0.3 pt of the
    body are the body (PDFium's boxes wobble by a tenth of a point). Without such a cluster, the
    cut stays ``DEFAULT_GAP`` points below the body.
    """
    if body <= 0:
        return 0.0
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[round(ln.height, 1)] += len(ln.text)
    total = sum(weights.values()) or 1
    smaller = [(w, h) for h, w in weights.items() if h < body - 0.3 and w >= MIN_SHARE * total]
    if not smaller:
        return (body - DEFAULT_GAP) / body
    note = max(smaller)[1]
    return (body + note) / 2 / body
