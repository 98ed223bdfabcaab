"""Footnotes: the zone of small lines at a page's foot, split into notes by their markers."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from lclfqa.ingest.layout import Line

_RULE = re.compile(r"^[\s—–_\-‐]{4,}$")
_RULE_PREFIX = re.compile(r"^\s*[—_]{4,}\s*")

# --- footnotes -------------------------------------------------------------------------------

_FOOTNOTE_START = re.compile(r"^\s*(\d{1,3}|[*†‡§¶]{1,3}|\(\d{1,3}\))\s*(?=\S)")  # "(4)" only raised
_SPACED_START = re.compile(r"\s+[A-Z“\"‘(\[]")  # after the number: "25 The…", not "25." or "25 U. S."
_SET_OFF = re.compile(r"\.?\s+\S")  # "15 cl 1 of…", "15. eg, …": the number stands apart from the text
_CONTINUES = re.compile(r"^\W*(?:\w+\s+){0,3}continue[sd]?\b.{0,30}$", re.I)
ZONE_TOP = 0.75  # notes fill at most the lower three quarters of a page
HANGING = 8.0  # points: a line indented this much past its note's first line continues the note
TOO_LONG = 3000  # characters: a note this long most likely swallowed the notes after it

log = logging.getLogger(__name__)


@dataclass
class FootnoteDraft:
    number: str
    page: int
    lines: list[str] = field(default_factory=list)
    x0: float = 0.0  # where the note's first line starts (continuations may hang indented)
    height: float = 0.0  # the size of the note's first line
    end_page: int = 0  # the page of the note's last line so far
    column: int = 0  # the column of the note's first line (``Line.column``)


@dataclass
class FootnoteState:
    """What the splitter knows on a page: the document's notes so far and the markers the page cites."""

    drafts: list[FootnoteDraft] = field(default_factory=list)
    cited: set[str] = field(default_factory=set)
    citing: set[str] | None = None  # the numbers the body cites on this page and the one before (None: unchecked)
    letters: set[str] = field(default_factory=set)  # raised letters paired with notes (:func:`letter_markers`)

    def next_number(self) -> str | None:
        """The marker the next note should carry: one more than the last numbered note."""
        last = self.drafts[-1] if self.drafts else None
        if last is None:
            return "1"
        return str(int(last.number) + 1) if last.number.isdigit() else None


NOTE_SYMBOLS = frozenset("*†‡§¶")


def is_marker(mark: str, letters: Collection[str] = frozenset()) -> bool:
    """Whether a raised ``mark`` is a note marker: a number, note symbols (``*†‡§¶``), or one of
    the raised ``letters`` paired with notes (:func:`letter_markers`); a raised letter not among them is an
    ordinal's (``1ˢᵗ``) or a unit's. What the body cites (:func:`page_markers`) passes ``letters`` only for a
    mark inside a line, since a letter opening a line is its note's own mark."""
    return bool(mark) and (mark.isdigit() or set(mark) <= NOTE_SYMBOLS or mark in letters)


def page_markers(lines: list[Line], letters: set[str] = frozenset()) -> set[str]:
    """The footnote markers a page's body cites: its superscript numbers and symbols, and the raised
    ``letters`` paired with notes (:func:`letter_markers`) inside a line (not a note's own, opening it)."""
    out = set()
    for ln in lines:
        for a, b in ln.superscripts:
            marker = ln.text[a:b].strip()
            if is_marker(marker, letters if a > 0 else ()):
                out.add(marker)
    return out


_BRACKETED_CITE = re.compile(r"\[(\d{1,3})\]")


def body_citations(lines: list[Line]) -> set[str]:
    """The note numbers a page's text cites: raised numbers inside a line (not a note's own number at its
    start, ``1 See`` or ``(1) OJ``), and bracketed ones (``imparlance[63]``, a marker set inline)."""
    out = set()
    for ln in lines:
        for a, b in ln.superscripts:
            if a > 1 or (a == 1 and ln.text[0] != "("):
                out.add(ln.text[a:b].strip())
        out.update(_BRACKETED_CITE.findall(ln.text))
    return out


def cites_markers(lines: list[Line]) -> bool:
    """Whether the text cites any note: a raised number or note symbol inside a line (not opening it).

    No marker, no note: a document whose text cites none has no footnotes, whatever is printed small
    at its pages' feet (an Act's numbered subsections, a form's numbered lines).
    """
    for ln in lines:
        for a, b in ln.superscripts:
            if a > 0 and is_marker(ln.text[a:b].strip()):
                return True
    return False


_GLUED = re.compile(r"(?:(?<=[^\W\d_A-Z])|(?<=[.,;:)\]”’\"]))(\d{1,3})(?=[\s.,;:)]|$)")
_ABBREVIATION = re.compile(  # a word a number follows after its period: "p.4", "No.2", "para.3"
    r"(?:^|\W)([^\W\d_]{1,2}|nos?|pp|paras?|arts?|secs?|regs?|sch|vol|fig|ch|pt|cl|div|fn|item|rule|ibid|cit)\.$",
    re.I,
)
_NOTE_START = re.compile(r"^\s*(\d{1,3})\.?\s+\S")
# "…in force.[1] The purchaser…" and "[1] It is unnecessary…" at the foot: markers and notes in brackets
_BRACKET_GLUED = re.compile(r"(?<=[^\s\[\d])\[(\d{1,3})\](?=[\s.,;:)]|$)")
_BRACKET_NOTE_START = re.compile(r"^\s*\[(\d{1,3})\]\s+(?=\S)")
GLUED_PAIRS = 2  # pairs of a plain marker and its note start a document needs before any counts


def glued_markers(pages: list[list[Line]], heights: list[float]) -> int:
    """Note markers printed in the body's own type on its baseline (``statutory.1 On``, ``hearing,2 and``, or
    in brackets, ``in force.[1] The``), where the note starts below confirm them (``1 The complaint …``,
    ``[1] It is …``); returns how many were found (0: none, nothing changed).

    For a text that cites no raised marker. A candidate is a number glued to a word or its punctuation
    (not to a capital, ``W2``, ``CO2``; not to a number, ``2.5``; not after an abbreviation, ``p.4``,
    ``No.2``) that is the marker the sequence expects next (1, 2, 3 … through the document, or 1 again on
    a new page), and it counts only where a line below it on its page, in the page's lower three quarters,
    opens with that number (``1 The complaint …``): a pairing. With at least ``GLUED_PAIRS`` pairings, each
    paired marker and its note's number are recorded as the lines' small runs (``Line.superscripts``), and
    the notes are found as for raised markers; with fewer, nothing is (a numbered line under ``Act,1`` once).
    Bracketed markers pair only with notes opening in brackets, and the brackets around a note's own number
    are dropped (its number is the note's, its text what follows).
    """
    found = _glued_pairs(pages, heights, _GLUED, _NOTE_START)
    bracketed = False
    if len(found) < GLUED_PAIRS:
        found, bracketed = _glued_pairs(pages, heights, _BRACKET_GLUED, _BRACKET_NOTE_START), True
    if len(found) < GLUED_PAIRS:
        return 0
    for ln, span, note, number in found:
        ln.superscripts = sorted([*ln.superscripts, span])
        if bracketed:  # "[1] It is …" → "1 It is …", its number marked as the note's own
            lead = len(note.text) - len(note.text.lstrip())
            digits = note.text[number[0] : number[1]]
            note.text = note.text[:lead] + digits + " " + _BRACKET_NOTE_START.sub("", note.text, count=1)
            number = (lead, lead + len(digits))
        if number not in note.superscripts:
            note.superscripts = sorted([*note.superscripts, number])
    return len(found)


def _glued_pairs(
    pages: list[list[Line]], heights: list[float], glued: re.Pattern, note_start: re.Pattern
) -> list[tuple[Line, tuple[int, int], Line, tuple[int, int]]]:
    """The pairings :func:`glued_markers` counts: a marker ``glued`` finds in a line, the next in sequence, and
    the line below it on its page that opens with its number (``note_start``): (line, the marker's span, the
    note's line, the span of the note's number)."""
    expected = 1
    pairs: list[tuple[Line, tuple[int, int], Line, tuple[int, int]]] = []
    for lines, page_h in zip(pages, heights, strict=True):
        starts: dict[int, list[int]] = {}
        for i, ln in enumerate(lines):
            m = note_start.match(ln.text)
            if m and ln.bottom <= ZONE_TOP * page_h:
                starts.setdefault(int(m.group(1)), []).append(i)
        if not starts:
            continue
        on_page = False
        for i, ln in enumerate(lines):
            for m in glued.finditer(ln.text):
                n = int(m.group(1))
                if n != expected and not (n == 1 and not on_page):
                    continue
                a, b = m.span(1)
                before = ln.text[:a]
                if before[-1:] in ".,;:" and (before[-2:-1].isdigit() or _ABBREVIATION.search(before)):
                    continue
                below = [k for k in starts.get(n, ()) if k > i]
                if not below:
                    continue
                note = lines[below[0]]
                start = note_start.match(note.text)
                assert start is not None
                pairs.append((ln, (a, b), note, start.span(1)))
                expected, on_page = n + 1, True
    return pairs


_LETTER_START = re.compile(r"^\s*([a-z])\s+(?=\S)")
LETTER_PAIRS = 2  # pairs of a raised letter and its note a document needs before any counts


def _raised_letter(ln: Line) -> str | None:
    """The lower-case letter a line opens with, printed raised and set off by a space (``ᵃ Harcourt …``)."""
    m = _LETTER_START.match(ln.text)
    if m is None or not ln.superscripts or ln.superscripts[0] != m.span(1):
        return None
    return m.group(1)


def _cited_letter(text: str, a: int, b: int) -> str | None:
    """The raised run ``text[a:b]`` as a note's letter: one lower-case letter glued to a word or its
    punctuation (``rule.ᵃ``, ``appealᵇ``), not opening the line, not after a space, a digit or a capital
    (``2ᵈ``, ``Mᵉ``) and not before a letter or digit; else ``None``."""
    if b - a != 1 or a == 0 or not "a" <= text[a] <= "z":
        return None
    before = text[a - 1]
    if before.isspace() or before.isdigit() or before.isupper() or (b < len(text) and text[b].isalnum()):
        return None
    return text[a]


def letter_markers(pages: list[list[Line]], heights: list[float]) -> set[str]:
    """Note markers printed as raised lower-case letters (``rule.ᵃ``: a table's notes, some statutes'),
    where the notes below open with the same raised letter; returns the letters paired (empty: none).

    For a text that cites no raised number or symbol. A raised letter is also an ordinal's or a title's
    ending (``2ⁿᵈ``, ``1ˢᵗ``, ``Mᵐᵉ``) or an exponent, so it counts only as a pairing: a single raised letter
    inside a line (:func:`_cited_letter`) that is the letter the sequence expects next (a, b, c … through
    the document, or ``a`` again on a new page), with a line below it on its page, in the page's lower three
    quarters, that opens with that letter raised (``ᵃ Harcourt …``). With at least ``LETTER_PAIRS`` pairings
    the letters paired are the document's markers (the splitter opens a note at a line that opens with one
    raised, in sequence, where the page's body cites it); with fewer, none is.
    """
    expected = "a"
    paired: list[str] = []
    for lines, page_h in zip(pages, heights, strict=True):
        starts: dict[str, list[int]] = {}
        for i, ln in enumerate(lines):
            letter = _raised_letter(ln)
            if letter is not None and ln.bottom <= ZONE_TOP * page_h:
                starts.setdefault(letter, []).append(i)
        if not starts:
            continue
        on_page = False
        for i, ln in enumerate(lines):
            for a, b in ln.superscripts:
                letter = _cited_letter(ln.text, a, b)
                if letter is None or (letter != expected and not (letter == "a" and not on_page)):
                    continue
                if any(k > i for k in starts.get(letter, ())):
                    paired.append(letter)
                    expected, on_page = chr(ord(letter) + 1), True
    return set(paired) if len(paired) >= LETTER_PAIRS else set()


def _opens_lettered(ln: Line, state: FootnoteState) -> bool:
    """Whether ``ln`` opens a note marked by a raised letter (:func:`letter_markers`): it opens with one of
    the document's paired letters, raised, that the page's body cites, next in sequence after the last
    note's letter (or ``a`` again on a new page)."""
    letter = _raised_letter(ln) if state.letters else None
    if letter is None or letter not in state.letters or letter not in state.cited:
        return False
    last = state.drafts[-1] if state.drafts else None
    if last is None or last.number not in state.letters:
        return True
    return letter > last.number or (letter == "a" and last.page != ln.page)


def footnote_zone(lines: list[Line], limit: float, page_h: float, state: FootnoteState, body: float = 0.0) -> int:
    """Index of the first footnote line of the page (``len(lines)`` when there is none).

    ``limit`` is the line size footnotes stay below (from the document's size clusters); ``body`` is the
    page's body size, for notes found by their markers (:func:`_marked_start`).
    """
    for i in range(len(lines) - 1, -1, -1):  # a rule in the lower part opens the zone
        ln = lines[i]
        if ln.bottom > ZONE_TOP * page_h:
            break
        if _RULE.match(ln.text) or _RULE_PREFIX.match(ln.text):
            below = lines[i + 1 :] if _RULE.match(ln.text) else lines[i:]
            if below and all(x.height < limit for x in below):
                return i
            break
    start = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        ln = lines[i]
        if start == len(lines) == i + 1 and _CONTINUES.match(ln.text):
            continue  # "(Footnote continues on next page)" under the notes, in the body size
        if ln.height >= limit or ln.bottom > ZONE_TOP * page_h:
            break
        start = i
    # No rule above: keep the zone only from a line that opens with a footnote number, or from the lines of
    # a note that runs on from the page before.
    small = start
    raised_only = raised_style(lines[small:])
    while start < len(lines) and not _opens_note(lines[start], state, first=True, raised_only=raised_only):
        start += 1
    if start > small and (_runs_on(lines[small], state) or _leads_notes(lines, small, start, state)):
        return small
    if start == len(lines):
        start = _marked_start(lines, page_h, state, body)
    return _continued_start(lines, start, page_h, state, body)


def _runs_on(ln: Line, state: FootnoteState) -> bool:
    """Whether the small line ``ln``, the first at its page's foot and no note's start, goes on with the
    last note: that note began on an earlier page, stopped mid-sentence (no ``.``, ``)``, ``”`` at its end)
    and is set in ``ln``'s size."""
    last = state.drafts[-1] if state.drafts else None
    return (
        last is not None
        and last.page < ln.page
        and abs(last.height - ln.height) < 0.5
        and bool(last.lines)
        and not last.lines[-1].rstrip().endswith((".", ")", "”", '"'))
    )


LEAD_STEP = 1.5  # notes' line pitches: the widest step from line to line in a note's run-on part and on


def _leads_notes(lines: list[Line], small: int, start: int, state: FootnoteState) -> bool:
    """Whether the small lines ``lines[small:start]``, at the foot above the page's first note, go on with the
    last note where its part on the page before ended with a full sentence (where it stopped mid-sentence,
    :func:`_runs_on` says so).

    The last note's last line was on the page before (that page's notes ended with it); the lines are set in
    its size, as is the first note under them; and they are one block with that note: each step from line to
    line, down to the note's first line, is at most ``LEAD_STEP`` times the notes' line pitch (the median
    step between the lines of the run-on part and between those of the notes, each apart), and the white
    space between them is narrower than the gap that sets them off from the body above. A small block
    quotation or caption in the body, with a gap under it, is no note's.
    """
    last = state.drafts[-1] if state.drafts else None
    first = lines[small]
    if start >= len(lines) or last is None or last.end_page != first.page - 1 or not last.lines:
        return False  # no note under them to be one block with
    if any(abs(ln.height - last.height) >= 0.5 for ln in lines[small : start + 1]):
        return False
    steps = sorted(
        a.top - b.top
        for part in (lines[small:start], lines[start:])
        for a, b in itertools.pairwise(part)
        if abs(a.height - b.height) < 0.5
    )
    pitch = steps[(len(steps) - 1) // 2] if steps else 1.2 * last.height
    lead = [a.top - b.top for a, b in itertools.pairwise(lines[small : start + 1])]
    if pitch <= 0 or min(lead) <= 0:
        return False
    above = lines[small - 1].bottom - first.top if small > 0 else float("inf")
    white = max(a.bottom - b.top for a, b in itertools.pairwise(lines[small : start + 1]))
    return max(lead) <= LEAD_STEP * pitch and white < above


def _continued_start(lines: list[Line], start: int, page_h: float, state: FootnoteState, body: float) -> int:
    """Where a note set in the body's own size that runs on from the page before goes on: the lines right
    above ``start`` (the page's first note, or its end), else ``start``.

    Its size does not tell such a line from the body; its spacing does. The run of body-size lines at the
    column's foot set tighter than the body (at most 0.75 of the body's median line pitch: a note single-
    spaced under a double-spaced body), under a gap of at least 1.75 pitches, its lines after the first at
    the body's left margin (an indented block quotation is the body's), in the page's lower three quarters,
    goes on with the last note when that note is in the body's size and began on an earlier page. A single
    such line needs the note to have stopped mid-sentence.
    """
    last = state.drafts[-1] if state.drafts else None
    if last is None or start < 2 or body <= 0 or abs(last.height - body) > 0.5 or last.page >= lines[0].page:
        return start
    body_size = [abs(ln.height - body) < 0.5 for ln in lines[:start]]
    pairs = zip(itertools.pairwise(lines[:start]), itertools.pairwise(body_size), strict=True)
    pitches = sorted(a.top - b.top for (a, b), (x, y) in pairs if x and y)
    if not pitches or not all(body_size[-1:]):
        return start
    pitch = pitches[len(pitches) // 2]
    k = start - 1
    if lines[k].bottom > ZONE_TOP * page_h or lines[k].first_char_small:
        return start
    while k > 0 and body_size[k - 1] and 0 < lines[k - 1].top - lines[k].top <= 0.75 * pitch:
        k -= 1
    if k == 0 or lines[k - 1].top - lines[k].top < 1.75 * pitch or lines[k].bottom > ZONE_TOP * page_h:
        return start
    margin = min(ln.x0 for ln in lines[:k])
    if any(abs(ln.x0 - margin) > 2 for ln in lines[k + 1 : start]) or lines[k].first_char_small:
        return start
    if k == start - 1 and last.lines and last.lines[-1].rstrip().endswith((".", ")", "”", '"')):
        return start  # one line: only where the note stopped mid-sentence
    return k


def opening_mark(ln: Line) -> str | None:
    """The raised mark ``ln`` opens with, text following it (a note's own: ``¹ See …``, ``ᵃ Harcourt …``),
    else ``None``."""
    if not ln.superscripts or ln.superscripts[0][0] > 0:
        return None
    a, b = ln.superscripts[0]
    return ln.text[a:b].strip() if b < len(ln.text) else None


def _raised_number(ln: Line) -> str | None:
    """The number a line opens with when it is printed raised or small (a note's own marker), else ``None``."""
    mark = opening_mark(ln)
    return mark if mark is not None and mark.isdigit() else None


_PLAIN_START = re.compile(r"^\s*(\d{1,3})\.?\s+(?=\S)")


def _smaller_number(lines: list[Line], i: int, body: float) -> str | None:
    """The plain number ``lines[i]`` opens with when it and every line after it on the page are set
    smaller than the body (``12 See …`` in 11 pt under a 12 pt body), else ``None``."""
    m = _PLAIN_START.match(lines[i].text)
    if m is None or body <= 0 or any(ln.height >= body - 0.3 for ln in lines[i:]):
        return None
    return m.group(1)


_DOTTED_START = re.compile(r"^\s*(\d{1,3})\.\s+(?=\S)")


def _dotted_number(lines: list[Line], i: int, cited: set[str], expected: str | None) -> str | None:
    """The number ``lines[i]`` opens with when the page's foot from it on holds its notes numbered ``1.`` on the
    baseline (``1. The earlier decisions …``), in the body's own size under a drawn rule the text cannot show,
    else ``None``.

    Neither size nor a raised number tells such notes; their numbers and their place do. The lines from
    ``lines[i]`` on that open ``N.`` carry exactly the numbers the body above cites as raised markers (from the
    next note on), in sequence, and ``lines[i]`` is set apart from the body above by a gap at least a line
    high and wider than any gap between the lines above it of its size (a paragraph's). A numbered list at the
    foot of a page that cites no such numbers (``1.``, ``2.`` under ``³`` and ``⁴``) is body text.
    """
    m = _DOTTED_START.match(lines[i].text)
    if m is None or i == 0:
        return None
    ln = lines[i]
    gap = lines[i - 1].bottom - ln.top
    if gap < ln.height:  # the cheap test first: most candidates sit right under the line above
        return None
    inner = [
        a.bottom - b.top
        for a, b in itertools.pairwise(lines[:i])
        if abs(a.height - ln.height) < 0.5 and abs(b.height - ln.height) < 0.5
    ]
    if any(g >= gap for g in inner):
        return None
    numbers = [int(d.group(1)) for x in lines[i:] if (d := _DOTTED_START.match(x.text))]
    low = int(expected) if expected is not None else 1
    want = sorted(int(n) for n in cited if n.isdigit() and int(n) >= low)
    if numbers != want or numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    return m.group(1)


def _marked_start(lines: list[Line], page_h: float, state: FootnoteState, body: float = 0.0) -> int:
    """Notes found by their markers where their size does not tell them (set in the body's own size, or
    in a second note size between the body's and the document's note size): the first line in the
    page's lower three quarters that opens with a number which the body above it cites as a raised
    marker and which is the next note in sequence — the number raised, or plain with that line and all
    below it smaller than the body, or ``N.`` on the baseline where the foot's ``N.`` lines are exactly the
    numbers cited (:func:`_dotted_number`) (``len(lines)`` when there is none).

    A note exists because the text cites it: the page's own body must cite the number before the note
    starts, so a numbered line of an Act or a list (no raised markers) never opens a note.
    """
    cited: set[str] = set()
    expected = state.next_number()
    for i, ln in enumerate(lines):
        number = _raised_number(ln)
        if number is None and cited:
            number = _smaller_number(lines, i, body) or _dotted_number(lines, i, cited, expected)
        if (
            number is not None
            and i > 0
            and ln.bottom <= ZONE_TOP * page_h
            and number in cited
            and (expected is None or int(number) >= int(expected))
        ):
            return i
        for a, b in ln.superscripts:
            marker = ln.text[a:b].strip()
            if marker.isdigit() and a > 0:
                cited.add(marker)
    return len(lines)


def _starts_raised(ln: Line) -> bool:
    """Whether ``ln``'s first characters are printed raised or small (a note's own marker, ``¹ See …``)."""
    return ln.first_char_small or bool(ln.superscripts and ln.superscripts[0][0] <= 1)


def _opens_raised(ln: Line) -> bool:
    """Whether ``ln`` opens with a number printed raised or small (``¹ See …``): a note's own marker."""
    m = _FOOTNOTE_START.match(_RULE_PREFIX.sub("", ln.text))
    return m is not None and m.group(1).isdigit() and _starts_raised(ln)


def raised_style(zone: list[Line]) -> bool:
    """Whether the notes of a page's foot open with raised numbers: one of its lines does (``¹ See …``).

    A note opens in the style the page's notes use. Where they open with raised numbers, a line that
    opens with a plain number is a note's line wrapped before a citation's volume or a date (``(1987)`` /
    ``2 Lloyd's Rep 114``, ``decided on`` / ``5 May 1999``), never a note of its own, even where that number
    is the next note's and the body cites it.
    """
    return any(_opens_raised(ln) for ln in zone)


def _opens_note(ln: Line, state: FootnoteState, first: bool = False, raised_only: bool = False) -> bool:
    """Whether ``ln`` starts a new note: its leading number, set off by a space, is the marker expected
    next or a later marker the page's body cites, whatever the case of the word after it ("15 cl 1 of");
    or it is a superscript number; or a ``1``/``*`` set off before a capital (numbering that restarts).
    A line indented past its note's first line (a hanging indent) continues the note. With ``raised_only``
    (the page's notes open with raised numbers, :func:`raised_style`) a plain number opens none."""
    text = _RULE_PREFIX.sub("", ln.text)
    m = _FOOTNOTE_START.match(text)
    if not m:
        return _opens_lettered(ln, state)
    number, rest = m.group(1), text[m.end(1) :]
    if state.citing is not None and number.strip("()").isdigit() and number.strip("()") not in state.citing:
        return False  # a note exists because the text cites it: "14 F. 4th 1" under note 13 goes on with it
    raised = _starts_raised(ln)
    if raised_only and number.isdigit() and not raised:
        return False  # "2 Lloyd's Rep 114" under "¹ See … (1987)": the note's line goes on
    if number.startswith("("):  # "(4) OJ C 53 …" opens a note only with its number raised; "(4) The" is a recital
        return bool(ln.superscripts and ln.superscripts[0][0] == 1)
    last = state.drafts[-1] if state.drafts else None
    same_column = last is not None and last.page == ln.page and last.column == ln.column
    if not first and same_column and ln.x0 > last.x0 + HANGING:
        return False  # indented under the note's first line: "127 CLR 454 at 471" continues the note
    expected = number == state.next_number()
    later = number.isdigit() and (last is None or not last.number.isdigit() or int(number) > int(last.number))
    if (expected or (later and number in state.cited)) and _SET_OFF.match(rest):
        return True
    if raised:
        return True
    if _SPACED_START.match(rest):
        return number in {"1", "*"} or (first and last is None)
    return False


BREAK_GAP = 1.5  # notes' line pitches: white space this wide, with a change of size, ends the notes


def notes_end(zone: list[Line]) -> int:
    """Where the notes of a page's foot end: the index in ``zone`` of the first line after them
    (``len(zone)`` when they run to the foot).

    A clear break ends the last note: a line set in another size than the line above it (by half a point
    or more) and set apart from it by more than ``BREAK_GAP`` times the notes' line pitch (the median
    distance between consecutive lines of one size in the zone; 1.2 times the line's size where there is
    none). It and what follows (a disclaimer, a firm's address in small print) are no note's text; a
    ``(continued on next page)`` line is left to the splitter, which skips it.
    """
    steps = sorted(
        a.bottom - b.bottom
        for a, b in itertools.pairwise(zone)
        if a.page == b.page and abs(a.height - b.height) < 0.5 and a.bottom > b.bottom
    )
    for i in range(1, len(zone)):
        prev, ln = zone[i - 1], zone[i]
        if abs(ln.height - prev.height) < 0.5 or _CONTINUES.match(ln.text) or ln.page != prev.page:
            continue
        pitch = steps[len(steps) // 2] if steps else 1.2 * prev.height
        if prev.bottom - ln.bottom > BREAK_GAP * pitch:
            return i
    return len(zone)


def _side_by_side(ln: Line, state: FootnoteState, opened: str | None) -> list[tuple[int, int]]:
    """The raised numbers inside the note line ``ln`` that open notes of their own, set side by side with
    the line's first (``¹ Ibid. ² Above, at p. 14.``): each after a space, followed by text, the next note in
    sequence (after ``opened``, the number the line opens with, or the last note) and cited by the page's
    body. A raised number inside a note that is not the next one cited (a reference) stays in its note."""
    if opened is not None:
        if not opened.isdigit():
            return []
        expected = int(opened) + 1
    else:
        nxt = state.next_number()
        if nxt is None or not state.drafts:
            return []
        expected = int(nxt)
    cuts = []
    for a, b in ln.superscripts:
        number = ln.text[a:b].strip()
        if a > 0 and ln.text[a - 1].isspace() and number == str(expected) and number in state.cited:
            if ln.text[b:].strip() and ln.text[:a].strip():
                cuts.append((a, b))
                expected += 1
    return cuts


def split_footnotes(zone: list[Line], page: int, state: FootnoteState) -> None:
    """Append the zone's footnotes to ``state.drafts`` (continuations extend the last draft; notes set side
    by side on one line, :func:`_side_by_side`, each open a draft)."""
    raised_only = raised_style(zone)
    for ln in zone:
        text = _RULE_PREFIX.sub("", ln.text).strip()
        if not text or _RULE.match(text) or _CONTINUES.match(text):
            continue
        last = state.drafts[-1] if state.drafts else None
        m = _FOOTNOTE_START.match(text) or (_LETTER_START.match(text) if state.letters else None)
        opens = bool(m and _opens_note(ln, state, raised_only=raised_only))
        cuts = [] if text != ln.text.strip() else _side_by_side(ln, state, m.group(1) if m and opens else None)
        if cuts:
            text = ln.text[: cuts[0][0]].strip()
        if m and opens:
            number = m.group(1).strip("()")
            first = text[m.end() :].strip().lstrip(".").strip()
            state.drafts.append(FootnoteDraft(number, page, [first], ln.x0, ln.height, column=ln.column))
        elif last is not None:
            last.lines.append(text)
        else:  # continuation of a footnote we never saw the start of
            state.drafts.append(FootnoteDraft("?", page, [text], ln.x0, ln.height, column=ln.column))
        for k, (a, b) in enumerate(cuts):
            end = cuts[k + 1][0] if k + 1 < len(cuts) else len(ln.text)
            note = FootnoteDraft(ln.text[a:b].strip(), page, [ln.text[b:end].strip()], ln.x0, ln.height)
            note.column = ln.column
            state.drafts.append(note)
        state.drafts[-1].end_page = page


def check_lengths(notes: list[tuple[str, int, str]]) -> list[tuple[str, int, int]]:
    """Notes longer than ``TOO_LONG`` characters, logged: a bug signal (a split that failed)."""
    long = [(number, page, len(text)) for number, page, text in notes if len(text) > TOO_LONG]
    for number, page, n in long:
        log.warning("footnote %s on page %d is %d characters long: check how the notes were split", number, page, n)
    return long
