"""The rule census (benchmarks/bench_rules.py) switches off rules that exist, and each then never fires."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_rules.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_rules", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("rule", list(_bench().RULES))
def test_each_rule_is_a_function_of_its_module_and_switched_off_never_fires(rule: str, monkeypatch):
    bench = _bench()
    module_name, name, value = bench.RULES[rule]
    module = importlib.import_module(module_name)
    before = getattr(module, name)
    monkeypatch.setattr(module, name, before)  # restored after the test
    bench.switch_off(rule)
    after = getattr(module, name)
    assert after is not before
    assert after("A sentence [1].", "more", "args") == ("A sentence [1]." if value is None else value)


def test_a_rule_renamed_in_its_module_is_refused(monkeypatch):
    bench = _bench()
    monkeypatch.setitem(bench.RULES, "gone", ("lclfqa.graph.answer.check", "no_such_rule", False))
    with pytest.raises(LookupError, match="no_such_rule"):
        bench.switch_off("gone")


def test_the_stages_look_each_rule_up_in_the_module_named():
    """A stage that imported a rule by name (``from .check import echoes``) would keep the original: the
    census would switch off nothing. Each rule must be called through the module's globals."""
    bench = _bench()
    for module_name, name, _ in bench.RULES.values():
        source = Path(importlib.import_module(module_name).__file__).read_text()
        assert f"{name}(" in source.replace(f"def {name}(", "")
