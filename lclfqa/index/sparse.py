"""BM25 arrays (bm25s, Lucene variant) and the top-k kernel the embedded backend searches with.

Index data are plain arrays: bm25s saves ``.npy`` and JSON (never a pickle), and the search sums the
precomputed per-(token, chunk) weights of a query's tokens over the CSC columns.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

__all__ = ["BM25_PARAMS", "Bm25Weights", "bm25_over", "bm25s", "top_k"]

BM25_PARAMS = {"method": "lucene", "k1": 1.5, "b": 0.75}


def bm25s():  # noqa: ANN201 - the module
    """bm25s, with the DEBUG level it sets on its own logger at import turned down."""
    import bm25s as module

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return module


def bm25_over(token_lists: list[list[str]]) -> Any:
    """A bm25s retriever indexed over ``token_lists`` (one list of tokens per searchable chunk)."""
    retriever = bm25s().BM25(**BM25_PARAMS)
    retriever.index(token_lists, show_progress=False)
    return retriever


class Bm25Weights:
    """A bm25s retriever's vocabulary and precomputed (token, chunk) weights, as CSC arrays."""

    def __init__(self, retriever: Any) -> None:
        self.vocab: dict[str, int] = retriever.vocab_dict
        self.data = np.asarray(retriever.scores["data"])
        self.indices = np.asarray(retriever.scores["indices"])
        self.indptr = np.asarray(retriever.scores["indptr"])
        self.num_docs = int(retriever.scores["num_docs"])

    def scores(self, tokens: list[str], n: int) -> np.ndarray | None:
        """BM25 score of each of ``n`` rows for a query of ``tokens`` (repeats count again); ``None`` when no
        token is in the vocabulary."""
        token_ids = [self.vocab[t] for t in tokens if t in self.vocab]
        if not token_ids:
            return None
        # one bincount over the CSC columns (np.add.at, which bm25s uses, is several times slower)
        spans = [(int(self.indptr[t]), int(self.indptr[t + 1])) for t in token_ids]
        rows = np.concatenate([self.indices[s:e] for s, e in spans])
        weights = np.concatenate([self.data[s:e] for s, e in spans])
        return np.bincount(rows, weights=weights, minlength=n)


def top_k(scores: np.ndarray, k: int, candidates: np.ndarray | None = None) -> np.ndarray:
    """Rows of the ``k`` best ``candidates`` (default: all rows) by score, best first, ties by row so
    that results are deterministic."""
    if candidates is None:
        rows = np.argpartition(-scores, k - 1)[:k] if len(scores) > k else np.arange(len(scores))
    elif len(candidates) > k:
        rows = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
    else:
        rows = candidates
    return rows[np.lexsort((rows, -scores[rows]))]
