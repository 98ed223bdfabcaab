"""Word, HTML, Markdown and e-mail through unstructured, offline, as :class:`ParsedDocument`.

unstructured sees their structure (heading styles, ``<h1>`` tags) but gives no character offsets; Title
elements open sections, nested by their depth.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lclfqa.ingest import unstructured_offline
from lclfqa.ingest.document import ParsedDocument, Section, UnreadableDocument, file_sha256, require_file

UNSTRUCTURED_SUFFIXES = frozenset({".docx", ".html", ".htm", ".md", ".eml"})
"""Suffixes unstructured reads with what lclfqa installs."""

# Formats unstructured can read only with a tool outside Python; tried when that tool is present.
NEEDS_TOOL = {
    ".rtf": ("pypandoc", "pip install pypandoc-binary (it bundles pandoc)"),
    ".odt": ("pypandoc", "pip install pypandoc-binary python-docx"),
    ".doc": ("soffice", "install LibreOffice (apt-get install libreoffice-writer) so `soffice` is on PATH"),
}


def _check_tools(p: Path, suffix: str) -> None:
    need = NEEDS_TOOL.get(suffix)
    if need is None:
        return
    tool, how = need
    if tool == "soffice":
        ok = shutil.which("soffice") is not None
    else:
        try:
            import pypandoc

            pypandoc.get_pandoc_version()
            ok = True
        except (ImportError, OSError, RuntimeError):
            ok = False
    if not ok:
        raise UnreadableDocument(
            p, f"{suffix} files need {tool}, which is not installed: {how}; or save the file as PDF or .docx"
        )


_PY_MODULE_FOR = {  # suffix: (module unstructured imports, the package to install)
    ".docx": ("docx", "python-docx"),
    ".odt": ("docx", "python-docx"),
    ".md": ("markdown", "markdown"),
}


def _partition(p: Path) -> list[Any]:
    suffix = p.suffix.lower()
    _check_tools(p, suffix)
    need = _PY_MODULE_FOR.get(suffix)
    if need is not None:
        try:
            __import__(need[0])
        except ImportError as exc:
            raise UnreadableDocument(
                p, f"reading {suffix} needs the Python package {need[1]}: pip install {need[1]}"
            ) from exc
    unstructured_offline.configure()
    from unstructured.partition.auto import partition

    try:
        return partition(filename=str(p))
    except UnreadableDocument:
        raise
    except Exception as exc:  # unstructured raises many types; the user needs the file and the cause
        raise UnreadableDocument(p, f"unstructured could not read it ({type(exc).__name__}: {exc})") from exc


def _elements_to_sections(elements: Iterable[Any]) -> tuple[list[Section], int, int]:
    """Title elements open sections (nested by ``category_depth``); everything else is body text.

    Returns the sections and how many Header and Footer elements were dropped.
    """
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    pages: list[int] = []
    refs: list[str] = []
    headers = footers = 0

    def emit() -> None:
        if body:
            path = tuple(t for _, t in stack)
            sections.append(
                Section(
                    path=path,
                    text="\n\n".join(body),
                    page_start=min(pages),
                    page_end=max(pages),
                    footnote_refs=tuple(refs),
                )
            )

    for el in elements:
        category = getattr(el, "category", type(el).__name__)
        text = (getattr(el, "text", "") or "").strip()
        if category == "Header":
            headers += 1
            continue
        if category == "Footer":
            footers += 1
            continue
        if not text or category in ("PageBreak", "PageNumber"):
            continue
        md = getattr(el, "metadata", None)
        page = getattr(md, "page_number", None) or 1
        if category == "Title":
            emit()
            depth = getattr(md, "category_depth", None)
            if not isinstance(depth, int) or depth < 0:
                depth = stack[-1][0] + 1 if stack else 0
            while stack and stack[-1][0] >= depth:
                stack.pop()
            stack.append((depth, " ".join(text.split())))
            body, pages, refs = [text], [page], []
            continue
        if category == "FootnoteReference":
            refs.append(text)
        body.append(text)
        pages.append(page)
    emit()
    return sections, headers, footers


def parse_with_unstructured(path: str | Path) -> ParsedDocument:
    """Parse Word, HTML, Markdown or e-mail with unstructured, offline; no character offsets."""
    p = Path(path)
    require_file(p, "a Word, HTML, Markdown or e-mail file", nonempty=True)
    sections, headers, footers = _elements_to_sections(_partition(p))
    if not sections:
        raise UnreadableDocument(
            p, "no text found; if it is a scan or holds only images, export it as a PDF with a text layer"
        )
    return ParsedDocument(
        name=p.name,
        source=str(p),
        sha256=file_sha256(p),
        pages=max(s.page_end for s in sections),
        sections=tuple(sections),
        dropped_headers=headers,
        dropped_footers=footers,
    )
