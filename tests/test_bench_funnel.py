"""The fact funnel of a stored run (benchmarks/bench_fact_funnel.py): retrieved, widened, quoted, stated."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from lclfqa.eval.datasets import load_qa_jsonl

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_fact_funnel.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_fact_funnel", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_fact_is_counted_where_it_is_found(tmp_path: Path):
    rows = [
        {
            "id": "Q1",
            "question": "What is the lease's rent and deposit, and when is it due?",
            "gold_answer": "-",
            "key_facts": [["$2,400"], ["$4,800"], ["first day", "1st day"]],
        },
        {"id": "Q2", "question": "What is the lessee's notice period?", "gold_answer": "-", "unanswerable": True},
    ]
    dataset = tmp_path / "set.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    items = {i.id: i for i in load_qa_jsonl(dataset)}
    texts = {"c1": "Rent is $2,400 a month.", "p1": "Rent is $2,400 a month. The deposit is $4,800.", "c2": "Misc."}
    parents = {"c1": ["p1"], "c2": []}
    run = [
        {
            "id": "Q1",
            "variant": "lclf",
            "retrieved": [{"id": "c1", "kept": False}, {"id": "c2", "kept": True}],
            "quotes": [{"text": "The deposit is $4,800."}],
            "answer": "The deposit is $4,800 [1], due on the first day.",
        },
        {"id": "Q1", "variant": "rag", "retrieved": [{"id": "c1"}], "quotes": [], "answer": "Rent is $2,400 [1]."},
        {"id": "Q2", "variant": "lclf", "retrieved": [{"id": "c1"}], "quotes": [], "answer": "No notice."},
    ]
    counts = _bench().funnel(run, items, lambda k: texts.get(k, ""), lambda k: parents.get(k, []))
    # the rent is in a child, the deposit only in its parent, the due day nowhere but the answer
    assert counts == {
        "facts": 3,
        "children": 1,
        "context": 2,
        "kept": 0,
        "quotes": 1,
        "stated": 2,
        "stated from quotes": 1,
    }  # the filter dropped the child holding both figures
    rag = _bench().funnel(run, items, lambda k: texts.get(k, ""), lambda k: parents.get(k, []), variant="rag")
    assert (rag["children"], rag["quotes"], rag["stated"]) == (1, 0, 1)
