"""Font statistics of a document: the body size, per page and overall, from its own size histogram."""

from __future__ import annotations

from collections import Counter

from lclfqa.ingest.layout import Line


def body_height(lines: list[Line]) -> float:
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[ln.height] += len(ln.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def page_body_height(lines: list[Line]) -> float:
    """The largest line height that carries at least a fifth of the page's characters.

    A page whose footnotes outweigh its body text still has the body as reference.
    """
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[ln.height] += len(ln.text)
    total = sum(weights.values())
    big = [h for h, w in weights.items() if w >= 0.2 * total]
    return max(big) if big else 0.0
