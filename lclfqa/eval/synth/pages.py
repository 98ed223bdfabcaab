"""Page chunks: the text printed on each page of an index, and how a prompt shows them (Appendix A, step 1)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lclfqa import prompts

if TYPE_CHECKING:
    from lclfqa.index.protocol import IndexBackend as Index


@dataclass(frozen=True)
class PageChunk:
    """The text printed on one page of one document (``part`` > 0: a further piece of an over-long page)."""

    document: str
    page: int
    text: str
    part: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document, "page": self.page, "text": self.text}


_MARKUP = re.compile(r"[ \t]*\n?</?(?:section-header|footnote|chunk|reference|information)\b[^>]*>\n?", re.I)
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def clean_text(text: str) -> str:
    """``text`` without the tags ingest and the prompts use (``<section-header>``, ``<footnote>``, …),
    keeping what they enclose; trailing spaces and runs of blank lines collapsed."""
    text = _MARKUP.sub("\n", text)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return _BLANK_RUNS.sub("\n\n", text).strip()


def page_chunks(index: Index, *, min_chars: int = 200, max_chars: int = 4000) -> list[PageChunk]:
    """One chunk per (document, page) of ``index``, in document order: the page's section children, then
    its footnotes. Pages with fewer than ``min_chars`` characters of text are skipped; a page longer than
    ``max_chars`` is split at child boundaries into parts."""
    from lclfqa.ingest.document import CHILD, FOOTNOTE

    # document -> page -> (section texts, footnote texts), in the order the chunks were written
    pages: dict[str, dict[int, tuple[list[str], list[str]]]] = {}
    for c in index.chunks():
        if c.kind not in (CHILD, FOOTNOTE):
            continue
        text = clean_text(c.text)
        if text:
            body, notes = pages.setdefault(c.document, {}).setdefault(c.page_start, ([], []))
            (body if c.kind == CHILD else notes).append(text)
    out: list[PageChunk] = []
    for document, by_page in pages.items():
        for page in sorted(by_page):
            body, notes = by_page[page]
            parts = [p for p in _pack([*body, *notes], max_chars) if len(p) >= min_chars]
            out.extend(PageChunk(document, page, text, part) for part, text in enumerate(parts))
    return out


def _pack(texts: list[str], max_chars: int) -> list[str]:
    """``texts`` joined by blank lines into parts of at most ``max_chars`` (a longer single text stays whole)."""
    parts: list[str] = []
    for t in texts:
        if parts and len(parts[-1]) + 2 + len(t) <= max_chars:
            parts[-1] += "\n\n" + t
        else:
            parts.append(t)
    return parts


def format_chunks(chunks: Sequence[PageChunk], max_chars: int | None = None) -> str:
    """The ``{text}`` of a prompt: each chunk inside ``<chunk></chunk>``, cut at ``max_chars``."""
    wrap = prompts.load("synth")["format"]["chunk"]
    out = []
    for c in chunks:
        text = c.text if max_chars is None or len(c.text) <= max_chars else c.text[:max_chars].rstrip() + " …"
        out.append(prompts.render(wrap, text=text))
    return "\n".join(out)
