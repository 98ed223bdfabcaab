"""Layout-aware PDF parsing: running headers/footers dropped, nested sections, footnotes.

The rules, in the order they run (each is a small function below):

1. **Body size** — the most common line height, weighted by characters, for the document and per page.
2. **Running headers and footers** — among the first/last lines of each page, a line whose
   digit-normalised text repeats on three pages (two in a short document), a bare page number or
   ``page N of M``, or a line in the outer 10 % band that is set apart from the body by a wide gap.
3. **Footnotes** — the run of lines at the bottom of a page that are smaller than that page's body,
   starting below a rule (``——————``/``_____``) or at a line that opens with a footnote number. A new
   footnote starts where the line opens with a smaller (superscript) number or the next number in
   sequence; lines before the first number continue the previous page's last footnote.
4. **Headings and nesting** — numbering (``TITLE I``, ``Subtitle A``, ``PART 2``, ``SEC. 13401.``,
   ``§ 1.25A-1``, ``I.``, ``A.``, ``1.``, ``(a)``, ``(1)``, ``(i)``, ``(A)``, ``Example 3.``) at the start
   of a paragraph, or a short line set larger than the body (the document's and its own page's) or in
   bold. Named levels (Title > Subtitle > Chapter > Subchapter > Part > Subpart > section) have a fixed
   rank; the others nest in the order a document first uses them, so ``(a)(1)(i)(A)`` and ``I. A. 1.``
   both come out right without a per-corpus table. Not headings: a plain ``Sec.``/``§`` line inside an
   outline that no named level encloses (a quoted statute or a citation), a plain ``77. There would
   be…`` sentence, and a paragraph that enumerates inline, ``(1) Whether …; (2) whether …``.

Known limits (documented in README): two-column pages are read line by line across both columns;
tables are flattened to text; a footnote continued onto the next page is joined to the previous
footnote only when the continuation comes before that page's first numbered footnote.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium

from lclfqa.ingest.document import Footnote, ParsedDocument, Section, UnreadableDocument, file_sha256
from lclfqa.ingest.layout import SOFT_HYPHEN, Line, page_lines

# --- running headers and footers -------------------------------------------------------------

_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s+of\s+\d{1,4})?\s*$|\bpage\s+\d{1,4}\s+of\s+\d{1,4}\b", re.I)
_RULE = re.compile(r"^[\s—–_\-‐]{4,}$")
_RULE_PREFIX = re.compile(r"^\s*[—_]{4,}\s*")


def _normalise(text: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", text.strip().lower()))


def _body_height(lines: list[Line]) -> float:
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[ln.height] += len(ln.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _find_running_lines(pages: list[list[Line]], page_height: list[float], body: float) -> tuple[set, set]:
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


# --- footnotes -------------------------------------------------------------------------------

_FOOTNOTE_START = re.compile(r"^\s*(\d{1,3}|[*†‡§¶]{1,3})\s*(?=\S)")
_SPACED_START = re.compile(r"\s+[A-Z“\"‘(\[]")  # after the number: "25 The…", not "25." or "25 U. S."


@dataclass
class _FootnoteDraft:
    number: str
    page: int
    lines: list[str] = field(default_factory=list)


def _footnote_zone(lines: list[Line], page_body: float, page_h: float) -> int:
    """Index of the first footnote line of the page (``len(lines)`` when there is none).

    ``page_body`` is the body size the footnotes must be smaller than.
    """
    for i in range(len(lines) - 1, -1, -1):  # a rule in the lower part opens the zone
        ln = lines[i]
        if ln.bottom > 0.6 * page_h:
            break
        if _RULE.match(ln.text) or _RULE_PREFIX.match(ln.text):
            below = lines[i + 1 :] if _RULE.match(ln.text) else lines[i:]
            if below and all(x.height < page_body - 0.8 for x in below):
                return i
            break
    start = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        ln = lines[i]
        if ln.height >= page_body - 0.8 or ln.bottom > 0.6 * page_h:
            break
        start = i
    # No rule above: keep the zone only from a line that opens with a footnote number.
    while start < len(lines) and not _opens_footnote(lines[start]):
        start += 1
    return start


def _page_body_height(lines: list[Line]) -> float:
    """The largest line height that carries at least a fifth of the page's characters.

    A page whose footnotes outweigh its body text still has the body as reference.
    """
    weights: Counter[float] = Counter()
    for ln in lines:
        weights[ln.height] += len(ln.text)
    total = sum(weights.values())
    big = [h for h, w in weights.items() if w >= 0.2 * total]
    return max(big) if big else 0.0


def _opens_footnote(ln: Line) -> bool:
    """A superscript/smaller number, or a plain one set off by a space: ``1 See …`` (no drawn rule)."""
    text = _RULE_PREFIX.sub("", ln.text)
    m = _FOOTNOTE_START.match(text)
    if not m:
        return False
    small_start = ln.first_char_small or bool(ln.superscripts and ln.superscripts[0][0] <= 1)
    return small_start or bool(_SPACED_START.match(text[m.end(1) :]))


def _split_footnotes(zone: list[Line], page: int, drafts: list[_FootnoteDraft]) -> None:
    """Append the zone's footnotes to ``drafts`` (continuations extend the last draft)."""
    for ln in zone:
        text = _RULE_PREFIX.sub("", ln.text).strip()
        if not text or _RULE.match(text):
            continue
        m = _FOOTNOTE_START.match(text)
        last = drafts[-1] if drafts else None
        starts = False
        if m:
            number = m.group(1)
            expected = (
                last is not None and last.number.isdigit() and number.isdigit() and int(number) == int(last.number) + 1
            )
            small_start = ln.first_char_small or bool(ln.superscripts and ln.superscripts[0][0] <= 1)
            spaced = bool(_SPACED_START.match(text[m.end(1) :]))
            starts = small_start or (spaced and (expected or (last is None and number in {"1", "*"})))
        if starts:
            assert m is not None
            body = text[m.end() :].strip()
            drafts.append(_FootnoteDraft(m.group(1), page, [body]))
        elif last is not None:
            last.lines.append(text)
        else:  # continuation of a footnote we never saw the start of
            drafts.append(_FootnoteDraft("?", page, [text]))


# --- headings --------------------------------------------------------------------------------

# Named levels, outermost first; everything else nests in order of first use.
# The U.S. Code and the CFR share one order: Title > Subtitle > Chapter > Subchapter > Part > Subpart >
# section (eCFR: Title 26 > Chapter I > Subchapter A > Part 1 > § 1.25A-1; the IRA: TITLE I > Subtitle D >
# PART 4 > SEC. 13401). A level may be skipped; each one closes the levels at or below its rank.
_RANKED = [
    (re.compile(r"^(?:TITLE|Title)\s+[IVXLC\d]+\b"), "title"),
    (re.compile(r"^(?:Subtitle|SUBTITLE)\s+[A-Z\dIVX]+\b"), "subtitle"),
    (re.compile(r"^(?:Chapter|CHAPTER)\s+[A-Z\dIVX]+\b"), "chapter"),
    (re.compile(r"^(?:Subchapter|SUBCHAPTER)\s+[A-Z\dIVX]+\b"), "subchapter"),
    (re.compile(r"^(?:PART|Part)\s+[A-Z\dIVX]+\b"), "part"),
    (re.compile(r"^(?:Subpart|SUBPART)\s+[A-Z\dIVX]+\b"), "subpart"),
    (re.compile(r"^(?:SEC\.|Sec\.|SECTION|§)\s*\d"), "section"),
]
_RANKED_KINDS = [k for _, k in _RANKED]
_QUOTED = r"^[‘'“\"]*"  # statutes quote inserted text: ‘‘(1) IN GENERAL.—
_DYNAMIC = [
    (re.compile(_QUOTED + r"\(([ivx]{1,5})\)\s"), "(i)"),
    (re.compile(_QUOTED + r"\(([a-z]{1,2})\)\s"), "(a)"),
    (re.compile(_QUOTED + r"\((\d{1,3})\)\s"), "(1)"),
    (re.compile(_QUOTED + r"\(([IVX]{1,5})\)\s"), "(I)"),
    (re.compile(_QUOTED + r"\(([A-Z]{1,2})\)\s"), "(A)"),
    (re.compile(r"^([IVXL]{1,6})\.\s+\S"), "I."),
    (re.compile(r"^([A-Z])\.\s+[A-Z]"), "A."),
    (re.compile(r"^(\d{1,2})\.\s+[A-Z]"), "1."),
    (re.compile(r"^Example\s+(\d+)\b"), "example"),
]
# "APPENDICES", "APPENDIX A", "Appendix B to Part 1" on a line of its own: the outline of the text before
# it ends (Dobbs: the appendices' "A" and "B" are not Part VII's subsections).
_APPENDIX = re.compile(r"^(?:APPENDIX|APPENDICES|Appendix|Appendices)\b(?:\s+\S+){0,5}$")
_LONE = [
    (re.compile(r"^([IVXL]{1,6})$"), "I."),
    (re.compile(r"^([A-Z])$"), "A."),
    (re.compile(r"^(\d{1,2})$"), "1."),
    (re.compile(r"^([a-z])$"), "a"),
]
_LINE_NUMBER = re.compile(r"^(\d{1,2})\s+")
_CAPS_SUBJECT = re.compile(r"^([‘'“\"]*\([\w]{1,4}\)\s+[A-Z][A-Z0-9 ,’'\-–&()]{2,}?\.—)")
_DYNAMIC_PAREN = re.compile(_QUOTED + r"\(\w{1,5}\)\s")
_ROMAN_AFTER = {"I": "H", "V": "U", "X": "W", "L": "K", "C": "B", "i": "h", "v": "u", "x": "w"}


@dataclass
class _Heading:
    kind: str
    title: str
    label: str  # the number/letter itself, for telling (i) the letter from (i) the numeral
    open: bool = False  # an all-caps title that may run on to the next line


def _strip_line_number(text: str, has_line_numbers: bool) -> str:
    return _LINE_NUMBER.sub("", text, count=1) if has_line_numbers else text


@dataclass
class _PageView:
    """What heading rules read about the page around a line: its body size and the lines that follow."""

    lines: list[Line]  # the page's body lines (no running lines, no footnotes)
    body: float  # the page's own body size: its most common line height, by characters
    right: float  # the right edge of the page's text block
    pitch: float  # the document's line pitch


def _is_larger(ln: Line, body: float, page: _PageView) -> bool:
    """Set larger than the body: larger than the document's body *and* than the page's own body.

    A page printed at a larger scale (Dobbs p. 136) has every line larger than the document's body;
    there only a line larger than that page's body, or a bold one, stands out as a display heading.
    """
    if ln.height < body * 1.12:
        return False
    return ln.bold or ln.height >= page.body * 1.12


def _opens_named_level(stack: list[_Heading]) -> bool:
    """Whether a plain ``Title``/``Part``/``Sec.``/``§`` line may open a named level here.

    Named levels are a document's outermost structure. Once the document has opened an outline of its
    own (``I.``, ``A.``, ``1.``, ``(a)``) that no named level encloses, a plain ``Sec. 12.`` or ``§41–41–191``
    line is a quoted statute or a citation (Dobbs' appendix of state abortion laws), not structure.
    """
    for h in stack:
        if h.kind in _RANKED_KINDS:
            return True
        if h.kind != "bold" and not h.kind.startswith("size"):
            return False
    return True


def _same_paragraph(ln: Line, nxt: Line, pitch: float) -> bool:
    """``nxt`` continues ``ln``'s paragraph: same size, ordinary leading, not indented further."""
    return (
        nxt.page == ln.page
        and abs(nxt.height - ln.height) < 0.5
        and -0.3 * ln.height <= ln.bottom - nxt.top <= 0.6 * pitch
        and nxt.x0 <= ln.x0 + 1.0
    )


def _is_sentence(rest: str, ln: Line, nxt: Line | None, page: _PageView) -> bool:
    """A plain ``77. There would be…`` line: the number starts a sentence, not a heading.

    ``rest`` is the text after the number. Body text, when its first sentence runs past the line into
    the next line of the same paragraph (the line fills the measure), or when it is a long sentence
    (more than 12 words before its period); a heading is a short title, ``10. South Dakota (1877):``.
    """
    m = re.match(r"^\s*(.{1,160}?[.:;])(?:\s|$)", rest)
    if m:
        return len(m.group(1).split()) > 12
    full = ln.x1 >= page.right - 3 * ln.height
    return full and nxt is not None and _same_paragraph(ln, nxt, page.pitch)


_ROMAN_NEXT = {"i": "ii", "ii": "iii", "iii": "iv", "iv": "v", "v": "vi", "vi": "vii", "vii": "viii", "viii": "ix"}


def _next_labels(label: str) -> set[str]:
    """The labels that can follow ``label`` in its series: ``1``→``2``, ``a``→``b``, ``i``→``ii``/``j``."""
    if label.isdigit():
        return {str(int(label) + 1)}
    out = set()
    low = label.lower()
    if low in _ROMAN_NEXT:
        out.add(_ROMAN_NEXT[low] if label.islower() else _ROMAN_NEXT[low].upper())
    if len(label) == 1 and label.isalpha() and low != "z":
        out.add(chr(ord(label) + 1))
    return out


def _enumerates_inline(label: str, page: _PageView, index: int, has_line_numbers: bool) -> bool:
    """A paragraph ``(1) Whether …; (2) whether …; and (3) how …`` lists its items in one sentence.

    The next item's marker follows a semicolon *inside* a line of the same paragraph, so the items are
    not sections (a statute's ``(1) …; and`` / ``(2) …`` puts each item at the start of its own line).
    """
    following = "|".join(re.escape(x) for x in _next_labels(label))
    if not following:
        return False
    pattern = re.compile(r";\s+(?:and\s+|or\s+)?\((?:" + following + r")\)\s")
    lines = page.lines
    for j in range(index, min(len(lines), index + 25)):
        cur = lines[j]
        text = _strip_line_number(cur.text, has_line_numbers)
        if j > index and (not _same_paragraph(lines[j - 1], cur, page.pitch) or _DYNAMIC_PAREN.match(text)):
            break  # the paragraph ended, or the next marker opens its own line: a list of paragraphs
        if pattern.search(text):
            return True
    return False


def _classify(
    ln: Line,
    text: str,
    body: float,
    stack: list[_Heading],
    para_start: bool,
    page: _PageView,
    index: int,
    has_line_numbers: bool = False,
) -> _Heading | None:
    """The heading ``ln`` opens, if any; ``page.lines[index]`` is ``ln``."""
    stripped = text.strip()
    if not stripped:
        return None
    larger = _is_larger(ln, body, page) and len(stripped) < 160
    display = larger or ln.bold
    for pattern, kind in _RANKED:
        if pattern.match(stripped):
            if display or (para_start and _opens_named_level(stack)):
                return _Heading(kind, _title(stripped, ln, display), "")
            break
    if (para_start or display) and _APPENDIX.match(stripped):
        return _Heading("appendix", stripped, "")
    for pattern, kind in _LONE:
        m = pattern.match(stripped)
        if m:
            return _Heading(_disambiguate(kind, m.group(1), stack), stripped, m.group(1))
    if para_start or display:  # a bold/larger numbered line is a heading even after a page break
        for pattern, kind in _DYNAMIC:
            m = pattern.match(stripped)
            if not m:
                continue
            if not display:
                nxt = page.lines[index + 1] if index + 1 < len(page.lines) else None
                if kind in ("I.", "A.", "1.") and _is_sentence(stripped[m.end(1) + 1 :], ln, nxt, page):
                    return None
                if kind.startswith("(") and _enumerates_inline(m.group(1), page, index, has_line_numbers):
                    return None
            return _Heading(_disambiguate(kind, m.group(1), stack), _title(stripped, ln, display), m.group(1))
    if display and len(stripped) < 120 and not stripped.endswith(","):
        return _Heading(f"size{round(ln.height)}" if larger else "bold", stripped, "")
    return None


def _disambiguate(kind: str, label: str, stack: list[_Heading]) -> str:
    """``(i)`` after ``(h)`` is a letter, ``I.`` after ``H.`` too; otherwise numerals are numerals."""
    letter_kind = {"(i)": "(a)", "I.": "A.", "(I)": "(A)"}.get(kind)
    if letter_kind and len(label) == 1:
        for h in reversed(stack):
            if h.kind == letter_kind:
                if h.label == _ROMAN_AFTER.get(label):
                    return letter_kind
                break
    return kind


def _title(text: str, ln: Line, display: bool = False) -> str:
    """A heading's own words: the emphasised subject, ``(a) IN GENERAL.—``, or the first clause.

    A ``display`` heading (bold or larger, on a line of its own) is its whole line: the colon in
    ``D. Claiming the credits: Form 8863 and Form 1098-T`` does not end it.
    """
    return _raw_title(text, ln, display).lstrip("‘’“”'\" ")


def _raw_title(text: str, ln: Line, display: bool = False) -> str:
    if display and len(text) <= 160:
        return text.rstrip(" —")
    if ln.emphasis_prefix and text.startswith(ln.emphasis_prefix[:3]):
        return ln.emphasis_prefix.rstrip(" —-")
    m = _CAPS_SUBJECT.match(text)
    if m:
        return m.group(1).rstrip("—").strip("‘'“\" ")
    m = re.match(r"^(.{3,110}?[.:])(?:\s|—|$)", text)
    if m and not re.fullmatch(r"[‘'“\"]*\(?\w{1,4}[.)]", m.group(1)):
        return m.group(1)
    short = text if len(text) <= 100 else text[:97].rsplit(" ", 1)[0] + "…"
    return short.rstrip(" —")


def _push(stack: list[_Heading], heading: _Heading) -> None:
    ranked = _RANKED_KINDS
    if heading.kind in ranked:
        rank = ranked.index(heading.kind)
        while stack and (stack[-1].kind not in ranked or ranked.index(stack[-1].kind) >= rank):
            stack.pop()
    elif heading.kind.startswith("size"):
        size = int(heading.kind[4:])
        while (
            stack
            and (stack[-1].kind not in ranked)
            and not (stack[-1].kind.startswith("size") and int(stack[-1].kind[4:]) > size)
        ):
            stack.pop()
    elif heading.kind == "appendix":  # closes the numbered outline, keeps named and display levels above it
        while stack and not (stack[-1].kind in ranked or stack[-1].kind.startswith("size") or stack[-1].kind == "bold"):
            stack.pop()
    else:
        kinds = [h.kind for h in stack]
        if heading.kind in kinds:
            del stack[kinds.index(heading.kind) :]
    stack.append(heading)


# --- sections --------------------------------------------------------------------------------


@dataclass
class _SectionDraft:
    path: tuple[str, ...]
    page_start: int
    page_end: int
    parts: list[str] = field(default_factory=list)
    refs: list[str] = field(default_factory=list)
    breaks: list[int] = field(default_factory=list)  # raw offsets where a new page begins
    lines: int = 0  # lines appended so far
    title_lines: int = 1  # of them, lines of the heading's title (0 for the untitled lead-in)

    def length(self) -> int:
        return sum(len(p) for p in self.parts)


def _join(parts: list[str]) -> str:
    """The parts as one text; PDFium's line-end hyphen mark prints as the hyphen it is."""
    return "".join(parts).replace(SOFT_HYPHEN, "-").strip()


def _section(s: _SectionDraft) -> Section:
    raw = "".join(s.parts)
    lead = len(raw) - len(raw.lstrip())
    text = _join(s.parts)
    breaks = tuple(max(0, min(len(text), b - lead)) for b in s.breaks)
    path = tuple(title.replace(SOFT_HYPHEN, "-") for title in s.path)
    return Section(path, text, s.page_start, s.page_end, footnote_refs=tuple(dict.fromkeys(s.refs)), page_breaks=breaks)


def _ends_paragraph(prev_text: str) -> bool:
    """The previous line may end a paragraph (a sentence, a list item, a ``(b) Coordination —`` lead-in).

    A dash after a digit is a number range broken at the line's end (``see ante, at 76–`` / ``77. There
    would be…``): the paragraph goes on.
    """
    if prev_text.endswith("–") and prev_text[-2:-1].isdigit():
        return False
    return prev_text.endswith((".", ":", ";", "—", "–", ")", "”", '"', "’’", "'"))


def _has_line_numbers(lines: list[Line]) -> bool:
    numbered = sum(1 for ln in lines if _LINE_NUMBER.match(ln.text))
    return len(lines) > 20 and numbered > 0.4 * len(lines)


def parse_pdf(path: str | Path) -> ParsedDocument:
    """Parse ``path`` into sections and footnotes; raise :class:`UnreadableDocument` with the reason."""
    path = Path(path)
    if not path.exists():
        raise UnreadableDocument(path, "file not found; check the path (quote names with spaces or '&')")
    if not path.is_file():
        raise UnreadableDocument(path, "not a regular file; pass a PDF file")
    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as e:
        msg = str(e)
        # PDFium keeps its last error code when a load fails without setting one (a PDF with no
        # pages does), so a "password" error counts only for a file with an /Encrypt dictionary.
        if "password" in msg.lower() and b"/Encrypt" in path.read_bytes():
            raise UnreadableDocument(path, "encrypted PDF: it needs a password; save an unencrypted copy") from e
        if e.err_code in (pdfium.raw.FPDF_ERR_SUCCESS, pdfium.raw.FPDF_ERR_PASSWORD):  # none of its own
            msg = "PDFium loaded no document: the page tree is empty or damaged"
        raise UnreadableDocument(path, f"not a readable PDF ({msg}); the file is corrupt or truncated") from e
    try:
        n_pages = len(pdf)
        if n_pages == 0:
            raise UnreadableDocument(path, "the PDF has no pages")
        pages: list[list[Line]] = []
        heights: list[float] = []
        for i in range(n_pages):
            page = pdf[i]
            heights.append(page.get_height())
            pages.append(page_lines(page, i + 1))
            page.close()
    finally:
        pdf.close()
    n_chars = sum(len(ln.text) for lines in pages for ln in lines)
    if n_chars < 20 * n_pages and n_chars < 200:
        raise UnreadableDocument(
            path,
            "no text layer (a scanned PDF?): run OCR first, e.g. `ocrmypdf in.pdf out.pdf`, then ingest the output",
        )
    return _assemble(path, pages, heights)


def _assemble(path: Path, pages: list[list[Line]], heights: list[float]) -> ParsedDocument:
    all_lines = [ln for lines in pages for ln in lines]
    body = _body_height(all_lines)
    headers, footers = _find_running_lines(pages, heights, body)
    has_line_numbers = _has_line_numbers(all_lines)
    compounds = _inline_compounds(all_lines)

    drafts: list[_FootnoteDraft] = []
    sections: list[_SectionDraft] = []
    stack: list[_Heading] = []
    current: _SectionDraft | None = None
    prev: Line | None = None
    pitch = max(body * 1.15, 1.0)

    for lines, page_h in zip(pages, heights, strict=True):
        content = [ln for ln in lines if id(ln) not in headers and id(ln) not in footers]
        if not content:
            continue
        page_no = content[0].page
        page_body = _page_body_height(content)
        zone_start = _footnote_zone(content, page_body, page_h)
        _split_footnotes(content[zone_start:], page_no, drafts)
        body_lines = content[:zone_start]
        view = _PageView(
            body_lines,
            _body_height(body_lines) or body,
            max((ln.x1 for ln in body_lines), default=0.0),
            pitch,
        )
        for index, ln in enumerate(body_lines):
            text = _strip_line_number(ln.text, has_line_numbers)
            gap = (prev.bottom - ln.top) if prev is not None and prev.page == ln.page else 0.0
            prev_text = _strip_line_number(prev.text, has_line_numbers).rstrip() if prev is not None else ""
            para_start = (
                prev is None
                or gap > 0.6 * pitch
                or _ends_paragraph(prev_text)
                or (current is not None and len(current.parts) <= 1 and prev.height != ln.height)
                or abs(ln.x0 - prev.x0) > 2
                and prev.page == ln.page
                and ln.x0 < prev.x0
            )
            heading = _classify(ln, text, body, stack, para_start, view, index, has_line_numbers)
            if heading is not None and current is not None and _continues_title(prev, ln, heading, current):
                # a heading printed over two lines ("TITLE I—COMMITTEE ON" / "FINANCE")
                stack[-1].title = _join_title(stack[-1].title, text.strip(), compounds)
                stack[-1].open = _open_title(stack[-1].title)
                current.path = tuple(h.title for h in stack)
                _append_separator(current, " ", text, compounds)
                current.parts.append(text)
                current.lines += 1
                current.title_lines += 1
                prev = ln
                continue
            if (
                current is not None
                and stack
                and stack[-1].open
                and _follows_closely(prev, ln, pitch)
                and (words := _caps_continuation(text))
                and (
                    heading is None
                    or heading.kind == "bold"
                    or heading.kind.startswith("size")
                    # "(A) APPLICATION TO PAYMENTS UNDER" / "PART B.—Section 1847A…": a named level that
                    # closes the open title with its ".—" is the title's end, not a Part of the Act
                    or (heading.kind in _RANKED_KINDS and text.strip().startswith(words + "—"))
                )
            ):
                # an all-caps heading whose words run on ("SEC. 10201. EXCISE TAX ON REPURCHASE OF CORPORATE"
                # / "STOCK."; "‘‘(B) RULES FOR AMOUNTS NOT REP-" / "RESENTING REASONABLE COMPENSATION.—The")
                stack[-1].title = _join_title(stack[-1].title, words, compounds)
                stack[-1].open = _open_title(stack[-1].title) and words == text.strip()
                current.path = tuple(h.title for h in stack)
                heading = None
            if heading is not None:
                heading.open = _open_title(heading.title) and _heading_line_is_title(heading, text)
                _push(stack, heading)
                current = _SectionDraft(tuple(h.title for h in stack), page_no, page_no)
                sections.append(current)
            elif current is None:
                current = _SectionDraft((), page_no, page_no, title_lines=0)
                sections.append(current)
            elif current.parts:
                _append_separator(current, "\n\n" if gap > 1.6 * pitch else "\n", text, compounds)
            if page_no != current.page_end:
                current.breaks.extend([current.length()] * (page_no - current.page_end))
            current.parts.append(text)
            current.lines += 1
            current.page_end = page_no
            for a, b in ln.superscripts:
                marker = ln.text[a:b].strip()
                if marker and (marker.isdigit() or set(marker) <= set("*†‡§¶")):
                    current.refs.append(marker)
            prev = ln

    footnotes = tuple(Footnote(d.number, d.page, _join_lines(d.lines, compounds)) for d in drafts if d.lines)
    out_sections = tuple(_section(s) for s in sections if _join(s.parts))
    return ParsedDocument(
        name=path.name,
        source=str(path),
        sha256=file_sha256(path),
        pages=len(pages),
        sections=out_sections,
        footnotes=footnotes,
        dropped_headers=len(headers),
        dropped_footers=len(footers),
    )


def _continues_title(prev: Line | None, ln: Line, heading: _Heading, current: _SectionDraft) -> bool:
    """A bold or larger line right under an unfinished heading line of the same style continues it."""
    return (
        (heading.kind == "bold" or heading.kind.startswith("size"))
        and prev is not None
        and current.lines == current.title_lines > 0
        and prev.page == ln.page
        and abs(prev.height - ln.height) < 0.5
        and prev.bold == ln.bold
        and prev.top - ln.top < 2.5 * ln.height
        # a period ends the title, unless inside an open parenthesis ("… (Pub. L." / "97-123)")
        and (not prev.text.rstrip().endswith((".", ":")) or prev.text.count("(") > prev.text.count(")"))
    )


# --- headings printed over several lines, and words broken at a line's end -------------------

_LEVEL_LABEL = re.compile(
    r"^[‘’“”'\" ]*(?:(?:TITLE|Subtitle|CHAPTER|Chapter|SUBCHAPTER|Subchapter|PART|Part|Subpart|SUBPART)\s+[\w.-]+"
    r"\s*[—–.-]?\s*|(?:SEC\.|Sec\.|§+)\s*[\w.()-]+\.?\s+|\(\w{1,5}\)\s+)"
)
_CAPS_RUN = re.compile(r"^[‘’“”'\" ]*([A-Z0-9$(][^\sa-z—]*(?:\s+[A-Z0-9$(][^\sa-z—]*)*)(?:—|$)")


def _open_title(title: str) -> bool:
    """A numbered all-caps title with no closing period (``PART 2—EXCISE TAX ON REPURCHASE OF``): its
    words may go on in the next line. An unnumbered caps line (a caption) does not run on."""
    words, labelled = _LEVEL_LABEL.subn("", title, count=1)
    words = words.strip()
    return (
        labelled == 1
        and len(re.findall(r"[A-Z]{2,}", words)) >= 2
        and not any(c.islower() for c in words)
        and not words.endswith((".", ":", ".—"))
        and len(title) < 200
    )


def _heading_line_is_title(heading: _Heading, text: str) -> bool:
    """The heading's title is its whole line (nothing after it for a run-on to follow)."""
    line = text.strip().lstrip("‘’“”'\" ").rstrip(" —")
    return heading.title == line


def _caps_continuation(text: str) -> str:
    """The leading all-caps words of ``text`` that continue an open title, or ``""``.

    ``CORPORATE STOCK`` and ``STOCK.`` whole; ``RESENTING REASONABLE COMPENSATION.—The`` up to the
    dash; a line that starts in lower case, or holds fewer than two capitals, continues nothing.
    """
    m = _CAPS_RUN.match(text.strip())
    if not m:
        return ""
    words = m.group(1).strip()
    return words if sum(c.isupper() for c in words) >= 2 else ""


def _inline_compounds(lines: list[Line]) -> set[str]:
    """Hyphenated words the document prints inside a line (``cost-sharing``, ``low-income``), lower-cased.

    PDFium marks every hyphen at a line's end as a word break; when the two halves form one of these
    words, the hyphen is the word's own and stays (``COST-`` / ``SHARING``), else the word is joined
    (``Com-`` / ``pare``).
    """
    return {m.group(0).lower() for ln in lines for m in _COMPOUND.finditer(ln.text)}


_COMPOUND = re.compile(r"\b[^\W\d_]+(?:-[^\W\d_]+)+\b")
_LAST_WORD = re.compile(r"([^\W\d_]+)$")
_FIRST_WORD = re.compile(r"^\W*?([^\W\d_]+)")


def _rejoin(left: str, right: str, compounds: set[str]) -> str:
    """What replaces PDFium's line-end hyphen mark between ``left`` and ``right``: ``-`` or nothing."""
    a, b = _LAST_WORD.search(left), _FIRST_WORD.match(right)
    return "-" if a and b and f"{a.group(1)}-{b.group(1)}".lower() in compounds else ""


def _join_title(title: str, more: str, compounds: set[str] = frozenset()) -> str:
    """``title`` + ``more``: a word PDFium marked as broken at the line's end is joined back."""
    if title.endswith(SOFT_HYPHEN):
        head = title[: -len(SOFT_HYPHEN)]
        return head + _rejoin(head, more, compounds) + more
    return f"{title} {more}"


def _follows_closely(prev: Line | None, ln: Line, pitch: float) -> bool:
    """``ln`` is the next line of ``prev``'s block on the same page: no blank line between them (the
    enrolled bill's double-spaced lines count as one block)."""
    return prev is not None and prev.page == ln.page and prev.bottom - ln.top <= 1.6 * pitch


def _append_separator(current: _SectionDraft, sep: str, following: str, compounds: set[str]) -> None:
    """Separate the ``following`` line with ``sep``, or join it to a word PDFium marked as broken at the
    line's end (keeping the hyphen of a compound the document prints whole elsewhere)."""
    if current.parts and current.parts[-1].endswith(SOFT_HYPHEN):
        head = current.parts[-1][: -len(SOFT_HYPHEN)]
        current.parts[-1] = head + _rejoin(head, following, compounds)
    else:
        current.parts.append(sep)


def _join_lines(lines: list[str], compounds: set[str] = frozenset()) -> str:
    """A footnote's lines as one paragraph, words broken at a line's end joined back."""
    out = ""
    for line in lines:
        if out.endswith(SOFT_HYPHEN):
            head = out[: -len(SOFT_HYPHEN)]
            out = head + _rejoin(head, line, compounds) + line
        else:
            out = f"{out} {line}" if out else line
    return _join([out])
