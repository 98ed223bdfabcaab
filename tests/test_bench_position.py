"""The position benchmark's reversal (benchmarks/bench_position.py): the references reversed, nothing else."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from lclfqa.graph.evidence.reading import passages, references

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_position.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_position", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def _child(n: int, text: str) -> dict:
    return {"id": f"c{n}", "document": "act.pdf", "section": ["s. 7 Leave"], "pages": [n], "text": text, "source": n}


def test_references_reversed_are_the_references_of_the_children_in_reverse_order():
    bench = _bench()
    children = [
        _child(1, "An employee may take leave. See [1.1] and [2.1] in the schedule."),
        _child(2, "Leave is paid. The rate is 80% (see [2.1] and [1.2] of the schedule)."),
        _child(3, "The Minister may vary the rate."),
    ]

    def message(kids: list[dict]) -> str:
        return f"Reference texts:\n{references(kids, numbered=True)}\n\nQuestion: Is leave paid?"

    rev = bench.reverse_references(message(children))
    assert rev.text == message(children[::-1])  # the prompt the graph builds for the children reversed
    assert rev.n == 3 and rev.sentences == list(passages(children[::-1]))
    assert "See [1.1] and [2.1] in the schedule." in rev.text  # brackets in a sentence are its text, not its number
    assert "(see [2.1] and [1.2] of the schedule)" in rev.text
    assert bench.reverse_references(rev.text).text == message(children)
    assert [bench.back(s, 3) for s in ("1.1", "2.2", "3.1")] == ["3.1", "2.2", "1.1"]


def test_a_message_without_references_is_a_clear_error():
    with pytest.raises(ValueError, match="no <reference i> blocks"):
        _bench().reverse_references("Question: nothing to reverse")
