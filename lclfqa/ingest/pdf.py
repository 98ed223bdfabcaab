"""Layout-aware PDF parsing: assembles the rules of the modules beside it into sections and footnotes.

The rules, in the order they run (each in a module named for its job):

1. **Lines** (``layout.py``) — characters with their font-high boxes grouped into lines; text clipped
   off the page is left out; text on a rotated baseline makes lines of its own, and each line knows
   whether it is rotated or printed in a light grey; a word in small caps that the text layer split after
   its capital (``T HE``, ``A ct``) is read whole where the gap is narrower than the line's word spaces;
   markers typed as Unicode superscript digits (``nullity.¹``) read as raised numbers; two markers joined
   by a raised comma (``law.³,⁴``) read as a marker each; a pleading's column of bare line numbers 1, 2, 3 …
   at one pitch left of all the page's text is dropped before lines are built (a numbered list at the body's
   margin is not); text turned a quarter (a landscape schedule on a portrait page) is also measured like
   level text (its loose boxes' width, ``loose_height``: a running band ends at it where that is the body
   size) and its lines of one size read in their own order, not by length.
2. **Font sizes** (``fonts.py``) — the body size and the note size from the document's own size
   histogram; notes are what is set below half-way between them.
3. **Running lines** (``running.py``) — headers and footers in a page's top and bottom bands: text
   repeated at the same height, page numbers, the stacks they head, watermarks (rotated or light-grey
   lines repeated across pages); body lines that repeat are kept, and so is a page's lone line in the
   margin with no body to be set apart from (a paragraph's last line carried over).
4. **Endnotes** (``endnotes.py``) and **contents** (``contents.py``) — a ``Notes``/``Endnotes`` section,
   or a trailing ``[N]`` or ``N.`` note block, cited in the text, and a table of contents, are taken out
   of the body first.
5. **Footnotes** (``footnotes.py``) — the small lines at a page's (or a column's) foot, split at each
   marker expected next, whatever the case of the word after it; a note's lines run on to the next page
   (no number: the foot's first lines, where the note stopped mid-sentence, or where they are set as one
   block with the notes under them, the last page's last note, under a gap from the body); a note indented
   past the note above it continues it only within its column; notes in the body's own size
   from a line opening with a raised number the body cites, and their lines run on by their spacing;
   markers in the body's own type glued to a word (``statutory.1 On``) where the note starts below pair
   with them in sequence, and so do raised letters (``rule.ᵃ``) where the notes open with the same letter
   raised (never an ordinal's ``ⁿᵈ``); none at all in a text that cites no marker; notes in the body's own size
   numbered ``1.`` on the baseline where the foot's ``N.`` lines, under a gap, are exactly the raised numbers
   the body cites, in sequence. Where a page's notes
   open with raised numbers a plain number opens none (a citation's volume wrapped to a line's start), and
   a clear break (a wide gap and another size) ends the notes (a disclaimer under them stays out).
6. **Opinions** (``opinions.py``) and **headings** (``headings.py``) — a judgment's opinions open
   top-level sections; numbering, size and weight open headings where layout and text agree, nested
   by rank or by first use; a numbered line that runs on into its sentence is body text; a schedule,
   annexure, exhibit or attachment (``SCHEDULE 1``) is a part after the body that closes its levels, its
   own ``1.`` nesting under it; a ``Part 3`` line right under a title that stops on ``of`` (at the title's
   pitch, in its style) continues the title, and a line opening with a number of its own (``1.1``) never does;
   a decimal clause number (``5.2.1``) opens a level by its depth where it runs into an emphasised subject or
   stands on a short bold line; a display heading as large as a named level's own heading line closes it once
   the level holds text; a privilege, confidentiality or draft banner (``PRIVILEGED AND CONFIDENTIAL —
   ATTORNEY WORK PRODUCT``, ``DRAFT``) heads nothing; an Act's ``Note:`` set smaller than the body at its
   subsection's text closes the items whose labels sit there (it belongs to the subsection).
7. **Clean text** (``textjoin.py``) — words broken at a line's end joined; printed line numbers dropped.

Where footnotes get linked: markers are recorded per section here (superscripts, ``[N]`` endnote
markers); ``chunking.link_footnotes`` turns them into links from footnote chunks to parents.

Pages set in columns (``layout.py`` finds the gutters: two or three columns) are read column by column,
and each column's foot is searched for notes of its own; a page whose columns fill only bands of it
(full-width text above, below or between them) reads each band in its own order.

Known limits (documented in docs/ingest.md): a band of columns needs 20 runs of text (ten lines a column);
tables are flattened to text; a single light-grey line is kept (only repeated ones are watermarks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium

from lclfqa.ingest.contents import find_contents
from lclfqa.ingest.document import Footnote, ParsedDocument, Section, UnreadableDocument, file_sha256, require_file
from lclfqa.ingest.endnotes import find_endnotes
from lclfqa.ingest.fonts import body_height, note_ratio, page_body_height
from lclfqa.ingest.footnotes import (
    FootnoteState,
    body_citations,
    check_lengths,
    cites_markers,
    footnote_zone,
    glued_markers,
    is_marker,
    letter_markers,
    notes_end,
    page_markers,
    split_footnotes,
)
from lclfqa.ingest.headings import (
    LINE_NUMBER,
    OPINION,
    RANKED_KINDS,
    Heading,
    PageView,
    act_subsection,
    bold_heading_shape,
    caps_continuation,
    classify,
    close_outdented,
    first_sub_paragraph,
    heading_line_is_title,
    numbered_outline,
    numbers_paragraphs,
    open_title,
    push,
    strip_line_number,
)
from lclfqa.ingest.layout import SOFT_HYPHEN, Line, block_edges, page_lines
from lclfqa.ingest.opinions import opinion_title
from lclfqa.ingest.running import find_running_lines
from lclfqa.ingest.textjoin import (
    document_words,
    inline_compounds,
    join_at_break,
    join_lines,
    join_text,
    join_title,
)

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


def _section(s: _SectionDraft) -> Section:
    raw = "".join(s.parts)
    lead = len(raw) - len(raw.lstrip())
    text = join_text(s.parts)
    breaks = tuple(max(0, min(len(text), b - lead)) for b in s.breaks)
    path = tuple(title.replace(SOFT_HYPHEN, "-") for title in s.path)
    return Section(path, text, s.page_start, s.page_end, footnote_refs=tuple(dict.fromkeys(s.refs)), page_breaks=breaks)


def _ends_paragraph(prev_text: str) -> bool:
    """The previous line may end a paragraph (a sentence, a list item, a ``(b) Coordination —`` lead-in).

    A statute's item closes on ``; and`` / ``; or`` before its last sibling (``(A) the amount …; and`` /
    ``(B) the rate …``): the next line may open that item. A dash after a digit is a number range broken at
    the line's end (``see ante, at 76–`` / ``77. There would be…``): the paragraph goes on.
    """
    if prev_text.endswith("–") and prev_text[-2:-1].isdigit():
        return False
    closes = prev_text.endswith((".", ":", ";", "—", "–", ")", "”", '"', "’’", "'"))
    return closes or bool(_ITEM_CLOSE.search(prev_text))


_ITEM_CLOSE = re.compile(r";\s*(?:and|or)$")  # "(A) …; and" / "(i) …; or": a list item's last words


def _centred(prev: Line, ln: Line, margin: float, right: float) -> bool:
    """``prev`` is centred between the page's margins, well in from both, and ``ln`` neither starts where it
    starts nor is centred with it (a date line, a title; not a block quote's lines, indented alike on both
    sides, nor a centred caption's next line): a line of its own, never a paragraph's line that runs on, so
    ``ln`` opens a paragraph (across a page break too, where no gap is measured: a cover's date line ending
    one page, ``HALLORAN, Circuit Judge. This …`` opening the next)."""
    width = right - margin
    left_in, right_in = prev.x0 - margin, right - prev.x1
    if width <= 0 or abs(ln.x0 - prev.x0) <= 2 or abs((ln.x0 + ln.x1) - (prev.x0 + prev.x1)) <= 4:
        return False  # the next line starts where it starts (a block quote), or is centred with it (a caption)
    return min(left_in, right_in) > 0.15 * width and abs(left_in - right_in) < 0.05 * width


def _under_title(current: _SectionDraft) -> bool:
    """Nothing but the section's heading so far: the next line set in another size opens its text, even where
    the title wrapped (``75P Evidence given … in criminal`` / ``proceedings``, then ``(1) Evidence of…``)."""
    return len(current.parts) <= 1 or current.lines == current.title_lines > 0


SIDE_NOTE_WIDTH = 0.35  # a side note's column: at most this share of the text's width


def _set_side_notes_apart(
    lines: list[Line], body: float, carried: list[Line]
) -> tuple[list[Line], set[int], list[Line]]:
    """A page's lines with its side notes moved out of the text's sentences, the notes' ids, and the notes to
    carry to the next page.

    A side note (an older Act's "Offences." / "Amended by: III. 2002.166;" in the margin) is set smaller
    than the body, wholly beside the text block, in a narrow column; read by height, its lines fall between
    the lines of the paragraph beside it. Each run of a note's lines is moved to the end of the first
    clause, at or below the note's first line, that closes (a full stop, a colon, a semicolon…), so it stays
    with its section and splits no word or sentence. Where none closes on the page (the sentence runs on over
    the page break), the note is carried: ``carried`` (the page before's) goes after the first clause this page
    closes. The text's lines join as if the notes were not there, and a note joins nothing itself
    (:func:`_assemble` sets it apart as a paragraph).
    """
    text = [x for x in lines if abs(x.height - body) < 0.5 and not x.rotated]
    side: list[Line] = []
    if len(text) >= 5:
        left, right = block_edges([x.x0 for x in text], [x.x1 for x in text])  # not a title's edges
        narrow = SIDE_NOTE_WIDTH * (right - left)
        side = [
            x
            for x in lines
            if not x.rotated
            and x.height < body - 1
            and (x.x0 > right + 6 or x.x1 < left - 6)
            and x.x1 - x.x0 < narrow
            and any(c.isalpha() for c in x.text)
        ]
    if not side and not carried:
        return lines, set(), []
    ids = {id(x) for x in side} | {id(x) for x in carried}
    rest = [x for x in lines if id(x) not in ids]
    runs: list[list[Line]] = [carried] if carried else []
    for x in sorted(side, key=lambda x: -x.top):
        if len(runs) > bool(carried) and runs[-1][-1].bottom - x.top < 1.5 * body:
            runs[-1].append(x)
        else:
            runs.append([x])
    closes = [k for k, x in enumerate(rest) if _ends_paragraph(x.text.rstrip())]
    after: dict[int, list[Line]] = {}
    carry: list[Line] = []
    for n, run in enumerate(runs):
        first = (
            0
            if carried and n == 0
            else next((k for k, x in enumerate(rest) if x.top <= run[0].top + 0.5 * body), len(rest))
        )
        end = next((k for k in closes if k >= first), None)
        if end is None:
            carry += run  # its sentence runs on to the next page: the note follows it there
        else:
            after.setdefault(end, []).extend(run)
    out: list[Line] = []
    for k, x in enumerate(rest):
        out.append(x)
        out += after.get(k, [])
    return out, ids, carry


def _has_line_numbers(lines: list[Line]) -> bool:
    numbered = sum(1 for ln in lines if LINE_NUMBER.match(ln.text))
    return len(lines) > 20 and numbered > 0.4 * len(lines)


def parse_pdf(path: str | Path) -> ParsedDocument:
    """Parse ``path`` into sections and footnotes; raise :class:`UnreadableDocument` with the reason."""
    path = Path(path)
    require_file(path, "a PDF file")
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
    body = body_height(all_lines)
    running = find_running_lines(pages, heights, body)
    has_line_numbers = _has_line_numbers(all_lines)
    numbered = numbers_paragraphs(all_lines)
    outline = numbered_outline([ln for ln in all_lines if ln not in running], has_line_numbers)
    compounds = inline_compounds(all_lines)
    vocabulary = document_words(all_lines)  # the document's words: evidence for joining a hyphenated break

    notes = FootnoteState()
    ratio = note_ratio(all_lines, body)
    sections: list[_SectionDraft] = []
    stack: list[Heading] = []
    current: _SectionDraft | None = None
    prev: Line | None = None
    pitch = max(body * 1.15, 1.0)
    banners: set[str] = set()  # titles that opened a path at its root
    toc = find_contents([ln for ln in all_lines if ln not in running])
    toc_section: _SectionDraft | None = None
    endnotes = find_endnotes([ln for ln in all_lines if ln not in running])
    block = endnotes.block if endnotes else set()
    cites = endnotes.markers if endnotes else {}
    marked = cites_markers([ln for ln in all_lines if ln not in running and id(ln) not in block])
    if not marked:  # markers in the body's own type, where the note starts below pair with them
        kept = [
            [ln for ln in lines if ln not in running and id(ln) not in block and id(ln) not in toc] for lines in pages
        ]
        marked = glued_markers(kept, heights) > 0
        if not marked:  # raised letters, where the notes below open with the same letter raised
            notes.letters = letter_markers(kept, heights)
            marked = bool(notes.letters)
    last_cites: set[str] = set()  # what the previous page's text cites (a note may start a page later)
    edges = (0.0, 0.0)  # the text block's left and right edges on the page being read
    after_side = False  # the last line appended was a side note
    carried: list[Line] = []  # side notes beside a sentence that runs on to the next page

    for lines, page_h in zip(pages, heights, strict=True):
        listed = [ln for ln in lines if ln not in running and id(ln) not in block]
        content = [ln for ln in listed if id(ln) not in toc]  # a table of contents has no footnotes
        if not listed:
            continue
        page_no = listed[0].page
        body_lines = content
        if content and marked:  # no marker, no note
            notes.cited = page_markers(content, notes.letters)
            page_cites = body_citations(content)
            notes.citing = page_cites | last_cites
            last_cites = page_cites
            page_body = page_body_height(content)
            body_lines = []
            for column in _column_blocks(content):  # notes at the foot of each column
                zone_start = footnote_zone(column, page_body * ratio, page_h, notes, page_body)
                zone_end = zone_start + notes_end(column[zone_start:])
                split_footnotes(column[zone_start:zone_end], page_no, notes)
                body_lines += column[:zone_start] + column[zone_end:]
        body_lines, side, carried = _set_side_notes_apart(body_lines, page_body_height(body_lines) or body, carried)
        view = PageView(
            body_lines,
            body_height(body_lines) or body,
            max((ln.x1 for ln in body_lines), default=0.0),
            pitch,
        )
        in_body = {id(x) for x in body_lines}
        in_order = [ln for ln in listed if id(ln) in toc or id(ln) in in_body] if toc else body_lines
        edges_before = edges  # the page before's text block: where its last line is measured
        # where the page's lines start (not their indents) and its widest line ends
        edges = (block_edges([x.x0 for x in body_lines], [0.0])[0] if body_lines else 0.0, view.right)
        index = -1
        for ln in in_order:
            if id(ln) in toc:  # kept whole, as one "Contents" section, never as headings
                toc_section = _add_contents([ln], toc_section, sections)
                current = prev = None
                continue
            index += 1
            text = strip_line_number(ln.text, has_line_numbers)
            gap = (prev.bottom - ln.top) if prev is not None and prev.page == ln.page else 0.0
            prev_text = strip_line_number(prev.text, has_line_numbers).rstrip() if prev is not None else ""
            para_start = (
                prev is None
                or gap > 0.6 * pitch
                or _ends_paragraph(prev_text)
                or (current is not None and _under_title(current) and prev.height != ln.height)
                or _centred(prev, ln, *(edges if prev.page == ln.page else edges_before))
                or abs(ln.x0 - prev.x0) > 2
                and prev.page == ln.page
                and ln.x0 < prev.x0
            )
            heading = None
            if id(ln) in side:  # a side note: text of the section it sits beside, never a heading
                pass
            elif para_start and (title := _opinion(text, body_lines, index, has_line_numbers)):
                heading = Heading(OPINION, title, "")
            else:
                heading = classify(
                    ln, text, body, stack, para_start, view, index, has_line_numbers, numbered, outline, prev_text
                )
            if heading is not None and heading.runs_on:
                # A list item or quoted clause that runs on into its sentence is body text, but a level of
                # its list all the same, kept out of the path: it ends the item before it ("1. The appeal
                # be allowed." / "2. The matter be remitted to the primary judge for determination" /
                # "according to law."), and shorter items after it nest beside it, not under the last one.
                push(stack, heading)
                if current is not None and _path(stack) != current.path:
                    current = _SectionDraft(_path(stack), page_no, page_no, title_lines=0)
                    sections.append(current)
                heading = None
            continues = heading is not None and current is not None and _continues_title(prev, ln, heading, current)
            if heading is not None and heading.kind == "bold" and not continues:
                mid_sentence = not para_start and prev is not None and prev.page == ln.page and not prev.bold
                if mid_sentence or not bold_heading_shape(text.strip(), ln, view, index):
                    heading = None  # a bold phrase inside a paragraph (a case name), not a heading
            if continues:
                assert heading is not None and current is not None
                # a heading printed over two lines ("TITLE I—COMMITTEE ON" / "FINANCE")
                stack[-1].title = join_title(stack[-1].title, text.strip(), compounds)
                stack[-1].open = open_title(stack[-1].title)
                current.path = _path(stack)
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
                and (words := caps_continuation(text))
                and (
                    heading is None
                    or heading.kind == "bold"
                    or heading.kind.startswith("size")
                    # "(A) APPLICATION TO PAYMENTS UNDER" / "PART B.—Section 1847A…": a named level that
                    # closes the open title with its ".—" is the title's end, not a Part of the Act
                    or (heading.kind in RANKED_KINDS and text.strip().startswith(words + "—"))
                )
            ):
                # an all-caps heading whose words run on ("SEC. 10201. EXCISE TAX ON REPURCHASE OF CORPORATE"
                # / "STOCK."; "‘‘(B) RULES FOR AMOUNTS NOT REP-" / "RESENTING REASONABLE COMPENSATION.—The")
                stack[-1].title = join_title(stack[-1].title, words, compounds)
                stack[-1].open = open_title(stack[-1].title) and words == text.strip()
                current.path = _path(stack)
                heading = None
            if (
                heading is None
                and current is not None
                and not has_line_numbers  # printed line numbers make every line start at the margin
                and gap > 0.6 * pitch
                and (
                    abs(ln.height - body) < 0.5  # a paragraph of the body, not a note or source credit
                    and close_outdented(stack, ln.x0)
                    # an Act's "Note:" set smaller at its subsection's text: no item whose label is there holds it
                    or (ln.height < body - 0.5 and _NOTE_LABEL.match(text) and close_outdented(stack, ln.x0 - 4))
                )
                and _path(stack) != current.path
            ):
                current = _SectionDraft(_path(stack), page_no, page_no, title_lines=0)
                sections.append(current)
            if heading is not None:
                heading.open = open_title(heading.title) and heading_line_is_title(heading, text)
                if heading.kind.startswith("size") and heading.title in banners:
                    stack.clear()  # the court's banner again, over the next opinion: it closes the last one
                right_under = current is not None and current.lines == current.title_lines > 0
                first = first_sub_paragraph(heading, stack)
                push(stack, heading, right_under)
                if first is not None:  # "(c) Taxable year of completion—(1) In general.": (c) and its (1)
                    push(stack, first)
                if heading.act and (sub := act_subsection(text.strip(), ln, stack)) is not None:
                    push(stack, sub)  # "3. (1) Any person…": section 3 and its subsection (1)
                if len(stack) == 1:
                    banners.add(heading.title)
                current = _SectionDraft(_path(stack), page_no, page_no)
                sections.append(current)
            elif current is None:  # the document's lead-in, or the text after a table of contents
                current = _SectionDraft(_path(stack), page_no, page_no, title_lines=0)
                sections.append(current)
            elif current.parts and (id(ln) in side) != after_side:
                current.parts.append("\n\n")  # a side note is a paragraph of its own: no word joins across it
            elif current.parts:
                sep = "\n" if after_side or gap <= 1.6 * pitch else "\n\n"  # a note's lines are one paragraph
                _append_separator(current, sep, text, compounds, vocabulary)
            if page_no != current.page_end:
                current.breaks.extend([current.length()] * (page_no - current.page_end))
            current.parts.append(text)
            current.lines += 1
            current.page_end = page_no
            after_side = id(ln) in side
            if after_side:
                continue  # the next line is read against the text's last line, not the note's
            if heading is None and stack and stack[-1].indent is not None:
                stack[-1].indent = min(stack[-1].indent, ln.x0)  # the block the numbered paragraph holds
            for a, b in ln.superscripts:
                marker = ln.text[a:b].strip()
                if is_marker(marker, notes.letters):
                    current.refs.append(marker)
            current.refs.extend(cites.get(id(ln), ()))
            prev = ln

    if carried and sections:  # side notes beside the last sentence, which no page after it closed
        sections[-1].parts += ["\n\n", "\n".join(x.text.strip() for x in carried)]
    footnotes = tuple(
        Footnote(d.number, d.page, join_lines(d.lines, compounds, vocabulary)) for d in notes.drafts if d.lines
    )
    if endnotes:
        footnotes += tuple(
            Footnote(e.number, e.page, join_lines(e.lines, compounds, vocabulary), marker_page=e.marker_page)
            for e in endnotes.notes
        )
    check_lengths([(f.number, f.page, f.text) for f in footnotes])
    out_sections = tuple(_section(s) for s in sections if join_text(s.parts))
    return ParsedDocument(
        name=path.name,
        source=str(path),
        sha256=file_sha256(path),
        pages=len(pages),
        sections=out_sections,
        footnotes=footnotes,
        dropped_headers=len(running.headers),
        dropped_footers=len(running.footers),
        dropped_by_rule=tuple(sorted(running.by_rule.items())),
    )


def _column_blocks(lines: list[Line]) -> list[list[Line]]:
    """A page's lines in runs of one column each (the whole page where it is set in one column)."""
    blocks: list[list[Line]] = []
    for ln in lines:
        if blocks and blocks[-1][-1].column == ln.column:
            blocks[-1].append(ln)
        else:
            blocks.append([ln])
    return blocks


def _path(stack: list[Heading]) -> tuple[str, ...]:
    """The section path: the titles of the open headings, less the run-on list items (body text)."""
    return tuple(h.title for h in stack if not h.runs_on)


def _add_contents(listed: list[Line], draft: _SectionDraft | None, sections: list[_SectionDraft]) -> _SectionDraft:
    """Append a page's table-of-contents lines to the one ``Contents`` section (made on its first line)."""
    page = listed[0].page
    if draft is None:
        draft = _SectionDraft((listed[0].text.strip(),), page, page)
        sections.append(draft)
    elif page != draft.page_end:
        draft.breaks.extend([draft.length()] * (page - draft.page_end))
        draft.page_end = page
    for ln in listed:
        if draft.parts:
            draft.parts.append("\n")
        draft.parts.append(ln.text)
        draft.lines += 1
    return draft


def _opinion(text: str, lines: list[Line], index: int, has_line_numbers: bool) -> str | None:
    """The opinion a paragraph's first line opens (with the next line, for names printed over two)."""
    if not text[:1].isupper() and not text[:1].isdigit() and text[:1] != "[":
        return None
    title = opinion_title(text)
    # names printed over two lines break after a comma or "and" ("JUSTICE BREYER, JUSTICE SOTOMAYOR, and" /
    # "JUSTICE KAGAN, dissenting."); a lone "OPINION" or "MEMORANDUM" over "VOSS, Circuit Judge:" joins nothing
    first = text.rstrip()
    if (
        title is None
        and index + 1 < len(lines)
        and not first.endswith(".")
        and ("," in first or first.endswith(" and"))
    ):
        title = opinion_title(f"{text} {strip_line_number(lines[index + 1].text, has_line_numbers)}")
    return title


# words a title cannot end on: the line after one carries the title on ("…made under Division 3 of" / "Part 3")
_OPEN_END = re.compile(
    r"(?:^|\s)(?:of|the|a|an|and|or|to|for|in|on|under|by|with|from|into|at|as|between|against|within|upon)$"
)


# An Act's note under a subsection ("Note:", "Note 2:", "Example:"), set smaller than the body.
_NOTE_LABEL = re.compile(r"^\s*(?:Notes?|Examples?)(?:\s+\d{1,2})?:\s")
# a heading's own number at a line's start: "1.1", "2.3.1", "4.", "(a)", "B.", "IV."
_OWN_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)+\.?|\d+\.|\([A-Za-z0-9]{1,4}\)|[A-Z]\.|[IVXL]{1,5}\.)\s+\S")


def _continues_title(prev: Line | None, ln: Line, heading: Heading, current: _SectionDraft) -> bool:
    """A bold or larger line right under an unfinished heading line of the same style continues it.

    A line that opens a named level (``Part 3``, ``Chapter 2``, ``SEC. 5``) continues the title only where
    the title plainly has not ended: the line is set at the title's own line pitch right under it, and the
    title stops on a word no title ends on (``21 Continuing offences … under Division 3 of`` / ``Part 3``).
    A ``Part 4—Review`` line set apart from what precedes it, or under a finished title, opens its Part.
    A line that opens with a number of its own (``1.1 Definitions`` right under ``1. DEFINITIONS AND
    INTERPRETATION``) is a heading of its own, never the title's next line.
    """
    if _OWN_NUMBER.match(ln.text):
        return False
    if heading.kind in RANKED_KINDS:
        if prev is None or prev.top - ln.top > 1.5 * ln.height or not _OPEN_END.search(prev.text.rstrip()):
            return False
    elif not (heading.kind == "bold" or heading.kind.startswith("size")):
        return False
    return (
        prev is not None
        and current.lines == current.title_lines > 0
        and prev.page == ln.page
        and abs(prev.height - ln.height) < 0.5
        and prev.bold == ln.bold
        and prev.top - ln.top < 2.5 * ln.height
        # a period ends the title, unless inside an open parenthesis ("… (Pub. L." / "97-123)")
        and (not prev.text.rstrip().endswith((".", ":")) or prev.text.count("(") > prev.text.count(")"))
    )


def _follows_closely(prev: Line | None, ln: Line, pitch: float) -> bool:
    """``ln`` is the next line of ``prev``'s block on the same page: no blank line between them (the
    enrolled bill's double-spaced lines count as one block)."""
    return prev is not None and prev.page == ln.page and prev.bottom - ln.top <= 1.6 * pitch


def _append_separator(
    current: _SectionDraft, sep: str, following: str, compounds: set[str], words: set[str] = frozenset()
) -> None:
    """Separate the ``following`` line with ``sep``, or join it where the line breaks inside a word, a figure or
    a number range (:func:`~lclfqa.ingest.textjoin.join_at_break`; across a paragraph gap only a word PDFium
    marked as broken)."""
    joined = join_at_break(current.parts[-1], following, compounds, words, sep == "\n\n") if current.parts else None
    if joined is None:
        current.parts.append(sep)
    else:
        current.parts[-1] = joined
