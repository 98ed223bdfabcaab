"""A cheap check that a PDF's cross-reference offsets point at its objects.

PDFium repairs a damaged PDF silently: with 4 KB of garbage spliced into the middle it rebuilds the
cross-reference table by scanning and parses what it can, so pages can come out with their headings or
text lost and nothing says so. A well-formed file's last ``startxref`` points at its ``xref`` table (or
cross-reference stream object), and every in-use entry of that table points at ``N G obj`` for the same
object number; bytes inserted, cut or overwritten before them move or break those targets. Reading
only the offsets named (a few bytes each), this finds such damage in milliseconds, and the ingest then
reports the document as damaged instead of indexing it without a word.
"""

from __future__ import annotations

import re
from pathlib import Path

_SILENT = "(PDFium repairs such files silently, and text can be lost)"
_LINEARIZED_RE = re.compile(rb"/Linearized\s+[\d.]+.{0,200}?/L\s+(\d+)", re.S)
_PREV_RE = re.compile(rb"/Prev\s+(\d+)")
_STARTXREF_RE = re.compile(rb"startxref\s+(\d+)\s+%%EOF", re.S)
_OBJ_RE = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_SUBSECTION_RE = re.compile(rb"\s*(\d+)\s+(\d+)\s*")
_ENTRY_RE = re.compile(rb"(\d{10}) (\d{5}) ([nf])")
#: Entries checked at most (each is one seek and a 32-byte read).
MAX_ENTRIES = 20_000


def pdf_damage(path: str | Path) -> str | None:
    """Why ``path``'s cross-reference data does not match its bytes, or ``None`` when it does.

    Checks: a linearized file's recorded length (``/L``); the last ``startxref`` and every earlier
    section it chains to (``/Prev``) point at a table or stream; each table entry points at its object.
    Cross-reference streams are compressed and their entries are not checked, so ``None`` is not a proof
    of health; a message is proof of damage.
    """
    with open(path, "rb") as f:
        f.seek(0, 2)
        size = f.tell()
        f.seek(0)
        linearized = _LINEARIZED_RE.search(f.read(1024))
        if linearized and int(linearized.group(1)) != size:
            return (
                f"the file is {size} bytes but records {int(linearized.group(1))} (/L): bytes were inserted or "
                f"cut {_SILENT}"
            )
        f.seek(max(0, size - 4096))
        found = list(_STARTXREF_RE.finditer(f.read()))
        if not found:
            return "no 'startxref … %%EOF' at the end: the file is truncated or damaged"
        offset: int | None = int(found[-1].group(1))
        seen: set[int] = set()
        while offset is not None and offset not in seen and len(seen) < 64:
            seen.add(offset)
            if offset >= size:
                return f"a cross-reference offset ({offset}) lies past the end of the file ({size} bytes)"
            f.seek(offset)
            head = f.read(1024)
            if _OBJ_RE.match(head):  # a cross-reference stream: compressed, entries not checked
                prev = _PREV_RE.search(head.split(b"stream", 1)[0])
            elif head.lstrip().startswith(b"xref"):
                f.seek(offset + head.index(b"xref") + 4)
                problem = _check_table(f, offset)
                if problem:
                    return problem
                prev = _PREV_RE.search(f.read(2048).split(b">>", 1)[0])
            else:
                return (
                    f"the cross-reference offset {offset} does not point at a cross-reference table: bytes were "
                    f"inserted, cut or overwritten {_SILENT}"
                )
            offset = int(prev.group(1)) if prev else None
    return None


def _check_table(f, offset: int) -> str | None:  # noqa: ANN001 - a binary file
    checked = 0
    while checked < MAX_ENTRIES:
        line_start = f.tell()
        header = f.read(40)
        m = _SUBSECTION_RE.match(header)
        if not m or header.lstrip().startswith(b"trailer"):
            f.seek(line_start)
            return None
        first, count = int(m.group(1)), int(m.group(2))
        f.seek(line_start + m.end())
        table = f.read(20 * count + 16)
        found = list(_ENTRY_RE.finditer(table))[:count]
        if len(found) != count:
            return f"the cross-reference table at {offset} is malformed (damaged file)"
        entries = [(int(e.group(1)), e.group(3)) for e in found]
        after = line_start + m.end() + (found[-1].end() if found else 0)
        for number, (obj_offset, kind) in enumerate(entries, first):
            if kind != b"n" or number == 0:
                continue
            f.seek(obj_offset)
            m_obj = _OBJ_RE.match(f.read(32))
            if not m_obj or int(m_obj.group(1)) != number:
                return (
                    f"object {number} is not at offset {obj_offset}, where its cross-reference entry points: "
                    f"bytes were inserted, cut or overwritten {_SILENT}"
                )
            checked += 1
            if checked >= MAX_ENTRIES:
                return None
        f.seek(after)
    return None
