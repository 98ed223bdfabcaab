"""Clusters of page summaries: k-means, and the paper's pick of a cluster large enough (Appendix A, steps 3-4)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from lclfqa.eval.synth.config import SynthError


def kmeans(points: np.ndarray, k: int, *, seed: int = 0, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's k-means with k-means++ initialisation; returns ``(labels, centroids)``.

    Deterministic for a given ``seed``. Labels are renumbered in order of first appearance (point 0 is in
    cluster 0), so equal partitions give equal labels. An emptied cluster takes the point farthest from its
    centroid. ``k`` must be between 1 and the number of points.
    """
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"points must be a non-empty 2-D array; got shape {x.shape}")
    n = len(x)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of points ({n}); got {k}")
    rng = np.random.default_rng(seed)
    sq = np.einsum("ij,ij->i", x, x)

    def distances(centroids: np.ndarray) -> np.ndarray:
        d = sq[:, None] - 2.0 * (x @ centroids.T) + np.einsum("ij,ij->i", centroids, centroids)[None, :]
        return np.maximum(d, 0.0)

    # k-means++: each next centre drawn with probability proportional to the squared distance to the nearest
    chosen = [int(rng.integers(n))]
    nearest = distances(x[chosen])[:, 0]
    for _ in range(1, k):
        total = nearest.sum()
        if total > 0:
            nxt = int(rng.choice(n, p=nearest / total))
        else:  # every point sits on a centre already (duplicates): any point not yet chosen
            nxt = next(i for i in range(n) if i not in chosen)
        chosen.append(nxt)
        nearest = np.minimum(nearest, distances(x[[nxt]])[:, 0])
    centroids = x[chosen].copy()

    labels = np.full(n, -1)
    for _ in range(max_iter):
        d = distances(centroids)
        new = d.argmin(axis=1)
        for c in range(k):  # an empty cluster takes the point farthest from its own centroid
            if not np.any(new == c):
                far = int(d[np.arange(n), new].argmax())
                new[far] = c
                d[far, :] = 0.0
        if np.array_equal(new, labels):
            break
        labels = new
        centroids = np.vstack([x[labels == c].mean(axis=0) for c in range(k)])
    order = {int(old): i for i, old in enumerate(dict.fromkeys(labels.tolist()))}
    relabel = np.array([order[int(v)] for v in labels])
    return relabel, centroids[[old for old in order]]


def pick_cluster(sizes: Sequence[int], n: int, rng: random.Random) -> tuple[int, int]:
    """A random cluster with at least ``n`` members, as the paper picks it: a cluster at random, and while
    it is too small another not yet tried. Returns ``(cluster, clusters rejected)``; :class:`SynthError`
    when no cluster is large enough."""
    untried = list(range(len(sizes)))
    rejected = 0
    while untried:
        c = untried.pop(rng.randrange(len(untried)))
        if sizes[c] >= n:
            return c, rejected
        rejected += 1
    raise SynthError(f"no cluster has {n} pages (sizes: {list(sizes)}); use fewer clusters or fewer chunks")
