"""What nodes, eval and CLI may ask of an index: the :class:`IndexBackend` protocol.

Two backends implement it: :mod:`lclfqa.index.embedded` (local files, the default) and
:mod:`lclfqa.index.milvus` (Milvus Lite or a Milvus server). Code above this room gets one from
:func:`lclfqa.index.factory.open_index` and never names a backend class; ``tests/test_index_contract.py``
runs the same tests against both.

Searches return ``(chunk_id, score)`` pairs, best first; only children and footnote children are
searchable, and a ``documents`` collection restricts a search to those documents (a document scope).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from lclfqa.index.fusion import Fusion
from lclfqa.index.records import DocumentBatch, DocumentRecord, IndexStats
from lclfqa.ingest.document import Chunk

__all__ = ["IndexBackend", "Progress", "Ranked", "Scope"]

Ranked = list[tuple[str, float]]
"""``(chunk_id, score)`` pairs, best first."""

Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``, as ingest reports it (the CLI draws bars)."""

Scope = Collection[str] | None
"""The documents a search is restricted to (a document scope); ``None``: the whole index."""


@runtime_checkable
class IndexBackend(Protocol):
    """An index of parent, child and footnote chunks with BM25 and dense search over the searchable ones."""

    @property
    def location(self) -> str:
        """Where the index lives (a folder, a ``.db`` file, a server URI and collection prefix), for messages."""
        ...

    @property
    def embedding_model(self) -> str:
        """The embedding model the vectors were made with (``""`` while the index is empty)."""
        ...

    @property
    def dimension(self) -> int:
        """The dimension of its vectors (0 while the index is empty)."""
        ...

    @property
    def documents(self) -> Mapping[str, DocumentRecord]:
        """Every document, by name, in the order they were first added."""
        ...

    @property
    def recorded_settings(self) -> dict[str, Any]:
        """What the last writer recorded with the index (chunk settings, documents kept stale)."""
        ...

    def __len__(self) -> int:
        """Number of searchable chunks."""
        ...

    # -- writing (the caller holds the writer lock, lclfqa.index.lock)

    def add_documents(self, batch: DocumentBatch, progress: Progress | None = None) -> None:
        """Add the batch's documents with their chunks, replacing any stored document of the same name.

        A document whose content is already stored unchanged is left alone (adding is idempotent). The
        batch's ``settings`` become :attr:`recorded_settings`; ``progress("store", done, total)`` is
        called as rows are written.
        """
        ...

    def remove_documents(self, names: Collection[str]) -> None:
        """Remove these documents and all their chunks; unknown names are ignored."""
        ...

    def vectors_for(self, text_hashes: Collection[str]) -> dict[str, np.ndarray]:
        """Stored unit vectors by ``text_sha256(embedding_text(chunk))``, for those of ``text_hashes`` it
        has: re-ingest embeds only texts it does not find here."""
        ...

    # -- look-ups

    def chunk(self, chunk_id: str) -> Chunk:
        """The chunk with this id; ``KeyError`` if the index has none."""
        ...

    def chunks(self, kind: str | None = None, document: str | None = None) -> list[Chunk]:
        """All chunks, optionally of one kind and/or one document, documents in order, chunks in document order."""
        ...

    def parents_of(self, chunk_id: str) -> list[Chunk]:
        """Every parent holding ``chunk_id``, in document order; ``[]`` for a parent. ``KeyError`` if unknown."""
        ...

    def children_of(self, parent_id: str) -> list[Chunk]:
        """Every child and footnote child that names ``parent_id``, in document order."""
        ...

    # -- search

    def search_sparse(self, query: str, k: int, documents: Scope = None) -> Ranked:
        """Top ``k`` searchable chunks by BM25 over :func:`lclfqa.index.tokens.tokenize` tokens; only chunks
        sharing a token with the query."""
        ...

    def search_dense(self, vectors: np.ndarray, k: int, documents: Scope = None) -> list[Ranked]:
        """Top ``k`` searchable chunks by cosine, for each row of ``vectors``."""
        ...

    def hybrid(self, texts: Sequence[str], vectors: np.ndarray, fusion: Fusion, documents: Scope = None) -> Ranked:
        """One BM25 list per text and one dense list per row of ``vectors``, ``fusion.depth`` deep each,
        fused by weighted RRF into the top ``fusion.k`` (a backend that fuses on its server does it there)."""
        ...

    def stats(self) -> IndexStats:
        """Counts and identity."""
        ...

    def check_embedder(self, name: str) -> None:
        """Raise :class:`~lclfqa.index.errors.EmbedderMismatch` unless ``name`` made the stored vectors."""
        ...

    def close(self) -> None:
        """Release connections; the object is not used afterwards."""
        ...
