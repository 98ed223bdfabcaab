"""Small-sample statistics for eval reports: bootstrap confidence intervals, a paired permutation test, quantiles.

Dev sets here have tens of questions, so the paired test is exact (all 2^n sign flips) up to 16 non-zero
differences and a seeded Monte Carlo estimate above that; both are pure numpy and reproducible.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

EXACT_MAX = 16


def bootstrap_ci(
    values: Sequence[float], *, level: float = 0.95, resamples: int = 5000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (``nan`` values dropped; ``(nan, nan)`` if
    none remain; a single value gives a zero-width interval)."""
    x = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, size=(resamples, x.size))].mean(axis=1)
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def paired_permutation_test(a: Sequence[float], b: Sequence[float], *, samples: int = 20000, seed: int = 0) -> float:
    """Two-sided p-value that the mean of ``a - b`` is 0 (pairs with a ``nan`` are dropped).

    Under the null each paired difference is equally likely to have either sign. ``1.0`` when every
    difference is zero or there are no pairs.
    """
    if len(a) != len(b):
        raise ValueError(f"paired test needs equal lengths; got {len(a)} and {len(b)}")
    d = np.asarray([x - y for x, y in zip(a, b, strict=True) if not (math.isnan(x) or math.isnan(y))], dtype=float)
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    observed = abs(d.sum())
    if d.size <= EXACT_MAX:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=d.size)))
    else:
        signs = np.random.default_rng(seed).choice((1.0, -1.0), size=(samples, d.size))
    sums = np.abs(signs @ d)
    return float(np.mean(sums >= observed - 1e-12))


def quantile(values: Sequence[Any], q: float) -> float:
    """The ``q`` quantile (linear interpolation) of the numbers among ``values``; ``nan`` for none."""
    xs = sorted(float(v) for v in values if v is not None and not math.isnan(float(v)))
    if not xs:
        return math.nan
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def nearest_rank(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ``values`` by nearest rank (a value of the list, as "answers' p90" is reported);
    ``nan`` for none."""
    xs = sorted(values)
    return float(xs[max(0, math.ceil(q * len(xs)) - 1)]) if xs else math.nan
