"""Limits on what one source file may be: bytes, pages, characters.

Memory in ingest grows with a document's text (~35 bytes per character of plain text, all of it held
while sections and chunks are built), so an unbounded input is unbounded memory: a 300 MB text file
took 10.5 GB. Each limit is checked as early as it can be, before the expensive step it protects:

- ``max_file_mb``: from the file's size, before a byte is read;
- ``max_pages``: a PDF's page count from PDFium, which reads only the page tree, before parsing;
- ``max_chars``: a plain-text file's characters counted in 1 MB blocks (UTF-8 lead bytes, a lower
  bound for every encoding read) before it is decoded whole; every document's text after parsing.

A file over a limit is skipped with a reason naming the limit and the setting that raises it.
"""

from __future__ import annotations

from pathlib import Path

from lclfqa.config import Settings
from lclfqa.ingest.document import ParsedDocument, UnreadableDocument

_CONTINUATION = bytes(range(0x80, 0xC0))
_TEXT_SUFFIXES = frozenset({".txt", ".text", ""})
_RAISE = "raise it with LCLFQA_{env}=... or in the --config file, or split the document"


def _over(path: Path, what: str, limit: str, setting: str) -> UnreadableDocument:
    return UnreadableDocument(
        path, f"{what}, over the {setting} limit of {limit}; {_RAISE.format(env=setting.upper())}"
    )


def count_text_chars(path: Path, stop_after: int) -> int:
    """A lower bound on the characters of a text file, read in 1 MB blocks; stops once past ``stop_after``.

    Counts bytes that start a UTF-8 character (every byte but 0x80-0xBF): exact for UTF-8, and at most
    the true count for single-byte encodings. UTF-16 (a BOM) counts two bytes per character.
    """
    count = 0
    with open(path, "rb") as f:
        first = f.read(2)
        if first in (b"\xff\xfe", b"\xfe\xff"):
            return (path.stat().st_size - 2) // 2
        block = first
        while block:
            count += len(block.translate(None, _CONTINUATION))
            if count > stop_after:
                return count
            block = f.read(1 << 20)
    return count


def check_file(path: Path, settings: Settings) -> None:
    """Raise :class:`UnreadableDocument` if ``path`` is over a limit that can be seen before parsing."""
    size = path.stat().st_size
    if size > settings.max_file_mb * 1_000_000:
        limit = settings.max_file_mb
        raise _over(
            path, f"file is {_size(size)}", f"{limit:g} MB" if limit >= 0.1 else _size(limit * 1e6), "max_file_mb"
        )
    suffix = path.suffix.lower()
    if suffix in _TEXT_SUFFIXES and size > settings.max_chars:
        chars = count_text_chars(path, settings.max_chars)
        if chars > settings.max_chars:
            raise _over(path, f"text has over {chars:,} characters", f"{settings.max_chars:,}", "max_chars")
    elif suffix == ".pdf":
        pages = pdf_page_count(path)
        if pages is not None and pages > settings.max_pages:
            raise _over(path, f"PDF has {pages:,} pages", f"{settings.max_pages:,}", "max_pages")


def pdf_page_count(path: Path) -> int | None:
    """Pages in the PDF's page tree (PDFium loads pages lazily, so this is cheap); ``None`` if unreadable
    here (the parser then says why)."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError:
        return None
    try:
        return len(pdf)
    finally:
        pdf.close()


def check_document(doc: ParsedDocument, settings: Settings) -> None:
    """Raise :class:`UnreadableDocument` if the parsed ``doc`` is over the page or character limit."""
    path = Path(doc.source)
    if doc.pages > settings.max_pages:
        raise _over(path, f"document has {doc.pages:,} pages", f"{settings.max_pages:,}", "max_pages")
    chars = sum(len(s.text) for s in doc.sections) + sum(len(f.text) for f in doc.footnotes)
    if chars > settings.max_chars:
        raise _over(path, f"document has {chars:,} characters", f"{settings.max_chars:,}", "max_chars")


def _size(n: float) -> str:
    """A size as people read it: "81.42 MB", "3,040 bytes" (not "0.0 MB")."""
    return f"{n / 1e6:,.2f} MB" if n >= 100_000 else f"{n:,.0f} bytes"
