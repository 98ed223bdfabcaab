"""Running headers and footers: lines printed on every page around the body, dropped with per-rule counts."""

from __future__ import annotations

import re

from lclfqa.ingest.layout import Line

# --- running headers and footers -------------------------------------------------------------

_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s+of\s+\d{1,4})?\s*$|\bpage\s+\d{1,4}\s+of\s+\d{1,4}\b", re.I)


def _normalise(text: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", text.strip().lower()))


def find_running_lines(pages: list[list[Line]], page_height: list[float], body: float) -> tuple[set, set]:
    """Ids of header and footer lines: candidates are the first two and last two lines of a page."""
    n_pages = len(pages)
    candidates: list[tuple[Line, str]] = []
    for lines in pages:
        for ln in lines[:4]:
            candidates.append((ln, "top"))
        for ln in lines[-2:]:
            candidates.append((ln, "bottom"))
    seen_on: dict[tuple[str, str], set[int]] = {}
    for ln, where in candidates:
        seen_on.setdefault((where, _normalise(ln.text)), set()).add(ln.page)
    # Per-opinion headers ("Syllabus", "THOMAS, J., concurring") repeat on a few pages only.
    min_pages = max(2, min(3, int(0.3 * n_pages + 0.999)))
    headers: set[int] = set()
    footers: set[int] = set()
    for ln, where in candidates:
        height = page_height[ln.page - 1]
        in_band = ln.top > 0.9 * height if where == "top" else ln.bottom < 0.08 * height
        key = _normalise(ln.text)
        repeated = n_pages >= 2 and len(key) >= 4 and len(seen_on[(where, key)]) >= min_pages
        if where == "bottom" and not in_band:
            repeated = False  # the last lines of a page are often footnotes, which can repeat ("Ibid.")
        page_no = bool(_PAGE_NUMBER.search(ln.text)) and (in_band or len(ln.text) < 40)
        if repeated and ln.height > body * 1.25 and not in_band:
            repeated = False  # a repeated large heading is content, not a running header
        if repeated or page_no or (in_band and _set_apart(ln, pages[ln.page - 1], where, body, height)):
            (headers if where == "top" else footers).add(id(ln))
    # A running line makes the margin lines it stacks with running text (eCFR prints the paragraph
    # being continued, "26 CFR 1.25A-1(b)(4) “Example 2”", beside its repeated header). Only lines up
    # to the last running line of the band (from the first, at the bottom) go: the band is 10 % of
    # the page, and body lines below an eCFR header stack still sit inside it.
    for lines, height in zip(pages, page_height, strict=True):
        top = [ln for ln in lines[:6] if ln.top > 0.9 * height]
        marked = [i for i, ln in enumerate(top) if id(ln) in headers]
        if marked:
            headers.update(id(ln) for ln in top[: marked[-1] + 1])
        bottom = [ln for ln in lines[-4:] if ln.bottom < 0.08 * height]
        marked = [i for i, ln in enumerate(bottom) if id(ln) in footers]
        if marked:
            footers.update(id(ln) for ln in bottom[marked[0] :])
    return headers, footers


def _set_apart(ln: Line, lines: list[Line], where: str, body: float, page_h: float) -> bool:
    """A margin line no larger than the body whose block of margin lines is set apart by a wide gap.

    Headers often stack two or three rows (eCFR: citation, title, notice); the gap that matters is
    the one between the whole stack and the first line of the body. The stack stays in the margin
    band: a short page's last body lines, followed by empty space, are not a header.
    """
    if ln.height > body + 0.6:
        return False
    i = next(i for i, x in enumerate(lines) if x is ln)
    step = 1 if where == "top" else -1
    edge = ln
    j = i + step
    while 0 <= j < len(lines):
        nxt = lines[j]
        gap = edge.bottom - nxt.top if where == "top" else nxt.bottom - edge.top
        if gap > 1.8 * body:
            return True
        outside = nxt.top <= 0.9 * page_h if where == "top" else nxt.bottom >= 0.08 * page_h
        if nxt.height > body + 0.6 or abs(j - i) >= 4 or outside:
            return False
        edge = nxt
        j += step
    return True
