"""The embedded backend: one generation of the on-disk index loaded, searched, and rewritten on add.

Files and their layout are :mod:`lclfqa.index.writer`'s; how a new generation goes live is
:mod:`lclfqa.index.generations`'. This module reads the live generation: chunks from SQLite on demand,
BM25 from bm25s arrays, dense rows from a memory-mapped matrix (an HNSW graph from ``HNSW_MIN_ROWS``
chunks on). Adding or removing documents writes a complete new generation (everything unchanged is
copied, nothing re-embedded) and then reads it. Nothing here unpickles.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lclfqa.index.errors import EmbedderMismatch, IndexCorrupted, IndexFormatError, IndexNotFound, IndexStoreError
from lclfqa.index.fusion import Fusion
from lclfqa.index.generations import CURRENT, GEN_RE, is_generation, read_current
from lclfqa.index.hybrid import fuse_searches
from lclfqa.index.integrity import VERIFY_ON_LOAD_MAX_BYTES, file_problems, recorded_bytes, sqlite_problems
from lclfqa.index.lock import writer_lock
from lclfqa.index.protocol import Progress, Ranked, Scope
from lclfqa.index.records import (
    KINDS,
    DocumentBatch,
    DocumentRecord,
    IndexStats,
    chunk_from_fields,
    same_model,
    unit_queries,
)
from lclfqa.index.sparse import Bm25Weights, bm25_over, bm25s, top_k
from lclfqa.index.tokens import TOKENIZER_VERSION, tokenize
from lclfqa.index.writer import BM25, DENSE, FORMAT_VERSION, HNSW, HNSW_EF_SEARCH, MANIFEST, SQLITE, write_index
from lclfqa.ingest.document import PARENT, Chunk

log = logging.getLogger(__name__)

__all__ = ["EmbeddedBackend", "check_index"]

#: FAISS spreads a batch over OpenMP threads; for a handful of queries on 2 cores waking the pool costs
#: more than the searches (4 queries: ~8 ms batched, ~1 ms one by one).
_HNSW_LOOP_MAX = 16


_CHUNK_COLUMNS = (
    'c.id, c.kind, c.document, c.text, c.section_path, c.page_start, c.page_end, c.start, c."end", '
    "c.parent_ids, c.indexed_text, c.footnote_numbers"
)


class EmbeddedBackend:
    """A loaded generation: look-ups by chunk id, BM25 and dense search over children and footnotes.

    Chunks are read from SQLite on demand (and cached), so loading costs the search arrays and the
    row-to-id map only. Safe to share between threads. ``EmbeddedBackend.load(dir)`` opens an existing
    index; ``EmbeddedBackend.open(dir, create=True)`` also gives an empty one to add documents to.
    """

    index_dir: Path
    path: Path | None
    manifest: dict
    embedding_model: str
    dimension: int
    documents: dict[str, DocumentRecord]
    ef_search: int

    def __init__(self, index_dir: str | Path) -> None:  # use load() or open()
        self.index_dir = Path(index_dir)
        self._lock = threading.Lock()
        self._clear()

    def _clear(self) -> None:
        """The state of an index without a generation (empty)."""
        self.path = None
        self.manifest = {}
        self.embedding_model = ""
        self.dimension = 0
        self.documents = {}
        self.ef_search = HNSW_EF_SEARCH
        self._con: sqlite3.Connection | None = None
        self._cache: dict[str, Chunk] = {}
        self._rows_cache: dict[frozenset[str], np.ndarray] = {}
        self._row_ids: list[str] = []
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._hnsw: Any = None
        self._bm25: Bm25Weights | None = None

    # -- loading

    @classmethod
    def open(cls, index_dir: str | Path, *, create: bool = False) -> EmbeddedBackend:
        """:meth:`load`; with ``create``, an empty index where there is none yet (written on the first add)."""
        try:
            return cls.load(index_dir)
        except IndexNotFound:
            if not create or (os.path.exists(index_dir) and not os.path.isdir(index_dir)):
                raise
            if os.path.isdir(index_dir) and read_current(Path(index_dir)) is not None:
                raise  # CURRENT names a generation that is gone: not an empty index
            return cls(index_dir)

    @classmethod
    def load(cls, index_dir: str | Path) -> EmbeddedBackend:
        """Open the generation that ``index_dir/CURRENT`` names.

        Raises ``IndexNotFound`` when there is nothing to load and ``IndexFormatError`` when what is there
        is unreadable; both say which path and what to do.
        """
        index_dir = Path(index_dir)
        if os.path.exists(index_dir) and not os.path.isdir(index_dir):
            raise IndexNotFound(f"no index at {index_dir}: it is a file, not an index directory")
        if not os.path.isdir(index_dir):
            raise IndexNotFound(f"no index at {index_dir}: the directory does not exist (run ingest to build it)")
        self = cls(index_dir)
        self._load_current()
        return self

    def _load_current(self) -> None:
        index_dir = self.index_dir
        for _attempt in range(3):
            name = read_current(index_dir)
            if name is None:
                # an ingest into it that indexed nothing, or none yet
                if not any(is_generation(p.name) for p in Path(index_dir).glob("gen-*")):
                    raise IndexNotFound(f"no index at {index_dir}: nothing has been indexed into it (run ingest)")
                raise IndexNotFound(f"no index at {index_dir}: {CURRENT} is missing (run ingest to build it)")
            if not GEN_RE.match(name):
                raise IndexFormatError(
                    f"index {index_dir}: {CURRENT} names {name!r}, not a generation; delete {index_dir} "
                    "and run ingest again"
                )
            try:
                self._open_generation(index_dir / name)
                return
            except IndexStoreError:
                if read_current(index_dir) != name:
                    continue  # a writer published a new generation (and removed this one) meanwhile
                raise
        raise IndexNotFound(f"index {index_dir}: the live generation kept changing while loading; retry")

    def _open_generation(self, gen_dir: Path, *, hashes: bool = True) -> None:
        if not gen_dir.is_dir():
            raise IndexNotFound(
                f"index {self.index_dir}: {CURRENT} names {gen_dir.name}, which does not exist; run ingest again"
            )
        self.close()
        self._clear()
        self.path = gen_dir
        try:
            self._open(gen_dir, hashes)
        except IndexStoreError:
            self.close()
            raise
        except (OSError, ValueError, KeyError, TypeError, RuntimeError, sqlite3.Error) as exc:
            self.close()
            raise IndexFormatError(
                f"index {gen_dir} is unreadable ({type(exc).__name__}: {exc}); delete {self.index_dir} and run "
                "ingest again"
            ) from exc

    def _open(self, gen_dir: Path, hashes: bool) -> None:
        manifest_path = gen_dir / MANIFEST
        if not manifest_path.is_file():
            raise IndexFormatError(f"index {gen_dir} has no {MANIFEST}; delete {gen_dir.parent} and run ingest again")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format_version") != FORMAT_VERSION:
            raise IndexFormatError(
                f"index {gen_dir} has format version {manifest.get('format_version')!r}; this lclfqa reads "
                f"version {FORMAT_VERSION}: run ingest again to rebuild it"
            )
        recorded = manifest.get("files")
        if isinstance(recorded, dict):  # indexes written before checksums existed have none
            hashes = hashes and recorded_bytes(recorded) <= VERIFY_ON_LOAD_MAX_BYTES
            problems = file_problems(gen_dir, recorded, hashes=hashes)
            if problems:
                raise IndexCorrupted(self.index_dir, problems)
        self.manifest = manifest
        self.embedding_model = str(manifest["embedding_model"])
        self.dimension = int(manifest["dimension"])
        n = int(manifest["counts"]["searchable"])

        uri = (gen_dir / SQLITE).resolve().as_uri() + "?mode=ro&immutable=1"
        self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self.documents = {
            r[0]: DocumentRecord(*r)
            for r in self._con.execute(
                "SELECT name, source, sha256, pages, sections, footnotes, summary, dropped_headers, "
                "dropped_footers FROM documents ORDER BY rowid"
            )
        }
        self._row_ids = [r[0] for r in self._con.execute("SELECT id FROM chunks WHERE row IS NOT NULL ORDER BY row")]
        if len(self._row_ids) != n:
            raise IndexFormatError(
                f"index {gen_dir}: manifest says {n} searchable chunks, SQLite has "
                f"{len(self._row_ids)}; run ingest again"
            )

        # mmap: the matrix is paged in by the first exact scan, and HNSW indexes never need all of it.
        self._vectors = np.asarray(np.load(gen_dir / DENSE, mmap_mode="r", allow_pickle=False))
        if self._vectors.shape != (n, self.dimension) or self._vectors.dtype != np.float32:
            raise IndexFormatError(
                f"index {gen_dir}: {DENSE} is {self._vectors.dtype}{self._vectors.shape}, "
                f"expected float32({n}, {self.dimension}); run ingest again"
            )

        dense = manifest["dense"]
        self.ef_search = int(dense.get("ef_search", HNSW_EF_SEARCH))
        if dense["kind"] == "hnsw":
            import faiss

            # Memory-mapped, not copied: ~30 ms instead of ~400 ms at 100k x 384.
            self._hnsw = faiss.read_index(str(gen_dir / HNSW), getattr(faiss, "IO_FLAG_MMAP_IFC", 0))
            if self._hnsw.ntotal != n or self._hnsw.d != self.dimension:
                raise IndexFormatError(f"index {gen_dir}: {HNSW} does not match the vectors; run ingest again")
        elif dense["kind"] != "flat":
            raise IndexFormatError(f"index {gen_dir}: unknown dense kind {dense['kind']!r}; run ingest again")

        if manifest.get("tokenizer") != TOKENIZER_VERSION:
            self._rebuild_bm25(gen_dir, manifest.get("tokenizer"))
        elif manifest["bm25"] is not None:
            retriever = bm25s().BM25.load(gen_dir / BM25, mmap=False, allow_pickle=False, show_progress=False)
            self._bm25 = Bm25Weights(retriever)
            if self._bm25.num_docs != n:
                raise IndexFormatError(
                    f"index {gen_dir}: the BM25 index has {self._bm25.num_docs} "
                    f"documents, expected {n}; run ingest again"
                )

    def _rebuild_bm25(self, gen_dir: Path, old: object) -> None:
        """BM25 for this lclfqa's tokenizer, built in memory from the stored chunk texts (the arrays on
        disk belong to the tokenizer ``old``); the next ingest into this index stores the new ones."""
        log.warning(
            "index %s was tokenised with %r, this lclfqa uses %r: BM25 rebuilt in memory; run `lclfqa ingest` "
            "into it once to store the new one (nothing is re-embedded)",
            gen_dir.parent,
            old,
            TOKENIZER_VERSION,
        )
        assert self._con is not None
        rows = self._con.execute("SELECT indexed_text, text FROM chunks WHERE row IS NOT NULL ORDER BY row")
        token_lists = [tokenize(indexed or text) for indexed, text in rows]
        if any(token_lists):  # bm25s cannot index a corpus without a single token
            self._bm25 = Bm25Weights(bm25_over(token_lists))

    def close(self) -> None:
        """Close the SQLite connection (searches keep working; chunk look-ups do not)."""
        con = getattr(self, "_con", None)
        if con is not None:
            con.close()

    def __enter__(self) -> EmbeddedBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        """Number of searchable chunks."""
        return len(self._row_ids)

    def __repr__(self) -> str:
        return f"EmbeddedBackend({str(self.path)!r}, searchable={len(self)}, model={self.embedding_model!r})"

    @property
    def location(self) -> str:
        return str(self.index_dir)

    @property
    def recorded_settings(self) -> dict[str, Any]:
        settings = self.manifest.get("settings", {})
        return settings if isinstance(settings, dict) else {}

    def stats(self) -> IndexStats:
        counts = self.manifest.get("counts", {})
        return IndexStats(
            backend="embedded",
            location=self.location,
            documents=len(self.documents),
            parents=int(counts.get("parents", 0)),
            children=int(counts.get("children", 0)),
            footnotes=int(counts.get("footnotes", 0)),
            embedding_model=self.embedding_model,
            dimension=self.dimension,
        )

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._con is None:
            return []
        with self._lock:
            return self._con.execute(sql, params).fetchall()

    # -- writing

    def add_documents(self, batch: DocumentBatch, progress: Progress | None = None) -> None:
        """Write a new generation: this one's documents with the batch's added or replaced in place (new
        ones last), everything else copied with its vectors, then read it. Always writes, so that an ingest
        also stores what only a newer lclfqa computes (BM25 of a newer tokenizer, checksums)."""
        if self.documents:
            self.check_embedder(batch.embedding_model)
        documents, chunks = batch.documents, batch.chunks
        given = {d.name: d for d in documents}
        by_doc: dict[str, list[Chunk]] = {name: [] for name in given}
        for c in chunks:
            if c.document not in by_doc:
                raise ValueError(f"chunk {c.id!r} belongs to document {c.document!r}, which is not in `documents`")
            by_doc[c.document].append(c)
        searchable = [c for c in chunks if c.kind != PARENT]
        vectors = np.asarray(batch.vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(searchable):
            raise ValueError(
                f"vectors must have shape (n_searchable, dim) = ({len(searchable)}, dim), one row per chunk of "
                f"kind != {PARENT!r} in the order given; got {vectors.shape}"
            )
        new_rows = {c.id: i for i, c in enumerate(searchable)}
        records = [given.get(name, rec) for name, rec in self.documents.items()]
        records += [rec for name, rec in given.items() if name not in self.documents]
        self._write(records, by_doc, vectors, new_rows, batch.embedding_model, batch.settings)

    def remove_documents(self, names: Collection[str]) -> None:
        """Write a new generation without these documents (nothing is written when none is stored)."""
        gone = set(names) & set(self.documents)
        if not gone:
            return
        records = [rec for name, rec in self.documents.items() if name not in gone]
        empty = np.zeros((0, self.dimension), dtype=np.float32)
        self._write(records, {}, empty, {}, self.embedding_model, self.recorded_settings)

    def _write(
        self,
        records: list[DocumentRecord],
        new_chunks: dict[str, list[Chunk]],
        new_vectors: np.ndarray,
        new_rows: dict[str, int],
        embedding_model: str,
        settings: Mapping[str, Any],
    ) -> None:
        old_rows = {cid: row for row, cid in enumerate(self._row_ids)}
        old_vectors = np.asarray(self._vectors) if len(self._row_ids) else None  # one read of the matrix
        all_chunks: list[Chunk] = []
        rows: list[np.ndarray] = []
        stored = self.chunks() if any(r.name not in new_chunks for r in records) else []
        stored_by_doc: dict[str, list[Chunk]] = {}
        for c in stored:
            stored_by_doc.setdefault(c.document, []).append(c)
        for rec in records:
            if rec.name in new_chunks:
                doc_chunks = new_chunks[rec.name]
                rows += [new_vectors[new_rows[c.id]] for c in doc_chunks if c.kind != PARENT]
            else:
                doc_chunks = stored_by_doc.get(rec.name, [])
                assert old_vectors is not None or all(c.kind == PARENT for c in doc_chunks)
                rows += [old_vectors[old_rows[c.id]] for c in doc_chunks if c.kind != PARENT]  # type: ignore[index]
            all_chunks += doc_chunks
        dim = new_vectors.shape[1] if new_vectors.shape[1] else self.dimension
        matrix = np.stack(rows).astype(np.float32) if rows else np.zeros((0, max(dim, 1)), dtype=np.float32)
        with writer_lock(self.index_dir, reentrant=True):
            gen_dir = write_index(
                self.index_dir,
                records,
                all_chunks,
                matrix,
                embedding_model=embedding_model,
                settings=dict(settings),
                locked=True,
            )
            self._open_generation(gen_dir, hashes=False)  # just written and fsynced: sizes and headers suffice

    def vectors_for(self, text_hashes: Collection[str]) -> dict[str, np.ndarray]:
        wanted = set(text_hashes)
        rows = self._query("SELECT row, text_sha256 FROM chunks WHERE row IS NOT NULL ORDER BY row")
        found = [(row, sha) for row, sha in rows if sha in wanted]
        if not found:
            return {}
        vectors = np.asarray(self._vectors[[row for row, _ in found]])
        return {sha: vectors[i] for i, (_, sha) in enumerate(found)}

    def vectors_by_text(self) -> dict[str, np.ndarray]:
        """``text_sha256(embedding_text(chunk))`` -> unit vector, for every searchable chunk."""
        rows = self._query("SELECT row, text_sha256 FROM chunks WHERE row IS NOT NULL ORDER BY row")
        vectors = np.array(self._vectors)  # one read of the (memory-mapped) matrix
        return {sha: vectors[row] for row, sha in rows}

    # -- look-ups

    def chunk(self, chunk_id: str) -> Chunk:
        """The chunk with this id; ``KeyError`` if the index has none."""
        cached = self._cache.get(chunk_id)
        if cached is not None:
            return cached
        rows = self._query(f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id = ?", (chunk_id,))
        if not rows:
            raise KeyError(f"no chunk {chunk_id!r} in index {self.location}")
        return self._cache.setdefault(chunk_id, chunk_from_fields(rows[0]))

    def _chunks(self, sql: str, params: Sequence[Any]) -> list[Chunk]:
        out = []
        for r in self._query(sql, params):
            cached = self._cache.get(r[0])
            out.append(cached if cached is not None else self._cache.setdefault(r[0], chunk_from_fields(r)))
        return out

    def chunks(self, kind: str | None = None, document: str | None = None) -> list[Chunk]:
        """All chunks, optionally of one kind and/or one document, in the order they were written."""
        where, params = [], []
        if kind is not None:
            if kind not in KINDS:
                raise ValueError(f"unknown chunk kind {kind!r}; valid kinds: {', '.join(KINDS)}")
            where.append("c.kind = ?")
            params.append(kind)
        if document is not None:
            where.append("c.document = ?")
            params.append(document)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        return self._chunks(f"SELECT {_CHUNK_COLUMNS} FROM chunks c{clause} ORDER BY c.seq", params)

    def parents_of(self, chunk_id: str) -> list[Chunk]:
        """Every parent holding ``chunk_id`` (two for a section on an overlap, several for a footnote),
        in parent order within the document; ``[]`` for a parent. ``KeyError`` for an unknown id."""
        self.chunk(chunk_id)
        return self._chunks(
            f"SELECT {_CHUNK_COLUMNS} FROM links l JOIN chunks c ON c.id = l.parent_id "
            "WHERE l.child_id = ? ORDER BY c.seq",
            (chunk_id,),
        )

    def children_of(self, parent_id: str) -> list[Chunk]:
        """Every child and footnote child that names ``parent_id``, in document order."""
        self.chunk(parent_id)
        return self._chunks(
            f"SELECT {_CHUNK_COLUMNS} FROM links l JOIN chunks c ON c.id = l.child_id "
            "WHERE l.parent_id = ? ORDER BY c.seq",
            (parent_id,),
        )

    @property
    def chunking(self) -> str:
        """How the chunks were made, as ``manifest["settings"]["chunking"]["chunking"]`` records it: ``"layout"``
        (LCLF-QA §3.2) or ``"plain"`` (ablation H3). Indexes written before the setting existed are layout."""
        recorded = self.recorded_settings.get("chunking")
        mode = recorded.get("chunking") if isinstance(recorded, dict) else None
        return str(mode) if mode else "layout"

    def check_embedder(self, name: str) -> None:
        """Raise ``EmbedderMismatch`` unless ``name`` is the embedding model this index was built with."""
        if not same_model(name, self.embedding_model):
            raise EmbedderMismatch(self.index_dir, self.embedding_model, name)

    # -- search

    def rows_of(self, documents: Collection[str]) -> np.ndarray:
        """The search rows (sorted) of the chunks of ``documents``; unknown names have none."""
        key = frozenset(documents)
        with self._lock:
            cached = self._rows_cache.get(key)
        if cached is None:
            names = sorted(key)
            marks = ",".join("?" * len(names))
            found = self._query(f"SELECT row FROM chunks WHERE row IS NOT NULL AND document IN ({marks})", names)
            cached = np.array(sorted(r[0] for r in found), dtype=np.int64)
            with self._lock:
                self._rows_cache[key] = cached
        return cached

    def search_sparse(self, query: str, k: int, documents: Scope = None) -> Ranked:
        """Top ``k`` searchable chunks by BM25 (Lucene variant, bm25s), best first; only chunks that share
        a token with the query (score > 0), and only of ``documents`` when given (a document scope)."""
        if k <= 0 or self._bm25 is None:
            return []
        scores = self._bm25.scores(tokenize(query), len(self._row_ids))
        if scores is None:
            return []
        candidates = np.flatnonzero(scores > 0)
        if documents is not None:
            candidates = np.intersect1d(candidates, self.rows_of(documents), assume_unique=True)
        return [(self._row_ids[r], float(scores[r])) for r in top_k(scores, k, candidates)]

    def search_dense(self, vectors: np.ndarray, k: int, documents: Scope = None) -> list[Ranked]:
        """Top ``k`` by cosine for each row of ``vectors`` (the question and its rewrites) in one pass over
        the matrix, which costs about the same as a single query: the scan is memory-bound. With
        ``documents`` (a document scope), only their chunks, scored exactly."""
        n = len(self._row_ids)
        if n == 0 or k <= 0:  # before the shape check: an empty index may have dimension 0
            return [[] for _ in range(len(np.atleast_2d(vectors)))]
        queries = unit_queries(vectors, self.dimension, self.location, self.embedding_model)
        if documents is not None:
            rows = self.rows_of(documents)
            if len(rows) == 0:
                return [[] for _ in range(len(queries))]
            sub = np.einsum("ij,kj->ki", self._vectors[rows], queries)
            k = min(k, len(rows))
            return [[(self._row_ids[rows[i]], float(scores[i])) for i in top_k(scores, k)] for scores in sub]
        k = min(k, n)
        if self._hnsw is not None:
            import faiss

            params = faiss.SearchParametersHNSW(efSearch=max(self.ef_search, k))
            if len(queries) <= _HNSW_LOOP_MAX:
                found = [self._hnsw.search(q[None, :], k, params=params) for q in queries]
                scores = np.vstack([f[0] for f in found])
                rows = np.vstack([f[1] for f in found])
            else:
                scores, rows = self._hnsw.search(queries, k, params=params)
            return [
                [(self._row_ids[r], float(s)) for s, r in zip(srow, rrow, strict=True) if r >= 0]
                for srow, rrow in zip(scores, rows, strict=True)
            ]
        # einsum, not ``@``: it runs numpy's own single-threaded loop instead of multi-threaded BLAS,
        # whose thread wake-ups cost more than this small scan (see writer.HNSW_MIN_ROWS).
        all_scores = np.einsum("ij,kj->ki", self._vectors, queries)
        return [[(self._row_ids[r], float(scores[r])) for r in top_k(scores, k)] for scores in all_scores]

    def hybrid(self, texts: Sequence[str], vectors: np.ndarray, fusion: Fusion, documents: Scope = None) -> Ranked:
        """BM25 and dense lists fused by weighted RRF here (:func:`lclfqa.index.hybrid.fuse_searches`)."""
        return fuse_searches(self, texts, vectors, fusion, documents) if self._row_ids else []


def check_index(index_dir: str | Path) -> list[str]:
    """Every check there is of the live generation (``lclfqa info --check``); ``[]`` when all pass.

    Each file's sha256 against the manifest, SQLite's ``PRAGMA integrity_check``, then a full load
    (counts, shapes, the BM25 and HNSW structures). Raises ``IndexNotFound`` when there is no index.
    """
    index_dir = Path(index_dir)
    name = read_current(index_dir) if os.path.isdir(index_dir) else None
    if name is None:
        raise IndexNotFound(f"no index at {index_dir} (run ingest to build it)")
    gen_dir = index_dir / name
    problems: list[str] = []
    try:
        manifest = json.loads((gen_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{MANIFEST} unreadable ({type(exc).__name__}: {exc})"]
    recorded = manifest.get("files") if isinstance(manifest, dict) else None
    if isinstance(recorded, dict):
        problems += file_problems(gen_dir, recorded, hashes=True)
    else:
        problems.append(f"{MANIFEST} records no checksums (written by an older lclfqa): re-ingest to add them")
    problems += sqlite_problems(gen_dir / SQLITE)
    if not problems:
        try:
            EmbeddedBackend.load(index_dir).close()
        except IndexStoreError as exc:
            problems.append(str(exc))
    return problems
