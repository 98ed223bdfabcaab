"""The on-disk hybrid index: chunks in SQLite, BM25 (bm25s) and dense vectors, written in generations.

Layout of an index directory::

    DIR/CURRENT              names the live generation, e.g. "gen-000003"
    DIR/gen-000003/          one complete, immutable index
        manifest.json        format version, embedding model, dimension, settings, counts
        chunks.sqlite        documents, chunks (row = position in the search arrays), links
        dense.npy            float32 (n_searchable, dimension), unit rows
        dense.hnsw           FAISS HNSW graph (faiss.serialize_index bytes), only for large indexes
        bm25/                bm25s arrays (.npy) and vocabulary/params (.json)

Why generations: ingest must never leave a half-written index where a working one was. A write builds a
new ``gen-NNNNNN.tmp``, fsyncs it, renames it, and only then swaps ``CURRENT`` atomically; older
generations are deleted last. A crash (or Ctrl-C) at any point leaves the previous ``CURRENT`` and its
generation untouched, and the next write sweeps away what the crash left behind.

Nothing here unpickles: arrays are ``.npy`` loaded with ``allow_pickle=False`` (bm25s's ``save``/``load``
write only ``.npy`` and JSON), the FAISS graph is FAISS's own binary format, and the rest is SQLite/JSON.

Only section children and footnote children are searchable; parents are stored so that a hit on a child
can be widened to the parent(s) that hold it (``parents_of``), which is many-to-many.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import threading
import unicodedata
from collections.abc import Collection, Sequence
from contextlib import nullcontext
from dataclasses import astuple, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk
from lclfqa.ingest.integrity import VERIFY_ON_LOAD_MAX_BYTES, file_digests, file_problems, recorded_bytes
from lclfqa.ingest.lock import prepare_index_dir, writer_lock

log = logging.getLogger(__name__)

__all__ = [
    "DocumentRecord",
    "EmbedderMismatch",
    "Index",
    "IndexCorrupted",
    "IndexFormatError",
    "IndexNotFound",
    "IndexStoreError",
    "check_index",
    "embedding_text",
    "text_sha256",
    "tokenize",
    "write_index",
]

FORMAT_VERSION = 1
#: Stored in the manifest: BM25 arrays are only valid for the tokenizer that built them. An index from
#: another tokenizer has its BM25 rebuilt in memory on load (with a warning) until the next ingest stores it.
#: (2: plain words Snowball-stemmed, English: PrivacyQA BM25 char recall@8 0.310 → 0.330, @32 0.559 → 0.620.)
TOKENIZER_VERSION = "lclfqa-legal-2"
KINDS = (PARENT, CHILD, FOOTNOTE)

#: From this many searchable chunks on, the dense search uses an HNSW graph. An exact scan is
#: memory-bound (~0.5 ms at 10k x 384 single-threaded, ~5 ms at 100k), and the multi-threaded BLAS/OpenMP
#: kernels (numpy ``@``, FAISS flat) have a long tail on 2 busy cores (median 6 ms, p95 16 ms at 10k,
#: against 0.35 ms with one thread); an HNSW query uses one thread and takes ~0.2-0.4 ms at any size here.
HNSW_MIN_ROWS = 10_000
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 40
#: 128 gave recall@10 0.999 against the exact scan on 100k clustered vectors (64: 0.973), ~0.15 ms a query.
HNSW_EF_SEARCH = 128
_HNSW_LOOP_MAX = 16

BM25_PARAMS = {"method": "lucene", "k1": 1.5, "b": 0.75}

CURRENT = "CURRENT"
_GEN_RE = re.compile(r"^gen-(\d{6})$")
_GEN_ANY_RE = re.compile(r"^gen-(\d{6})(\.tmp)?$")
_MANIFEST, _SQLITE, _DENSE, _HNSW, _BM25 = "manifest.json", "chunks.sqlite", "dense.npy", "dense.hnsw", "bm25"


# --------------------------------------------------------------------------------------------- errors


class IndexStoreError(RuntimeError):
    """Base class for index problems; every message names the index directory and what to do."""


class IndexNotFound(IndexStoreError):
    """There is no index at the path (no directory, no ``CURRENT``, or the generation it names is gone)."""


class IndexFormatError(IndexStoreError):
    """The index exists but cannot be read: corrupt, truncated, or written by another format version."""


class IndexCorrupted(IndexFormatError):
    """An index file no longer matches the size, header or checksum the manifest recorded for it."""

    def __init__(self, index_dir: str | Path, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            f"index corrupted: {index_dir}: {'; '.join(problems)}; re-ingest (delete {index_dir} and run "
            "lclfqa ingest again)"
        )


class EmbedderMismatch(IndexStoreError):
    """Query vectors from one embedding model are meaningless against an index built with another."""

    def __init__(self, index_dir: str | Path, index_model: str, asked_model: str) -> None:
        self.index_model = index_model
        self.asked_model = asked_model
        super().__init__(
            f"index {index_dir} was built with embedding model {index_model!r}, but {asked_model!r} was "
            f"asked for: query with {index_model!r}, or re-ingest the documents with {asked_model!r}"
        )


# ----------------------------------------------------------------------------------------- records


@dataclass(frozen=True)
class DocumentRecord:
    """One ingested source file as the index remembers it.

    ``sha256`` lets incremental ingest skip unchanged files; ``summary`` is the document summary that
    may prefix its chunks' ``indexed_text``; the dropped header/footer counts are kept for reports.
    """

    name: str
    source: str
    sha256: str
    pages: int
    sections: int
    footnotes: int
    summary: str = ""
    dropped_headers: int = 0
    dropped_footers: int = 0


def embedding_text(chunk: Chunk) -> str:
    """The text BM25 and the embedder see for ``chunk``: ``indexed_text``, or ``text`` when that is empty.

    Ingest must embed exactly this string, so that ``Index.vectors_by_text`` keys match.
    """
    return chunk.indexed_text or chunk.text


def text_sha256(text: str) -> str:
    """The key of ``Index.vectors_by_text``: hex sha256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------- tokenizer

# Lucene's English stop set plus pronouns, auxiliaries and question words: questions ("What does my
# ... ?") would otherwise match on words that legal text rarely uses, which gives them a high IDF.
# Words that carry legal meaning ("shall", "may", "must", "before", "after", "under") are kept.
STOPWORDS = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the their then there these
    they this to was will with
    i me my mine we us our ours you your yours he him his she her hers its them theirs itself
    am been being were has have had having do does did doing can could would should
    what which who whom whose when where why how
    s t d ll m re ve
    """.split()
)

_WORD = r"[^\W_]+"
_PAREN = r"\([^\W_]{1,4}\)"
# A compound: words joined by . - / (a citation "1.25a-1", "1098-t", "u.s.c"), optionally followed by
# enumerator parentheses "(b)(4)"; or a free-standing run of enumerators.
_COMPOUND_RE = re.compile(rf"{_WORD}(?:[./-]{_WORD})*(?:{_PAREN})*|(?:{_PAREN})+")
_PAREN_RE = re.compile(_PAREN)
_SEPARATOR_RE = re.compile(r"[./-]")
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-")
_APOSTROPHE_S_RE = re.compile(r"['\u2019]s\b")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SECTION_SIGN_RE = re.compile(r"§§|§")


def _fold(text: str) -> str:
    """Lower-case, strip accents ("Ünïcode" -> "unicode"), unify dashes, spell out §, drop possessive 's
    and 1,000 commas."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch)).translate(_DASHES)
        # "§ 25A" is what the text prints and "section 25A" what people type.
        text = _SECTION_SIGN_RE.sub(lambda m: " sections " if len(m.group()) == 2 else " section ", text)
    text = _APOSTROPHE_S_RE.sub("", text.lower())
    return _THOUSANDS_RE.sub("", text) if "," in text else text


def _expand(compound: str) -> list[str]:
    """The tokens one compound contributes, each once.

    ``1.25a-1(b)(4)`` gives ``1.25a-1(b)(4)``, ``1.25a-1(b)``, ``1.25a-1``, ``25a``, ``(b)(4)``,
    ``(b)``, ``(4)``: a query for the full cite, the regulation, the Code section (25A) or the
    paragraph matches. Word parts of one character ("1" in "1.25a-1") are dropped as noise;
    parenthesised words ("(aotc)") also give the bare word.
    """
    first_paren = compound.find("(")
    base = compound if first_paren < 0 else compound[:first_paren]
    parens = _PAREN_RE.findall(compound[len(base) :])
    out: list[str] = [compound]
    if base:
        out.extend(base + "".join(parens[:i]) for i in range(len(parens) - 1, -1, -1))
        parts = _SEPARATOR_RE.split(base)
        if len(parts) > 1:
            out.extend(p for p in parts if len(p) > 1)
    if parens:
        if base and len(parens) > 1:
            out.append("".join(parens))
        if len(parens) > 1 or base:
            out.extend(parens)
        out.extend(p[1:-1] for p in parens if len(p) > 3)
    return list(dict.fromkeys(out))


_STEMMERS = threading.local()


def _stem(word: str) -> str:
    """Snowball English stem of a lower-case alphabetic word (PyStemmer: C, one stemmer per thread, as its
    stemmers are not thread-safe); anything with a digit ("25a", "1.25a-1") is left as it is."""
    if not word.isalpha():
        return word
    stemmer = getattr(_STEMMERS, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _STEMMERS.stemmer = Stemmer.Stemmer("english")
    return stemmer.stemWord(word)


def tokenize(text: str) -> list[str]:
    """BM25 tokens for a chunk or a query (both must go through this same function).

    Lower-cased and accent-folded, English stopwords removed, words stemmed ("credits", "credited" →
    "credit"), and legal citations kept whole *and* split (see ``_expand``), so "§ 1.25A-1(b)(4)" is
    found by "1.25A-1", "section 25A" or "(b)(4)". Repeated words stay repeated: term frequency counts,
    and query2doc repeats the query on purpose.
    """
    tokens: list[str] = []
    for compound in _COMPOUND_RE.findall(_fold(text)):
        if compound.isalnum():  # a plain word: the common case, kept fast
            if compound not in STOPWORDS:
                tokens.append(_stem(compound))
        else:
            tokens.extend(_stem(t) for t in _expand(compound) if t not in STOPWORDS)
    return tokens


# ------------------------------------------------------------------------------------ filesystem


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    """Make a rename/creation inside ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _fsync_tree(root: Path) -> None:
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            _fsync_file(Path(dirpath) / name)
        _fsync_dir(Path(dirpath))


def _read_current(index_dir: Path) -> str | None:
    try:
        name = (index_dir / CURRENT).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except PermissionError:
        raise IndexFormatError(f"cannot read index {index_dir} (permission denied); check its permissions") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexFormatError(
            f"cannot read {index_dir / CURRENT} ({exc}); delete {index_dir} and run ingest again"
        ) from None
    return name


def _generation_numbers(index_dir: Path) -> list[int]:
    return [int(m.group(1)) for p in index_dir.iterdir() if (m := _GEN_ANY_RE.match(p.name))]


def _remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


# ------------------------------------------------------------------------------------------ write


def _validate(
    documents: list[DocumentRecord], chunks: list[Chunk], vectors: np.ndarray
) -> tuple[list[Chunk], np.ndarray]:
    names = [d.name for d in documents]
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"duplicate document names: {dupes}")
    known_docs = set(names)
    ids: dict[str, Chunk] = {}
    for c in chunks:
        if c.id in ids:
            raise ValueError(f"duplicate chunk id {c.id!r}: chunk ids must be unique across the index")
        if c.kind not in KINDS:
            raise ValueError(f"chunk {c.id!r} has kind {c.kind!r}; valid kinds: {', '.join(KINDS)}")
        if c.document not in known_docs:
            raise ValueError(f"chunk {c.id!r} belongs to document {c.document!r}, which is not in `documents`")
        ids[c.id] = c
    for c in chunks:
        for pid in c.parent_ids:
            parent = ids.get(pid)
            if parent is None:
                raise ValueError(f"chunk {c.id!r} names parent {pid!r}, which is not among the chunks")
            if parent.kind != PARENT:
                raise ValueError(f"chunk {c.id!r} names {pid!r} as a parent, but its kind is {parent.kind!r}")
    searchable = [c for c in chunks if c.kind != PARENT]
    vectors = np.asarray(vectors)
    if vectors.ndim != 2 or vectors.shape[0] != len(searchable):
        raise ValueError(
            f"vectors must have shape (n_searchable, dim) = ({len(searchable)}, dim), one row per chunk of "
            f"kind != {PARENT!r} in the order given; got {vectors.shape}"
        )
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if not np.all(np.isfinite(vectors)):
        raise ValueError("vectors contain NaN or infinity")
    if len(searchable):
        if vectors.shape[1] == 0:
            raise ValueError("vectors have dimension 0")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        zero = np.flatnonzero(norms[:, 0] == 0)
        if len(zero):
            raise ValueError(f"vector of chunk {searchable[int(zero[0])].id!r} is all zeros (cannot normalise)")
        vectors = vectors / norms
    return searchable, vectors


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


def _bm25s():  # noqa: ANN202 - the module
    """bm25s, with the DEBUG level it sets on its own logger at import turned down."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


def _bm25_over(token_lists: list[list[str]]):  # noqa: ANN202 - a bm25s.BM25
    """A bm25s retriever indexed over ``token_lists`` (one list of tokens per searchable chunk)."""
    retriever = _bm25s().BM25(**BM25_PARAMS)
    retriever.index(token_lists, show_progress=False)
    return retriever


def _write_bm25(directory: Path, token_lists: list[list[str]]) -> None:
    _bm25_over(token_lists).save(directory, corpus=None, allow_pickle=False, show_progress=False)


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
    _write_sqlite(gen_dir / _SQLITE, documents, chunks)
    np.save(gen_dir / _DENSE, vectors, allow_pickle=False)
    if manifest["bm25"] is not None:
        _write_bm25(gen_dir / _BM25, token_lists)
    if use_hnsw:
        _write_hnsw(gen_dir / _HNSW, vectors)
    # sizes and checksums of what was just written: loading and `lclfqa info --check` compare against them
    manifest = {**manifest, "files": file_digests(gen_dir)}
    # The manifest is written last: a generation directory without one was never finished.
    with open(gen_dir / _MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=2)
    _fsync_tree(gen_dir)


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
    searchable, vectors = _validate(documents, chunks, vectors)
    try:
        settings_json = json.loads(json.dumps(settings, ensure_ascii=False))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"settings must be JSON-serialisable: {exc}") from exc
    use_hnsw = bool(searchable) and (len(searchable) >= HNSW_MIN_ROWS if hnsw is None else hnsw)
    token_lists = [tokenize(embedding_text(c)) for c in searchable]
    has_bm25 = any(token_lists)  # bm25s cannot index a corpus without a single token

    index_dir = prepare_index_dir(index_dir)
    with nullcontext() if locked else writer_lock(index_dir):
        # What an earlier crash left behind: unfinished generations and an unswapped CURRENT.tmp.
        for p in index_dir.iterdir():
            if p.name.startswith("gen-") and p.name.endswith(".tmp"):
                _remove_tree(p)
        (index_dir / f"{CURRENT}.tmp").unlink(missing_ok=True)

        gen_name = f"gen-{max(_generation_numbers(index_dir), default=0) + 1:06d}"
        tmp_dir = index_dir / f"{gen_name}.tmp"
        gen_dir = index_dir / gen_name
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
        published = False
        try:
            _build_generation(tmp_dir, documents, chunks, token_lists, vectors, manifest, use_hnsw)
            os.rename(tmp_dir, gen_dir)
            _fsync_dir(index_dir)
            current_tmp = index_dir / f"{CURRENT}.tmp"
            with open(current_tmp, "w", encoding="utf-8") as f:
                f.write(gen_name + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(current_tmp, index_dir / CURRENT)
            published = True
            _fsync_dir(index_dir)
        except BaseException:
            if not published and _read_current(index_dir) != gen_name:
                _remove_tree(tmp_dir)
                _remove_tree(gen_dir)
                (index_dir / f"{CURRENT}.tmp").unlink(missing_ok=True)
            raise
        # Only now is the old generation unneeded. Readers that already loaded it keep their open
        # files (POSIX); where deletion fails (Windows, open files) the next write retries.
        for p in index_dir.iterdir():
            if _GEN_ANY_RE.match(p.name) and p.name != gen_name:
                _remove_tree(p)
    return gen_dir


# ------------------------------------------------------------------------------------------- read


def _chunk_from_row(r: sqlite3.Row | tuple[Any, ...]) -> Chunk:
    (
        cid,
        kind,
        document,
        text,
        section_path,
        page_start,
        page_end,
        start,
        end,
        parent_ids,
        indexed_text,
        footnote_numbers,
    ) = r
    return Chunk(
        id=cid,
        kind=kind,
        document=document,
        text=text,
        section_path=tuple(json.loads(section_path)),
        page_start=page_start,
        page_end=page_end,
        start=start,
        end=end,
        parent_ids=tuple(json.loads(parent_ids)),
        indexed_text=indexed_text,
        footnote_numbers=tuple(json.loads(footnote_numbers)),
    )


_CHUNK_COLUMNS = (
    'c.id, c.kind, c.document, c.text, c.section_path, c.page_start, c.page_end, c.start, c."end", '
    "c.parent_ids, c.indexed_text, c.footnote_numbers"
)


def _top_k(scores: np.ndarray, k: int, candidates: np.ndarray | None = None) -> np.ndarray:
    """Rows of the ``k`` best ``candidates`` (default: all rows) by score, best first, ties by row so
    that results are deterministic."""
    if candidates is None:
        rows = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
    elif len(candidates) > k:
        rows = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
    else:
        rows = candidates
    return rows[np.lexsort((rows, -scores[rows]))]


class Index:
    """A loaded generation: look-ups by chunk id, BM25 and dense search over children and footnotes.

    Chunks are read from SQLite on demand (and cached), so loading costs the search arrays and the
    row-to-id map only. Safe to share between threads.
    """

    index_dir: Path
    path: Path
    manifest: dict
    embedding_model: str
    dimension: int
    documents: dict[str, DocumentRecord]
    ef_search: int

    def __init__(self) -> None:  # use Index.load
        self._lock = threading.Lock()
        self._cache: dict[str, Chunk] = {}
        self._rows_cache: dict[frozenset[str], np.ndarray] = {}

    # -- loading

    @classmethod
    def load(cls, index_dir: str | Path) -> Index:
        """Open the generation that ``index_dir/CURRENT`` names.

        Raises ``IndexNotFound`` when there is nothing to load and ``IndexFormatError`` when what is there
        is unreadable; both say which path and what to do.
        """
        index_dir = Path(index_dir)
        if os.path.exists(index_dir) and not os.path.isdir(index_dir):
            raise IndexNotFound(f"no index at {index_dir}: it is a file, not an index directory")
        if not os.path.isdir(index_dir):
            raise IndexNotFound(f"no index at {index_dir}: the directory does not exist (run ingest to build it)")
        for _attempt in range(3):
            name = _read_current(index_dir)
            if name is None:
                raise IndexNotFound(f"no index at {index_dir}: {CURRENT} is missing (run ingest to build it)")
            if not _GEN_RE.match(name):
                raise IndexFormatError(
                    f"index {index_dir}: {CURRENT} names {name!r}, not a generation; delete {index_dir} "
                    "and run ingest again"
                )
            try:
                return cls._open_generation(index_dir, index_dir / name)
            except IndexStoreError:
                if _read_current(index_dir) != name:
                    continue  # a writer published a new generation (and removed this one) meanwhile
                raise
        raise IndexNotFound(f"index {index_dir}: the live generation kept changing while loading; retry")

    @classmethod
    def _open_generation(cls, index_dir: Path, gen_dir: Path) -> Index:
        if not gen_dir.is_dir():
            raise IndexNotFound(
                f"index {index_dir}: {CURRENT} names {gen_dir.name}, which does not exist; run ingest again"
            )
        self = cls()
        self.index_dir = index_dir
        self.path = gen_dir
        try:
            self._open(gen_dir)
        except IndexStoreError:
            self.close()
            raise
        except (OSError, ValueError, KeyError, TypeError, RuntimeError, sqlite3.Error) as exc:
            self.close()
            raise IndexFormatError(
                f"index {gen_dir} is unreadable ({type(exc).__name__}: {exc}); delete {index_dir} and run ingest again"
            ) from exc
        return self

    def _open(self, gen_dir: Path) -> None:
        manifest_path = gen_dir / _MANIFEST
        if not manifest_path.is_file():
            raise IndexFormatError(f"index {gen_dir} has no {_MANIFEST}; delete {gen_dir.parent} and run ingest again")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format_version") != FORMAT_VERSION:
            raise IndexFormatError(
                f"index {gen_dir} has format version {manifest.get('format_version')!r}; this lclfqa reads "
                f"version {FORMAT_VERSION}: run ingest again to rebuild it"
            )
        recorded = manifest.get("files")
        if isinstance(recorded, dict):  # indexes written before checksums existed have none
            problems = file_problems(gen_dir, recorded, hashes=recorded_bytes(recorded) <= VERIFY_ON_LOAD_MAX_BYTES)
            if problems:
                raise IndexCorrupted(self.index_dir, problems)
        self.manifest = manifest
        self.embedding_model = str(manifest["embedding_model"])
        self.dimension = int(manifest["dimension"])
        n = int(manifest["counts"]["searchable"])

        uri = (gen_dir / _SQLITE).resolve().as_uri() + "?mode=ro&immutable=1"
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
        self._vectors = np.asarray(np.load(gen_dir / _DENSE, mmap_mode="r", allow_pickle=False))
        if self._vectors.shape != (n, self.dimension) or self._vectors.dtype != np.float32:
            raise IndexFormatError(
                f"index {gen_dir}: {_DENSE} is {self._vectors.dtype}{self._vectors.shape}, "
                f"expected float32({n}, {self.dimension}); run ingest again"
            )

        dense = manifest["dense"]
        self._hnsw = None
        self.ef_search = int(dense.get("ef_search", HNSW_EF_SEARCH))
        if dense["kind"] == "hnsw":
            import faiss

            # Memory-mapped, not copied: ~30 ms instead of ~400 ms at 100k x 384.
            self._hnsw = faiss.read_index(str(gen_dir / _HNSW), getattr(faiss, "IO_FLAG_MMAP_IFC", 0))
            if self._hnsw.ntotal != n or self._hnsw.d != self.dimension:
                raise IndexFormatError(f"index {gen_dir}: {_HNSW} does not match the vectors; run ingest again")
        elif dense["kind"] != "flat":
            raise IndexFormatError(f"index {gen_dir}: unknown dense kind {dense['kind']!r}; run ingest again")

        self._bm25_vocab: dict[str, int] = {}
        if manifest.get("tokenizer") != TOKENIZER_VERSION:
            self._rebuild_bm25(gen_dir, manifest.get("tokenizer"))
        elif manifest["bm25"] is not None:
            bm25s = _bm25s()
            retriever = bm25s.BM25.load(gen_dir / _BM25, mmap=False, allow_pickle=False, show_progress=False)
            self._use_bm25(retriever)
            if retriever.scores["num_docs"] != n:
                raise IndexFormatError(
                    f"index {gen_dir}: the BM25 index has {retriever.scores['num_docs']} "
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
        rows = self._con.execute("SELECT indexed_text, text FROM chunks WHERE row IS NOT NULL ORDER BY row")
        token_lists = [tokenize(indexed or text) for indexed, text in rows]
        if any(token_lists):  # bm25s cannot index a corpus without a single token
            self._use_bm25(_bm25_over(token_lists))

    def _use_bm25(self, retriever) -> None:  # noqa: ANN001 - a bm25s.BM25
        """Search with ``retriever``'s vocabulary and precomputed (token, chunk) weights (CSC arrays)."""
        self._bm25_vocab = retriever.vocab_dict
        self._bm25_data = np.asarray(retriever.scores["data"])
        self._bm25_indices = np.asarray(retriever.scores["indices"])
        self._bm25_indptr = np.asarray(retriever.scores["indptr"])

    def close(self) -> None:
        """Close the SQLite connection (searches keep working; chunk look-ups do not)."""
        con = getattr(self, "_con", None)
        if con is not None:
            con.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        """Number of searchable chunks."""
        return len(self._row_ids)

    def __repr__(self) -> str:
        return f"Index({str(self.path)!r}, searchable={len(self)}, model={self.embedding_model!r})"

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._con.execute(sql, params).fetchall()

    # -- look-ups

    def chunk(self, chunk_id: str) -> Chunk:
        """The chunk with this id; ``KeyError`` if the index has none."""
        cached = self._cache.get(chunk_id)
        if cached is not None:
            return cached
        rows = self._query(f"SELECT {_CHUNK_COLUMNS} FROM chunks c WHERE c.id = ?", (chunk_id,))
        if not rows:
            raise KeyError(f"no chunk {chunk_id!r} in index {self.path}")
        chunk = self._cache.setdefault(chunk_id, _chunk_from_row(rows[0]))
        return chunk

    def _chunks(self, sql: str, params: Sequence[Any]) -> list[Chunk]:
        out = []
        for r in self._query(sql, params):
            cached = self._cache.get(r[0])
            out.append(cached if cached is not None else self._cache.setdefault(r[0], _chunk_from_row(r)))
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

    def vectors_by_text(self) -> dict[str, np.ndarray]:
        """``text_sha256(embedding_text(chunk))`` -> unit vector, for every searchable chunk.

        Re-ingest looks texts up here and embeds only what changed: embedding is the slow step of ingest.
        """
        rows = self._query("SELECT row, text_sha256 FROM chunks WHERE row IS NOT NULL ORDER BY row")
        vectors = np.array(self._vectors)  # one read of the (memory-mapped) matrix
        return {sha: vectors[row] for row, sha in rows}

    @property
    def chunking(self) -> str:
        """How the chunks were made, as ``manifest["settings"]["chunking"]["chunking"]`` records it: ``"layout"``
        (LCLF-QA §3.2) or ``"plain"`` (ablation H3). Indexes written before the setting existed are layout."""
        recorded = self.manifest.get("settings", {}).get("chunking")
        mode = recorded.get("chunking") if isinstance(recorded, dict) else None
        return str(mode) if mode else "layout"

    def check_embedder(self, name: str) -> None:
        """Raise ``EmbedderMismatch`` unless ``name`` is the embedding model this index was built with."""
        if _canonical_model(name) != _canonical_model(self.embedding_model):
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

    def search_bm25(self, query: str, k: int, documents: Collection[str] | None = None) -> list[tuple[str, float]]:
        """Top ``k`` searchable chunks by BM25 (Lucene variant, bm25s), best first; only chunks that share
        a token with the query (score > 0), and only of ``documents`` when given (a document scope)."""
        if k <= 0 or not self._bm25_vocab:
            return []
        token_ids = [self._bm25_vocab[t] for t in tokenize(query) if t in self._bm25_vocab]
        if not token_ids:
            return []
        # Sum the precomputed per-(token, chunk) BM25 weights of the query's tokens: one bincount over the
        # CSC columns (np.add.at, which bm25s uses, is several times slower).
        indptr = self._bm25_indptr
        spans = [(int(indptr[t]), int(indptr[t + 1])) for t in token_ids]
        rows = np.concatenate([self._bm25_indices[s:e] for s, e in spans])
        weights = np.concatenate([self._bm25_data[s:e] for s, e in spans])
        scores = np.bincount(rows, weights=weights, minlength=len(self._row_ids))
        candidates = np.flatnonzero(scores > 0)
        if documents is not None:
            candidates = np.intersect1d(candidates, self.rows_of(documents), assume_unique=True)
        return [(self._row_ids[r], float(scores[r])) for r in _top_k(scores, k, candidates)]

    def _as_queries(self, vectors: np.ndarray) -> np.ndarray:
        q = np.asarray(vectors, dtype=np.float32)
        if q.ndim != 2 or q.shape[1] != self.dimension:
            raise ValueError(
                f"query vectors must have dimension {self.dimension} (index {self.path} was built with "
                f"{self.embedding_model!r}); got shape {np.asarray(vectors).shape}"
            )
        norms = np.linalg.norm(q, axis=1, keepdims=True)
        return np.ascontiguousarray(q / np.maximum(norms, 1e-12))

    def search_dense(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top ``k`` searchable chunks by cosine similarity to ``vector``, best first."""
        vector = np.asarray(vector)
        if vector.ndim != 1:
            raise ValueError(f"search_dense takes one vector; got shape {vector.shape} (use search_dense_many)")
        return self.search_dense_many(vector[None, :], k)[0]

    def search_dense_many(
        self, vectors: np.ndarray, k: int, documents: Collection[str] | None = None
    ) -> list[list[tuple[str, float]]]:
        """``search_dense`` for each row of ``vectors`` (the question and its rewrites) in one pass over
        the matrix, which costs about the same as a single query: the scan is memory-bound. With
        ``documents`` (a document scope), only their chunks, scored exactly."""
        n = len(self._row_ids)
        if n == 0 or k <= 0:  # before the shape check: an empty index may have dimension 0
            return [[] for _ in range(len(np.atleast_2d(vectors)))]
        queries = self._as_queries(vectors)
        if documents is not None:
            rows = self.rows_of(documents)
            if len(rows) == 0:
                return [[] for _ in range(len(queries))]
            sub = np.einsum("ij,kj->ki", self._vectors[rows], queries)
            k = min(k, len(rows))
            return [[(self._row_ids[rows[i]], float(scores[i])) for i in _top_k(scores, k)] for scores in sub]
        k = min(k, n)
        if self._hnsw is not None:
            import faiss

            params = faiss.SearchParametersHNSW(efSearch=max(self.ef_search, k))
            if len(queries) <= _HNSW_LOOP_MAX:
                # FAISS spreads a batch over OpenMP threads; for a handful of queries on 2 cores waking
                # the pool costs more than the searches (4 queries: ~8 ms batched, ~1 ms one by one).
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
        # whose thread wake-ups cost more than this small scan (see HNSW_MIN_ROWS).
        all_scores = np.einsum("ij,kj->ki", self._vectors, queries)
        return [[(self._row_ids[r], float(scores[r])) for r in _top_k(scores, k)] for scores in all_scores]


def check_index(index_dir: str | Path) -> list[str]:
    """Every check there is of the live generation (``lclfqa info --check``); ``[]`` when all pass.

    Each file's sha256 against the manifest, SQLite's ``PRAGMA integrity_check``, then a full load
    (counts, shapes, the BM25 and HNSW structures). Raises ``IndexNotFound`` when there is no index.
    """
    from lclfqa.ingest.integrity import sqlite_problems

    index_dir = Path(index_dir)
    name = _read_current(index_dir) if os.path.isdir(index_dir) else None
    if name is None:
        raise IndexNotFound(f"no index at {index_dir} (run ingest to build it)")
    gen_dir = index_dir / name
    problems: list[str] = []
    try:
        manifest = json.loads((gen_dir / _MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{_MANIFEST} unreadable ({type(exc).__name__}: {exc})"]
    recorded = manifest.get("files") if isinstance(manifest, dict) else None
    if isinstance(recorded, dict):
        problems += file_problems(gen_dir, recorded, hashes=True)
    else:
        problems.append(f"{_MANIFEST} records no checksums (written by an older lclfqa): re-ingest to add them")
    problems += sqlite_problems(gen_dir / _SQLITE)
    if not problems:
        try:
            Index.load(index_dir).close()
        except IndexStoreError as exc:
            problems.append(str(exc))
    return problems


def _canonical_model(name: str) -> str:
    """``"local"`` is the factory's alias of the bundled MiniLM; compare the full names."""
    if name == "local":
        from lclfqa.llm.models import LOCAL_EMBEDDER

        return LOCAL_EMBEDDER
    return name
