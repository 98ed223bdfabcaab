"""A question that compares two things gets both read: no one source takes more than half the places.

"How do the married-filing rules for the child and dependent care credit compare with those for the
education tax credit?" ranks eleven children of the education-credit regulation above the first of the
child-care one (fused retrieval rewards the subject with more text); "Compare how Justice Kavanaugh's
concurrence and the principal dissent …" ranks six children of the 70-page dissent above most of the
concurrence. For a comparison (:func:`compares`), :func:`spread` lets one *group* — a document, or an
opinion of a judgment (a chunk path's first title, :mod:`lclfqa.ingest.opinions`) — keep at most
:func:`share` of the ``k`` places, and fills the rest from the next best of the other groups, in a pool
deeper than ``k``. Any other question keeps the fused ranking as it is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from lclfqa.ingest.opinions import opinion_title

__all__ = ["compares", "group_of", "share", "spread"]

_COMPARISON = re.compile(
    r"\b(?:compar(?:e|es|ed|ing|ison)|contrast(?:s|ed|ing)?|versus|vs\.?|differ(?:s|ence|ences|ent)? (?:from|between)"
    r"|distinguish(?:es|ed)? between)\b",
    re.I,
)


def compares(question: str) -> bool:
    """Whether ``question`` asks for a comparison ("compare", "contrast", "versus", "differ from")."""
    return bool(_COMPARISON.search(question))


def group_of(document: str, path: Sequence[str]) -> tuple[str, str]:
    """The source a chunk speaks for: its document, and within a judgment its opinion."""
    first = path[0] if path else ""
    return document, first if first and opinion_title(first) == first else ""


def share(k: int) -> int:
    """The most places one group keeps among ``k``: half, rounded up."""
    return max(1, math.ceil(k / 2))


def spread(groups: Sequence[tuple[str, str]], k: int) -> list[int]:
    """Positions (into ``groups``, one per ranked chunk, best first) of the ``k`` to keep, in rank order:
    the best-ranked, skipping a chunk whose group already holds :func:`share`; when too few groups remain,
    the skipped ones fill the rest by rank."""
    cap = share(k)
    taken: dict[tuple[str, str], int] = {}
    keep: list[int] = []
    skipped: list[int] = []
    for i, g in enumerate(groups):
        if len(keep) >= k:
            break
        if taken.get(g, 0) >= cap:
            skipped.append(i)
            continue
        taken[g] = taken.get(g, 0) + 1
        keep.append(i)
    keep += skipped[: k - len(keep)]
    return sorted(keep)
