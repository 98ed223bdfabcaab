"""Reciprocal Rank Fusion: the one place that merges rankings (BM25, dense, one per query rewrite).

Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank
Learning Methods", SIGIR 2009: ``score(d) = Σ_i w_i / (k + rank_i(d))`` with ranks counted from 1 and
``k = 60``. LlamaIndex's ``QueryFusionRetriever`` and the SAC repository count ranks from 0 (and
LlamaIndex ignores its weights); LangChain's ``EnsembleRetriever`` is right but returns no scores and
no top-k. This function does all of it and is tested against hand-computed scores.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Fusion", "rrf"]

Id = TypeVar("Id", bound=Hashable)


@dataclass(frozen=True)
class Fusion:
    """How hybrid lists are fused: the top ``k`` of lists ``depth`` deep, by weighted RRF with constant
    ``rrf_k``, every BM25 list weighing ``sparse_weight`` and every dense list ``dense_weight``."""

    k: int = 8
    depth: int = 50
    rrf_k: int = 60
    sparse_weight: float = 1.0
    dense_weight: float = 1.0


def rrf(
    rankings: Sequence[Sequence[Id]],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
    top_k: int | None = None,
) -> list[tuple[Id, float]]:
    """Fuse ``rankings`` (lists of chunk ids, best first) into one list of ``(id, score)``, best first.

    - ``rank_i(d)`` counts from 1. Within one list an id counts once, at its first occurrence, and later
      duplicates are dropped before ranking (``["a", "a", "b"]`` ranks b second).
    - ``weights`` (one per list, default 1.0 each) must be finite and >= 0; a list of weight 0 adds its
      ids with no score.
    - Equal scores are ordered by the id's best rank in any single list, then by first appearance
      (reading the lists in order, each from the top), so the output never depends on hashing.
    - ``top_k`` keeps the first ``top_k`` results (``None``: all).

    Scores are summed with ``math.fsum`` so that equal sets of contributions give bit-identical scores,
    whatever order the lists come in.

    >>> [(doc, round(score, 5)) for doc, score in rrf([["a", "b", "c"], ["c", "a"]])]
    [('a', 0.03252), ('c', 0.03227), ('b', 0.01613)]
    """
    if not (isinstance(k, int | float) and k > 0 and math.isfinite(k)):
        raise ValueError(f"k must be a positive number (Cormack et al. use 60); got {k!r}")
    if weights is None:
        weights = [1.0] * len(rankings)
    elif len(weights) != len(rankings):
        raise ValueError(f"got {len(weights)} weights for {len(rankings)} rankings: give one weight per ranking")
    for w in weights:
        if not (isinstance(w, int | float) and math.isfinite(w) and w >= 0):
            raise ValueError(f"weights must be finite numbers >= 0; got {list(weights)!r}")
    if top_k is not None and top_k < 0:
        raise ValueError(f"top_k must be >= 0 or None; got {top_k!r}")

    contributions: dict[Id, list[float]] = {}
    best_rank: dict[Id, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[Id] = set()
        rank = 0
        for doc in ranking:
            if doc in seen:
                continue
            seen.add(doc)
            rank += 1
            contributions.setdefault(doc, []).append(weight / (k + rank))
            if rank < best_rank.get(doc, rank + 1):
                best_rank[doc] = rank

    # dict order is first appearance; the key's last element keeps it for full ties.
    first = {doc: i for i, doc in enumerate(contributions)}
    scored = [(doc, math.fsum(parts)) for doc, parts in contributions.items()]
    scored.sort(key=lambda item: (-item[1], best_rank[item[0]], first[item[0]]))
    return scored if top_k is None else scored[:top_k]
