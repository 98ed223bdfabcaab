"""Endnotes: a trailing block of ``[N]`` notes whose markers ``[N]`` stand in the text, turned into footnotes.

Web prints of judgments (AustLII) collect the notes at the end: the text cites ``…judgment of Nettle J[1].``
and the last pages list ``[1] At [308]-[311].``, ``[2] Securities Commission v…``. The block is the run of
lines from a line that opens with ``[1]`` to the end of the document, in which each note opens with the
next number in sequence (other lines continue the note before). It counts as endnotes only when the
text before it cites at least half of its numbers, in order: a judgment whose *paragraphs* are numbered
``[1]``, ``[2]``… has no such citations before its first paragraph. The markers are read in order, so a
paragraph reference (``at [308]``) between two markers is not taken for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lclfqa.ingest.layout import Line

_NOTE_START = re.compile(r"^\s*\[(\d{1,4})\]\s+(?=\S)")
_MARKER = re.compile(r"\[(\d{1,4})\]")
MIN_NOTES = 3
MIN_CITED = 0.5  # share of the notes whose marker must stand in the text before the block


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
    for start, ln in enumerate(lines):
        m = _NOTE_START.match(ln.text)
        if not m or m.group(1) != "1":
            continue
        notes = _split(lines[start:])
        if len(notes) < MIN_NOTES:
            continue
        markers, pages = _cite(lines[:start], len(notes))
        if len(pages) < MIN_CITED * len(notes):
            continue
        for note in notes:
            note.marker_page = pages.get(note.number)
        return Endnotes(notes, {id(x) for x in lines[start:]}, markers)
    return None


def _split(block: list[Line]) -> list[Endnote]:
    notes: list[Endnote] = []
    for ln in block:
        m = _NOTE_START.match(ln.text)
        if m and int(m.group(1)) == len(notes) + 1:
            notes.append(Endnote(m.group(1), ln.page, [ln.text[m.end() :].strip()]))
        else:
            notes[-1].lines.append(ln.text.strip())
    return notes


def _cite(body: list[Line], n_notes: int) -> tuple[dict[int, list[str]], dict[str, int]]:
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
    return markers, pages
