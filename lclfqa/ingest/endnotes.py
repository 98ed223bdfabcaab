"""Endnotes: a trailing block of notes whose markers stand in the text, turned into footnotes.

Two styles are read. Web prints of judgments (AustLII) cite ``…judgment of Nettle J[1].`` and list
``[1] At [308]-[311].``, ``[2] Securities Commission v…`` on the last pages: ``[N]`` notes cited by
``[N]`` markers. Word-processed papers and memos cite with a superscript number (``…the rule¹ …``) and
list ``1. See …``, ``2. Ibid.`` at the end: ``N.`` notes cited by superscripts. The block is the run of
lines from a line that opens with the style's first note (``[1]``, ``1.``) to the end of the document,
in which each note opens with the next number in sequence (other lines continue the note before). It
counts as endnotes only when the text before it cites at least half of its numbers, in order: a
judgment whose *paragraphs* are numbered ``[1]``, ``[2]``… or ``1.``, ``2.``… has no such citations
before its first paragraph. The markers are read in order, so a paragraph reference (``at [308]``)
between two markers is not taken for one. A note longer than ``TOO_LONG`` characters means the run was
not a note block (a numbered list followed by the rest of the text), and so does a text whose
superscripts count far past the block's last note (the page footnotes of a document that ends with a
short numbered list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lclfqa.ingest.footnotes import TOO_LONG
from lclfqa.ingest.layout import Line

_BRACKETED = re.compile(r"^\s*\[(\d{1,4})\]\s+(?=\S)")  # "[12] Securities Commission v…"
_DOTTED = re.compile(r"^\s*(\d{1,4})\.\s+(?=\S)")  # "12. See Securities Commission v…"
_MARKER = re.compile(r"\[(\d{1,4})\]")
MIN_NOTES = 3
MIN_CITED = 0.5  # share of the notes whose marker must stand in the text before the block
OVERRUN = 1.1  # the text's superscripts may count at most this far past the block's last note


@dataclass
class Endnote:
    number: str
    page: int  # where the note is printed
    lines: list[str] = field(default_factory=list)
    marker_page: int | None = None  # where the text cites it


@dataclass
class Endnotes:
    """A document's endnote block: the lines it takes from the body and the markers that cite it."""

    notes: list[Endnote]
    block: set[int]  # ids of the lines of the block (no longer body text)
    markers: dict[int, list[str]]  # id of a body line -> the endnote numbers it cites


def find_endnotes(lines: list[Line]) -> Endnotes | None:
    """The endnote block of a document whose body lines, in reading order, are ``lines``; ``None`` if none."""
    headed = _find_headed(lines)
    if headed is not None:
        return headed
    for start_pattern, cite in ((_BRACKETED, _cite_bracketed), (_DOTTED, _cite_superscripts)):
        found = _find(lines, start_pattern, cite)
        if found is not None:
            return found
    return None


_NOTES_TITLE = re.compile(r"^\s*(?:end\s*notes|notes|foot\s*notes)\s*:?\s*$", re.I)
_NUMBERED = re.compile(r"^\s*(\d{1,4})\.?\s+(?=\S)")  # "12 See …", "12. See …"


def _note_number(ln: Line) -> tuple[str, str] | None:
    """The number a line of a notes section opens with — printed plain (``12 See``, ``12. See``) or raised
    (``¹²See``) — and the text after it."""
    if ln.superscripts and ln.superscripts[0][0] == 0:
        a, b = ln.superscripts[0]
        number = ln.text[a:b].strip()
        if number.isdigit() and ln.text[b:].strip():
            return number, ln.text[b:].strip().lstrip(".").strip()
    m = _NUMBERED.match(ln.text)
    return (m.group(1), ln.text[m.end() :].strip()) if m else None


def _find_headed(lines: list[Line]) -> Endnotes | None:
    """A section titled ``Notes``, ``Endnotes`` or ``Footnotes`` (its title alone on a line) whose lines
    number the notes 1, 2, 3 … to the end of the document — plain or raised numbers — and whose numbers
    the text before it cites with raised markers, in order; else the sections of :func:`_find_parts`."""
    for start in range(len(lines) - 1, 0, -1):
        if not _NOTES_TITLE.match(lines[start].text) or start + 1 >= len(lines):
            continue
        found = _headed_block(lines, start)
        if found is None or found[1] < len(lines):
            continue  # its notes end before the document does: a Part's notes, see _find_parts
        notes = found[0]
        markers, pages, counted = _cite_superscripts(lines[:start], len(notes))
        if len(notes) < MIN_NOTES or len(pages) < MIN_CITED * len(notes) or counted > OVERRUN * len(notes) + 1:
            break  # not cited as one block (numbers that restart: a Part's notes)
        for note in notes:
            note.marker_page = pages.get(note.number)
        return Endnotes(notes, {id(x) for x in lines[start:]}, markers)
    return _find_parts(lines)


def _headed_block(lines: list[Line], start: int) -> tuple[list[Endnote], int] | None:
    """The notes under the title ``lines[start]`` and the index of the first line after them, or ``None``
    (no note 1 right under the title, or a note past ``TOO_LONG`` characters).

    The notes end at the next notes title or at the first line set larger than their first line (by half
    a point or more): a heading, or a paragraph of a body set larger than its notes. An endnote block
    holds notes only, never the next Part's heading and text.
    """
    if start + 1 >= len(lines):
        return None
    first = _note_number(lines[start + 1])
    if first is None or first[0] != "1":
        return None
    size = lines[start + 1].height
    notes: list[Endnote] = []
    chars = 0
    for k in range(start + 1, len(lines)):
        ln = lines[k]
        if notes and (ln.height > size + 0.5 or _NOTES_TITLE.match(ln.text)):
            return notes, k
        opened = _note_number(ln)
        if opened is not None and int(opened[0]) == len(notes) + 1:
            notes.append(Endnote(opened[0], ln.page, [opened[1]]))
            chars = len(opened[1])
        else:
            notes[-1].lines.append(ln.text.strip())
            chars += len(ln.text) + 1
        if chars > TOO_LONG:
            return None
    return notes, len(lines)


def _find_parts(lines: list[Line]) -> Endnotes | None:
    """Endnotes printed after each Part or chapter, each under its own ``Notes`` title and numbered afresh
    from 1: every such section (:func:`_headed_block`) must be cited, in order, by the text between the
    section before it (or the document's start) and its title, as a single block is by the text before
    it; then all are taken, each with its own numbering. None taken unless every one is cited."""
    notes: list[Endnote] = []
    block: set[int] = set()
    markers: dict[int, list[str]] = {}
    done = 0  # where the text that cites the next section starts
    for start in range(1, len(lines)):
        if start < done or not _NOTES_TITLE.match(lines[start].text):
            continue
        found = _headed_block(lines, start)
        if found is None:
            continue
        part, end = found
        cited, pages, counted = _cite_superscripts(lines[done:start], len(part))
        if len(pages) < MIN_CITED * len(part) or counted > OVERRUN * len(part) + 1:
            return None
        for note in part:
            note.marker_page = pages.get(note.number)
        notes += part
        block |= {id(x) for x in lines[start:end]}
        markers |= cited
        done = end
    return Endnotes(notes, block, markers) if len(notes) >= MIN_NOTES else None


def _find(lines: list[Line], start_pattern: re.Pattern, cite) -> Endnotes | None:
    for start, ln in enumerate(lines):
        m = start_pattern.match(ln.text)
        if not m or m.group(1) != "1":
            continue
        notes = _split(lines[start:], start_pattern)
        if notes is None or len(notes) < MIN_NOTES:
            continue
        markers, pages, counted = cite(lines[:start], len(notes))
        if len(pages) < MIN_CITED * len(notes) or counted > OVERRUN * len(notes) + 1:
            continue
        for note in notes:
            note.marker_page = pages.get(note.number)
        return Endnotes(notes, {id(x) for x in lines[start:]}, markers)
    return None


def _split(block: list[Line], start_pattern: re.Pattern) -> list[Endnote] | None:
    """The notes of ``block``, or ``None`` as soon as one grows past ``TOO_LONG`` characters or a line is set
    larger than the first note (by half a point or more): a trailing note block holds notes only, and a
    heading or a body paragraph in it means the run was a numbered list in the text, not the notes."""
    notes: list[Endnote] = []
    size = 0
    for ln in block:
        if ln.height > block[0].height + 0.5:
            return None
        m = start_pattern.match(ln.text)
        if m and int(m.group(1)) == len(notes) + 1:
            notes.append(Endnote(m.group(1), ln.page, [ln.text[m.end() :].strip()]))
            size = len(notes[-1].lines[0])
        else:
            notes[-1].lines.append(ln.text.strip())
            size += len(notes[-1].lines[-1]) + 1
        if size > TOO_LONG:
            return None
    return notes


def _cite_bracketed(body: list[Line], n_notes: int) -> tuple[dict[int, list[str]], dict[str, int], int]:
    """The markers ``[1]``, ``[2]``… in reading order (each the next expected), by line; their pages."""
    markers: dict[int, list[str]] = {}
    pages: dict[str, int] = {}
    expected = 1
    for ln in body:
        for m in _MARKER.finditer(ln.text):
            if expected <= n_notes and int(m.group(1)) == expected:
                markers.setdefault(id(ln), []).append(m.group(1))
                pages[m.group(1)] = ln.page
                expected += 1
    return markers, pages, expected - 1


def _cite_superscripts(body: list[Line], n_notes: int) -> tuple[dict[int, list[str]], dict[str, int], int]:
    """The superscript numbers ``1``, ``2``… in reading order, by line; their pages; and how far the text's
    superscripts count in all (past ``n_notes`` when they are the page footnotes of another run), or how
    many raised numbers it holds when that is more (page notes numbered afresh on each page cite ``1``
    again and again: a numbered list after them is no endnote block)."""
    markers: dict[int, list[str]] = {}
    pages: dict[str, int] = {}
    expected = 1
    raised = 0  # every raised number in the text, in sequence or not (page notes numbered afresh)
    for ln in body:
        for a, b in ln.superscripts:
            number = ln.text[a:b].strip()
            raised += number.isdigit()
            if number.isdigit() and int(number) == expected:
                if expected <= n_notes:
                    markers.setdefault(id(ln), []).append(number)
                    pages[number] = ln.page
                expected += 1
    return markers, pages, max(expected - 1, raised)
