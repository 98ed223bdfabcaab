"""What each of the reader's rules does: every answer replayed with one rule switched off at a time.

The ``cite``/``support``/``tidy`` stages (``lclfqa/graph/answer``) apply rules inside a stage, which the
stage ablations (``lclfqa eval qa --ablations stages``) cannot switch off one by one. Here each rule in
:data:`RULES` is replaced by one that never fires, in a child process running ``lclfqa eval qa`` with the
arguments of each ``--set``, and the answers are compared with a run with no rule off. The rules act after
the model's calls, so with ``--llm-cache`` holding a run's calls every answer is replayed (no model call,
seconds a set); each run reads a fresh copy of the cache, which is left as it was. Prints, per rule and set,
lclf's key-fact recall (whole answer), verdicts right, unanswerable questions refused, and how many answers
of each pipeline differ from the run with every rule on. Log:
``benchmarks/log/2026-11-29-unseen-prints-and-rule-census.md``.

    python benchmarks/bench_rules.py --out /tmp/rules \\
        --set dev ../shared/data/tax-qa/dev.jsonl DEV-INDEX DEV-CACHE lclf,rag,rag+ \\
        --set val benchmarks/data/validation.jsonl VAL-INDEX VAL-CACHE lclf,rag,rag+ \\
        [--set NAME DATASET INDEX CACHE PIPELINES MODEL] [--rules echoes,repeats]
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

_CHECK, _SUPPORT, _TIDY = "lclfqa.graph.answer.check", "lclfqa.graph.answer.support", "lclfqa.graph.answer.tidy"
RULES: dict[str, tuple[str, str, object]] = {
    "is_pointer": (_CHECK, "is_pointer", False),
    "repeats": (_CHECK, "repeats", False),
    "clause_trimmed": (_CHECK, "clause_trimmed", ""),
    "salvaged": (_CHECK, "salvaged", ""),
    "_derived": (_CHECK, "_derived", False),
    "overstated": (_CHECK, "overstated", []),
    "echoes": (_CHECK, "echoes", False),
    "asks_back": (_SUPPORT, "asks_back", False),
    "misnamed": (_SUPPORT, "misnamed", False),
    "unattributed": (_SUPPORT, "unattributed", False),
    "elsewhere": (_SUPPORT, "elsewhere", False),
    "misplaced": (_SUPPORT, "misplaced", False),
    "regulations_unclaimed": (_TIDY, "regulations_unclaimed", None),
}
"""Each rule: the module whose globals name it, its name there, and what it returns switched off (it never
fires; ``None``: the text it is given, unchanged)."""


def switch_off(rule: str) -> None:
    """Replace ``rule`` in its module by a function that never fires (the stages look it up there)."""
    module_name, name, value = RULES[rule]
    module = importlib.import_module(module_name)
    if not callable(getattr(module, name, None)):
        raise LookupError(f"{module_name} has no function {name!r}: update RULES")
    setattr(module, name, (lambda text, *a, **k: text) if value is None else (lambda *a, **k: value))


def run_set(rule: str, name: str, spec: list[str], out: Path) -> Path:
    """``lclfqa eval qa`` over one set with ``rule`` off (``none``: every rule on), into ``out/rule/name``."""
    dataset, index, cache, pipelines, *model = spec
    target = out / rule / name
    copy = out / rule / f"{name}.sqlite"
    shutil.rmtree(target, ignore_errors=True)  # eval qa resumes a run it finds: this one starts afresh
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cache, copy)
    args = ["eval", "qa", "--dataset", dataset, "--index", index, "--pipeline", pipelines, "--judge", "none"]
    args += ["--llm-cache", str(copy), "--out", str(target), *(["--model", model[0]] if model else [])]
    code = f"import sys; sys.argv = ['lclfqa', *{args!r}]; import benchmarks.bench_rules as b; b.main_child({rule!r})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(__file__).parents[1])
    if done.returncode:
        sys.exit(f"{rule} / {name}: lclfqa eval qa failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return target


def main_child(rule: str) -> None:
    """In the child: switch ``rule`` off, then run the CLI with ``sys.argv``."""
    if rule != "none":
        switch_off(rule)
    from lclfqa.cli import app

    app()


def _answers(run: Path) -> dict[tuple[str, str], str]:
    rows = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    return {(r["variant"], r["id"]): r.get("answer", "") for r in rows}


def summary(run: Path, base: Path) -> str:
    """lclf's key facts, verdicts, unanswerable refused, and the answers that differ from ``base``'s."""
    lclf = json.loads((run / "summary.json").read_text())["variants"].get("lclf", {}).get("key_facts", {})
    now, before = _answers(run), _answers(base)
    changed: dict[str, int] = {}
    for key, text in now.items():
        if before.get(key) != text:
            changed[key[0]] = changed.get(key[0], 0) + 1
    recall = lclf.get("key_fact_recall")
    facts = "–" if recall is None else f"{recall:.3f}"
    return (
        f"{facts} | {lclf.get('verdicts_right', 0)}/{lclf.get('verdict_rows', 0)} | "
        f"{lclf.get('unanswerable_refusals', 0)}/{lclf.get('unanswerable_rows', 0)} | "
        + (", ".join(f"{v} {n}" for v, n in sorted(changed.items())) or "none")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the runs (one per rule and set)")
    parser.add_argument(
        "--set", nargs="+", action="append", required=True, metavar="ARG",
        help="NAME DATASET INDEX CACHE PIPELINES [MODEL]: one set to replay (repeatable)",
    )  # fmt: skip
    parser.add_argument("--rules", default=",".join(RULES), help="rules to switch off, comma-separated")
    args = parser.parse_args()
    rules = [r for r in args.rules.split(",") if r]
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        parser.error(f"unknown rules {unknown}; known: {', '.join(RULES)}")
    for spec in args.set:
        if len(spec) not in (5, 6):
            parser.error(f"--set takes NAME DATASET INDEX CACHE PIPELINES [MODEL], got {spec}")
    base = {spec[0]: run_set("none", spec[0], spec[1:], args.out) for spec in args.set}
    print("| rule off | set | lclf key facts | verdicts | unanswerable refused | answers changed |")
    print("|---|---|---|---|---|---|")
    for spec in args.set:
        print(f"| none | {spec[0]} | {summary(base[spec[0]], base[spec[0]])} |")
    for rule in rules:
        for spec in args.set:
            run = run_set(rule, spec[0], spec[1:], args.out)
            print(f"| {rule} | {spec[0]} | {summary(run, base[spec[0]])} |", flush=True)


if __name__ == "__main__":
    main()
