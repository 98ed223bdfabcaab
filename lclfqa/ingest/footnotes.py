"""Footnotes: the zone of small lines at a page's foot, split into notes by their markers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lclfqa.ingest.layout import Line

_RULE = re.compile(r"^[\s—–_\-‐]{4,}$")
_RULE_PREFIX = re.compile(r"^\s*[—_]{4,}\s*")

# --- footnotes -------------------------------------------------------------------------------

_FOOTNOTE_START = re.compile(r"^\s*(\d{1,3}|[*†‡§¶]{1,3})\s*(?=\S)")
_SPACED_START = re.compile(r"\s+[A-Z“\"‘(\[]")  # after the number: "25 The…", not "25." or "25 U. S."


@dataclass
class FootnoteDraft:
    number: str
    page: int
    lines: list[str] = field(default_factory=list)


def footnote_zone(lines: list[Line], page_body: float, page_h: float) -> int:
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


def _opens_footnote(ln: Line) -> bool:
    """A superscript/smaller number, or a plain one set off by a space: ``1 See …`` (no drawn rule)."""
    text = _RULE_PREFIX.sub("", ln.text)
    m = _FOOTNOTE_START.match(text)
    if not m:
        return False
    small_start = ln.first_char_small or bool(ln.superscripts and ln.superscripts[0][0] <= 1)
    return small_start or bool(_SPACED_START.match(text[m.end(1) :]))


def split_footnotes(zone: list[Line], page: int, drafts: list[FootnoteDraft]) -> None:
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
            drafts.append(FootnoteDraft(m.group(1), page, [body]))
        elif last is not None:
            last.lines.append(text)
        else:  # continuation of a footnote we never saw the start of
            drafts.append(FootnoteDraft("?", page, [text]))
