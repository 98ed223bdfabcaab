"""What a parser produces: a document as pages of sections and footnotes.

Every parser (PDF, plain text, the formats unstructured reads) returns a :class:`ParsedDocument`;
the chunker reads nothing else. Pages are 1-based, as a lawyer cites them.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Section:
    """A run of body text under one heading path.

    ``path`` holds the headings from the outermost to this section's own, e.g.
    ``("§ 1.25A-1 Calculation of education tax credit…", "(b) Coordination…", "(1) In general.")``.
    ``text`` starts with the section's own heading line where the source has one, so nothing
    the reader might quote is lost. ``start``/``end`` are character offsets into the source
    text when the source is plain text (``source_text[start:end] == text``), else ``None``.
    ``footnote_refs`` are the footnote markers found in the body (superscript numbers).
    """

    path: tuple[str, ...]
    text: str
    page_start: int
    page_end: int
    start: int | None = None
    end: int | None = None
    footnote_refs: tuple[str, ...] = ()
    page_breaks: tuple[int, ...] = ()  # offsets in ``text`` where page_start+1, page_start+2, … begin

    def page_at(self, offset: int) -> int:
        """The page that the character at ``offset`` of ``text`` is printed on."""
        page = self.page_start
        for brk in self.page_breaks:
            if offset >= brk:
                page += 1
        return min(page, self.page_end)

    @property
    def title(self) -> str:
        return self.path[-1] if self.path else ""


@dataclass(frozen=True)
class Footnote:
    """A footnote as printed at the bottom of ``page``; ``number`` is its marker (``"12"``, ``"*"``).

    An endnote is a footnote printed at the document's end: ``marker_page`` is then the page whose text
    cites it (``None`` for footnotes, which sit on their marker's page or the next).
    """

    number: str
    page: int
    text: str
    marker_page: int | None = None


@dataclass(frozen=True)
class ParsedDocument:
    """One source file after layout parsing.

    ``name`` is the file name (what answers cite); ``source`` the path it was read from;
    ``sha256`` the hash of the file's bytes (what incremental ingest compares);
    ``source_text`` the decoded text for plain-text sources, which character offsets index into (its
    running lines blanked to spaces: the same length as the file's text, the same line breaks).
    """

    name: str
    source: str
    sha256: str
    pages: int
    sections: tuple[Section, ...]
    footnotes: tuple[Footnote, ...] = ()
    dropped_headers: int = 0
    dropped_footers: int = 0
    dropped_by_rule: tuple[tuple[str, int], ...] = ()  # running lines dropped by each rule
    source_text: str | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        """The structure ``lclfqa parse --json`` prints."""
        return {
            "document": self.name,
            "source": self.source,
            "pages": self.pages,
            "sections": [
                {
                    "path": list(s.path),
                    "title": s.title,
                    "page_start": s.page_start,
                    "page_end": s.page_end,
                    "text": s.text,
                    **({"start": s.start, "end": s.end} if s.start is not None else {}),
                }
                for s in self.sections
            ],
            "footnotes": [asdict(f) for f in self.footnotes],
            "dropped": {
                "headers": self.dropped_headers,
                "footers": self.dropped_footers,
                "by_rule": dict(self.dropped_by_rule),
            },
        }


class UnreadableDocument(Exception):
    """A file that cannot be ingested; the message says why and what to do."""

    def __init__(self, path: str | Path, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")


def require_file(path: Path, what: str, *, nonempty: bool = False) -> None:
    """Raise :class:`UnreadableDocument` unless ``path`` is a regular file (and, with ``nonempty``, holds at
    least one byte); ``what`` names what to pass instead of a folder ("a PDF file")."""
    if not path.exists():
        raise UnreadableDocument(path, "file not found; check the path (quote names with spaces or '&')")
    if not path.is_file():
        raise UnreadableDocument(path, f"not a regular file; pass {what}")
    if nonempty and path.stat().st_size == 0:
        raise UnreadableDocument(path, "empty file (0 bytes); re-export or re-download it")


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


PARENT, CHILD, FOOTNOTE = "parent", "child", "footnote"


@dataclass(frozen=True)
class Chunk:
    """A parent chunk, a section child chunk, or a footnote child chunk.

    ``text`` is the source text (what a citation quotes); ``indexed_text`` is what BM25 and the
    embedder see: the optional document prefix (name, summary), the ``<section-header>`` path,
    then the text. ``parent_ids`` is many-to-many: a section child names every parent that holds
    its section (the overlap rule puts a section into two parents); a footnote child names every
    parent on its page and the parent that holds its marker. Parents have ``parent_ids == ()``.
    ``start``/``end`` are offsets into the plain-text source, or ``None`` for PDFs.
    """

    id: str
    kind: str  # PARENT | CHILD | FOOTNOTE
    document: str
    text: str
    section_path: tuple[str, ...]
    page_start: int
    page_end: int
    start: int | None = None
    end: int | None = None
    parent_ids: tuple[str, ...] = ()
    indexed_text: str = ""
    footnote_numbers: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The one view of a chunk, as the graph's state carries it and ``lclfqa search --json`` prints it:
        ``{"id", "kind", "document", "pages": [first, last], "section": [...], "text", "parent_ids"}``."""
        return {
            "id": self.id,
            "kind": self.kind,
            "document": self.document,
            "pages": [self.page_start, self.page_end],
            "section": list(self.section_path),
            "text": self.text,
            "parent_ids": list(self.parent_ids),
        }

    @property
    def pages(self) -> str:
        """``"3"`` or ``"3-4"``: the page reference a citation prints."""
        if self.page_start == self.page_end:
            return str(self.page_start)
        return f"{self.page_start}-{self.page_end}"
