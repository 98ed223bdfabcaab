"""Which parser reads a file: :func:`parse_file`, the one entry point ingest calls, picks it by suffix.

PDFs go to :mod:`lclfqa.ingest.pdf`; plain text to :mod:`lclfqa.ingest.plain_text` (exact character
offsets); Word, HTML, Markdown and e-mail to :mod:`lclfqa.ingest.unstructured_formats`.
"""

from __future__ import annotations

from pathlib import Path

from lclfqa.ingest.document import ParsedDocument, UnreadableDocument, require_file
from lclfqa.ingest.plain_text import parse_text_file
from lclfqa.ingest.unstructured_formats import NEEDS_TOOL, UNSTRUCTURED_SUFFIXES, parse_with_unstructured

PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset({".txt", ".text"})
SUPPORTED_SUFFIXES: frozenset[str] = PDF_SUFFIXES | TEXT_SUFFIXES | UNSTRUCTURED_SUFFIXES
"""Suffixes ``parse_file`` reads (lower case). A file without a suffix is read as plain text."""


def supported_list() -> str:
    """The suffixes lclfqa reads, for messages: ".docx, .eml, …, .txt"."""
    return ", ".join(sorted(SUPPORTED_SUFFIXES))


def parse_file(path: str | Path) -> ParsedDocument:
    """Parse one file of any supported type; :class:`UnreadableDocument` says why not and what to do."""
    p = Path(path)
    require_file(p, "a file, or a folder to `lclfqa ingest`", nonempty=True)
    suffix = p.suffix.lower()
    if suffix in PDF_SUFFIXES:
        from lclfqa.ingest.pdf import parse_pdf  # heavy, and only PDFs need it

        return parse_pdf(p)
    if suffix in TEXT_SUFFIXES or suffix == "":
        return parse_text_file(p)
    if suffix in UNSTRUCTURED_SUFFIXES or suffix in NEEDS_TOOL:
        return parse_with_unstructured(p)
    raise UnreadableDocument(
        p,
        f"unsupported file type {suffix!r}; supported: {supported_list()}. Convert it to PDF or plain text first.",
    )
