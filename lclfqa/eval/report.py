"""From the rows of ``results.jsonl`` to ``summary.json``, ``report.md`` and PNG plots.

Per variant: claim recall, the coverage categories and score (with a 95 % bootstrap interval over
questions), evidence recall in the reader's context and in the top-k children, refusals, latency and
tokens, and a paired permutation test against the baseline variant on the questions both answered
(per-question values averaged over runs). Rows that failed are counted, never scored.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from lclfqa.config import READ_STAGES
from lclfqa.eval.answer_metrics import category_counts, coverage_score, mean
from lclfqa.eval.key_facts import score_from_json, summarize_scores
from lclfqa.eval.qa_runner import write_json_atomic
from lclfqa.eval.stats import bootstrap_ci, nearest_rank, paired_permutation_test, quantile
from lclfqa.eval.variants import Variant

PAPER_TABLE = "LCLF-QA Table 1"


def _per_question(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    """Question id → mean of ``metrics[key]`` over its runs (``nan`` when none is a number)."""
    by_q: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        value = r["metrics"].get(key)
        by_q[r["id"]].append(math.nan if value is None else float(value))
    return {q: mean(vs) for q, vs in by_q.items()}


def judges_disagree(row: dict[str, Any]) -> bool:
    """The coverage judge and the claim check contradict each other on this row: COMPLETE while the
    claim check found a contradiction or no entailed claim, or INCORRECT while every claim was entailed.
    (Two calls of one model disagreeing; a large share says the judge model is too weak to trust.)"""
    if row["judge"].get("by") != "judge":
        return False
    labels = row["judge"].get("labels") or []
    coverage, recall = row["metrics"]["coverage"], row["metrics"].get("claim_recall")
    if coverage == "COMPLETE":
        return "Contradiction" in labels or recall == 0
    return coverage == "INCORRECT" and recall == 1 and "Contradiction" not in labels


def necessary_recall(row: dict[str, Any]) -> float | None:
    """Share of the dataset's necessary claims the answer entails (the refusal rule's 0/1 where it scored)."""
    labels = row["judge"].get("necessary_labels")
    if labels:
        return labels.count("Entailment") / len(labels)
    return row["metrics"].get("claim_recall") if row["judge"].get("by") == "refusal rule" else None


def summarize_variant(rows: list[dict[str, Any]], failed: int) -> dict[str, Any]:
    """The summary of one variant's judged rows."""
    cats = [r["metrics"]["coverage"] for r in rows if r["metrics"].get("coverage")]
    points = _per_question(rows, "points")
    refusals = [r["metrics"]["refusal"] for r in rows]
    unanswerable = sum(o in ("correct_refusal", "missed_refusal") for o in refusals)
    answerable = len(refusals) - unanswerable
    score_ci = bootstrap_ci([p / 2 for p in points.values()])
    recall_q = _per_question(
        [r for r in rows if r["metrics"]["refusal"] in ("answered", "wrong_refusal")], "claim_recall"
    )
    well_formed = [
        r["judge"].get("coverage_well_formed", True) and r["judge"].get("labels_well_formed", True) for r in rows
    ]
    return {
        "rows": len(rows),
        "failed": failed,
        "questions": len(points),
        "claim_recall": mean(recall_q.values()),
        "claim_recall_ci": bootstrap_ci(list(recall_q.values())),
        "necessary_recall": mean(
            necessary_recall(r) for r in rows if r["metrics"]["refusal"] in ("answered", "wrong_refusal")
        ),
        **{k.lower(): v for k, v in category_counts(cats).items()},
        "coverage_score": coverage_score(cats),
        "coverage_score_ci": score_ci,
        "coverage_score_claims": coverage_score(
            r["metrics"]["coverage_claims"] for r in rows if r["metrics"].get("coverage_claims")
        ),
        "evidence_recall_context": mean(r["metrics"].get("evidence_recall_context") for r in rows),
        "evidence_recall_topk": mean(r["metrics"].get("evidence_recall_topk") for r in rows),
        "correct_refusals": refusals.count("correct_refusal"),
        "unanswerable": unanswerable,
        "wrong_refusals": refusals.count("wrong_refusal"),
        "answerable": answerable,
        "unsupported_answers": sum(bool(r.get("unsupported")) for r in rows if not r.get("refused")),
        "answers": sum(not r.get("refused") for r in rows),
        "judge_well_formed": sum(well_formed) / len(well_formed) if well_formed else math.nan,
        "judges_disagree": sum(judges_disagree(r) for r in rows),
        "key_facts": summarize_scores(
            score_from_json(r["metrics"]["key_facts"]) for r in rows if r["metrics"].get("key_facts")
        ),
        # the model's own sentences and the source's words code added, scored apart (rows before these views
        # have neither: ``nan``)
        "key_facts_model": summarize_scores(
            score_from_json(r["metrics"]["key_facts_model"]) for r in rows if r["metrics"].get("key_facts_model")
        ),
        "key_facts_added": summarize_scores(
            score_from_json(r["metrics"]["key_facts_added"]) for r in rows if r["metrics"].get("key_facts_added")
        ),
        "facts_stated": {
            view: sum(
                len(r["metrics"][f"key_facts{suffix}"].get("key_facts_hit") or [])
                for r in rows
                if r["metrics"].get(f"key_facts{suffix}")
            )
            for view, suffix in (("whole", ""), ("model", "_model"), ("added", "_added"))
        },
        "quoted_facts": sum(int((r["metrics"].get("quoted_facts") or {}).get("in_quotes", 0)) for r in rows),
        "quoted_facts_stated": sum(int((r["metrics"].get("quoted_facts") or {}).get("stated", 0)) for r in rows),
        # None for rows written before the count existed
        "quoted_facts_stated_by_model": sum(
            int((r["metrics"].get("quoted_facts") or {}).get("stated_by_model", 0)) for r in rows
        )
        if any("stated_by_model" in (r["metrics"].get("quoted_facts") or {}) for r in rows)
        else None,
        "tokens_p50": quantile(
            [
                (r.get("tokens") or {}).get("prompt", 0) + (r.get("tokens") or {}).get("completion", 0)
                for r in rows
                if r.get("tokens")
            ],
            0.5,
        ),
        # the tokens llama.cpp evaluates: a prompt prefix the KV cache holds from the call before is not
        # evaluated again (None for rows written before the count existed, or replayed from the cache)
        "evaluated_tokens_p50": quantile(
            [
                (r.get("tokens") or {}).get("prompt", 0)
                - (r.get("tokens") or {}).get("reused", 0)
                + (r.get("tokens") or {}).get("completion", 0)
                for r in rows
                if (r.get("tokens") or {}).get("reused") is not None
            ],
            0.5,
        ),
        "seconds": mean(r.get("seconds") for r in rows),
        # issue 30's answer length: the answers' p90 in characters, by nearest rank, refusals aside
        "answer_chars_p90": nearest_rank([len(r.get("answer") or "") for r in rows if not r.get("refused")], 0.9),
        "seconds_p50": quantile([r.get("seconds") for r in rows], 0.5),
        "seconds_p95": quantile([r.get("seconds") for r in rows], 0.95),
        "node_seconds": _node_means(rows, "seconds"),
        "node_prompt_tokens": _node_means(rows, "prompt_tokens"),
        "node_completion_tokens": _node_means(rows, "completion_tokens"),
        "node_reused_tokens": _node_means(rows, "reused_tokens"),
        "judge_seconds": mean(r["judge"].get("seconds") for r in rows),
        "llm_calls": mean(r.get("llm_calls") for r in rows),
        "prompt_tokens": mean(r.get("tokens", {}).get("prompt") for r in rows),
        "completion_tokens": mean(r.get("tokens", {}).get("completion") for r in rows),
        "ragas": _ragas(rows),
        "drm_at_k": _curve(rows, "drm"),
        "evidence_recall_at_k": _curve(rows, "evidence_recall"),
    }


def _node_means(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    """Per graph node, the mean of ``key`` (seconds, prompt or completion tokens) over the rows."""
    by_node: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        for node, entry in (r.get("nodes") or {}).items():
            if isinstance(entry, dict) and entry.get(key) is not None:
                by_node[node].append(float(entry[key]))
    return {node: mean(vs) for node, vs in by_node.items()}


def _ragas(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Mean of each ragas metric over the rows that have it (failed scores left out)."""
    by_name: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        for name, v in (r["metrics"].get("ragas") or {}).items():
            if name != "errors" and v is not None:
                by_name[name].append(float(v))
    return {name: mean(vs) for name, vs in by_name.items()}


def _curve(rows: list[dict[str, Any]], name: str) -> dict[str, float]:
    by_k: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        for k, v in (r["metrics"].get("retrieval", {}).get(name) or {}).items():
            if v is not None:
                by_k[str(k)].append(float(v))
    return {k: mean(vs) for k, vs in sorted(by_k.items(), key=lambda kv: int(kv[0]))}


def summarize(
    rows: Sequence[dict[str, Any]], variants: Sequence[Variant], baseline: str | None = None
) -> dict[str, Any]:
    """``summary.json``: per variant figures and the paired tests against ``baseline`` (default: ``rag``
    when it ran, else the first variant)."""
    names = [v.name for v in variants]
    base = baseline or ("rag" if "rag" in names else names[0])
    if base not in names:
        raise ValueError(f"baseline {base!r} is not among the variants ({', '.join(names)})")
    judged = {n: [r for r in rows if r["variant"] == n and not r.get("error") and "metrics" in r] for n in names}
    failed = {n: sum(1 for r in rows if r["variant"] == n and r.get("error")) for n in names}
    out: dict[str, Any] = {"baseline": base, "variants": {}}
    base_points = _per_question(judged[base], "points")
    base_recall = _per_question(judged[base], "claim_recall")
    base_facts = key_fact_recall_by_question(judged[base])
    for v in variants:
        s = summarize_variant(judged[v.name], failed[v.name])
        s |= {"description": v.description, "ablation": v.ablation, "stage": v.overrides.get("stages_off", "")}
        if v.name != base:
            points = _per_question(judged[v.name], "points")
            recall = _per_question(judged[v.name], "claim_recall")
            common = sorted(set(points) & set(base_points))
            facts = key_fact_recall_by_question(judged[v.name])
            common_facts = sorted(set(facts) & set(base_facts))
            s["vs_baseline"] = {
                "key_fact_questions": len(common_facts),
                "key_fact_diff": mean(facts[q] - base_facts[q] for q in common_facts),
                "p_key_facts": paired_permutation_test(
                    [facts[q] for q in common_facts], [base_facts[q] for q in common_facts]
                ),
                "questions": len(common),
                "score_diff": mean(points[q] / 2 - base_points[q] / 2 for q in common),
                "p_score": paired_permutation_test([points[q] for q in common], [base_points[q] for q in common]),
                "p_recall": paired_permutation_test(
                    [recall.get(q, math.nan) for q in common], [base_recall.get(q, math.nan) for q in common]
                ),
            }
        out["variants"][v.name] = s
    return out


def key_fact_recall_by_question(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Question id → key-fact recall (mean over runs; a refusal 0) of the answerable rows with key facts."""
    by_q: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        kf = r["metrics"].get("key_facts")
        if kf and kf.get("key_facts_total") and not kf.get("unanswerable"):
            by_q[r["id"]].append(0.0 if kf.get("refused") else float(kf["key_fact_recall"]))
    return {q: mean(vs) for q, vs in by_q.items()}


# ------------------------------------------------------------------------------------------ report.md


def _f(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def _ci(pair: Sequence[float]) -> str:
    lo, hi = pair
    return "" if math.isnan(lo) else f" [{lo:.2f}, {hi:.2f}]"


def _row(*cells: Any) -> str:
    """One Markdown table row."""
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _wrong(s: dict[str, Any]) -> str:
    """The wrong-fact rate of the whole answer and how many answers state a wrong fact, and of those how many
    in the model's own words and in the source's words code added (verbatim text that can list another case's
    figure): the two can overlap."""
    k = s["key_facts"]
    cell = f"{_f(k['wrong_fact_rate'], 2)} ({k['wrong_fact_answers']} answers"
    model, added = s.get("key_facts_model"), s.get("key_facts_added")
    if model and added and k["wrong_fact_answers"]:
        cell += f": model's words {model['wrong_fact_answers']}, added {added['wrong_fact_answers']}"
    return cell + ")"


def _unsupported(s: dict[str, Any]) -> str:
    """Answers with unsupported figures, of all answers."""
    return f"{s.get('unsupported_answers', 0)}/{s.get('answers', 0)}"


def _table(summary: dict[str, Any], names: list[str]) -> list[str]:
    base = summary["baseline"]
    head = (
        "| variant | recall: triples / necessary | complete | partial | incorrect | score [95 % CI] | score by claims "
        "| p score / recall vs "
        f"{base} | evidence recall: context / top-k | refusals right | wrong refusals | unsupported figures "
        "| s / question | failed |"
    )
    lines = [head, "|" + "---|" * 14]
    for n in names:
        s = summary["variants"][n]
        vs = s.get("vs_baseline")
        p = f"{_f(vs['p_score'], 2)} / {_f(vs['p_recall'], 2)} (n={vs['questions']})" if vs else "baseline"
        recall = f"{_f(s['claim_recall'])} / {_f(s['necessary_recall'])}"
        score = f"{_f(s['coverage_score'])}{_ci(s['coverage_score_ci'])}"
        evidence = f"{_f(s['evidence_recall_context'], 2)} / {_f(s['evidence_recall_topk'], 2)}"
        refusals = (f"{s['correct_refusals']}/{s['unanswerable']}", f"{s['wrong_refusals']}/{s['answerable']}")
        counts = (s["complete"], s["partial"], s["incorrect"])
        cells = [n, recall, *counts, score, _f(s["coverage_score_claims"]), p, evidence, *refusals, _unsupported(s)]
        lines.append(_row(*cells, _f(s["seconds"], 1), s["failed"]))
    return lines


def _key_fact_table(summary: dict[str, Any], names: list[str]) -> list[str]:
    base = summary["baseline"]
    lines = [
        f"| variant | key-fact recall: whole answer | model's own words | source words code added "
        f"| p vs {base} | verdicts right | wrong-fact rate | unanswerable refused | answerable refused "
        "| unsupported figures | facts in the quotes → stated | answers' p90 (characters) |",
        "|" + "---|" * 12,
    ]
    for n in names:
        s = summary["variants"][n]
        k = s["key_facts"]
        vs = s.get("vs_baseline")
        p = f"{_f(vs['p_key_facts'], 2)} (n={vs['key_fact_questions']})" if vs else "baseline"
        lines.append(
            _row(
                n,
                f"{_f(k['key_fact_recall'])} (n={k['key_fact_rows']})",
                _f(s.get("key_facts_model", {}).get("key_fact_recall")),
                _f(s.get("key_facts_added", {}).get("key_fact_recall")),
                p,
                f"{k['verdicts_right']}/{k['verdict_rows']}",
                _wrong(s),
                f"{k['unanswerable_refusals']}/{k['unanswerable_rows']}",
                f"{k['over_refusals']}/{k['answerable_rows']}",
                _unsupported(s),
                _funnel(s),
                _f(s.get("answer_chars_p90"), 0),
            )
        )
    return lines


def _tokens(s: dict[str, Any]) -> float:
    """Mean prompt + completion tokens per row (hardware-free; rows replayed from the cache keep theirs)."""
    return float(s.get("prompt_tokens") or 0) + float(s.get("completion_tokens") or 0)


def _stage_table(summary: dict[str, Any], names: list[str]) -> list[str]:
    """Per read stage switched off: the key facts it adds (whole answer and the model's own words, as counts
    over the answerable rows), the wrong facts it adds, and the tokens per question it costs (not seconds:
    the ablated rows replay the earlier calls from the cache)."""
    full = summary["variants"]["lclf"]

    def facts(s: dict[str, Any], view: str) -> float:
        return float((s.get("facts_stated") or {}).get(view, 0))

    lines = [
        "| stage off | facts it adds: whole answer | model's own words "
        "| wrong-fact answers it adds (−: it prevents one) | tokens / question it costs (mean, in + out) |",
        "|---|---|---|---|---|",
    ]
    for n in names:
        s = summary["variants"][n]
        lines.append(
            _row(
                s["stage"],
                _f(facts(full, "whole") - facts(s, "whole"), 0),
                _f(facts(full, "model") - facts(s, "model"), 0),
                _f(float(full["key_facts"]["wrong_fact_answers"] - s["key_facts"]["wrong_fact_answers"]), 0),
                _f(_tokens(full) - _tokens(s), 0),
            )
        )
    return lines


def _latency_table(summary: dict[str, Any], names: list[str]) -> list[str]:
    nodes: list[str] = []
    for n in names:
        nodes += [node for node in summary["variants"][n]["node_seconds"] if node not in nodes]
    lines = [
        "| variant | s / question p50 | p95 | mean | tokens / question p50 (in + out) | evaluated p50 |"
        + "".join(f" {node}: s, tokens in (reused)/out |" for node in nodes),
        "|" + "---|" * (6 + len(nodes)),
    ]
    for n in names:
        s = summary["variants"][n]
        cells = []
        for node in nodes:
            sec = s["node_seconds"].get(node)
            if sec is None:
                cells.append("–")
                continue
            tokens_in = _f(s["node_prompt_tokens"].get(node), 0)
            reused = (s.get("node_reused_tokens") or {}).get(node)
            tokens_in += f" ({_f(reused, 0)})" if reused else ""
            cells.append(f"{_f(sec, 1)}, {tokens_in}/{_f(s['node_completion_tokens'].get(node), 0)}")
        lines.append(
            f"| {n} | {_f(s['seconds_p50'], 1)} | {_f(s['seconds_p95'], 1)} | {_f(s['seconds'], 1)} | "
            f"{_f(s.get('tokens_p50'), 0)} | {_f(s.get('evaluated_tokens_p50'), 0)} |"
            + "".join(f" {c} |" for c in cells)
        )
    return lines


def _key_fact_cell(m: dict[str, Any]) -> str:
    """``facts 3/5, verdict ✓, wrong: 4 percent`` for a per-question cell."""
    k = m.get("key_facts")
    if not k:
        return ""
    if k.get("unanswerable"):
        return "refused ✓" if k.get("refused") else "answered ✗"
    parts = ["refused" if k.get("refused") else f"facts {len(k['key_facts_hit'])}/{k['key_facts_total']}"]
    if k.get("verdict_expected"):
        parts.append("verdict " + ("✓" if k.get("verdict_correct") else "✗"))
    if k.get("wrong_facts_stated"):
        parts.append("wrong: " + ", ".join(k["wrong_facts_stated"]))
    return ", ".join(parts)


def _funnel(s: dict[str, Any]) -> str:
    """``52 → 41 (32 in the model's words)``: key facts in the verified quotes → stated in the answer."""
    if not s.get("quoted_facts"):
        return "–"
    own = s.get("quoted_facts_stated_by_model")
    return f"{s['quoted_facts']} → {s.get('quoted_facts_stated', 0)}" + (
        f" ({own} in the model's words)" if own is not None else ""
    )


WRITERS = ("model", "tidy", *READ_STAGES)
"""Who last wrote an answer sentence (``steps.read.sentences``): the model as written, or a reader stage."""


def _made_of(rows: list[dict[str, Any]], names: list[str]) -> list[str]:
    """A table of what each variant's answers are made of: their sentences by the stage that last wrote them
    (``steps.read.sentences``). Empty when no row recorded it."""
    counts = {n: Counter[str]() for n in names}
    for r in rows:
        for e in ((r.get("steps") or {}).get("read") or {}).get("sentences") or []:
            counts.setdefault(r["variant"], Counter())[e.get("by", "model")] += 1
    if not any(counts.values()):
        return []
    out = ["", "## What the answers are made of: sentences by the stage that last wrote them", ""]
    out += ["| variant | sentences | " + " | ".join(WRITERS) + " |", "|" + "---|" * (2 + len(WRITERS))]
    for n, c in counts.items():
        out.append(f"| {n} | {c.total()} | " + " | ".join(str(c[w]) for w in WRITERS) + " |")
    return out


def _machine_line(machine: Any) -> list[str]:
    """The CPU the seconds were measured on (tokens compare across machines, seconds do not)."""
    if not isinstance(machine, dict) or not machine.get("cpu_model"):
        return []
    flags = ", ".join(machine.get("cpu_flags") or []) or "none of AVX2/AVX-512/AMX"
    return [f"- machine: {machine['cpu_model']}, {machine.get('cores')} cores ({flags})"]


def render_report(
    summary: dict[str, Any], rows: Sequence[dict[str, Any]], meta: dict[str, Any], plots: Sequence[str] = ()
) -> str:
    """The Markdown report: the pipelines table (after LCLF-QA Table 1), ablations (Table 2), retrieval
    on this set, and every question's category per variant."""
    variants = summary["variants"]
    mains = [n for n, s in variants.items() if not s["ablation"]]
    ablations = [n for n, s in variants.items() if s["ablation"]]
    out = [
        f"# QA evaluation: {meta.get('dataset_name', 'dataset')}",
        "",
        f"- date: {meta.get('date', date.today().isoformat())}",
        f"- dataset: `{meta.get('dataset')}` ({meta.get('questions')} questions)",
        f"- index: `{meta.get('index')}`",
        f"- answering model: `{meta.get('chat_model')}`; judge: `{meta.get('judge_model')}`; runs: {meta.get('runs')}",
        *_machine_line(meta.get("machine")),
        "",
    ]
    judged = any(s["complete"] + s["partial"] + s["incorrect"] for s in variants.values())
    keyed = any(s["key_facts"]["rows"] for s in variants.values())
    if keyed:
        out += ["## Judge-free scores (the set's grading key; no LLM)", "", *_key_fact_table(summary, list(variants))]
        out += [""]
    if judged:
        out += [f"## Pipelines ({PAPER_TABLE})", "", *_table(summary, mains)]
        if ablations:
            out += ["", "## Ablations (LCLF-QA Table 2)", ""]
            out += [f"- **{n}**: {variants[n]['description']}" for n in ablations]
            out += ["", *_table(summary, ablations)]
    stages = [n for n in ablations if variants[n].get("stage")]
    if keyed and stages and "lclf" in variants:
        out += [
            "",
            "## What each read stage adds (lclf minus lclf with the stage off)",
            "",
            *_stage_table(summary, stages),
        ]
    out += ["", "## Latency and tokens per node (means over rows; p50/p95 over rows)", ""]
    out += _latency_table(summary, list(variants))
    ks = sorted({int(k) for s in variants.values() for k in s["drm_at_k"]})
    if ks:
        out += ["", "## Retrieval on this set (children the graph retrieved, before filtering)", ""]
        out.append(
            "| variant | " + " | ".join(f"DRM@{k}" for k in ks) + " | " + " | ".join(f"evid.@{k}" for k in ks) + " |"
        )
        out.append("|" + "---|" * (1 + 2 * len(ks)))
        for n, s in variants.items():
            drm = [_f(s["drm_at_k"].get(str(k)), 2) for k in ks]
            ev = [_f(s["evidence_recall_at_k"].get(str(k)), 2) for k in ks]
            out.append(f"| {n} | " + " | ".join(drm) + " | " + " | ".join(ev) + " |")
    ragas_names = sorted({m for s in variants.values() for m in s["ragas"]})
    if ragas_names:
        out += ["", "## ragas (answered questions; the judge model through ragas' LangChain wrapper)", ""]
        out.append("| variant | " + " | ".join(ragas_names) + " |")
        out.append("|" + "---|" * (1 + len(ragas_names)))
        for n, s in variants.items():
            out.append(f"| {n} | " + " | ".join(_f(s["ragas"].get(m)) for m in ragas_names) + " |")
    what = "coverage category, claim recall; " if judged else ""
    out += ["", f"## Per question ({what}key facts; runs joined by /)", ""]
    names = list(variants)
    out.append("| question | " + " | ".join(names) + " |")
    out.append("|" + "---|" * (1 + len(names)))
    cells: dict[tuple[str, str], list[str]] = defaultdict(list)
    ids: list[str] = []
    for r in rows:
        if r["id"] not in ids:
            ids.append(r["id"])
        if r.get("error"):
            cells[(r["id"], r["variant"])].append("error")
        elif "metrics" in r:
            m = r["metrics"]
            cell = [f"{m['coverage'][0]} {_f(m.get('claim_recall'), 2)}"] if m.get("coverage") else []
            cell += [c for c in [_key_fact_cell(m)] if c]
            cells[(r["id"], r["variant"])].append("; ".join(cell) or "–")
    for q in ids:
        out.append(f"| {q} | " + " | ".join("/".join(cells.get((q, n), ["–"])) for n in names) + " |")
    out += _made_of(rows, names)
    removed = [
        (r["id"], r["variant"], e)
        for r in rows
        for e in ((r.get("steps") or {}).get("read") or {}).get("removed_by") or []
        if isinstance(e, dict)
    ]
    if removed:
        out += ["", "## Sentences the checks removed, and the rule that removed each", ""]
        out += ["| question | variant | rule | sentence |", "|---|---|---|---|"]
        for q, v, e in removed:
            sentence = " ".join(str(e.get("sentence", "")).split()).replace("|", "\\|")
            out.append(f"| {q} | {v} | {e.get('by', '')} | {sentence} |")
    for p in plots:
        out += ["", f"![{Path(p).stem}]({Path(p).name})"]
    out += [
        "",
        "## How to read this",
        "",
        "- key-fact recall: of each answerable question's key facts (each a list of accepted surface forms), the "
        "share the answer states (normalised case, quotes, dashes, §, %, $, thousands, number words, ranges; at "
        "word boundaries; a refusal states none); verdicts right: yes/no questions whose answer opens with the "
        "gold verdict; wrong-fact rate: share of the questions listing tempting wrong values whose answer states "
        "one; no LLM is involved (lclfqa/eval/key_facts.py).",
        "- recall: claim-triple recall, entailed gold triples / all triples the judge extracted from the gold "
        "answer; necessary: entailed / all of the dataset's necessary claims (answerable questions); "
        "score: (2·complete + partial) / (2·questions); 95 % CIs bootstrap over questions.",
        "- score by claims: the same categories decided claim by claim from a check of the necessary claims "
        "(all entailed: complete; any contradicted or none entailed: incorrect; else partial) — steadier than "
        "one judgement when the judge is a small model.",
        "- p: paired permutation test on per-question values (mean over runs) against the baseline; with tens of "
        "questions only large differences are significant, and one LLM judge is itself noisy.",
        "- evidence recall: gold evidence quotes found verbatim (whitespace, printed line numbers and line-end "
        "hyphens aside) in what the reader saw (sources and kept children) / in the top-k children. High "
        "evidence recall with a poor score is a reading failure; low evidence recall is a retrieval failure.",
        "- refusals right: unanswerable questions refused; wrong refusals: answerable questions refused.",
        "- what the answers are made of: each sentence of the final answers by the stage that last wrote it; "
        "model: the model's text as written (a quotation code adds counts once, under sources).",
        "- unsupported figures: answers (not refusals) stating a percentage, dollar amount or quotation that no "
        "source they were given contains (the warning users see under such an answer).",
        "- s / question: the graph's wall time per row; rows replayed from the LLM cache take ~0 s, so after a "
        "rerun this column is not a latency.",
    ]
    if judged:
        out += [
            "- judges disagree (coverage COMPLETE while the claim check found a contradiction or nothing entailed, "
            "or INCORRECT with every claim entailed): "
            + ", ".join(f"{n} {s['judges_disagree']}/{s['rows']}" for n, s in variants.items())
            + ".",
            "- judge output well formed (share of rows): "
            + ", ".join(f"{n} {_f(s['judge_well_formed'], 2)}" for n, s in variants.items())
            + ".",
        ]
    return "\n".join(out) + "\n"


def plot(summary: dict[str, Any], out: Path) -> list[str]:
    """``score.png`` (coverage score with 95 % CIs per variant) and ``retrieval.png`` (DRM@k and evidence
    recall@k); returns the files written (none when matplotlib is missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - a declared dependency
        return []
    variants = summary["variants"]
    names = list(variants)
    written: list[str] = []
    if any(variants[n]["key_facts"]["rows"] for n in names):
        written.append(_plot_key_facts(plt, variants, names, out))
    scores = [variants[n]["coverage_score"] for n in names]
    if all(math.isnan(x) for x in scores):  # --judge none
        scores = []
    if scores:
        written.append(_plot_coverage(plt, variants, names, scores, out))
    if any(variants[n]["drm_at_k"] for n in names):
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.2))
        for n in names:
            for ax, key in ((a1, "drm_at_k"), (a2, "evidence_recall_at_k")):
                curve = variants[n][key]
                if curve:
                    ax.plot([int(k) for k in curve], list(curve.values()), marker="o", label=n)
        ks = sorted({int(k) for n in names for key in ("drm_at_k", "evidence_recall_at_k") for k in variants[n][key]})
        a1.set(xlabel="k", ylabel="DRM@k", title="Document retrieval mismatch", ylim=(0, 1))
        a2.set(xlabel="k", ylabel="evidence recall@k", title="Gold quotes in top-k children", ylim=(0, 1))
        for ax in (a1, a2):
            ax.set_xscale("log", base=2)
            ax.set_xticks(ks, [str(k) for k in ks])
            ax.minorticks_off()
        if a2.get_legend_handles_labels()[0]:
            a2.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "retrieval.png", dpi=120)
        plt.close(fig)
        written.append(str(out / "retrieval.png"))
    return written


def _plot_coverage(plt: Any, variants: dict[str, Any], names: list[str], scores: list[float], out: Path) -> str:
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 3.2))
    lo = [
        s - variants[n]["coverage_score_ci"][0] if not math.isnan(s) else 0 for n, s in zip(names, scores, strict=True)
    ]
    hi = [
        variants[n]["coverage_score_ci"][1] - s if not math.isnan(s) else 0 for n, s in zip(names, scores, strict=True)
    ]
    ax.bar(names, [0 if math.isnan(s) else s for s in scores], yerr=[lo, hi], capsize=4, color="#4c72b0")
    ax.set_ylim(0, 1)
    ax.set_ylabel("coverage score")
    ax.set_title("Coverage score per variant (95 % bootstrap CI)")
    fig.tight_layout()
    fig.savefig(out / "score.png", dpi=120)
    plt.close(fig)
    return str(out / "score.png")


KEY_FACT_BARS = (
    ("key_fact_recall", "key-fact recall"),
    ("verdict_accuracy", "verdicts right"),
    ("wrong_fact_rate", "wrong-fact rate"),
    ("unanswerable_refused", "unanswerable refused"),
)


def _plot_key_facts(plt: Any, variants: dict[str, Any], names: list[str], out: Path) -> str:
    """Grouped bars: the judge-free scores per variant."""
    fig, ax = plt.subplots(figsize=(2.2 * len(KEY_FACT_BARS) + 1, 3.4))
    width = 0.8 / max(1, len(names))
    for i, n in enumerate(names):
        k = variants[n]["key_facts"]
        values = [k.get(key, math.nan) for key, _ in KEY_FACT_BARS]
        xs = [j + i * width for j in range(len(KEY_FACT_BARS))]
        ax.bar(xs, [0 if math.isnan(v) else v for v in values], width, label=n)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(KEY_FACT_BARS))], [label for _, label in KEY_FACT_BARS])
    ax.set_ylim(0, 1)
    ax.set_title("Judge-free scores per variant")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "key_facts.png", dpi=120)
    plt.close(fig)
    return str(out / "key_facts.png")


def write_report(
    rows: Sequence[dict[str, Any]],
    variants: Sequence[Variant],
    out: Path,
    meta: dict[str, Any],
    baseline: str | None = None,
    plots: bool = True,
) -> dict[str, Any]:
    """Write ``summary.json``, ``report.md`` and the plots into ``out``; returns the summary."""
    summary = summarize(rows, variants, baseline)
    summary["meta"] = meta
    written = plot(summary, out) if plots else []
    write_json_atomic(out / "summary.json", summary)
    tmp = out / ".report.md.tmp"
    tmp.write_text(render_report(summary, rows, meta, written), encoding="utf-8")
    tmp.replace(out / "report.md")
    return summary
