"""Headings and their nesting: which body lines open a section, and the path of titles above it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from lclfqa.ingest.layout import Line
from lclfqa.ingest.plain_outline import roman_value

# --- headings --------------------------------------------------------------------------------

# Named levels, outermost first; everything else nests in order of first use.
# The U.S. Code and the CFR share one order: Title > Subtitle > Chapter > Subchapter > Part > Subpart >
# section (eCFR: Title 26 > Chapter I > Subchapter A > Part 1 > § 1.25A-1; the IRA: TITLE I > Subtitle D >
# PART 4 > SEC. 13401). A level may be skipped; each one closes the levels at or below its rank.
# a named level's number: "IV", "21", "2A", "5bis", "B"
_NAMED_LABEL = r"(?:[IVXLC]{1,6}|\d{1,3}(?:[A-Za-z]|bis|ter|quater)?|[A-Z])"
_RANKED = [
    (re.compile(r"^(?:TITLE|Title)\s+[IVXLC\d]+\b"), "title"),
    (re.compile(r"^(?:Subtitle|SUBTITLE)\s+[A-Z\dIVX]+\b"), "subtitle"),
    (re.compile(r"^(?:Chapter|CHAPTER)\s+[A-Z\dIVX]+\b"), "chapter"),
    (re.compile(r"^(?:Subchapter|SUBCHAPTER)\s+[A-Z\dIVX]+\b"), "subchapter"),
    (re.compile(r"^(?:PART|Part)\s+[A-Z\dIVX]+\b"), "part"),
    (re.compile(r"^(?:Subpart|SUBPART)\s+[A-Z\dIVX]+\b"), "subpart"),
    (re.compile(r"^(?:SEC\.|Sec\.|SECTION|§)\s*\d|^Section\s+\d{1,3}$"), "section"),  # an EU "Section 1" alone
    # an EU regulation's or a convention's "Article 21", a constitution's "ARTICLE IV", an inserted "Article 2A" or
    # "Article 5bis", on a line of its own above the article's title
    # or its title on the same line after a separator or in capitals ("ARTICLE I — DEFINITIONS", "ARTICLE 5 TERM")
    (
        re.compile(r"^(?:ARTICLE|Article)\s+" + _NAMED_LABEL + r"(?:\s*[—–:.-]\s*\S.*|\s+[A-Z][A-Z0-9 ,'’&()-]+)?$"),
        "article",
    ),
]
RANKED_KINDS = [k for _, k in _RANKED]
# A named level's label on a line of its own, nothing after it ("CHAPTER II", "Article 21"): a level of the
# document's own outline even after numbered paragraphs (a regulation's recitals "(83)", an article's "2."), where
# a "Sec. 12." or "§ 41" line may be a statute quoted in an opinion (see ``_opens_named_level``).
_LEVEL_ALONE = re.compile(
    r"^(?:TITLE|Title|SUBTITLE|Subtitle|CHAPTER|Chapter|SUBCHAPTER|Subchapter|PART|Part|SUBPART|Subpart|ARTICLE"
    r"|Article)\s+" + _NAMED_LABEL + "$"
)
_QUOTED = r"^[‘'“\"]*"  # statutes quote inserted text: ‘‘(1) IN GENERAL.—
# A section an Act inserts into the Code, printed inside quotation marks under the amending paragraph
# ("(b) TRANSFER OF CERTAIN CREDITS.—… by inserting after section 6417 the following new section:" /
# "‘‘SEC. 6418. TRANSFER OF CERTAIN CREDITS."): a level of its own, with an all-caps title.
_INSERTED = re.compile(r"^[‘'“\"]+(?:SEC\.|Sec\.|SECTION|§)\s*\d+[A-Za-z]*(?:-\d+)?\.\s+(?P<title>\S.*)$")
INSERTED = "inserted"
_DYNAMIC = [
    (re.compile(_QUOTED + r"\(([ivx]{1,5})\)\s"), "(i)"),
    (re.compile(_QUOTED + r"\(([a-z]{1,2})\)\s"), "(a)"),
    (re.compile(_QUOTED + r"\((\d{1,3}[A-Z]{0,2})\)\s"), "(1)"),  # "(1A)": an Act's inserted subsection
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
# "SCHEDULE 1", "Schedule A—Facility details", "ANNEXURE B", "EXHIBIT C", "ATTACHMENT 1": a part after the body
# of a contract, deed or Act. ``rest`` is what follows the label: nothing, a title after a separator, a title in
# capitals, or "to the Act"; a sentence ("Schedule 2 applies to…") is none of these.
_SCHEDULE = re.compile(
    r"^(?:SCHEDULE|Schedule|ANNEXURE|Annexure|ANNEX|Annex|EXHIBIT|Exhibit|ATTACHMENT|Attachment)\s+"
    r"(?:\d{1,3}[A-Z]?|[A-Z]{1,2}|[IVX]{1,5})(?!\w)(?P<rest>|\s*[—–:.-]\s*\S.*|\s+[A-Z(].*|\s+to\s+\S.*)$"
)
SCHEDULE = "schedule"
# A contract's decimal clause number, "5.1", "5.2.1" (to four parts), before a subject that opens in a capital.
# It opens a level only where the type sets it apart (``decimal_heading``); a level's kind is its depth, "1.1"
# or "1.1.1", so 5.2.1 nests under 5.2, and 5.3 closes both.
_DECIMAL = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){1,3})\.?\s+(?=[A-Z“\"‘'])")
# An older Act's section, its number run into its subsection (1): "3. (1) Any person…", "1.—(1) This Part…" (Malta,
# the UK, Ireland); a later section of one subsection reads "4. The Minister may…": the next number opens it.
ACT_SECTION = re.compile(r"^(\d{1,3}[A-Z]{0,2})\.\s?(?:—\s?)?(?=\(1\)\s+\S)")
_NEXT_SECTION = re.compile(r"^(\d{1,3}[A-Z]{0,2})\.(?:\s+—?|—)\s?(?=\S)")
_SECTION_LABEL = re.compile(r"(\d{1,3})([A-Z]{0,2})")
_LONE = [
    (re.compile(r"^([IVXL]{1,6})$"), "I."),
    (re.compile(r"^([A-Z])$"), "A."),
    (re.compile(r"^(\d{1,2})$"), "1."),
    (re.compile(r"^([a-z])$"), "a"),
]
LINE_NUMBER = re.compile(r"^(\d{1,2})\s+(?!\d+[\u2044\u2215])")  # not the whole part of "16 2⁄3"
_CAPS_SUBJECT = re.compile(r"^([‘'“\"]*\([\w]{1,4}\)\s+[A-Z][A-Z0-9 ,’'\-–&()]{2,}?\.—)")
_DYNAMIC_PAREN = re.compile(_QUOTED + r"\(\w{1,5}\)\s")
_ROMAN_AFTER = {"I": "H", "V": "U", "X": "W", "L": "K", "C": "B", "i": "h", "v": "u", "x": "w"}


OPINION = "opinion"


def _open(stack: list[Heading]) -> bool:
    """A level above the path's end may be closed: the stack is not empty and does not end in an opinion."""
    return bool(stack) and stack[-1].kind != OPINION


@dataclass
class Heading:
    kind: str
    title: str
    label: str  # the number/letter itself, for telling (i) the letter from (i) the numeral
    open: bool = False  # an all-caps title that may run on to the next line
    indent: float | None = None  # a numbered paragraph's leftmost line: a paragraph set left of it ends it
    runs_on: bool = False  # a numbered line that runs on into a sentence: body text, though it ends its siblings
    quoted: bool = False  # printed inside quotation marks: part of a section an Act inserts
    # type size, rounded: a schedule's (it stays under the display titles set larger), and a named level's
    # heading set larger than the body (an unranked heading at least as large closes it); 0 otherwise
    size: int = 0
    act: bool = False  # an older Act's section, "3. (1) …" (its number run into its first subsection)

    @property
    def display_size(self) -> int:
        """The type size of an unranked heading set larger than the body (kind ``sizeN``), else 0."""
        return int(self.kind[4:]) if self.kind.startswith("size") else 0


def strip_line_number(text: str, has_line_numbers: bool) -> str:
    return LINE_NUMBER.sub("", text, count=1) if has_line_numbers else text


@dataclass
class PageView:
    """What heading rules read about the page around a line: its body size and the lines that follow."""

    lines: list[Line]  # the page's body lines (no running lines, no footnotes)
    body: float  # the page's own body size: its most common line height, by characters
    right: float  # the right edge of the page's text block
    pitch: float  # the document's line pitch


def _is_larger(ln: Line, body: float, page: PageView) -> bool:
    """Set larger than the body: larger than the document's body *and* than the page's own body.

    A page printed at a larger scale (Dobbs p. 136) has every line larger than the document's body;
    there only a line larger than that page's body, or a bold one, stands out as a display heading.
    """
    if ln.height < body * 1.12:
        return False
    return ln.bold or ln.height >= page.body * 1.12


def _opens_named_level(stack: list[Heading]) -> bool:
    """Whether a plain ``Title``/``Part``/``Sec.``/``§`` line may open a named level here.

    Named levels are a document's outermost structure. Once the document has opened an outline of its
    own (``I.``, ``A.``, ``1.``, ``(a)``) that no named level encloses, a plain ``Sec. 12.`` or ``§41–41–191``
    line is a quoted statute or a citation (Dobbs' appendix of state abortion laws), not structure.
    """
    for h in stack:
        if h.kind in RANKED_KINDS:
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


_NUMBERED_START = re.compile(_QUOTED + r"(?:\(\w{1,5}\)|\d{1,3}\.|[A-Z]\.|[IVXL]{1,6}\.)\s")
# A named level's label followed by a verb or preposition is a sentence about the level, not its heading
# ("Chapter 2 of the Criminal Code applies …"); so is one followed by any lower-case word before a title separator
# in a line that runs on as a sentence does ("Title III governs the transfer of assets.", "Title VII's anti-retaliation
# provision …", "Chapter 11, unlike Chapter 7, allows …"), but not a short title line ("Part 2 Application and
# interpretation", "PART 1—Preliminary").
_CITES_LEVEL = re.compile(r"^[\w.()-]*\s+(?:of|to|and|or|in|is|applies|does|provides|has|was|were)\b")
_ABBREVIATION = re.compile(r"(?:[A-Z]\.)+$")  # "U.S.C.", "C.F.R.": its full stops end no title


def _cites_level(rest: str, runs_on: bool) -> bool:
    """Whether what follows a named level's label makes the line a sentence about the level (see above)."""
    if _CITES_LEVEL.match(rest):
        return True
    if not runs_on:
        return False
    for token in rest.split():
        if token[0] in "—–:":
            return False
        if token[0].isalpha() and token[0].islower():
            return True
        if token.endswith((":", "—", "–")) or (token.endswith(".") and not _ABBREVIATION.search(token)):
            return False
    return False


_COLON_TITLE = re.compile(r"^(?:\S+\s+){0,5}\S*:(?:\s|$)")  # a short title closed by a colon
_FINISHED = (".", ":", ";", "—", "–", "?", "!", ".”", '."', ".’", ":”", ';"')
# a sentence that introduces a quotation or a list: "… of the scheme provides:", "The following issues arise:",
# "… as follows:"; a title closed by a colon ("10. South Dakota (1877):") has no such verb at its end
_INTRODUCES = re.compile(
    r"\b(?:provides?|provided|states?|stated|reads?|says?|said|holds?|held|observed|noted|explained|concluded"
    r"|found|submits?|submitted|contends?|contended|argues?|argued|arise|arises|include|includes|follows"
    r"|following)\s*:\W*$"
)


def _in_flow(text: str, ln: Line, nxt: Line | None, page: PageView, sentences: bool) -> bool:
    """A plain numbered line that is body text: a list item or a quoted clause, not a heading.

    It runs on into the next line (``1. Leave to appeal granted in respect of grounds 1-4 of the amended``
    / ``draft notice of appeal.``; ``(c) where the Originator or Originator's Representative`` / ``has
    engaged in…``): it stops mid-sentence, fills its block's measure, and the next line carries on the
    paragraph at the same size and leading (flush, hanging under the number, or back at the margin), or
    it is the page's last. With ``sentences`` (a document not organised by such numbers), a one-line
    sentence or clause is body too (``(b) He is self-employed;``, ``1. The appeal be allowed.``). A
    subject printed apart (in italics, ``(1) In general. The…``, or capitals, ``(A) IN GENERAL.—The``)
    makes the line a heading whatever follows it; so do a closing colon or dash (``10. South Dakota
    (1877):``) and a title that stops without punctuation on a short line (``1. Construct's Rights``) — but
    with ``sentences``, a line closing on a verb that introduces what follows (``5. Clause 4.3 of the scheme
    provides:``, ``7. The following issues arise:``) is a paragraph, not a title.
    """
    subject = _DYNAMIC_PAREN.sub("", ln.emphasis_prefix, count=1)
    if re.search(r"\w[.:—–-](?:\s|$)", subject) and len(ln.emphasis_prefix) < len(text) - 2:
        return False  # an emphasised subject, not an italic case name ("(c) Casey identified…")
    if sentences and _INTRODUCES.search(text):
        return True  # "10. Section 5 of the Act provides:": a paragraph that introduces a quotation
    if _CAPS_SUBJECT.match(text) or _COLON_TITLE.match(_NUMBERED_START.sub("", text, count=1)):
        return False  # "(A) IN GENERAL.—The…", "10. South Dakota (1877): Same as North Dakota."
    if text.endswith(_FINISHED) or text.endswith((",", " and", " or")):
        words = len(_NUMBERED_START.sub("", text, count=1).split())
        return sentences and words >= 3 and not text.rstrip('”"’').endswith((":", "—", "–"))
    if nxt is None:
        return ln.x1 >= page.right - 3 * ln.height  # full, at the page's foot: runs over the page break
    continues = (
        nxt.page == ln.page
        and abs(nxt.height - ln.height) < 0.5
        and -0.3 * ln.height <= ln.bottom - nxt.top <= 0.6 * page.pitch
        and not _NUMBERED_START.match(nxt.text.strip())
    )
    # full: to the page's right edge, or (a quotation set narrower) at least as long as the line it runs into
    full = ln.x1 >= page.right - 3 * ln.height or ln.x1 >= nxt.x1 - 3 * ln.height
    return continues and full


def _is_sentence(rest: str, ln: Line, nxt: Line | None, page: PageView) -> bool:
    """A plain ``77. There would be…`` line: the number starts a sentence, not a heading.

    ``rest`` is the text after the number. Body text, when its first sentence runs past the line into
    the next line of the same paragraph (the line fills the measure), or when it is a long sentence
    (more than 12 words before its period); a heading is a short title, ``10. South Dakota (1877):``.
    """
    m = re.match(r"^\s*(.{1,160}?[.:;])(?:\s|$)", rest)
    if m:
        return len(m.group(1).split()) > 12
    full = ln.x1 >= page.right - 3 * ln.height
    # the page's last body line, filling the measure, runs on over the page break
    return full and (nxt is None or _same_paragraph(ln, nxt, page.pitch))


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


def _enumerates_inline(label: str, page: PageView, index: int, has_line_numbers: bool) -> bool:
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
        text = strip_line_number(cur.text, has_line_numbers)
        if j > index and (not _same_paragraph(lines[j - 1], cur, page.pitch) or _DYNAMIC_PAREN.match(text)):
            break  # the paragraph ended, or the next marker opens its own line: a list of paragraphs
        if pattern.search(text):
            return True
    return False


_PARAGRAPH_NUMBER = re.compile(r"^\s*(\d{1,4})\.\s+\S")
NUMBERED_PARAGRAPHS = 100  # a document that numbers "1." … "100." in order numbers its paragraphs


def numbers_paragraphs(lines: list[Line]) -> bool:
    """Whether the document numbers its paragraphs ``1.``, ``2.``, … (a judgment's web print): then a line
    opening ``40. A similar observation…`` is a paragraph, never a heading, however short."""
    seen = {int(m.group(1)) for ln in lines if (m := _PARAGRAPH_NUMBER.match(ln.text))}
    return all(n in seen for n in range(1, NUMBERED_PARAGRAPHS + 1))


OUTLINE_SHARE = 0.05  # regulations and statutes: 9-77 % of lines open "(a)"/"(1)"; judgments: 0.1-1.5 %


def numbered_outline(lines: list[Line], has_line_numbers: bool = False) -> bool:
    """Whether the document is organised by parenthesised paragraph numbers (a regulation, a statute): then
    ``(1) For whom a deduction…`` opens a unit of its structure even where its sentence runs on; in a
    judgment or a paper, a run-on ``(c) where the Originator…`` is a list item or a quoted clause."""
    if not lines:
        return False
    hits = sum(1 for ln in lines if _DYNAMIC_PAREN.match(strip_line_number(ln.text.strip(), has_line_numbers)))
    return hits >= OUTLINE_SHARE * len(lines)


# the words of a privilege, confidentiality or draft banner over a memo or letter ("PRIVILEGED AND CONFIDENTIAL —
# ATTORNEY WORK PRODUCT", "ATTORNEY–CLIENT PRIVILEGED", "DRAFT"); a banner says at least one of the stamps
_BANNER_WORD = re.compile(
    r"(?i)privileged|confidential|draft|strictly|private|attorneys?|lawyers?|solicitors?|legal|client|work|product"
    r"|professional|communication|and|&|subject|to|for|discussion|purposes|only|not|do|distribute"
)
_BANNER_STAMP = re.compile(r"(?i)\b(?:privileged|confidential|draft)\b")


def is_banner(text: str) -> bool:
    """A privilege, confidentiality or draft banner: a line whose words are only such stamps and the words that
    join them (``PRIVILEGED AND CONFIDENTIAL — ATTORNEY WORK PRODUCT``, ``ATTORNEY–CLIENT PRIVILEGED``,
    ``CONFIDENTIAL``, ``DRAFT``). It marks the whole document and names no part of it, so it heads nothing. A
    heading with a subject of its own (``Confidentiality``, ``12. Confidential Information``, ``Draft
    Agreement``, ``Legal Professional Privilege``) is no banner.
    """
    if _BANNER_STAMP.search(text) is None:  # most lines: no stamp, nothing to split
        return False
    words = [w for w in re.split(r"[\s—–/:,.()\-]+", text) if w]
    return bool(words) and all(_BANNER_WORD.fullmatch(w) for w in words)


_NUMBER_WORDS = {w: n for n, w in enumerate("ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN".split(), start=1)}


def _level_number(title: str) -> int | None:
    """The number of a named level's heading, ``Article 21`` → 21, ``CHAPTER IV`` → 4, ``PART THREE`` → 3,
    ``Article 2A`` → 2; ``None`` where it has none."""
    words = title.split()
    if len(words) < 2:
        return None
    label = words[1].strip(".:—–-").upper()
    if m := re.match(r"\d+", label):
        return int(m.group())
    if label in _NUMBER_WORDS:
        return _NUMBER_WORDS[label]
    return roman_value(label)


def _in_own_outline(stack: list[Heading]) -> bool:
    """Whether the path is inside the document's own numbered outline (``II. RELEVANT DOMESTIC LAW``, ``A.``,
    ``1.``), not a regulation's recitals ``(83)``."""
    return any(h.kind in ("I.", "A.", "1.") for h in stack)


def _fills_its_column(ln: Line, page: PageView) -> bool:
    """Whether ``ln`` runs most of the way to the right edge of its column (a line of running text)."""
    right = max((x.x1 for x in page.lines if x.column == ln.column), default=page.right)
    return ln.x1 - ln.x0 > 0.7 * (right - ln.x0)


def _quoted_level(kind: str, stripped: str, before: str, stack: list[Heading]) -> bool:
    """A named level's heading right after a line ending in a colon (``… Article 8 of the Convention provides:``,
    ``The relevant provisions … read as follows:``) that neither starts its kind's numbering nor follows the one
    open on the path (``Article 8`` while no ``Article 7`` is): the provision quoted, not a level of this
    document. An EU regulation's ``HAVE ADOPTED THIS REGULATION:`` / ``CHAPTER I`` and a contract's ``… agree as
    follows:`` / ``ARTICLE 1`` start their numbering, so they open their levels."""
    if not before.rstrip().endswith(":"):
        return False
    number = _level_number(stripped)
    if number is None or (number == 1 and not _in_own_outline(stack)):
        return False
    last = next((h for h in reversed(stack) if h.kind == kind), None)
    previous = _level_number(last.title) if last is not None else None
    return previous is None or number not in (previous, previous + 1)


def classify(
    ln: Line,
    text: str,
    body: float,
    stack: list[Heading],
    para_start: bool,
    page: PageView,
    index: int,
    has_line_numbers: bool = False,
    numbered_paragraphs: bool = False,
    outline: bool = False,
    before: str = "",
) -> Heading | None:
    """The heading ``ln`` opens, if any; ``page.lines[index]`` is ``ln``, ``before`` the text's line before it
    (on the page before, at a page's top).

    A numbered line that is a list item or a quoted clause (``_in_flow``) comes back with ``runs_on`` set:
    body text that closes the item before it. Parenthesised numbers of an ``outline`` document are exempt.
    """
    stripped = text.strip()
    if not stripped or ln.rotated:  # text set sideways (a cover, a table's column head) heads nothing
        return None
    if is_banner(stripped):  # "PRIVILEGED AND CONFIDENTIAL — ATTORNEY WORK PRODUCT" marks the memo, heads nothing
        return None
    larger = _is_larger(ln, body, page) and len(stripped) < 160
    display = larger or ln.bold
    if para_start and (m := _INSERTED.match(stripped)) and _caps_title(m.group("title")):
        return Heading(INSERTED, _title(stripped, ln, display), "", quoted=True)
    for pattern, kind in _RANKED:
        if m := pattern.match(stripped):
            # "Chapter 2 of the Criminal Code applies to all offences against" is a sentence that cites a
            # level, not the level: its label runs on into lower-case words (a section's run-in title, "SECTION
            # 2.02 Loans and Borrowings.", is no sentence: only a Title's, Chapter's or Part's label is read so)
            runs_on = stripped.endswith((".", ",", ";")) or _fills_its_column(ln, page)
            cites = not display and _cites_level(stripped[m.end() :], runs_on and kind not in ("section", "article"))
            # after "… Article 8 of the Convention provides:" a plain "Article 8" line is the provision quoted
            quoted = not display and _quoted_level(kind, stripped, before, stack)
            in_opinion = any(h.kind == OPINION for h in stack)  # a judgment's text quotes levels, has none
            if quoted or (kind == "article" and in_opinion):
                break  # a quoted provision; a judgment's bold "Article 14" is its own heading, not a law's level
            # alone on its line and starting its numbering ("CHAPTER I" after the recitals): a level though no
            # named level encloses the path yet (not inside the document's own outline, "II. RELEVANT LAW",
            # where a quoted "Article 1" starts nothing); a later one ("Article 8") is quoted unless its kind is open
            alone = (
                para_start
                and not in_opinion
                and not _in_own_outline(stack)
                and _LEVEL_ALONE.match(stripped)
                and _level_number(stripped) == 1
            )
            if display or alone or (para_start and _opens_named_level(stack) and not cites):
                return Heading(kind, _title(stripped, ln, display), "", size=round(ln.height) if larger else 0)
            break
    if (para_start or display) and _APPENDIX.match(stripped):
        return Heading("appendix", stripped, "")
    if (m := _SCHEDULE.match(stripped)) and len(stripped) < 120:
        # on a line of its own: set in bold or larger, or a paragraph's first line with no lower-case word
        if display or (para_start and not any(c.islower() for c in m.group("rest"))):
            return Heading(SCHEDULE, _title(stripped, ln, display), "", size=round(ln.height))
    if para_start and outline and (m := ACT_SECTION.match(stripped)):
        # a numbered section like "1. DEFINITIONS": under the Act's Parts, beside a deed's other clauses
        return Heading("1.", f"{m.group(1)}.", m.group(1), act=True)
    if para_start and outline and (m := _next_act_section(stripped, stack)):
        return Heading("1.", _title(stripped, ln, display), m.group(1), act=True)
    for pattern, kind in _LONE:
        m = pattern.match(stripped)
        if m:
            return Heading(_disambiguate(kind, m.group(1), stack), stripped, m.group(1))
    if (m := _DECIMAL.match(stripped)) and _decimal_heading(stripped, ln, body, display):
        return Heading("1" + ".1" * m.group(1).count("."), _title(stripped, ln, display), m.group(1))
    if para_start or display:  # a bold/larger numbered line is a heading even after a page break
        for pattern, kind in _DYNAMIC:
            m = pattern.match(stripped)
            if not m:
                continue
            if not display:
                nxt = page.lines[index + 1] if index + 1 < len(page.lines) else None
                if kind == "1." and numbered_paragraphs:
                    return None  # "40. A similar observation…": the document numbers its paragraphs so
                if kind.startswith("(") and _enumerates_inline(m.group(1), page, index, has_line_numbers):
                    return None
                # a list item or quoted clause: body text, but a (pathless) level that ends the item before
                if (
                    kind != "example"
                    and not (outline and kind.startswith("("))
                    and _in_flow(stripped, ln, nxt, page, sentences=not outline)
                ):
                    kind = _disambiguate(kind, m.group(1), stack)
                    quoted = stripped[0] in "‘'“\""
                    return Heading(kind, stripped, m.group(1), indent=ln.x0, runs_on=True, quoted=quoted)
                if kind in ("I.", "A.", "1.") and _is_sentence(stripped[m.end(1) + 1 :], ln, nxt, page):
                    return None
            heading = Heading(_disambiguate(kind, m.group(1), stack), _title(stripped, ln, display), m.group(1))
            heading.indent = None if display else ln.x0
            heading.quoted = stripped[0] in "‘'“\""
            return heading
    if display and len(stripped) < 120 and not stripped.endswith(","):
        return Heading(f"size{round(ln.height)}" if larger else "bold", stripped, "")
    return None


def act_subsection(text: str, ln: Line, stack: list[Heading]) -> Heading | None:
    """The subsection ``(1)`` an older Act's section line runs into (``3. (1) Any person…``), or ``None``."""
    m = ACT_SECTION.match(text)
    if m is None:
        return None
    rest = text[m.end() :]
    return Heading(_disambiguate("(1)", "1", stack), _title(rest, ln), "1", indent=ln.x0)


def _next_act_section(text: str, stack: list[Heading]) -> re.Match[str] | None:
    """``4. The Minister may…`` (``4.—The Minister…``) where the last section on the path is an older Act's
    (``3. (1) …``, a heading marked ``act``): a later section, not an item of section 3's list — the next
    number, one a few numbers on (repealed sections are not printed), or an inserted ``3A``."""
    m = _NEXT_SECTION.match(text)
    last = next((h.label for h in reversed(stack) if h.act), "")
    before = _SECTION_LABEL.fullmatch(last)
    now = _SECTION_LABEL.fullmatch(m.group(1)) if m else None
    if m is None or before is None or now is None:
        return None
    n, k = int(now.group(1)), int(before.group(1))
    inserted = n == k and now.group(2) > before.group(2)
    return m if inserted or k < n <= k + 3 else None


# "(c) Taxable year of completion—(1) In general.": a paragraph's subject, a dash, and its first sub-paragraph's
# number and subject (a CFR paragraph whose text starts in its first sub-paragraph)
_RUN_INTO_FIRST = re.compile(
    r"^(?P<outer>[‘'“\"]*\(\w{1,4}\)\s+[^—()]*?[^\W\d_][.]?)\s*—\s*(?P<inner>\((?P<label>1|a|i|A|I)\)\s+[A-Z][^.—()]{0,60}\.)$"
)


def first_sub_paragraph(heading: Heading, stack: list[Heading]) -> Heading | None:
    """The sub-paragraph a paragraph heading runs into on its own line, split off ``heading``'s title, or ``None``.

    ``(c) Taxable year of completion—(1) In general. The credit…`` opens (c) *and* its (1): the title up to the
    dash is (c)'s, ``(1) In general.`` opens the level under it, so the text after it is cited as (c)(1) and
    the ``(2) Special rule.`` below is (1)'s sibling. Only a parenthesised paragraph's title, and only a first
    label (``(1)``, ``(a)``, ``(i)``, ``(A)``, ``(I)``) of another series, with a subject closed by a period:
    ``(c) Taxable year.—The credit…`` has no sub-paragraph, and ``(d) Cross-reference—(b) of this section.``
    names another paragraph.
    """
    if heading.runs_on or not heading.kind.startswith("("):
        return None
    m = _RUN_INTO_FIRST.match(heading.title)
    if not m:
        return None
    inner = m.group("inner")
    for pattern, kind in _DYNAMIC[:5]:
        if pattern.match(inner + " "):
            kind = _disambiguate(kind, m.group("label"), [*stack, heading])  # "(h) …—(i) …": (i) is a letter
            if kind == heading.kind:
                return None
            heading.title = m.group("outer")
            return Heading(kind, inner, m.group("label"), indent=heading.indent, quoted=heading.quoted)
    return None


def _decimal_heading(text: str, ln: Line, body: float, display: bool) -> bool:
    """A decimal clause number (``5.1``, ``5.2.1``) opens a clause heading where the type says so: the line is
    bold or larger and short (``5.3 Survival``), or the number runs into an emphasised subject closed by its
    punctuation, in the body's own size, with plain text after it (``5.1 *Term.* This Agreement…``). A plain
    ``1.5 million dollars…`` or ``2.5 percent of…`` at a line's start is body text."""
    if display:
        return len(text) < 120 and not text.endswith(",")
    prefix = ln.emphasis_prefix
    m = _DECIMAL.match(prefix)
    return (
        m is not None
        and ln.height >= body - 0.5  # not a clause quoted in smaller type
        and len(prefix) < len(text) - 2
        and re.search(r"[^\W\d_][.:—–]$", prefix[m.end() :]) is not None
    )


def _caps_title(words: str) -> bool:
    """An inserted section's title: capitals, two letters at least, no lower case (``TRANSFER OF CERTAIN
    CREDITS.``); a quoted ``“Sec. 2. Every person who…`` in an opinion is a quotation, not a level."""
    return bool(re.search(r"[A-Z]{2}", words)) and not any(c.islower() for c in words)


def bold_heading_shape(text: str, ln: Line, page: PageView, index: int) -> bool:
    """A bold line in body size is a heading only where the text agrees: it starts like a title (a capital,
    a digit, a quote or bracket, not ``. you must…``) and does not run on into the next line as a sentence
    (a bold case name inside a paragraph, ``Wholesale Finance Pty Ltd v…``)."""
    if not (text[0].isupper() or text[0].isdigit() or text[0] in "“\"‘'[(§"):
        return False
    nxt = page.lines[index + 1] if index + 1 < len(page.lines) else None
    runs_on = ln.x1 >= page.right - 3 * ln.height and nxt is not None and _same_paragraph(ln, nxt, page.pitch)
    return not (runs_on and not nxt.bold)


def _disambiguate(kind: str, label: str, stack: list[Heading]) -> str:
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


def close_outdented(stack: list[Heading], x0: float) -> bool:
    """Close the numbered paragraphs whose whole block a new body paragraph starting at ``x0`` is set left of.

    An indented list item (``4. The matter be remitted…`` at 121 pt, its lines at 121–157 pt) or a quoted
    clause holds the lines indented under it, not the judgment's next paragraph back at the margin
    (85 pt). A paragraph whose own lines run back to the margin (an eCFR ``(a)``, indented on its first
    line only) is not closed by text at the margin. Returns whether any level closed.
    """
    k = len(stack)
    while k and stack[k - 1].indent is not None and stack[k - 1].indent > x0 + 2:
        k -= 1
    closed = k < len(stack)
    del stack[k:]
    return closed


# Pairs of named levels that documents nest either way round, (inner by default, outer by default). The U.S.
# Code's Title holds Parts, the EU treaties' PART THREE holds its TITLE II; an Australian Act's Chapter holds Parts,
# a UK Act's PART 1 its CHAPTER 1; an EU regulation's SECTION 2 holds its articles, a credit agreement's ARTICLE 2
# its SECTION 2.01.; the UCC's ARTICLE 2 holds its PART 1.
_EITHER_WAY = (("article", "section"), ("part", "title"), ("part", "chapter"), ("article", "part"))


def _flipped(stack: list[Heading], new: Heading) -> set[tuple[str, str]]:
    """The pairs of ``_EITHER_WAY`` this path nests the other way round, ``(now outer, now inner)``: the one that
    is inner by default is open further out than the other, or, with the other not open at all, is the path's
    last level (``PART THREE`` / its display title / ``TITLE II``) or its outermost named level while ``new``
    starts the other's numbering (``PART ONE`` / ``Article 1`` / ``TITLE I``); not an excerpt's ``PART 4``
    holding sections when ``TITLE II`` comes."""
    kinds = [h.kind for h in stack]
    ranked = [k for k in kinds if k in RANKED_KINDS]
    starts = _level_number(new.title) == 1
    out = set()
    for inner, outer in _EITHER_WAY:
        if inner not in kinds:
            continue
        at = len(kinds) - 1 - kinds[::-1].index(inner)
        last = all(k == "bold" or k.startswith("size") for k in kinds[at + 1 :])
        # or the new one starts its numbering under the outermost named level ("PART ONE" / "Article 1" /
        # "TITLE I"): the document's own order, not an excerpt's
        first = starts and new.kind == outer and ranked[:1] == [inner]
        if (outer in kinds and kinds.index(inner) < kinds.index(outer)) or (outer not in kinds and (last or first)):
            out.add((inner, outer))
    return out


def _closes(new: str, open_kind: str, flipped: set[tuple[str, str]]) -> bool:
    """Whether a named level ``new`` closes an open named level ``open_kind``: one of the same or a lower rank,
    the ranks of a pair this path nests the other way round (:func:`_flipped`) taken so."""
    if (open_kind, new) in flipped:  # the open one holds the new one here
        return False
    if (new, open_kind) in flipped:
        return True
    return RANKED_KINDS.index(open_kind) >= RANKED_KINDS.index(new)


def push(stack: list[Heading], heading: Heading, right_under: bool = False) -> None:
    """Put ``heading`` on the path, closing the levels it ends.

    An opinion (``opinions.py``) starts a new path; no other heading closes it, so every section
    under it keeps the opinion as its first title. ``right_under``: the heading follows the path's last
    heading line with no text between them (``CHAPTER 373`` / ``PREVENTION OF MONEY LAUNDERING ACT``): a
    display title there names what the level holds and never closes it.
    """
    ranked = RANKED_KINDS
    if heading.kind == OPINION:
        stack.clear()
    elif heading.kind in ranked:
        flipped = _flipped(stack, heading)
        while (
            _open(stack)
            and stack[-1].kind != SCHEDULE  # a schedule's own Parts nest under it
            and (stack[-1].kind not in ranked or _closes(heading.kind, stack[-1].kind, flipped))
        ):
            stack.pop()
    elif heading.kind.startswith("size"):
        # a named level closes too where its own heading line was set larger than the body, but no larger than
        # this one, and holds text ("Recommendations" set as large as "Chapter 3 Options for reform", after
        # the chapter's text, is no part of Chapter 3)
        size = heading.display_size
        while (
            _open(stack)
            and (stack[-1].kind not in ranked or (0 < stack[-1].size <= size and not right_under))
            and stack[-1].display_size <= size
        ):
            stack.pop()
    elif heading.kind == "appendix":  # closes the numbered outline, keeps named and display levels above it
        while _open(stack) and not (
            stack[-1].kind in ranked or stack[-1].kind.startswith("size") or stack[-1].kind == "bold"
        ):
            stack.pop()
    elif heading.kind == SCHEDULE:
        _close_for_schedule(stack, heading.size)
    elif heading.kind == INSERTED:  # the next inserted section closes the last one and what it holds
        kinds = [h.kind for h in stack]
        if INSERTED in kinds:
            del stack[kinds.index(INSERTED) :]
    else:
        floor = _inserted_floor(stack)
        if floor and not heading.quoted:  # unquoted text again: the inserted section has ended
            del stack[floor - 1 :]
            floor = _inserted_floor(stack)
        kinds = [h.kind for h in stack[floor:]]
        if heading.kind in kinds:
            del stack[floor + kinds.index(heading.kind) :]
    stack.append(heading)


def _close_for_schedule(stack: list[Heading], size: int) -> None:
    """A schedule, annexure, exhibit or attachment (``SCHEDULE 1``, ``Annexure B``) is a top-level part after
    the body, like an appendix: it closes every level of the body (its Parts, clauses and sub-clauses, and the
    schedule before it), keeping only the display titles above them set larger than its own heading (the
    document's title), so that its own numbering, which starts from ``1.`` again, nests under it and never
    closes it (a schedule's ``1. Facility`` is not the deed's clause 1)."""
    while _open(stack) and stack[-1].display_size <= size:
        stack.pop()


def _inserted_floor(stack: list[Heading]) -> int:
    """Where the levels of an inserted section start (just past its heading), or 0 outside one: its own
    ``(a)``/``(1)`` nest under it and never close the amending Act's ``(b)`` above it."""
    for k in range(len(stack) - 1, -1, -1):
        if stack[k].kind == INSERTED:
            return k + 1
    return 0


# --- headings printed over several lines, and words broken at a line's end -------------------

_LEVEL_LABEL = re.compile(
    r"^[‘’“”'\" ]*(?:(?:TITLE|Subtitle|CHAPTER|Chapter|SUBCHAPTER|Subchapter|PART|Part|Subpart|SUBPART)\s+[\w.-]+"
    r"\s*[—–.-]?\s*|(?:SEC\.|Sec\.|§+)\s*[\w.()-]+\.?\s+|\(\w{1,5}\)\s+)"
)
_CAPS_RUN = re.compile(r"^[‘’“”'\" ]*([A-Z0-9$(][^\sa-z—]*(?:\s+[A-Z0-9$(][^\sa-z—]*)*)(?:—|$)")


def open_title(title: str) -> bool:
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


def heading_line_is_title(heading: Heading, text: str) -> bool:
    """The heading's title is its whole line (nothing after it for a run-on to follow)."""
    line = text.strip().lstrip("‘’“”'\" ").rstrip(" —")
    return heading.title == line


def caps_continuation(text: str) -> str:
    """The leading all-caps words of ``text`` that continue an open title, or ``""``.

    ``CORPORATE STOCK`` and ``STOCK.`` whole; ``RESENTING REASONABLE COMPENSATION.—The`` up to the
    dash; a line that starts in lower case, or holds fewer than two capitals, continues nothing.
    """
    m = _CAPS_RUN.match(text.strip())
    if not m:
        return ""
    words = m.group(1).strip()
    return words if sum(c.isupper() for c in words) >= 2 else ""
