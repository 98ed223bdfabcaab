"""From files on disk to an index on disk: discover, parse, chunk, embed, write atomically.

Re-ingesting is incremental: a document whose bytes (sha256) and chunking settings are unchanged
keeps its chunks, and any chunk whose indexed text is unchanged keeps its vector, so only new or
changed text is embedded. A file that cannot be read is reported with its reason and skipped; the
rest of the batch goes on. A document already indexed is never dropped because its file cannot be read
again: it keeps its chunks and is reported. One writer at a time holds the index for the whole run.
The documents made or re-made go to the index backend in one ``add_documents`` at the end: the embedded
index replaces itself in one atomic step, so a crash or Ctrl-C leaves the previous index loadable; Milvus
writes document by document, each idempotent (``lclfqa.index.milvus``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from lclfqa import environment
from lclfqa.config import Settings
from lclfqa.index.errors import IndexSpaceError, out_of_space
from lclfqa.index.factory import embedder_revision, open_index
from lclfqa.index.generations import CURRENT, is_generation
from lclfqa.index.lock import LOCK_NAME, writer_lock
from lclfqa.index.protocol import IndexBackend
from lclfqa.index.records import DocumentBatch, DocumentRecord, embedding_text, text_sha256
from lclfqa.ingest.chunking import chunk_document, document_prefix
from lclfqa.ingest.discovery import distinct_name, find_sources
from lclfqa.ingest.document import (
    PARENT,
    Chunk,
    ParsedDocument,
    UnreadableDocument,
    file_sha256,
)
from lclfqa.ingest.limits import check_document, check_file
from lclfqa.ingest.pdf_damage import pdf_damage
from lclfqa.ingest.plain_chunking import plain_chunk_document
from lclfqa.llm.models import embed_array, get_embeddings

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
#: 5: footnotes by marker and size clusters, endnotes, running lines by height, opinions, contents, issue 15;
#: 6: rotated text as lines, watermarks dropped, "N." endnotes, run-on numbered lines and citing sentences
#: are body, not headings; 7: a section an Act inserts ("‘‘SEC. 6418. …") is a level of its own, and a
#: child's header keeps its innermost section title; 8: and its opinion's title; 9: small items join the child
#: of their lead-in, not the next section's; 10: a mixed fraction's raised numerator is set apart, "66 2⁄3";
#: 11: a raised marker drawn apart from its line joins it; 12: no marker, no note; body-size notes by their
#: markers; 13: two-column pages read column by column, notes at each column's foot; 14: a Notes/Endnotes
#: section after the appendices; 15: notes in a second size by their markers;
#: 16: a printed line-end hyphen joined where the document's words say so; 17: three columns; 18: a note
#: start the text does not cite continues the note above; 19: a line drawn around a printed line number is
#: carried on where it stopped, the IRA's "12 1⁄2 per centum"; 20: small digits on the baseline right
#: after a word are markers; 21: a running head a few points off its height elsewhere, issue 32;
#: 22: small caps split by the text layer read whole, columns in bands of the page, a note run on to the
#: next page joins its note (body-size by its spacing; small, under no rule, where it stopped mid-sentence),
#: plain markers glued to a word where the note starts pair with them; 23: a plain number opens no note
#: where the page's notes open raised, a note the page cites is no running line, a clear break ends the
#: notes, a unit's exponent is no marker, endnotes after each Part, a note block holds no heading,
#: Unicode superscript digits read as raised numbers, raised letters paired with notes that open with them,
#: a note run on after a full sentence by its spacing, ``³,⁴`` two markers, notes under each column apart,
#: a schedule closes the body's levels and holds its own numbering, a title line ending "of" carries on
#: into a "Part 3" line, a "1.1" line under a clause title is its own, "… provides:" is no title, a page's
#: lone line at its top margin is kept, a "5.1 Term." clause with an emphasised run-in subject nests by its
#: depth, a display heading as large as a "Chapter N" line closes the chapter, a privilege/confidentiality
#: banner heads nothing, body-size notes numbered "1." on the baseline found where the body cites them raised,
#: an Act's smaller "Note:" at its subsection's text belongs to the subsection, not its last item, a pleading's
#: margin line numbers 1-28 dropped, text turned a quarter measured like level text and read in its order;
#: 24: a statute item closed by "; and" / "; or" ends before its sibling, a CFR "(c) …—(1) In general." opens
#: (c) and its (1), "self-" broken at a line's end keeps its hyphen; 25: an Act's inserted "(1A)" is a subsection;
#: 26: a number range broken at its dash at a line's end reads as printed, "273–274"; 27: the line after a
#: wrapped title, set in another size, opens the section's text even across a page break; 28: measured and
#: reverted; 29: an older Act's "3. (1)" opens section 3 and its (1), a later "5." / "3A." / "4.—" its next,
#: its side notes kept out of its sentences, carried over a page break, notes cited "[1]" in the body's type
#: with "[1] …" at the foot, a figure hyphenated after its thousands comma read whole; 30: measured and reverted,
#: twice; 31: a side note printed on the baseline of its text's line, beside the text block, is read apart;
#: 32: an EU regulation's "Article 21" on a line of its own opens its level, and so does "CHAPTER II" alone;
#: 33: a line's size from its letters' boxes alone, a court of appeals' "NAME, Circuit Judge, concurring …"
#: opens an opinion, "Title I implements …" is a sentence, not Title I's heading; 34: a centred line (a date
#: line ending a cover page) ends its paragraph, across a page break too; 35: "J U D G M E N T" reads "JUDGMENT";
#: 36: a band of columns as short as two columns of six lines, notes in two columns under a one-column page; and
#: a review's invented prints: a court's "NAME, Circuit Judge:" and its siblings, a contract's ARTICLE holding its
#: SECTIONs, an article quoted after "… provides:", block quotes not centred lines, letter-spaced words kept
#: apart, "ARTICLE II" / "Article 2A", a side note a pica off its text, a table's small last column kept in its
#: row, "Title VII's …" a sentence; 37: a treaty's PART THREE holds its TITLE II where the Part is open further out;
#: 38: a second review's prints: articles quoted after "… read as follows:", "ARTICLE I — DEFINITIONS", a UK Act's
#: PART holding its CHAPTERs, an excerpt's PART under a later TITLE, a centred caption, "Part 2 Application …",
#: a short table in the body's type, court names with initials and "JR.", "OPINION" over the judge's line; 39: a
#: third review's: sections' run-in titles, tables in smaller type, a judgment's bold "Article 14", the TFEU's PART
#: ONE / Article 1 / TITLE I, a quoted "Article 1" in a judgment's outline, the UCC's ARTICLE over PART, two-column
#: pages' full lines, "PER CURIAM:", "United States District Judge", SCOTUS "with whom … joins"); 40: no child
#: ends on a lead-in ("… the lesser of—") when its items fit with it (the chunker's, not the parser's); 41: a
#: plain-text print's running lines (page numbers, a filer's line at each page break) are blanked; 42: only
#: those a page apart, a worded one on five pages or more (a column of years, a name said thrice stay).
PARSER_VERSION = 42

Summarizer = Callable[[ParsedDocument], str]


@dataclass
class IngestReport:
    """What one ingest run did; ``summary_line()`` is what the CLI prints at the end.

    ``skipped``: files not indexed, (path, reason). ``kept``: documents already in the index whose new
    version could not be made (source moved, changed, unreadable or over a limit), so their previous
    chunks were kept, (name, reason). ``damaged``: files indexed from a damaged source (a PDF PDFium had
    to repair), (path, reason). Any of them makes the run incomplete: ``ok`` is false and the CLI exits 1.
    ``renamed``: files indexed under another name than their path below the folder given — a longer one,
    because another file has that name, or the one they were indexed under before — (path, name, why); the
    run is still complete. ``other``: files of a type not read found in the folders given, by suffix (the run is
    still complete: a folder of PDFs may hold images too; a folder holding nothing readable is in ``skipped``).
    """

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
    kept: list[tuple[str, str]] = field(default_factory=list)
    damaged: list[tuple[str, str]] = field(default_factory=list)
    renamed: list[tuple[str, str, str]] = field(default_factory=list)
    other: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    index_dir: str = ""

    @property
    def ok(self) -> bool:
        """True when every file found was indexed and every indexed document is current."""
        return not self.skipped and not self.kept and not self.damaged

    def summary_line(self) -> str:
        kept = f", {len(self.kept)} kept from before" if self.kept else ""
        kept += f", {len(self.damaged)} damaged" if self.damaged else ""
        return (
            f"{self.documents} documents, {self.pages} pages, {self.sections} sections, {self.footnotes} footnotes "
            f"-> {self.parents} parents, {self.children} children, {self.footnote_chunks} footnote chunks "
            f"({self.reused_documents} unchanged, {self.embedded} texts embedded, {len(self.skipped)} skipped"
            f"{kept}) in {self.seconds:.1f} s"
        )


def discover(paths: Iterable[str | Path], suffixes: Iterable[str]) -> list[tuple[Path, str]]:
    """Files to ingest with the name each is cited by (see ``discovery.find_sources``, which also says
    what it left out and why)."""
    return find_sources(paths, suffixes).files


def _chunk_settings(settings: Settings) -> dict:
    return {**{k: getattr(settings, k) for k in CHUNK_SETTINGS}, "parser": PARSER_VERSION}


def _recorded_chunk_settings(index: IndexBackend) -> dict | None:
    """The chunk settings ``index`` was built with; older indexes lack later keys, which get their old value."""
    recorded = index.recorded_settings.get("chunking")
    if not isinstance(recorded, dict):
        return None
    return {**LEGACY_CHUNK_SETTINGS, **recorded}


def parser_behind(index: IndexBackend) -> int | None:
    """The parser version ``index``'s documents were parsed with, where it is older than this lclfqa's
    :data:`PARSER_VERSION` (ingesting the same files again re-parses them); ``None`` when current or empty. An
    index from before versions were recorded counts as version 1."""
    recorded = _recorded_chunk_settings(index)
    version = recorded.get("parser") if recorded else None
    return version if isinstance(version, int) and version < PARSER_VERSION else None


def _stale_documents(index: IndexBackend) -> set[str]:
    """Documents whose chunks were kept from earlier chunk settings because their source could not be re-read."""
    stale = index.recorded_settings.get("stale_documents", [])
    return {str(n) for n in stale} if isinstance(stale, list) else set()


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


class SourceChanged(UnreadableDocument):
    """A stored document's source file no longer has the bytes that were indexed."""


def ingest(
    paths: Iterable[str | Path],
    index_dir: str | Path,
    settings: Settings | None = None,
    *,
    embeddings: Embeddings | None = None,
    summarizer: Summarizer | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    follow_symlinks: bool = False,
    wait: bool = True,
    on_wait: Callable[[str], None] | None = None,
) -> IngestReport:
    """Ingest ``paths`` (files or folders) into the index at ``index_dir``, adding to what is there.

    ``progress(stage, done, total)`` is called as work advances (the CLI draws bars with it).
    ``summarizer`` makes the ~150-character document summaries (SAC) when ``settings.summaries``.
    ``follow_symlinks``: also follow links that leave the folders given (see ``discovery``).

    The whole run holds the index's writer lock (``lock.writer_lock``), from reading the old state to
    publishing the new one, so concurrent ingests into one index each see the other's documents. If
    another ingest holds it: ``wait`` blocks (calling ``on_wait(message)`` once), else ``IndexBusy``.

    A document already in the index is never dropped: when chunk settings change it is re-parsed from its
    stored absolute path, and if that file is gone, changed or unreadable its old chunks stay and it is
    reported in ``IngestReport.kept``.
    """
    environment.configure()  # before any parser imports unstructured
    from lclfqa.ingest.formats import SUPPORTED_SUFFIXES

    settings = settings or Settings()
    paths = list(paths)  # read twice: by the folder check and by discovery
    started = time.perf_counter()
    report = IngestReport(index_dir=str(index_dir))
    tick = progress or (lambda stage, done, total: None)
    if settings.summaries and summarizer is None:
        raise ValueError("summaries are on but no summarizer was given (see lclfqa.ingest.summaries)")
    if os.path.exists(index_dir) and not os.path.isdir(index_dir):
        raise ValueError(f"--index {index_dir} is a file, not an index directory; pass a folder path")
    if settings.index_backend == "embedded":  # (milvus-lite keeps its database file in the folder)
        _check_not_a_documents_folder(Path(index_dir), paths)

    found = find_sources(paths, SUPPORTED_SUFFIXES, follow_symlinks=follow_symlinks)
    report.skipped.extend(found.problems)
    report.renamed.extend(found.renamed)
    report.other = dict(found.other)
    for path, reason in found.problems:
        log.warning("skipped %s: %s", path, reason)

    with writer_lock(index_dir, wait=wait, on_wait=on_wait):
        existing = open_index(settings, Path(index_dir), create=True)  # read under the lock
        try:
            _ingest_locked(existing, found.files, settings, embeddings, summarizer, report, tick)
        finally:
            existing.close()
    report.seconds = time.perf_counter() - started
    return report


def _check_not_a_documents_folder(index_dir: Path, paths: Iterable[str | Path]) -> None:
    """Raise ``ValueError`` when ``index_dir`` is a folder being ingested, or holds files that are no
    index's: the index's files would be written among the user's documents (and read as documents next time)."""
    try:
        if not index_dir.is_dir() or (index_dir / "CURRENT").exists():
            return
        given = any(os.path.isdir(p) and os.path.samefile(p, index_dir) for p in paths)
        # an index's own (a publish cut short leaves CURRENT.tmp), and hidden files (.DS_Store, .gitkeep)
        own = {LOCK_NAME, CURRENT, f"{CURRENT}.tmp"}
        names = [e.name for e in index_dir.iterdir()]
        others = [n for n in names if not (n in own or is_generation(n) or n.startswith("."))]
    except OSError:  # a folder that cannot be read: the lock says so, in the words the CLI shows
        return
    if given:
        raise ValueError(f"--index {index_dir} is the folder being ingested; give the index a folder of its own")
    if "milvus.db" in others:
        raise ValueError(f"--index {index_dir} holds a Milvus Lite index: pass --backend milvus")
    if others:
        shown = ", ".join(sorted(others)[:3]) + (", …" if len(others) > 3 else "")
        raise ValueError(f"--index {index_dir} holds other files ({shown}), not an index; give a new or empty folder")


def _ingest_locked(
    existing: IndexBackend,
    files: list[tuple[Path, str]],
    settings: Settings,
    embeddings: Embeddings | None,
    summarizer: Summarizer | None,
    report: IngestReport,
    tick: Callable[[str, int, int], None],
) -> None:
    from lclfqa.ingest.formats import parse_file

    has_index = bool(existing.embedding_model)  # an empty index (none yet) records no model
    # unset, the embedder is the index's own (a new index: the default); one asked for must be the index's
    settings = replace(settings, embedding_model=settings.embedder(existing.embedding_model))
    if has_index:
        existing.check_embedder(settings.embedder())
    same_chunking = has_index and _recorded_chunk_settings(existing) == _chunk_settings(settings)
    stale = _stale_documents(existing) if has_index else set()

    records: dict[str, DocumentRecord] = dict(existing.documents)
    hashed: dict[str, str] = {}  # sha256 by path, for files read twice in this run
    files = _names_against_index(files, records, report, hashed)
    # documents whose stored chunks were made with these settings, and those (re)made in this run
    current = {name for name in records if name not in stale} if same_chunking else set()
    made: dict[str, list[Chunk]] = {}

    known = {name for _, name in files}
    # stored documents that need new chunks but were not given this run: re-read from where they were read
    rechunk = {name for name in records if name not in current and name not in known}
    todo: list[tuple[Path, str]] = list(files) + [(_stored_source(records[n]), n) for n in sorted(rechunk)]
    for i, (path, name) in enumerate(todo):
        tick("parse", i, len(todo))
        old = records.get(name)
        try:
            if not _utf8(name):  # a Latin-1 name on a UTF-8 system: no id, no record can hold it
                raise UnreadableDocument(path, "its file name is not UTF-8 text: rename the file and ingest again")
            check_file(path, settings)
            sha = hashed.get(str(path)) or file_sha256(path)
            if old is not None and old.sha256 == sha and (name in current or name in made):
                report.reused_documents += 1
                continue
            if name in rechunk and old is not None and old.sha256 != sha:
                raise SourceChanged(
                    path, "the file changed since it was indexed; ingest its folder again to index the new version"
                )
            if path.stat().st_size == 0:
                raise UnreadableDocument(path, "empty file (0 bytes)")
            doc = replace(parse_file(path), name=name)
            check_document(doc, settings)
            damage = pdf_damage(path) if path.suffix.lower() == ".pdf" else None
            if damage:
                report.damaged.append((str(path), f"indexed, but the file is damaged: {damage}"))
            summary = summarizer(doc) if settings.summaries and summarizer else ""
            prefix = document_prefix(name, summary, settings.metadata_prefix)
            made[name] = chunk_with_settings(doc, settings, prefix)
            stale.discard(name)
            records[name] = DocumentRecord(
                name=name,
                source=os.path.abspath(path),
                sha256=sha,
                pages=doc.pages,
                sections=len(doc.sections),
                footnotes=len(doc.footnotes),
                summary=summary,
                dropped_headers=doc.dropped_headers,
                dropped_footers=doc.dropped_footers,
            )
        except Exception as e:  # never let one file kill the batch, nor lose what the index had
            reason = _reason(e)
            if isinstance(e, UnreadableDocument | OSError):
                log.warning("%s: %s", path, reason)
            else:
                log.exception("%s", path)
            if old is None:
                report.skipped.append((str(path), reason))
                continue
            if name not in current and name not in made and not same_chunking:
                stale.add(name)  # its chunks were made with other settings: the index keeps them as they are
            report.kept.append((name, f"{reason} (source {path}); its previously indexed chunks are kept"))
    tick("parse", len(todo), len(todo))

    if not has_index and not made:  # nothing read: no index is made (it would fix an embedder for nothing)
        return
    new_chunks = [c for chunks in made.values() for c in chunks]
    searchable = [c for c in new_chunks if c.kind != PARENT]
    vectors = _embed(searchable, existing, settings, embeddings, report, tick)
    recorded = {
        "chunking": _chunk_settings(settings),
        "stale_documents": sorted(stale & set(records)),
        "embedder_revision": embedder_revision(settings.embedder()),
    }
    batch = DocumentBatch([records[name] for name in made], new_chunks, vectors, settings.embedder(), recorded)
    try:
        existing.add_documents(batch, progress=tick)
    except Exception as exc:  # the write publishes a new generation only once whole: the old one stays live
        if out_of_space(exc):
            raise IndexSpaceError(existing.location, exc) from exc
        raise
    for rec in existing.documents.values():
        report.documents += 1
        report.pages += rec.pages
        report.sections += rec.sections
        report.footnotes += rec.footnotes
    stats = existing.stats()
    report.parents = stats.parents
    report.children = stats.children
    report.footnote_chunks = stats.footnotes


def _names_against_index(
    files: list[tuple[Path, str]], records: dict[str, DocumentRecord], report: IngestReport, hashed: dict[str, str]
) -> list[tuple[Path, str]]:
    """``files`` named so that no file given is indexed twice and none replaces another file's document.

    A file's name is its path below the folder given, so one file can get two names and two files one:
    - a file indexed already (the same file, links resolved, or a moved one: its old path gone, the same
      bytes) under another name keeps the name it was indexed under: one copy, the same citations; it is
      reported in ``report.renamed`` ("cuad/x.txt" given, "x.txt" kept: a benchmark that names files by
      their path below the corpus will not find it under the name it expects);
    - a file whose name is a different file's in the index ("x.txt" from folder b, where folder a's "x.txt"
      is indexed and still there, with other bytes), or one a file given in this run keeps, is named by more
      of its path ("b/x.txt", reported) instead of replacing that document.
    A document whose file has the same bytes at another path (a copy) is kept as it is. The files hashed
    here are kept in ``hashed`` (by path) for the ingest that follows.
    """
    by_real = {os.path.realpath(_stored_source(rec)): name for name, rec in records.items()}
    gone = {rec.sha256: name for name, rec in records.items() if not _stored_source(rec).exists()}
    stored: list[str | None] = []
    for path, _ in files:
        old = by_real.get(os.path.realpath(path))
        if old is None and gone:
            try:
                hashed[str(path)] = file_sha256(path)
            except OSError:
                pass
            old = gone.get(hashed.get(str(path), ""))
        stored.append(old)
    names = [old or name for (_, name), old in zip(files, stored, strict=True)]
    claimed = {old: str(path) for (path, _), old in zip(files, stored, strict=True) if old is not None}
    taken = set(records) | set(names)
    found: list[tuple[str, str, str]] = []
    for i, ((path, name), old) in enumerate(zip(files, stored, strict=True)):
        if old is not None:
            if old != name:
                found.append((str(path), old, f"indexed as {old} already; given as {name}"))
        elif name in claimed or (name in records and _another_file(records[name], path, hashed)):
            names[i] = distinct_name(path, name, taken)
            taken.add(names[i])
            owner = claimed.get(name) or records[name].source
            found.append((str(path), names[i], f"{name} is the name of {owner} in the index"))
    named = [(path, name) for (path, _), name in zip(files, names, strict=True)]
    final = {str(path): name for path, name in named}
    said = {f[0] for f in found}
    # a name the folder walk gave to tell two files apart stands only where the file still has it
    report.renamed[:] = [r for r in report.renamed if final.get(r[0]) == r[1] and r[0] not in said] + found
    return named


def _another_file(record: DocumentRecord, path: Path, hashed: dict[str, str]) -> bool:
    """Whether ``record``'s source is still there, is not ``path``, and holds other bytes."""
    source = _stored_source(record)
    try:
        if not source.is_file() or os.path.samefile(source, path):
            return False
        if str(path) not in hashed:
            hashed[str(path)] = file_sha256(path)
        return hashed[str(path)] != record.sha256
    except OSError:
        return False


def _stored_source(record: DocumentRecord) -> Path:
    """Where a stored document was read from: absolute since this version; older indexes stored the path
    as given, which is tried from the current folder."""
    return Path(record.source)


def _utf8(name: str) -> bool:
    """Whether ``name`` (as the file system gave it) is UTF-8 text, not bytes it could not decode."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnreadableDocument):
        return exc.reason
    if isinstance(exc, FileNotFoundError):
        return "file not found (moved or deleted?)"
    if isinstance(exc, PermissionError):
        return "cannot be read (permission denied)"
    if isinstance(exc, OSError):
        return f"cannot be read ({exc.strerror or exc})"
    return f"unexpected error: {type(exc).__name__}: {exc}"


def embedding_order(texts: dict[str, str], embeddings: Embeddings) -> list[tuple[str, str]]:
    """``texts`` (hash → text) in the order ingest embeds them: by length, then hash (so the order is
    deterministic). Each model batch pads to its longest text, so the length is the embedder's own word-piece
    count where it gives one (the local MiniLM's ``token_counts``), else characters: on the IRA, padding costs
    +6 % of the word pieces in character order and +0.4 % in word-piece order (+59 % in hash order)."""
    items = list(texts.items())
    count = getattr(embeddings, "token_counts", None)
    lengths = count([t for _, t in items]) if callable(count) else [len(t) for _, t in items]
    return [kv for _, kv in sorted(zip(lengths, items, strict=True), key=lambda x: (x[0], x[1][0]))]


def _embed(
    chunks: list[Chunk],
    existing: IndexBackend,
    settings: Settings,
    embeddings: Embeddings | None,
    report: IngestReport,
    tick: Callable[[str, int, int], None],
) -> np.ndarray:
    keys = [text_sha256(embedding_text(c)) for c in chunks]
    cache = existing.vectors_for(keys)
    missing = {k: embedding_text(c) for k, c in zip(keys, chunks, strict=True) if k not in cache}
    if missing:
        model = embeddings or get_embeddings(settings.embedder(), settings.openai_base_url)
        order = embedding_order(missing, model)
        batch = max(1, settings.embed_batch_size)
        for i in range(0, len(order), batch):
            tick("embed", i, len(order))
            part = order[i : i + batch]
            for (key, _), vec in zip(part, embed_array(model, [t for _, t in part]), strict=True):
                cache[key] = vec
        tick("embed", len(missing), len(missing))
    report.embedded = len(missing)
    dims = {v.shape[0] for v in cache.values()}
    if len(dims) > 1:
        raise ValueError(
            f"the embedder gives {sorted(dims)[-1]}-d vectors but the index holds {sorted(dims)[0]}-d ones (another "
            "embedding model under the same name?): ingest into a new index"
        )
    if not chunks:
        dim = next(iter(cache.values())).shape[0] if cache else 1
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([cache[k] for k in keys]).astype(np.float32)
