"""The path-numbering check (benchmarks/bench_paths.py): which sibling labels follow one another."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_paths.py"


def _bench():
    sys.path.insert(0, str(SCRIPT.parent))  # it imports bench_notes' list of prints
    spec = importlib.util.spec_from_file_location("bench_paths", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labels_that_follow_one_another():
    follows = _bench().follows
    assert follows("1", "2") and follows("a", "b") and follows("ii", "iii") and follows("A", "B")
    assert follows("h", "i") and follows("iv", "v")  # (i) after (h) is a letter; (v) after (iv) a numeral
    assert follows("1", "1A") and follows("1A", "2") and follows("a", "aa") and follows("aa", "b")  # inserted
    assert not follows("2", "4") and not follows("b", "a") and not follows("2", "2") and not follows("ii", "i")
    assert follows("xvi", "xvii") and follows("1", "1a") and not follows("I", "ii") and not follows("iv", "V")


def test_breaks_under_each_parent_in_reading_order():
    bench = _bench()
    paths = [
        ("s 5",),
        ("s 5", "(1) A contract"),
        ("s 5", "(1) A contract", "(a) to which"),
        ("s 5", "(1) A contract", "(b) that relates"),
        ("s 5", "(2) An order"),
        ("s 6", "(1) The Court"),
        ("s 6", "(1) The Court", "(b) whether"),  # (a) read as the lead-in's text: no break, (b) comes first
        ("s 6", "(1) The Court", "(a) whether"),  # but (a) after (b) is one
        ("s 6", "(3) If"),
    ]
    parents, found = bench.breaks(paths)
    assert parents == 4
    assert found == [("s 6", "1", "3"), ("(1) The Court", "b", "a")]
    # a child that comes back after a sibling is a duplicate: (a) then (b) then (a) again
    again = [("s 7",), ("s 7", "(a) one"), ("s 7", "(b) two"), ("s 7", "(a) one"), ("s 7", "(a) one", "(i) x")]
    assert bench.breaks(again)[1] == [("s 7", "b", "a")]
