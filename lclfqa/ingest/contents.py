"""A table of contents, recognised and kept as one block instead of a run of empty sections.

A table of contents opens with a line that says so (``Contents``, ``Table of Contents``) and lists the
document's headings, usually with dot leaders and page numbers (``5 Services contract.......3``). It
ends where the document itself begins: the first entry's heading printed again as body text (``Part
1—Preliminary 1`` in the list, ``Part 1—Preliminary`` where Part 1 starts). Without that echo, the
block runs while the lines look like entries (a page number or dot leaders at the end) and stops at
the first run of three lines that do not.
"""

from __future__ import annotations

import re

from lclfqa.ingest.layout import Line

_OPENS = re.compile(r"^\s*(?:table\s+of\s+)?contents\s*$", re.I)
_LEADERS = re.compile(r"(?:\s*[.·…_]{3,}\s*|\s+)(?:\d{1,4}|[ivxlc]{1,6})\s*$|[.·…]{3,}\s*$", re.I)
MAX_SHARE = 0.3  # a table of contents takes at most this share of the document's lines


def entry_key(text: str) -> str:
    """An entry's heading without dot leaders and page number, lower-cased: what the body prints again."""
    text = _LEADERS.sub("", text.strip())
    return re.sub(r"\s+", " ", text).strip().lower()


def find_contents(lines: list[Line]) -> set[int]:
    """The ids of the lines of the document's table of contents (its ``Contents`` line first); empty if none."""
    limit = max(40, int(MAX_SHARE * len(lines)))
    for start, ln in enumerate(lines):
        if not _OPENS.match(ln.text):
            continue
        entries = lines[start + 1 : start + 1 + limit]
        first = next((x for x in entries if entry_key(x.text)), None)
        if first is None:
            return set()
        key = entry_key(first.text)
        end = None
        for i, x in enumerate(entries):
            if x is not first and entry_key(x.text) == key and x.page > first.page and not _LEADERS.search(x.text):
                end = i
                break
        if end is None:
            end = _last_entry(entries)
        return {id(x) for x in lines[start : start + 1 + end]}
    return set()


def _last_entry(entries: list[Line]) -> int:
    """How many lines of ``entries`` look like a table of contents, up to three lines in a row that do not."""
    misses = 0
    last = 0
    for i, x in enumerate(entries):
        if _LEADERS.search(x.text):
            last = i + 1
            misses = 0
        else:
            misses += 1
            if misses >= 3:
                break
    return last
