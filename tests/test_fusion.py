"""Reciprocal Rank Fusion against hand-computed scores (ranks from 1, k = 60)."""

from __future__ import annotations

import pytest

from lclfqa.index.fusion import rrf


def _check(got: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    assert [d for d, _ in got] == [d for d, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-12)


@pytest.mark.parametrize(
    ("rankings", "kwargs", "expected"),
    [
        pytest.param(
            [["a", "b", "c"], ["c", "a"]],
            {},
            [("a", 1 / 61 + 1 / 62), ("c", 1 / 63 + 1 / 61), ("b", 1 / 62)],
            id="two-lists",
        ),
        pytest.param([["x", "y"]], {}, [("x", 1 / 61), ("y", 1 / 62)], id="one-list"),
        pytest.param(
            [["a", "b", "c"], ["c", "a"]],
            {"k": 1},
            [("a", 1 / 2 + 1 / 3), ("c", 1 / 4 + 1 / 2), ("b", 1 / 3)],
            id="k=1",
        ),
        pytest.param(
            [["a", "b"], ["b", "a"]],
            {"weights": [1.0, 3.0]},
            [("b", 1 / 62 + 3 / 61), ("a", 1 / 61 + 3 / 62)],
            id="weights-flip-order",
        ),
        pytest.param(
            [["a", "b"], ["c"]],
            {"weights": [0.0, 1.0]},
            [("c", 1 / 61), ("a", 0.0), ("b", 0.0)],
            id="zero-weight-list-adds-no-score",
        ),
        pytest.param(
            [["a", "a", "b", "a"], ["b"]],
            {},
            [("b", 1 / 62 + 1 / 61), ("a", 1 / 61)],
            id="duplicates-count-once",
        ),
        pytest.param(
            [["a", "b", "c", "d"], ["d", "c"]],
            {"top_k": 2},
            [("d", 1 / 64 + 1 / 61), ("c", 1 / 63 + 1 / 62)],
            id="top-k",
        ),
        pytest.param([["a", "b"]], {"top_k": 0}, [], id="top-k-zero"),
        pytest.param([["a", "b"]], {"top_k": 10}, [("a", 1 / 61), ("b", 1 / 62)], id="top-k-larger"),
        pytest.param([], {}, [], id="no-lists"),
        pytest.param([[], []], {}, [], id="empty-lists"),
        pytest.param([[], ["a"]], {"weights": [2.0, 0.5]}, [("a", 0.5 / 61)], id="one-empty-list"),
    ],
)
def test_rrf_scores(rankings, kwargs, expected) -> None:
    _check(rrf(rankings, **kwargs), expected)


def test_ranks_count_from_one() -> None:
    """LlamaIndex and the SAC repo count from 0 and would give 1/60 here."""
    [(doc, score)] = rrf([["only"]])
    assert doc == "only" and score == 1 / 61


@pytest.mark.parametrize(
    ("rankings", "order"),
    [
        # a and b both score 1/61 + 1/62: a's best single rank is 1 in list 1, b's is 1 in list 2 -> tie on
        # best rank too, so first appearance decides: a was read first.
        ([["a", "b"], ["b", "a"]], ["a", "b"]),
        ([["b", "a"], ["a", "b"]], ["b", "a"]),
        # with weights 2 and 1, d at rank 62 of list 1 ties c at rank 1 of list 2 (2/122 == 1/61); d is
        # read first, but c's best single rank is better
        ([[*(f"filler{i}" for i in range(61)), "d"], ["c"]], None),
        # pure ties: same list position in parallel lists -> first appearance
        ([["p"], ["q"], ["r"]], ["p", "q", "r"]),
    ],
)
def test_ties_are_deterministic(rankings, order) -> None:
    if order is None:
        fused = rrf(rankings, weights=[2.0, 1.0])
        scores = dict(fused)
        assert scores["c"] == scores["d"] == 1 / 61
        ids = [d for d, _ in fused]
        assert ids.index("c") < ids.index("d")
    else:
        fused = rrf(rankings)
        assert [d for d, _ in fused] == order
        assert len({s for _, s in fused}) == 1


def test_score_does_not_depend_on_list_order() -> None:
    lists = [["a", "b", "c"], ["c", "b", "a"], ["b", "c", "a"], ["a", "c"]]
    forward = dict(rrf(lists))
    backward = dict(rrf(lists[::-1]))
    assert forward == backward  # bit-identical (math.fsum)


def test_accepts_tuples_and_generators_of_ids() -> None:
    _check(rrf((("a", "b"), ("b",))), [("b", 1 / 62 + 1 / 61), ("a", 1 / 61)])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"weights": [1.0]}, "1 weights for 2 rankings"),
        ({"weights": [1.0, 1.0, 1.0]}, "3 weights for 2 rankings"),
        ({"weights": [1.0, -0.5]}, ">= 0"),
        ({"weights": [1.0, float("nan")]}, ">= 0"),
        ({"weights": [1.0, float("inf")]}, ">= 0"),
        ({"k": 0}, "positive"),
        ({"k": -60}, "positive"),
        ({"top_k": -1}, "top_k"),
    ],
)
def test_rejects_bad_arguments(kwargs, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rrf([["a"], ["b"]], **kwargs)
