"""Hybrid retrieval over child chunks: BM25 and dense lists for every query, fused by RRF.

:func:`scoped_search` applies a question's document scope (:mod:`lclfqa.scope`) first; the ``retrieve`` node,
``lclfqa search`` and the retrieval eval all search through it.

The ``retrieve`` node calls :func:`hybrid_search` with the question and its rewrites; the CLI's
``search`` command calls it with the question alone.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
from langchain_core.embeddings import Embeddings

from lclfqa.fusion import rrf
from lclfqa.ingest.document import Chunk
from lclfqa.ingest.index import Index
from lclfqa.llm.models import embed_array
from lclfqa.scope import DocumentScope, find_scope


@dataclass(frozen=True)
class Hit:
    """A retrieved child chunk with its fused score."""

    chunk: Chunk
    score: float


def hybrid_search(
    index: Index,
    embeddings: Embeddings,
    queries: Sequence[str],
    *,
    k: int = 8,
    depth: int = 50,
    sparse_weight: float = 1.0,
    dense_weight: float = 1.0,
    rrf_k: int = 60,
    documents: Collection[str] | None = None,
) -> list[Hit]:
    """Top-``k`` children for ``queries`` (the question first, then any rewrites).

    Each query contributes one BM25 list and one dense list of ``depth`` candidates; all lists are
    fused with weighted Reciprocal Rank Fusion (ranks from 1, constant ``rrf_k``). ``documents``
    restricts the search to those documents (a :class:`~lclfqa.scope.DocumentScope`).
    """
    return fused_search(
        index,
        embeddings,
        sparse_queries=queries,
        dense_queries=queries,
        k=k,
        depth=depth,
        sparse_weight=sparse_weight,
        dense_weight=dense_weight,
        rrf_k=rrf_k,
        documents=documents,
    )


def fused_search(
    index: Index,
    embeddings: Embeddings,
    *,
    sparse_queries: Sequence[str],
    dense_queries: Sequence[str],
    k: int = 8,
    depth: int = 50,
    sparse_weight: float = 1.0,
    dense_weight: float = 1.0,
    rrf_k: int = 60,
    documents: Collection[str] | None = None,
) -> list[Hit]:
    """Like :func:`hybrid_search`, with different query texts for BM25 and for the embedder.

    query2doc needs this: BM25 gets the question repeated before the generated passage (so the passage's
    many words do not swamp it), the embedder gets question and passage as written.
    """
    sparse = [q for q in sparse_queries if q.strip()]
    dense = [q for q in dense_queries if q.strip()]
    if (not sparse and not dense) or len(index) == 0:
        return []
    rankings: list[list[str]] = []
    weights: list[float] = []
    for q in sparse:
        rankings.append([cid for cid, _ in index.search_bm25(q, depth, documents)])
        weights.append(sparse_weight)
    if dense:
        vectors: np.ndarray = embed_array(embeddings, dense)
        for hits in index.search_dense_many(vectors, depth, documents):
            rankings.append([cid for cid, _ in hits])
            weights.append(dense_weight)
    fused = rrf(rankings, k=rrf_k, weights=weights, top_k=k)
    return [Hit(index.chunk(cid), score) for cid, score in fused]


def scoped_search(
    index: Index,
    embeddings: Embeddings,
    question: str,
    *,
    sparse_queries: Sequence[str],
    dense_queries: Sequence[str],
    enabled: bool = True,
    k: int = 8,
    depth: int = 50,
    sparse_weight: float = 1.0,
    dense_weight: float = 1.0,
    rrf_k: int = 60,
) -> tuple[DocumentScope, list[Hit]]:
    """:func:`fused_search` within the documents ``question`` names (:mod:`lclfqa.scope`), every query
    without its naming clause; the whole index, queries unchanged, when it names none or ``enabled`` is
    False. Returns the scope with the hits (the graph records it, the CLI prints it)."""
    scope = find_scope(question, index.documents) if enabled else DocumentScope()
    if scope:
        sparse_queries = [scope.ranking_query(q) for q in sparse_queries]
        dense_queries = [scope.ranking_query(q) for q in dense_queries]
    hits = fused_search(
        index,
        embeddings,
        sparse_queries=sparse_queries,
        dense_queries=dense_queries,
        k=k,
        depth=depth,
        sparse_weight=sparse_weight,
        dense_weight=dense_weight,
        rrf_k=rrf_k,
        documents=scope.documents or None,
    )
    return scope, hits
