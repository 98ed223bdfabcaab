"""Hybrid search fused by lclfqa: a backend's own BM25 and dense lists through :func:`~lclfqa.index.fusion.rrf`.

The embedded backend fuses every search this way; the Milvus backend where its server cannot (unequal list
weights, which Milvus's ``RRFRanker`` has no place for).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lclfqa.index.fusion import Fusion, rrf
from lclfqa.index.protocol import IndexBackend, Ranked, Scope

__all__ = ["fuse_searches"]


def fuse_searches(
    index: IndexBackend,
    sparse_queries: Sequence[str],
    vectors: np.ndarray,
    fusion: Fusion,
    documents: Scope = None,
) -> Ranked:
    """Hybrid search fused here: ``index``'s BM25 list for each sparse query, then its dense list for each
    row of ``vectors``, ``fusion.depth`` deep, through :func:`rrf` (the embedded backend's ``hybrid``, and
    the Milvus backend's where the server cannot apply the weights)."""
    rankings: list[list[str]] = []
    weights: list[float] = []
    for q in sparse_queries:
        rankings.append([cid for cid, _ in index.search_sparse(q, fusion.depth, documents)])
        weights.append(fusion.sparse_weight)
    if len(vectors):
        for hits in index.search_dense(vectors, fusion.depth, documents):
            rankings.append([cid for cid, _ in hits])
            weights.append(fusion.dense_weight)
    return rrf(rankings, k=fusion.rrf_k, weights=weights, top_k=fusion.k)
