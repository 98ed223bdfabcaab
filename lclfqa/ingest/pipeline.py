"""From files on disk to an index on disk: discover, parse, chunk, embed, write atomically.

Re-ingesting is incremental: a document whose bytes (sha256) and chunking settings are unchanged
keeps its chunks, and any chunk whose indexed text is unchanged keeps its vector, so only new or
changed text is embedded. A file that cannot be read is reported with its reason and skipped; the
rest of the batch goes on. The index is replaced in one atomic step at the end, so a crash or
Ctrl-C leaves the previous index loadable.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from lclfqa.config import Settings
from lclfqa.ingest.chunking import chunk_document, document_prefix
from lclfqa.ingest.document import (
    CHILD,
    FOOTNOTE,
    PARENT,
    Chunk,
    ParsedDocument,
    UnreadableDocument,
    file_sha256,
)
from lclfqa.ingest.index import DocumentRecord, Index, IndexNotFound, embedding_text, text_sha256, write_index
from lclfqa.ingest.plain_chunking import plain_chunk_document
from lclfqa.models import embed_array, get_embeddings

log = logging.getLogger("lclfqa.ingest")

# Settings that change chunk boundaries or indexed text: a change re-chunks every document.
CHUNK_SETTINGS = (
    "chunking",
    "parent_size",
    "child_size",
    "footnote_chunks",
    "metadata_prefix",
    "summaries",
    "summary_chars",
)
#: What an index written before a chunk setting existed was built with (compared as if recorded).
LEGACY_CHUNK_SETTINGS = {"chunking": "layout", "parser": 1}
#: The parsers' output version, recorded with the chunk settings: raise it when parsing changes what a
#: document's sections or footnotes say, so that existing indexes re-parse their documents on the next
#: ingest (2: PDF printed line numbers dropped, line-end word breaks joined, run-on caps titles whole;
#: 3: compounds broken at a line's end keep their hyphen, a title closed by "PART B.—" is not a Part;
#: 4: a bold title line ending "(Pub. L." goes on in the next line, "APPENDICES" closes the outline;
#: 5: footnotes by marker and size clusters, endnotes, running lines by height, opinions, contents, issue 15).
PARSER_VERSION = 5

Summarizer = Callable[[ParsedDocument], str]


@dataclass
class IngestReport:
    """What one ingest run did; ``summary_line()`` is what the CLI prints at the end."""

    documents: int = 0
    pages: int = 0
    sections: int = 0
    footnotes: int = 0
    parents: int = 0
    children: int = 0
    footnote_chunks: int = 0
    reused_documents: int = 0
    embedded: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    index_dir: str = ""

    def summary_line(self) -> str:
        return (
            f"{self.documents} documents, {self.pages} pages, {self.sections} sections, {self.footnotes} footnotes "
            f"-> {self.parents} parents, {self.children} children, {self.footnote_chunks} footnote chunks "
            f"({self.reused_documents} unchanged, {self.embedded} texts embedded, {len(self.skipped)} skipped) "
            f"in {self.seconds:.1f} s"
        )


def discover(paths: Iterable[str | Path], suffixes: Iterable[str]) -> list[tuple[Path, str]]:
    """Files to ingest with the name each is cited by: its path relative to the folder given.

    A file given directly is named by its file name. Hidden files and folders are skipped.
    """
    wanted = {s.lower() for s in suffixes}
    found: list[tuple[Path, str]] = []
    for p in map(Path, paths):
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p)
                if f.is_file() and not any(part.startswith(".") for part in rel.parts) and f.suffix.lower() in wanted:
                    found.append((f, rel.as_posix()))
        elif p.is_file():
            found.append((p, p.name))
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    seen: set[str] = set()
    unique = []
    for f, name in found:
        if name not in seen:
            seen.add(name)
            unique.append((f, name))
    return unique


def _chunk_settings(settings: Settings) -> dict:
    return {**{k: getattr(settings, k) for k in CHUNK_SETTINGS}, "parser": PARSER_VERSION}


def _recorded_chunk_settings(index: Index) -> dict | None:
    """The chunk settings ``index`` was built with; older indexes lack later keys, which get their old value."""
    recorded = index.manifest.get("settings", {}).get("chunking")
    if not isinstance(recorded, dict):
        return None
    return {**LEGACY_CHUNK_SETTINGS, **recorded}


def chunk_with_settings(doc: ParsedDocument, settings: Settings, prefix: str = "") -> list[Chunk]:
    """``doc``'s chunks as ``settings.chunking`` asks: layout-aware (LCLF-QA §3.2) or plain (ablation H3)."""
    if settings.chunking == "plain":
        return plain_chunk_document(
            doc, parent_size=settings.parent_size, child_size=settings.child_size, prefix=prefix
        )
    return chunk_document(
        doc,
        parent_size=settings.parent_size,
        child_size=settings.child_size,
        footnote_chunks=settings.footnote_chunks,
        prefix=prefix,
    )


def ingest(
    paths: Iterable[str | Path],
    index_dir: str | Path,
    settings: Settings | None = None,
    *,
    embeddings: Embeddings | None = None,
    summarizer: Summarizer | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> IngestReport:
    """Ingest ``paths`` (files or folders) into the index at ``index_dir``, adding to what is there.

    ``progress(stage, done, total)`` is called as work advances (the CLI draws bars with it).
    ``summarizer`` makes the ~150-character document summaries (SAC) when ``settings.summaries``.
    """
    from lclfqa.ingest.text import SUPPORTED_SUFFIXES, parse_file

    settings = settings or Settings()
    started = time.perf_counter()
    report = IngestReport(index_dir=str(index_dir))
    tick = progress or (lambda stage, done, total: None)
    if settings.summaries and summarizer is None:
        raise ValueError("summaries are on but no summarizer was given (see lclfqa.ingest.summaries)")

    existing: Index | None = None
    try:
        existing = Index.load(index_dir)
    except IndexNotFound:
        existing = None
    if existing is not None:
        existing.check_embedder(settings.embedding_model)
    same_chunking = existing is not None and _recorded_chunk_settings(existing) == _chunk_settings(settings)

    files = discover(paths, SUPPORTED_SUFFIXES)
    records: dict[str, DocumentRecord] = dict(existing.documents) if existing else {}
    chunks_by_doc: dict[str, list[Chunk]] = {}
    if existing is not None:
        for name in records:
            chunks_by_doc[name] = existing.chunks(document=name) if same_chunking else []
    reparse = [name for name, chunks in chunks_by_doc.items() if not chunks]  # settings changed

    todo: list[tuple[Path, str]] = list(files)
    known = {name for _, name in files}
    if existing is not None:
        todo += [(Path(records[n].source), n) for n in reparse if n not in known]
    for i, (path, name) in enumerate(todo):
        tick("parse", i, len(todo))
        try:
            sha = file_sha256(path)
            old = records.get(name)
            if old is not None and old.sha256 == sha and chunks_by_doc.get(name):
                report.reused_documents += 1
                continue
            if path.stat().st_size == 0:
                raise UnreadableDocument(path, "empty file (0 bytes)")
            doc = replace(parse_file(path), name=name)
            summary = summarizer(doc) if settings.summaries and summarizer else ""
            prefix = document_prefix(name, summary, settings.metadata_prefix)
            chunks_by_doc[name] = chunk_with_settings(doc, settings, prefix)
            records[name] = DocumentRecord(
                name=name,
                source=str(path),
                sha256=sha,
                pages=doc.pages,
                sections=len(doc.sections),
                footnotes=len(doc.footnotes),
                summary=summary,
                dropped_headers=doc.dropped_headers,
                dropped_footers=doc.dropped_footers,
            )
        except UnreadableDocument as e:
            report.skipped.append((str(path), e.reason))
            log.warning("skipped %s: %s", path, e.reason)
        except Exception as e:  # never let one file kill the batch
            report.skipped.append((str(path), f"unexpected error: {type(e).__name__}: {e}"))
            log.exception("skipped %s", path)
    tick("parse", len(todo), len(todo))
    # a document we could not re-chunk (its source moved) is dropped rather than left half-indexed
    for name in [n for n, c in chunks_by_doc.items() if not c]:
        chunks_by_doc.pop(name)
        records.pop(name, None)

    all_chunks = [c for name in records for c in chunks_by_doc[name]]
    searchable = [c for c in all_chunks if c.kind != PARENT]
    vectors = _embed(searchable, existing, settings, embeddings, report, tick)
    if existing is not None:
        existing.close()
    write_index(
        index_dir,
        list(records.values()),
        all_chunks,
        vectors,
        embedding_model=settings.embedding_model,
        settings={"chunking": _chunk_settings(settings)},
    )
    for rec in records.values():
        report.documents += 1
        report.pages += rec.pages
        report.sections += rec.sections
        report.footnotes += rec.footnotes
    report.parents = sum(c.kind == PARENT for c in all_chunks)
    report.children = sum(c.kind == CHILD for c in all_chunks)
    report.footnote_chunks = sum(c.kind == FOOTNOTE for c in all_chunks)
    report.seconds = time.perf_counter() - started
    return report


def _embed(
    chunks: list[Chunk],
    existing: Index | None,
    settings: Settings,
    embeddings: Embeddings | None,
    report: IngestReport,
    tick: Callable[[str, int, int], None],
) -> np.ndarray:
    cache = existing.vectors_by_text() if existing is not None else {}
    keys = [text_sha256(embedding_text(c)) for c in chunks]
    # sorted by length (then hash, for determinism): each batch pads to its longest text, and in hash order
    # padding cost +59 % of the IRA's embedding work (benchmarks/README.md)
    missing = sorted(
        {k: embedding_text(c) for k, c in zip(keys, chunks, strict=True) if k not in cache}.items(),
        key=lambda kv: (len(kv[1]), kv[0]),
    )
    if missing:
        model = embeddings or get_embeddings(settings.embedding_model, settings.openai_base_url)
        batch = max(1, settings.embed_batch_size)
        for i in range(0, len(missing), batch):
            tick("embed", i, len(missing))
            part = missing[i : i + batch]
            for (key, _), vec in zip(part, embed_array(model, [t for _, t in part]), strict=True):
                cache[key] = vec
        tick("embed", len(missing), len(missing))
    report.embedded = len(missing)
    if not chunks:
        dim = next(iter(cache.values())).shape[0] if cache else 1
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([cache[k] for k in keys]).astype(np.float32)
