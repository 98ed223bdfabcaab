"""Plain text as :class:`ParsedDocument`: sections by the rules of :mod:`lclfqa.ingest.plain_outline`.

Plain text is parsed here, by rules, because it is where exact character offsets are possible: the
LegalBench-RAG gold spans index into the text as Python reads it, so every section keeps
``source_text[start:end] == text``. A print's running lines (page numbers, a filer's line at every page
break: :func:`~lclfqa.ingest.plain_outline.running_lines`) are blanked to spaces in ``source_text``, line
breaks kept, so they reach no chunk and every offset still indexes the file.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path

from lclfqa.ingest.decoding import decode_text
from lclfqa.ingest.document import ParsedDocument, Section, UnreadableDocument, file_sha256
from lclfqa.ingest.plain_outline import (
    Heading,
    Outline,
    Unit,
    absorb_captions,
    repeated_lines,
    running_lines,
    text_units,
)

# A document cut into more pieces than this is over-split: the deepest headings become body text.
MAX_SECTIONS = 400
_MIN_CHARS_PER_SECTION = 250


@dataclass
class _Draft:
    start: int
    end: int
    path: tuple[str, ...]
    depth_of_own_heading: int = 0  # len(path) when the section opens with its own heading, else 0
    toc: bool = False  # a table of contents: text after it opens a new section


def _outline_sections(text: str) -> list[_Draft]:
    units = text_units(text)
    outline = Outline(repeated_lines(units))
    heads: list[Heading | None] = []
    # classification depends on the open path (is "(i)" a letter or a numeral?), so push as we go
    for u in units:
        h = outline.classify(u)
        heads.append(h)
        if h is not None and not h.toc:
            outline.push(h)
    absorb_captions(units, heads)

    outline = Outline()
    drafts: list[_Draft] = []
    pending: list[tuple[Unit, Heading]] = []  # heading lines seen since the last body text

    def open_section(start: int, end: int) -> None:
        path = outline.path()
        drafts.append(_Draft(start, end, path, len(path)))

    def resolve_pending() -> int | None:
        """Put the pending heading lines on the path, or file them as a table of contents.

        Returns where the next section starts: at the first heading line, or ``None`` after a table
        of contents (which became a section of its own and leaves the path as it was).
        """
        nonlocal pending
        if not pending:
            return None
        if _is_toc_run(pending):
            first = pending[0][1]
            name = first.title if "content" in first.title.lower() else "Table of contents"
            drafts.append(_Draft(pending[0][0].start, pending[-1][0].end, outline.path() + (name,), toc=True))
            pending = []
            return None
        start = pending[0][0].start
        seen: set[int] = set()
        for _, h in pending:
            if id(h) not in seen:
                seen.add(id(h))
                outline.push(h)
        pending = []
        return start

    for u, h in zip(units, heads, strict=True):
        if not u.text:  # a caption absorbed into the heading line before it
            if pending:
                pending.append((u, pending[-1][1]))
            elif drafts:
                drafts[-1].end = u.end
            continue
        if h is not None and (h.toc or h.only):
            pending.append((u, h))
            continue
        start = resolve_pending()
        if h is not None:  # a heading with its text in the same unit ("1. Definitions. In this …")
            outline.push(h)
            open_section(u.start if start is None else start, u.end)
        elif start is not None:  # body text under the heading lines just resolved
            open_section(start, u.end)
        elif drafts and not drafts[-1].toc:
            drafts[-1].end = u.end
        else:
            drafts.append(_Draft(u.start, u.end, outline.path(), 0))
    start = resolve_pending()
    if start is not None:
        open_section(start, units[-1].end)
    return drafts


def _is_toc_run(pending: list[tuple[Unit, Heading]]) -> bool:
    """Heading lines with no text between them: a table of contents, not nested headings."""
    heads = [h for _, h in pending]
    tocs = sum(1 for h in heads if h.toc)
    return tocs >= 2 or len({id(h) for h in heads}) >= 4


def _cap_sections(drafts: list[_Draft], text: str) -> list[_Draft]:
    """Merge scraps ("ii", a rule line) into the section before, then the deepest headings into their
    running section until the count is sensible."""
    drafts = _merge_into_previous(drafts, lambda d: d.end - d.start < 30 and len(text[d.start : d.end].split()) <= 2)
    cap = min(MAX_SECTIONS, max(24, len(text) // _MIN_CHARS_PER_SECTION))
    while len(drafts) > cap:
        deepest = max(d.depth_of_own_heading for d in drafts)
        if deepest <= 1:
            break
        drafts = _merge_into_previous(drafts, lambda d, deepest=deepest: d.depth_of_own_heading == deepest)
    if len(drafts) > cap:  # one flat level of many headings: group neighbours to about cap sections
        target = len(text) / cap
        out: list[_Draft] = []
        for d in drafts:
            if out and out[-1].end - out[-1].start < target:
                out[-1].end = d.end
            else:
                out.append(d)
        drafts = out
    return drafts


def _merge_into_previous(drafts: list[_Draft], merge) -> list[_Draft]:
    out: list[_Draft] = []
    for d in drafts:
        if out and merge(d):
            out[-1].end = d.end
        else:
            out.append(d)
    return out


def sections_from_text(text: str) -> tuple[list[Section], int]:
    """Sections tiling ``text`` (offsets exact), and the page count (pages split on form feeds)."""
    feeds = [m.start() for m in re.finditer("\f", text)]
    drafts = _cap_sections(_outline_sections(text), text)
    sections = []
    for d in drafts:
        sections.append(
            Section(
                path=d.path,
                text=text[d.start : d.end],
                page_start=bisect.bisect_right(feeds, d.start) + 1,
                page_end=bisect.bisect_right(feeds, d.end - 1) + 1,
                start=d.start,
                end=d.end,
            )
        )
    return sections, len(feeds) + 1


def blank_running_lines(text: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """``text`` with its running lines replaced by as many spaces (same length, same line breaks), and how
    many lines each rule blanked."""
    by_rule = running_lines(text_units(text), len(text))
    lines = sorted((u for us in by_rule.values() for u in us), key=lambda u: u.start)
    counts = tuple((rule, len(us)) for rule, us in by_rule.items() if us)
    if not lines:
        return text, counts
    parts: list[str] = []
    pos = 0
    for u in lines:
        parts += [text[pos : u.start], " " * (u.end - u.start)]
        pos = u.end
    parts.append(text[pos:])
    return "".join(parts), counts


def parse_text_file(path: str | Path) -> ParsedDocument:
    """Parse a plain-text file into sections with exact offsets into ``source_text``."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(p, f"cannot be read ({exc.strerror}); check that it is readable") from exc
    text, blanked = blank_running_lines(decode_text(data, p))
    sections, pages = sections_from_text(text)
    return ParsedDocument(
        name=p.name,
        source=str(p),
        sha256=file_sha256(p),
        pages=pages,
        sections=tuple(sections),
        dropped_footers=sum(n for _, n in blanked),
        dropped_by_rule=blanked,
        source_text=text,
    )
