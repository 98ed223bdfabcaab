"""Running headers and footers: lines printed around the body on many pages, dropped with per-rule counts.

A running line sits in a page's top or bottom *band*: among the first lines or the last lines of the page,
outside the body; the band ends at the first line set in the body size that no rule takes. Whether a
line repeats is judged on its masked text (digits, page numbers and dates become ``#``) *and* its
position: the same text at the same height on many pages. A line that repeats inside the body (an Act's
``Penalty: 60 penalty units.`` under each offence) sits at a different height every time, so it is
never taken for a running line. The rules, each counted in :class:`RunningLines`:

- ``repeated`` — a band line whose masked text is printed at the same height on at least a fifth of the
  pages (at least two pages; three once the document has six); set in the body size, it must also be
  set apart from the next line by half a line of white space (or lie in the outer tenth of the page);
- ``page_number`` — a page number (``12``, ``12.``, ``- 12 -``, ``Page 3 of 9``) in the outer tenth of the
  page, or a bare number in the band that keeps its offset from the page index on three pages (``26.``
  on page 30, ``27.`` on page 31; a table of contents' numbers do not);
- ``stacked`` — a band line between the page edge and a running line (the judges' names printed above
  a judgment's page number, the second row of a compilation footer);
- ``inward`` — the centred band line right inside a running stack whose very text is printed at its
  height on three pages (a per-opinion header such as ``THOMAS, J., concurring`` under the case name);
- ``echo`` — one of a page's first three band lines printed where a running line of the same text was
  dropped on two other pages (an opinion's first page, without the stack above it), or a page's
  outermost line whose very text is dropped on as many pages as a repeated line's, a line's height
  away (a memo's running head set a few points lower on its first pages);
- ``set_apart`` — a line in the outer tenth of the page, no larger than the body, that a wide gap sets
  apart from the body (a one-off notice in the margin); a page with no body beyond the gap (only a page
  number in the other margin) keeps its lone line;
- ``watermark`` — a line set along a rotated baseline or in a light grey (``layout.py`` reads both from
  the characters) whose masked text, or another such line at the same spot, is printed on as many pages
  as a repeated line's, anywhere on the page (a signature line with a time stamp in a font's own code);
  or a rotated line on a page of horizontal text that is set larger than the body (a diagonal stamp) or
  lies beside the text block (a note up the margin). A single light-grey line is kept.

A line of the bottom band that opens with a raised marker the page's text cites (``⁴ Ibid.``, ``ᶜ See``) is a note:
no rule takes it, and the band ends there (:func:`_opens_cited_note`).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from lclfqa.ingest.footnotes import opening_mark
from lclfqa.ingest.layout import Line

TOP_LINES = 7  # band candidates: the first lines of a page…
BOTTOM_LINES = 5  # …and the last
SAME_HEIGHT = 3.0  # points: "printed at the same height" on two pages

_PAGE_NUMBER = re.compile(
    r"^\s*(?:page\s+)?[-–—]?\s*\d{1,4}\.?\s*[-–—]?(?:\s+of\s+\d{1,4})?\s*$|\bpage\s+\d{1,4}\s+of\s+\d{1,4}\b", re.I
)
_BARE_NUMBER = re.compile(r"^\s*(?:page\s+)?[-–—]?\s*(\d{1,4})\.?\s*[-–—]?\s*$", re.I)
_ROMAN_PAGE = re.compile(r"(?<=\s)[ivxlc]{1,6}$")  # front matter numbered i, ii, iii…


def mask(text: str) -> str:
    """A line's text with case, spacing, numbers and a trailing roman page number masked."""
    text = re.sub(r"\s+", " ", text.strip().lower())
    return _ROMAN_PAGE.sub("#", re.sub(r"\d+[a-z]{0,3}\b|\d+", "#", text))


@dataclass
class RunningLines:
    """The ids of the lines dropped as headers and footers, and how many each rule dropped."""

    headers: set[int] = field(default_factory=set)
    footers: set[int] = field(default_factory=set)
    by_rule: Counter[str] = field(default_factory=Counter)

    def __contains__(self, ln: Line) -> bool:
        return id(ln) in self.headers or id(ln) in self.footers


class _Slots:
    """Where each masked text is printed: (page, height) pairs, to count repeats at the same height."""

    def __init__(self) -> None:
        self._at: dict[tuple[str, str], list[tuple[int, float, str]]] = defaultdict(list)
        self._seen: dict[tuple, int] = {}  # answers already counted (a page number asks once per page)

    def add(self, where: str, ln: Line) -> None:
        self._at[(where, mask(ln.text))].append((ln.page, _edge(ln, where), ln.text))

    def pages(self, where: str, ln: Line, exact: bool = False) -> int:
        """On how many pages the line's masked text (``exact``: its very text) is printed at its height."""
        y = _edge(ln, where)
        key = mask(ln.text)
        memo = (where, key, y, ln.text if exact else None)
        if memo not in self._seen:
            at = self._at[(where, key)]
            self._seen[memo] = len(
                {p for p, h, text in at if abs(h - y) <= SAME_HEIGHT and (not exact or text == ln.text)}
            )
        return self._seen[memo]

    def pages_near(self, where: str, ln: Line, tolerance: float) -> int:
        """On how many pages the line's very text is printed within ``tolerance`` points of its height."""
        y = _edge(ln, where)
        at = self._at[(where, mask(ln.text))]
        return len({p for p, h, text in at if abs(h - y) <= tolerance and text == ln.text and p != ln.page})


def _edge(ln: Line, where: str) -> float:
    return ln.top if where == "top" else ln.bottom


def find_running_lines(pages: list[list[Line]], page_height: list[float], body: float) -> RunningLines:
    """The running lines of a document whose pages hold ``pages`` (each top to bottom)."""
    n_pages = len(pages)
    bands = [(_band(lines, "top"), _band(lines, "bottom")) for lines in pages]
    slots = _Slots()
    for top, bottom in bands:
        for ln in top:
            slots.add("top", ln)
        for ln in bottom:
            slots.add("bottom", ln)
    min_pages = max(2, math.ceil(0.2 * n_pages)) if n_pages < 6 else max(3, math.ceil(0.2 * n_pages))
    offsets = _page_offsets(bands)
    marks = _watermarks(pages, body, min_pages)
    out = RunningLines()
    decided: list[tuple[str, list[Line], dict[int, str]]] = []
    notes: set[int] = set()  # the foot lines that open a note the page cites: never running lines
    for (top, bottom), lines, height in zip(bands, pages, page_height, strict=True):
        cited = _cited_markers(lines)
        for where, band in (("top", top), ("bottom", bottom)):
            rules: dict[int, str] = {}
            for i, ln in enumerate(band):
                if where == "bottom" and _opens_cited_note(ln, cited):
                    notes.add(id(ln))
                    break  # a note: the band ends here, what lies beyond it is notes and body
                if id(ln) in marks:
                    rules[i] = "watermark"
                    continue
                outer = ln.top > 0.9 * height if where == "top" else ln.bottom < 0.08 * height
                key = mask(ln.text)
                if n_pages >= 2 and len(key) >= 2 and slots.pages(where, ln) >= min_pages:
                    # a repeated large heading is content; a body-size line must be set apart from the body
                    if outer or (
                        ln.height <= body * 1.25
                        and (abs(ln.height - body) >= 0.5 or _gap_inside(band, i, where) > 0.5 * body)
                    ):
                        rules[i] = "repeated"
                        continue
                if _PAGE_NUMBER.search(ln.text) and (outer or _page_offset(ln) in offsets[where]):
                    rules[i] = "page_number"
                elif outer and _set_apart(ln, lines, where, body, height):
                    rules[i] = "set_apart"
                elif abs((ln.loose_height or ln.height) - body) < 0.5:
                    break  # a body line (text turned a quarter measured like level text): the band ends here
            if rules:
                last = max(rules)
                for i in range(last):
                    rules.setdefault(i, "stacked")
                # the centred caption inside the stack (two captions overprinted at one height count once)
                for j in range(last + 1, len(band)):
                    inner = band[j]
                    if (
                        (j > last + 1 and abs(_edge(inner, where) - _edge(band[last + 1], where)) > SAME_HEIGHT)
                        or slots.pages(where, inner, exact=True) < 3
                        or inner.height > body * 1.25
                        or not _centred(inner, lines)
                    ):
                        break
                    rules[j] = "inward"
            decided.append((where, band, rules))
    # A band line printed where a running line of the same text was dropped on two other pages is one
    # too, even on a page that lacks the stack above it (an opinion's first page).
    dropped = _Slots()
    for where, band, rules in decided:
        for i in rules:
            dropped.add(where, band[i])
    for where, band, rules in decided:
        for i, ln in enumerate(band[:3]):
            if (
                i not in rules
                and id(ln) not in notes
                and ln.height <= body * 1.25
                and (
                    dropped.pages(where, ln) >= 2
                    # the page's outermost line, the very text dropped on many pages a line's height away
                    # (a memo's running head set a few points lower on its first pages)
                    or (i == 0 and dropped.pages_near(where, ln, 2 * body) >= min_pages)
                )
            ):
                rules[i] = "echo"
        target = out.headers if where == "top" else out.footers
        for i, rule in rules.items():
            if id(band[i]) in out.headers:
                continue  # a short page's line in both bands counts once
            target.add(id(band[i]))
            out.by_rule[rule] += 1
    for lines, height in zip(pages, page_height, strict=True):  # watermarks across the body
        for ln in lines:
            if id(ln) in marks and ln not in out:
                (out.headers if ln.center > height / 2 else out.footers).add(id(ln))
                out.by_rule["watermark"] += 1
    return out


_MARK = re.compile(r"^\s*(\d{1,3}|[*†‡§¶]{1,3}|[a-z](?=\s))\s*\S")  # a letter: ``ᵃ Harcourt …``


def _cited_markers(lines: list[Line]) -> set[str]:
    """The note markers a page's text cites: the raised numbers and symbols inside its lines."""
    return {ln.text[a:b].strip() for ln in lines for a, b in ln.superscripts if a > 0}


def _opens_cited_note(ln: Line, cited: set[str]) -> bool:
    """Whether ``ln`` opens with a raised marker that the page's text cites (``⁴ Ibid.`` under ``…allowed.⁴``,
    ``ᶜ Merriman …`` under ``…on foot.ᶜ``).

    Such a line is the page's note, whatever repeats: a one-word note (``Ibid.``) printed last at the same
    height on a few pages masks to the same text there (``# ibid.``), but a note exists because the text
    cites it, and a running footer is cited by nothing.
    """
    mark, m = opening_mark(ln), _MARK.match(ln.text)
    return mark is not None and m is not None and mark == m.group(1) and mark in cited


def _watermarks(pages: list[list[Line]], body: float, min_pages: int) -> set[int]:
    """The ids of the rotated or light-grey lines that are watermarks (see the module's ``watermark`` rule)."""
    seen: dict[str, set[int]] = defaultdict(set)
    placed: dict[tuple[int, int], set[int]] = defaultdict(set)  # where it starts, to the nearest 3 pt
    for lines in pages:
        for ln in lines:
            if ln.rotated or ln.light:
                seen[mask(ln.text)].add(ln.page)
                placed[_spot(ln)].add(ln.page)
    out: set[int] = set()
    if not seen:
        return out
    for lines in pages:
        odd = [ln for ln in lines if ln.rotated or ln.light]
        if not odd:
            continue
        flat = [ln for ln in lines if not ln.rotated and not ln.light]
        mostly_flat = sum(len(ln.text) for ln in flat) >= sum(len(ln.text) for ln in lines) / 2
        left = min((ln.x0 for ln in flat), default=0.0)
        right = max((ln.x1 for ln in flat), default=0.0)
        for ln in odd:
            key = mask(ln.text)
            if len(key) >= 2 and (len(seen[key]) >= min_pages or len(placed[_spot(ln)]) >= min_pages):
                out.add(id(ln))  # the same text, or text at the same spot (a time stamp that changes)
            elif ln.rotated and mostly_flat and (ln.height > 1.5 * body or ln.x0 >= right - 1 or ln.x1 <= left + 1):
                out.add(id(ln))
    return out


def _spot(ln: Line) -> tuple[int, int]:
    return round(ln.x0 / 3), round(ln.top / 3)


def _page_offset(ln: Line) -> int | None:
    """Printed page number minus the page's index, for a line that is a bare page number."""
    m = _BARE_NUMBER.match(ln.text)
    return int(m.group(1)) - ln.page if m else None


def _page_offsets(bands: list[tuple[list[Line], list[Line]]]) -> dict[str, set[int]]:
    """The offsets (printed number minus page index) that bare numbers in each band share on three pages.

    A page number keeps its offset from page to page (``26.`` on page 30, ``27.`` on page 31); the
    numbers of a table of contents that happen to sit in the band do not.
    """
    out: dict[str, set[int]] = {}
    for k, where in enumerate(("top", "bottom")):
        seen: dict[int, set[int]] = defaultdict(set)
        for band in bands:
            for ln in band[k]:
                if (offset := _page_offset(ln)) is not None:
                    seen[offset].add(ln.page)
        out[where] = {offset for offset, pages in seen.items() if len(pages) >= 3}
    return out


def _gap_inside(band: list[Line], i: int, where: str) -> float:
    """The white space between ``band[i]`` and the next line towards the body."""
    if i + 1 >= len(band):
        return 0.0
    ln, nxt = band[i], band[i + 1]
    return ln.bottom - nxt.top if where == "top" else nxt.bottom - ln.top


def _centred(ln: Line, lines: list[Line]) -> bool:
    """Centred over the page's text block and narrower than it (a caption, not a body line)."""
    left = min(x.x0 for x in lines)
    right = max(x.x1 for x in lines)
    width = right - left
    return ln.x1 - ln.x0 < 0.9 * width and abs((ln.x0 + ln.x1) / 2 - (left + right) / 2) < 0.08 * width


def _band(lines: list[Line], where: str) -> list[Line]:
    """The band candidates, outermost first: the first lines of the page, or the last ones reversed."""
    return lines[:TOP_LINES] if where == "top" else lines[::-1][:BOTTOM_LINES]


def _set_apart(ln: Line, lines: list[Line], where: str, body: float, page_h: float) -> bool:
    """A margin line no larger than the body whose block of margin lines is set apart by a wide gap.

    Headers often stack two or three rows (eCFR: citation, title, notice); the gap that matters is
    the one between the whole stack and the first line of the body. The stack stays in the margin
    band: a short page's last body lines, followed by empty space, are not a header. And there must be a
    body to be set apart from: a page whose only text, besides a page number in the other margin, is the
    line at its top (a paragraph's last line carried over, at a 1-inch margin) keeps it, unless it repeats
    on other pages (the ``repeated`` rule).
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
        if gap > 1.8 * body:  # set apart, if what lies beyond the gap is body, not the other margin
            return nxt.bottom >= 0.08 * page_h if where == "top" else nxt.top <= 0.9 * page_h
        outside = nxt.top <= 0.9 * page_h if where == "top" else nxt.bottom >= 0.08 * page_h
        if nxt.height > body + 0.6 or abs(j - i) >= 4 or outside:
            return False
        edge = nxt
        j += step
    return False  # the stack is all the page holds
