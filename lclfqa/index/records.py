"""What an index stores besides chunks: document records, the text that is indexed, and counts.

Shared by every backend, so that a document ingested into one is described the same way in another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk

__all__ = [
    "KINDS",
    "DocumentBatch",
    "DocumentRecord",
    "IndexStats",
    "canonical_model",
    "chunk_from_fields",
    "embedding_text",
    "same_model",
    "text_sha256",
    "unit_queries",
    "validate_batch",
]

KINDS = (PARENT, CHILD, FOOTNOTE)


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


@dataclass(frozen=True)
class DocumentBatch:
    """Documents to add to an index, whole: their records, all their chunks, and one vector per chunk of
    kind other than parent, in the order of ``chunks``, made by ``embedding_model``. ``settings`` is what
    the writer records with the index (chunk settings, documents kept stale)."""

    documents: Sequence[DocumentRecord]
    chunks: Sequence[Chunk]
    vectors: np.ndarray
    embedding_model: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    def validated(self) -> tuple[list[Chunk], np.ndarray]:
        """The searchable chunks and their unit vectors; ``ValueError`` naming the first problem."""
        return validate_batch(list(self.documents), list(self.chunks), self.vectors)


@dataclass(frozen=True)
class IndexStats:
    """Counts and identity of an index, the same on every backend (``lclfqa info`` prints them)."""

    backend: str
    location: str
    documents: int
    parents: int
    children: int
    footnotes: int
    embedding_model: str
    dimension: int

    @property
    def searchable(self) -> int:
        """Children and footnote children: what BM25 and the embedder search."""
        return self.children + self.footnotes


def embedding_text(chunk: Chunk) -> str:
    """The text BM25 and the embedder see for ``chunk``: ``indexed_text``, or ``text`` when that is empty.

    Ingest must embed exactly this string, so that vectors looked up by ``text_sha256`` match.
    """
    return chunk.indexed_text or chunk.text


def text_sha256(text: str) -> str:
    """The key vectors are reused by on re-ingest: hex sha256 of the UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_from_fields(fields: Sequence[Any]) -> Chunk:
    """A chunk from its stored fields, in :class:`~lclfqa.ingest.document.Chunk`'s order, with the
    section path, parent ids and footnote numbers as JSON lists (how both backends store them)."""
    cid, kind, document, text, path, first, last, start, end, parents, indexed, notes = fields
    path, parents, notes = tuple(json.loads(path)), tuple(json.loads(parents)), tuple(json.loads(notes))
    return Chunk(cid, kind, document, text, path, first, last, start, end, parents, indexed, notes)


def unit_queries(vectors: np.ndarray, dimension: int, where: str, model: str) -> np.ndarray:
    """Query vectors as unit rows of an index's ``dimension`` (``ValueError`` naming the index otherwise)."""
    q = np.asarray(vectors, dtype=np.float32)
    if q.ndim != 2 or q.shape[1] != dimension:
        raise ValueError(
            f"query vectors must have dimension {dimension} (index {where} was built with {model!r}); got "
            f"shape {np.asarray(vectors).shape}"
        )
    return np.ascontiguousarray(q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12))


def canonical_model(name: str) -> str:
    """``"local"`` is the factory's alias of the bundled MiniLM; compare the full names."""
    if name == "local":
        from lclfqa.llm.models import LOCAL_EMBEDDER

        return LOCAL_EMBEDDER
    return name


def same_model(a: str, b: str) -> bool:
    """Whether two embedding model names denote the same model."""
    return canonical_model(a) == canonical_model(b)


def validate_batch(
    documents: list[DocumentRecord], chunks: list[Chunk], vectors: np.ndarray
) -> tuple[list[Chunk], np.ndarray]:
    """Check a batch of documents with their chunks and vectors before anything is written; return the
    searchable chunks and their rows L2-normalised (``ValueError`` naming the first problem)."""
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
