"""Words broken at a line's end and lines joined into text: PDFium's hyphen mark, and a printed hyphen
where the document's own words say the break is one word, resolved."""

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
    return "-" if a and b and _compound(a.group(1), b.group(1), compounds) else ""


# The suffixes that join "self" into one word ("selfish", "selfless", "selfsame", "selfhood").
_SELF_WORDS = re.compile(r"(?:ish|less|same|hood)(?:ly|ness|es|s)?", re.IGNORECASE)


def _compound(head: str, tail: str, compounds: set[str]) -> bool:
    """``head-tail`` is one hyphenated word: the document prints it so inside a line, or ``head`` is the
    prefix English always hyphenates (``self-`` / ``executing``, never ``selfexecuting``)."""
    if f"{head}-{tail}".lower() in compounds:
        return True
    # "self-" / "employed", "SELF-" / "EMPLOYED", and in a title "Self-" / "Employed"
    same_case = tail[:1].islower() or head.isupper() and tail.isupper() or head[:1].isupper() and tail[:1].isupper()
    return head.lower() == "self" and same_case and not _SELF_WORDS.fullmatch(tail)


_WORD = re.compile(r"[^\W\d_]+")
_HYPHEN_END = re.compile(r"(?<![^\W\d_]-)\b([^\W\d_]+)-$")  # "legisla-", not "paid-and-" nor "2020-"
_LOWER_START = re.compile(r"^([^\W\d_A-Z]+)\b")


def document_words(lines: list[Line]) -> set[str]:
    """Every word the document prints (lower-cased): the evidence that a hyphenated break joins into one."""
    return {w.lower() for ln in lines for w in _WORD.findall(ln.text)}


def hyphen_break(left: str, right: str, compounds: set[str], words: set[str]) -> str | None:
    """How a line ending in a printed hyphen joins the next (``legisla-`` / ``ture``): ``""`` when the two
    halves make a word the document prints whole elsewhere, ``"-"`` when it prints the compound with its
    hyphen inside a line (``anti-`` / ``money``), ``None`` when nothing says (a suspended ``paid- and``)."""
    a, b = _HYPHEN_END.search(left.rstrip()), _LOWER_START.match(right.lstrip())
    if not a or not b or b.group(1)[:1].isupper():
        return None
    if _compound(a.group(1), b.group(1), compounds):
        return "-"
    return "" if (a.group(1) + b.group(1)).lower() in words else None


_RANGE_END = re.compile(r"\d[-–]$")
_NUMBER_START = re.compile(r"^\s*\d")


_FIGURE_END = re.compile(r"\d,-$")
_THOUSANDS_START = re.compile(r"^\s*\d{3}(?!\d)")


def figure_break(left: str, right: str) -> bool:
    """A figure hyphenated after a thousands comma at the line's end (``$1,000,-`` / ``000, and``): it reads
    whole, ``$1,000,000``, the hyphen dropped."""
    return bool(_FIGURE_END.search(left.rstrip()) and _THOUSANDS_START.match(right))


def range_break(left: str, right: str) -> bool:
    """A number range broken at the line's end (``506 U. S. 263, 273–`` / ``274``, ``at 365-`` / ``366``): the
    two halves join with no space, as printed."""
    return bool(_RANGE_END.search(left.rstrip()) and _NUMBER_START.match(right))


def join_title(title: str, more: str, compounds: set[str] = frozenset()) -> str:
    """``title`` + ``more``: a word PDFium marked as broken at the line's end is joined back."""
    if title.endswith(SOFT_HYPHEN):
        head = title[: -len(SOFT_HYPHEN)]
        return head + rejoin(head, more, compounds) + more
    return f"{title} {more}"


def join_at_break(left: str, right: str, compounds: set[str], words: set[str], apart: bool = False) -> str | None:
    """``left`` made ready for ``right`` to follow it with nothing between, where the line breaks inside a word
    (PDFium's mark, kept as a hyphen in a compound the document prints whole; a printed hyphen the document's
    words join, ``legisla-`` / ``ture``), a figure (``$1,000,-`` / ``000``) or a number range (``273–`` /
    ``274``); ``None`` where a separator belongs. ``apart``: a paragraph gap between the lines, which only a
    word PDFium marked as broken joins across."""
    if left.endswith(SOFT_HYPHEN):
        head = left[: -len(SOFT_HYPHEN)]
        return head + rejoin(head, right, compounds)
    if apart:
        return None
    if figure_break(left, right):
        return left.rstrip()[:-1]
    if range_break(left, right):
        return left.rstrip()
    if left.endswith("-") and (joint := hyphen_break(left, right, compounds, words)) is not None:
        return left[:-1] + joint
    return None


def join_lines(lines: list[str], compounds: set[str] = frozenset(), words: set[str] = frozenset()) -> str:
    """A footnote's lines as one paragraph, words, figures and ranges broken at a line's end joined back."""
    out = ""
    for line in lines:
        if out and (joined := join_at_break(out, line, compounds, words)) is not None:
            out = joined + (line if out.endswith(SOFT_HYPHEN) else line.lstrip())
        else:
            out = f"{out} {line}" if out else line
    return join_text([out])


def join_text(parts: list[str]) -> str:
    """The parts as one text; PDFium's line-end hyphen mark prints as the hyphen it is."""
    return "".join(parts).replace(SOFT_HYPHEN, "-").strip()
