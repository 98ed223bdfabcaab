"""Plain chunking: the ablation H3 of LCLF-QA, "without layout-aware smart chunking".

What a standard RAG ingest does with a document: take its text in reading order as a plain text
extractor would give it, and cut it into fixed-size pieces with a recursive character splitter
(LangChain's ``RecursiveCharacterTextSplitter``: paragraphs, then lines, then words, then characters).

- **The text**: for a plain-text source, the file's text itself (so ``source_text[start:end] == text``
  holds, as the retrieval metrics need). For a PDF, each page's body text followed by that page's
  footnotes as ordinary lines (``"3 Tuition paid in …"``), pages separated by a blank line. The same
  parser as in layout mode produces it, so running headers and footers stay dropped, as in layout
  mode; headings are ordinary lines of the text. For formats read through ``unstructured`` a section
  spanning pages counts as printed on its first page (the parser gives no page breaks inside it).
- **Parents**: recursive pieces of at most ``parent_size`` characters, no overlap.
- **Children**: each parent split again into pieces of at most ``child_size`` characters, so a child
  lies inside exactly one parent and names it in ``parent_ids`` (the ids scheme is the layout
  chunker's, so the index, ``retrieve`` and ``expand`` work unchanged).
- **No layout**: no section path (``section_path == ()``), no ``<section-header>`` in the indexed text,
  no footnote chunks and no footnote links. The document prefix (name, SAC summary) is kept, as in
  layout mode.

Every chunk carries the pages it spans, from the character offsets where each page begins, so
citations still name the right page.
"""

from __future__ import annotations

import bisect
import re

from langchain_text_splitters import RecursiveCharacterTextSplitter

from lclfqa.ingest.chunking import _chunk_id
from lclfqa.ingest.document import CHILD, PARENT, Chunk, ParsedDocument

PAGE_SEPARATOR = "\n\n"


def plain_text(doc: ParsedDocument) -> tuple[str, list[tuple[int, int]]]:
    """The text of ``doc`` as a plain extractor sees it, and ``(offset, page)`` where each page begins.

    Offsets are sorted; the character at offset ``o`` is on the page of the last entry ``<= o``.
    """
    if doc.source_text is not None:  # plain text: pages are split on form feeds, as the parser does
        text = doc.source_text
        return text, [(0, 1)] + [(m.start(), n) for n, m in enumerate(re.finditer("\f", text), start=2)]
    lines: dict[int, list[str]] = {}
    for s in doc.sections:
        bounds = [0, *s.page_breaks, len(s.text)]
        for i, (a, b) in enumerate(zip(bounds, bounds[1:], strict=False)):
            part = s.text[a:b].strip()
            if part:
                lines.setdefault(min(s.page_start + i, s.page_end), []).append(part)
    for f in doc.footnotes:  # after the body of its page, where the page prints it
        lines.setdefault(f.page, []).append(f"{f.number} {f.text}")
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    pos = 0
    for page in sorted(lines):
        if parts:
            parts.append(PAGE_SEPARATOR)
            pos += len(PAGE_SEPARATOR)
        starts.append((pos, page))
        block = "\n".join(lines[page])
        parts.append(block)
        pos += len(block)
    return "".join(parts), starts or [(0, 1)]


def split_offsets(text: str, size: int, base: int = 0) -> list[tuple[int, int]]:
    """``(start, end)`` spans of ``text`` (shifted by ``base``) as the recursive splitter cuts it, at most
    ``size`` characters each, no overlap."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for piece in splitter.split_text(text):
        at = text.find(piece, cursor)
        if at < 0:  # the splitter returns stripped substrings in order; never expected
            raise ValueError(f"recursive splitter returned text not found in order: {piece[:60]!r}")
        spans.append((base + at, base + at + len(piece)))
        cursor = at + len(piece)
    return spans


def plain_chunk_document(
    doc: ParsedDocument,
    *,
    parent_size: int = 2000,
    child_size: int = 500,
    prefix: str = "",
) -> list[Chunk]:
    """All chunks of ``doc`` without layout: parents first, then children (never footnote chunks)."""
    if child_size > parent_size:
        raise ValueError(f"child_size ({child_size}) must not exceed parent_size ({parent_size})")
    text, starts = plain_text(doc)
    offsets = [o for o, _ in starts]
    exact = doc.source_text is not None

    def page(offset: int) -> int:
        return starts[max(0, bisect.bisect_right(offsets, offset) - 1)][1]

    def chunk(kind: str, n: int, a: int, b: int, parent_ids: tuple[str, ...] = ()) -> Chunk:
        body = text[a:b]
        return Chunk(
            id=_chunk_id(doc.name, kind, n),
            kind=kind,
            document=doc.name,
            text=body,
            section_path=(),
            page_start=page(a),
            page_end=page(max(a, b - 1)),
            start=a if exact else None,
            end=b if exact else None,
            parent_ids=parent_ids,
            indexed_text="\n".join(p for p in (prefix, body) if p) if kind != PARENT else "",
        )

    parents: list[Chunk] = []
    children: list[Chunk] = []
    for n, (pa, pb) in enumerate(split_offsets(text, parent_size)):
        parent = chunk(PARENT, n, pa, pb)
        parents.append(parent)
        for ca, cb in split_offsets(text[pa:pb], child_size, base=pa):
            children.append(chunk(CHILD, len(children), ca, cb, (parent.id,)))
    return parents + children
