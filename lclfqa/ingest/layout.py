"""Text lines with geometry from a PDF page (pypdfium2, Apache-2.0/BSD-3).

PDFium gives characters with boxes; we group them into lines ourselves (its own line breaks glue a
hyphenated word to the next line's printed line number in the Inflation Reduction Act). The *loose*
character box has the font's ascent-to-descent height, so a line's height tracks its font size, the
one signal that separates body text, headings, running headers and footnotes. Coordinates are PDF
points with the origin at the bottom left of the page.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

SOFT_HYPHEN = "\ufffe"  # PDFium's mark for a hyphen it recognised as a line-end word break


@dataclass
class Line:
    """One printed line of a page."""

    text: str
    x0: float
    x1: float
    bottom: float
    top: float
    height: float  # font height of the line's main text (superscripts excluded)
    page: int
    bold: bool = False
    emphasis_prefix: str = ""  # leading run printed bold/italic/medium (an eCFR paragraph subject)
    superscripts: list[tuple[int, int]] = field(default_factory=list)  # (start, end) in text
    first_char_small: bool = False  # the line starts with a superscript/smaller run (footnote number)

    @property
    def center(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(slots=True)
class _Char:
    ch: str
    left: float
    bottom: float
    right: float
    top: float
    index: int
    height: float  # top - bottom, stored: it is read for every character several times


# Only lines that open with a paragraph marker can carry an emphasised subject worth a font look-up.
_MARKER_START = re.compile(r"^\s*(?:\d{1,2}\s+)?[‘'“\"]*(?:\(\w{1,4}\)|§|Example\b|Sec\.|SEC\.)")

_EMPHASIS_WORDS = ("bold", "italic", "oblique", "medium", "semibold", "demi", "heavy", "black")


def _font(textpage_raw, index: int, buf, flags) -> tuple[str, int]:
    pdfium_c.FPDFText_GetFontInfo(textpage_raw, index, buf, len(buf), ctypes.byref(flags))
    name = buf.value.decode("latin-1", "replace").lower()
    weight = pdfium_c.FPDFText_GetFontWeight(textpage_raw, index)
    return name, weight


def _is_bold(name: str, weight: int) -> bool:
    return weight >= 600 or any(w in name for w in ("bold", "semibold", "heavy", "black"))


def _is_emphasis(name: str, weight: int) -> bool:
    return weight >= 600 or any(w in name for w in _EMPHASIS_WORDS)


def page_lines(page: pdfium.PdfPage, page_number: int) -> list[Line]:
    """The page's lines, top to bottom (left to right within a baseline).

    Text drawn outside the page's crop box is not printed, so it is left out (a compilation's tables
    are drawn whole on every page they span, and each page clips out its own part).
    """
    textpage = page.get_textpage()
    try:
        return _lines(textpage, page_number, page.get_cropbox())
    finally:
        textpage.close()


def _lines(
    textpage: pdfium.PdfTextPage, page_number: int, box: tuple[float, float, float, float] | None = None
) -> list[Line]:
    n = textpage.count_chars()
    if n <= 0:
        return []
    raw = textpage.raw
    text = textpage.get_text_range(0, n)
    if len(text) != n:  # surrogate pairs: fall back to one call per character
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i)) for i in range(n))
    rect = pdfium_c.FS_RECTF()
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    # twice the crop box, widened by 2 pt: compared with twice a character's centre (left + right)
    x_min, y_min, x_max, y_max = (
        (2 * v + d for v, d in zip(box, (-4, -4, 4, 4), strict=True)) if box else (-1e9, -1e9, 1e9, 1e9)
    )

    groups: list[list[_Char]] = []
    current: list[_Char] = []
    cur_bottom = cur_top = 0.0
    pending_space = False
    for i, ch in enumerate(text):
        if ch in "\r\n":
            continue
        if ch.isspace():
            pending_space = bool(current)
            continue
        get_box(raw, i, rect)
        left, bottom, right, top = rect.left, rect.bottom, rect.right, rect.top
        if not (y_min <= bottom + top <= y_max and x_min <= left + right <= x_max):
            continue  # clipped away (its centre is off the printed page)
        h = top - bottom
        c = _Char(ch, left, bottom, right, top, i, h)
        if current:
            line_h = cur_top - cur_bottom
            center = (cur_top + cur_bottom) / 2
            same_line = abs((top + bottom) / 2 - center) <= 0.45 * (line_h if line_h > h else h)
            if same_line and left < current[-1].left - 3 * (line_h if line_h > 1.0 else 1.0):
                same_line = False  # jumped back to the left margin at the same height: a new column/row
            if not same_line:
                groups.append(current)
                current = []
                pending_space = False
        if not current:
            cur_bottom, cur_top = c.bottom, c.top
        elif h > cur_top - cur_bottom + 0.5:
            # a taller character defines the line (after a superscript start)
            cur_bottom, cur_top = c.bottom, c.top
        if pending_space:
            current.append(_Char(" ", c.left, c.bottom, c.left, c.bottom, -1, 0.0))
            pending_space = False
        current.append(c)
    if current:
        groups.append(current)

    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    lines = [_make_line(g, raw, page_number, buf, flags) for g in groups]
    lines = [ln for ln in lines if ln.text.strip()]
    lines.sort(key=lambda ln: (-round(ln.top), ln.x0))
    return _merge_same_baseline(lines)


def _make_line(chars: list[_Char], raw, page_number: int, buf, flags) -> Line:
    visible = [c for c in chars if c.index >= 0]
    alnum = [c for c in visible if c.ch.isalnum()]
    # the line's size is its letters' and digits' (a bullet from a symbol font can have a huge box)
    main_h = max([c.height for c in alnum or visible])
    cut, cap = 0.85 * main_h, 1.15 * main_h
    body = [c for c in visible if cut <= c.height <= cap]
    bottom = min([c.bottom for c in body])
    top = max([c.top for c in body])
    sups: list[tuple[int, int]] = []
    small_h = 0.8 * main_h
    raised = bottom + 0.15 * main_h
    sup_start = None
    for pos, c in enumerate(chars):  # one character of text per _Char
        small = c.index >= 0 and c.height < small_h and c.bottom > raised
        if small and sup_start is None:
            sup_start = pos
        elif not small and sup_start is not None:
            sups.append((sup_start, pos))
            sup_start = None
    if sup_start is not None:
        sups.append((sup_start, len(chars)))
    text = "".join([c.ch for c in chars])
    first_small = bool(visible) and visible[0].height < 0.85 * main_h
    # Fonts: sample the first letters to tell bold headings and emphasised paragraph subjects.
    bold = False
    emphasis_prefix = ""
    if alnum:
        probe = alnum[min(len(alnum) - 1, len(alnum) // 2)]
        name, weight = _font(raw, probe.index, buf, flags)
        bold = _is_bold(name, weight) and _is_bold(*_font(raw, alnum[0].index, buf, flags))
        if _MARKER_START.match(text):
            emphasis_prefix = _emphasis_prefix(chars, raw, buf, flags)
    return Line(
        text=text,
        x0=visible[0].left,
        x1=max(c.right for c in visible),
        bottom=bottom,
        top=top,
        height=round(top - bottom, 1),
        page=page_number,
        bold=bold,
        emphasis_prefix=emphasis_prefix,
        superscripts=sups,
        first_char_small=first_small,
    )


def _emphasis_prefix(chars: list[_Char], raw, buf, flags) -> str:
    """The text of an emphasised run that starts within the first 12 characters of the line.

    eCFR paragraphs print their subject in italics after the marker: ``(a) *Amount of education tax
    credit.* An individual…``; returns ``"(a) Amount of education tax credit."`` for such a line.
    Checks one character per word, so it stays cheap.
    """
    start = None
    end = None
    word_start = True
    for pos, c in enumerate(chars):
        if c.ch == " ":
            word_start = True
            continue
        if not word_start:
            continue
        word_start = False
        if c.index < 0 or not c.ch.isalpha():
            if start is not None:
                end = pos
            continue
        emph = _is_emphasis(*_font(raw, c.index, buf, flags))
        if emph and start is None:
            if pos > 12:
                return ""
            start = pos
        elif not emph and start is not None:
            end = pos
            break
        elif not emph and start is None and pos > 12:
            return ""
    if start is None:
        return ""
    text = "".join(c.ch for c in chars[: end if end is not None else len(chars)])
    return text.strip()


def _merge_same_baseline(lines: list[Line]) -> list[Line]:
    """Join pieces of one printed line that PDFium emitted apart (same baseline, same size)."""
    out: list[Line] = []
    for ln in lines:
        prev = out[-1] if out else None
        if (
            prev is not None
            and abs(prev.bottom - ln.bottom) < 1.5
            and abs(prev.height - ln.height) < 1.0
            and ln.x0 >= prev.x1 - 1
            and ln.x0 - prev.x1 < 4 * ln.height
        ):
            offset = len(prev.text) + 1
            prev.text = f"{prev.text} {ln.text}"
            prev.superscripts.extend((a + offset, b + offset) for a, b in ln.superscripts)
            prev.x1 = ln.x1
            continue
        out.append(ln)
    return out
