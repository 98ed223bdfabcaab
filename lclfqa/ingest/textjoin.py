"""Words broken at a line's end and lines joined into text: PDFium's hyphen mark resolved."""

from __future__ import annotations

import re

from lclfqa.ingest.layout import SOFT_HYPHEN, Line


def inline_compounds(lines: list[Line]) -> set[str]:
    """Hyphenated words the document prints inside a line (``cost-sharing``, ``low-income``), lower-cased.

    PDFium marks every hyphen at a line's end as a word break; when the two halves form one of these
    words, the hyphen is the word's own and stays (``COST-`` / ``SHARING``), else the word is joined
    (``Com-`` / ``pare``).
    """
    return {m.group(0).lower() for ln in lines for m in _COMPOUND.finditer(ln.text)}


_COMPOUND = re.compile(r"\b[^\W\d_]+(?:-[^\W\d_]+)+\b")
_LAST_WORD = re.compile(r"([^\W\d_]+)$")
_FIRST_WORD = re.compile(r"^\W*?([^\W\d_]+)")


def rejoin(left: str, right: str, compounds: set[str]) -> str:
    """What replaces PDFium's line-end hyphen mark between ``left`` and ``right``: ``-`` or nothing."""
    a, b = _LAST_WORD.search(left), _FIRST_WORD.match(right)
    return "-" if a and b and f"{a.group(1)}-{b.group(1)}".lower() in compounds else ""


def join_title(title: str, more: str, compounds: set[str] = frozenset()) -> str:
    """``title`` + ``more``: a word PDFium marked as broken at the line's end is joined back."""
    if title.endswith(SOFT_HYPHEN):
        head = title[: -len(SOFT_HYPHEN)]
        return head + rejoin(head, more, compounds) + more
    return f"{title} {more}"


def join_lines(lines: list[str], compounds: set[str] = frozenset()) -> str:
    """A footnote's lines as one paragraph, words broken at a line's end joined back."""
    out = ""
    for line in lines:
        if out.endswith(SOFT_HYPHEN):
            head = out[: -len(SOFT_HYPHEN)]
            out = head + rejoin(head, line, compounds) + line
        else:
            out = f"{out} {line}" if out else line
    return join_text([out])


def join_text(parts: list[str]) -> str:
    """The parts as one text; PDFium's line-end hyphen mark prints as the hyphen it is."""
    return "".join(parts).replace(SOFT_HYPHEN, "-").strip()
