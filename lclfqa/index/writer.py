"""Writing one generation of the embedded index: validate, then SQLite, dense matrix, BM25 and HNSW.

Layout of one generation directory (see :mod:`lclfqa.index.generations` for how it goes live)::

    gen-000003/
        manifest.json        format version, embedding model, dimension, settings, counts, file checksums
        chunks.sqlite        documents, chunks (row = position in the search arrays), links
        dense.npy            float32 (n_searchable, dimension), unit rows
        dense.hnsw           FAISS HNSW graph (faiss.serialize_index bytes), only for large indexes
        bm25/                bm25s arrays (.npy) and vocabulary/params (.json)

Nothing here pickles: arrays are ``.npy``, the FAISS graph is FAISS's own binary format, the rest is
SQLite/JSON. Only section children and footnote children are searchable; parents are stored so that a
hit on a child can be widened to the parent(s) that hold it (many-to-many ``links``).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import nullcontext
from dataclasses import astuple
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from lclfqa.index.generations import fsync_tree, next_generation, publish
from lclfqa.index.integrity import file_digests
from lclfqa.index.lock import prepare_index_dir, writer_lock
from lclfqa.index.records import KINDS, DocumentRecord, embedding_text, text_sha256, validate_batch
from lclfqa.index.sparse import BM25_PARAMS, bm25_over
from lclfqa.index.tokens import TOKENIZER_VERSION, tokenize
from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk

__all__ = ["FORMAT_VERSION", "HNSW_MIN_ROWS", "write_index"]

FORMAT_VERSION = 1

#: From this many searchable chunks on, the dense search uses an HNSW graph. An exact scan is
#: memory-bound (~0.5 ms at 10k x 384 single-threaded, ~5 ms at 100k), and the multi-threaded BLAS/OpenMP
#: kernels (numpy ``@``, FAISS flat) have a long tail on 2 busy cores (median 6 ms, p95 16 ms at 10k,
#: against 0.35 ms with one thread); an HNSW query uses one thread and takes ~0.2-0.4 ms at any size here.
HNSW_MIN_ROWS = 10_000
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 40
#: 128 gave recall@10 0.999 against the exact scan on 100k clustered vectors (64: 0.973), ~0.15 ms a query.
HNSW_EF_SEARCH = 128

MANIFEST, SQLITE, DENSE, HNSW, BM25 = "manifest.json", "chunks.sqlite", "dense.npy", "dense.hnsw", "bm25"


def _write_sqlite(path: Path, documents: list[DocumentRecord], chunks: list[Chunk]) -> None:
    con = sqlite3.connect(path)
    try:
        # The whole directory is thrown away if the write fails, so no journal is needed.
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.executescript(
            """
            CREATE TABLE documents (
                name TEXT PRIMARY KEY, source TEXT NOT NULL, sha256 TEXT NOT NULL, pages INTEGER NOT NULL,
                sections INTEGER NOT NULL, footnotes INTEGER NOT NULL, summary TEXT NOT NULL,
                dropped_headers INTEGER NOT NULL, dropped_footers INTEGER NOT NULL);
            CREATE TABLE chunks (
                id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, kind TEXT NOT NULL, document TEXT NOT NULL,
                text TEXT NOT NULL, section_path TEXT NOT NULL, page_start INTEGER NOT NULL,
                page_end INTEGER NOT NULL, start INTEGER, "end" INTEGER, parent_ids TEXT NOT NULL,
                indexed_text TEXT NOT NULL, footnote_numbers TEXT NOT NULL,
                row INTEGER UNIQUE, text_sha256 TEXT);
            CREATE INDEX chunks_document ON chunks (document, seq);
            CREATE TABLE links (
                child_id TEXT NOT NULL, parent_id TEXT NOT NULL, PRIMARY KEY (child_id, parent_id)
            ) WITHOUT ROWID;
            CREATE INDEX links_parent ON links (parent_id, child_id);
            """
        )
        con.executemany("INSERT INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [astuple(d) for d in documents])
        rows: list[tuple[Any, ...]] = []
        row = 0
        for seq, c in enumerate(chunks):
            searchable = c.kind != PARENT
            rows.append(
                (
                    c.id,
                    seq,
                    c.kind,
                    c.document,
                    c.text,
                    json.dumps(list(c.section_path), ensure_ascii=False),
                    c.page_start,
                    c.page_end,
                    c.start,
                    c.end,
                    json.dumps(list(c.parent_ids), ensure_ascii=False),
                    c.indexed_text,
                    json.dumps(list(c.footnote_numbers), ensure_ascii=False),
                    row if searchable else None,
                    text_sha256(embedding_text(c)) if searchable else None,
                )
            )
            row += searchable
        con.executemany("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.executemany("INSERT OR IGNORE INTO links VALUES (?, ?)", [(c.id, p) for c in chunks for p in c.parent_ids])
        con.commit()
    finally:
        con.close()


def _write_bm25(directory: Path, token_lists: list[list[str]]) -> None:
    bm25_over(token_lists).save(directory, corpus=None, allow_pickle=False, show_progress=False)


def _write_hnsw(path: Path, vectors: np.ndarray) -> None:
    import faiss

    index = faiss.IndexHNSWFlat(vectors.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    index.add(vectors)
    with open(path, "wb") as f:
        f.write(faiss.serialize_index(index).tobytes())


def _build_generation(
    gen_dir: Path,
    documents: list[DocumentRecord],
    chunks: list[Chunk],
    token_lists: list[list[str]],
    vectors: np.ndarray,
    manifest: dict[str, Any],
    use_hnsw: bool,
) -> None:
    gen_dir.mkdir()
    _write_sqlite(gen_dir / SQLITE, documents, chunks)
    np.save(gen_dir / DENSE, vectors, allow_pickle=False)
    if manifest["bm25"] is not None:
        _write_bm25(gen_dir / BM25, token_lists)
    if use_hnsw:
        _write_hnsw(gen_dir / HNSW, vectors)
    # sizes and checksums of what was just written: loading and `lclfqa info --check` compare against them
    manifest = {**manifest, "files": file_digests(gen_dir)}
    # The manifest is written last: a generation directory without one was never finished.
    with open(gen_dir / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
    fsync_tree(gen_dir)


def write_index(
    index_dir: str | Path,
    documents: list[DocumentRecord],
    chunks: list[Chunk],
    vectors: np.ndarray,
    *,
    embedding_model: str,
    settings: dict,
    hnsw: bool | None = None,
    locked: bool = False,
) -> Path:
    """Write a new generation of the index at ``index_dir`` and make it the live one; return its path.

    ``vectors`` holds one row per chunk whose kind is not ``PARENT``, in the order of ``chunks``; rows
    are L2-normalised here so that inner product is cosine whatever the embedder returned.
    ``settings`` (chunk sizes, prefixes, ...) is stored in the manifest so a later run can tell whether
    the index was built the way it is now configured; it must be JSON-serialisable.
    ``hnsw``: ``None`` picks an HNSW graph when there are at least ``HNSW_MIN_ROWS`` searchable chunks.
    ``locked``: the caller already holds ``writer_lock(index_dir)`` (ingest holds it from reading the old
    state to this write, so that concurrent ingests cannot overwrite each other); else it is taken here.

    Everything is validated before anything touches the disk. A failure or interrupt at any point leaves
    the previous generation live; its half-written successor is removed (or by the next write).
    """
    documents = list(documents)
    chunks = list(chunks)
    searchable, vectors = validate_batch(documents, chunks, vectors)
    try:
        settings_json = json.loads(json.dumps(settings, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"settings must be JSON-serialisable: {exc}") from exc
    use_hnsw = bool(searchable) and (len(searchable) >= HNSW_MIN_ROWS if hnsw is None else hnsw)
    token_lists = [tokenize(embedding_text(c)) for c in searchable]
    has_bm25 = any(token_lists)  # bm25s cannot index a corpus without a single token

    index_dir = prepare_index_dir(index_dir)
    with nullcontext() if locked else writer_lock(index_dir):
        gen_name = next_generation(index_dir)  # sweeps what an earlier crash left behind
        counts = {kind: sum(c.kind == kind for c in chunks) for kind in KINDS}
        manifest = {
            "format_version": FORMAT_VERSION,
            "generation": gen_name,
            "embedding_model": embedding_model,
            "dimension": int(vectors.shape[1]),
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "settings": settings_json,
            "counts": {
                "documents": len(documents),
                "chunks": len(chunks),
                "parents": counts[PARENT],
                "children": counts[CHILD],
                "footnotes": counts[FOOTNOTE],
                "searchable": len(searchable),
            },
            "tokenizer": TOKENIZER_VERSION,
            "bm25": {"library": "bm25s", **BM25_PARAMS} if has_bm25 else None,
            "dense": {
                "kind": "hnsw" if use_hnsw else "flat",
                "metric": "cosine",
                **(
                    {"M": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION, "ef_search": HNSW_EF_SEARCH}
                    if use_hnsw
                    else {}
                ),
            },
        }
        return publish(
            index_dir,
            gen_name,
            lambda tmp_dir: _build_generation(tmp_dir, documents, chunks, token_lists, vectors, manifest, use_hnsw),
        )
