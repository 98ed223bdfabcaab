"""Two ``lclfqa eval qa`` runs of one QA set side by side: what a change did, question by question.

A change is measured by running the set before and after it (``--llm-cache COPY`` replays a change made after
the model's last call; a fresh cache measures one that alters what the model reads). :func:`compare_runs` pairs
the rows the two runs share (question, variant, run) and gives, per variant, the judge-free figures of each side
— key-fact recall of the whole answer, of the model's own words and of the source's words code added; facts
stated; verdicts; refusals; wrong facts; tokens and seconds; the answers' p90 length — how many answers are
identical, a paired permutation test on the whole answer's key-fact recall, and every question whose answer
changed.
:func:`render_comparison` writes it as Markdown (``lclfqa eval diff BEFORE AFTER``; ``--answers`` adds each changed
answer as a word diff, which is how a replay of a change after the model is read).

:func:`pool_runs` puts runs of *different* sets together (``lclfqa eval pool RUN …``): one small set cannot tell
0.03 of recall apart, several together can. Each question keeps its set's name, every variant the runs share is
summed up over all their rows, and each is tested against a baseline variant question by question; verdicts are
counted by the answer expected, where a pipeline that always says "True" shows at once.

On 15 answerable dev questions a change that should not matter to a reader moved the whole answer's recall
by up to 0.02 and the model's own words by 0.13 (``benchmarks/log/2026-11-29-budgets-and-labels.md``): the test
and the changed questions say whether a difference is more than that.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lclfqa.eval.report import key_fact_recall_by_question, summarize_variant
from lclfqa.eval.stats import paired_permutation_test

__all__ = [
    "Changed",
    "Comparison",
    "Pooled",
    "Side",
    "compare_runs",
    "pool_runs",
    "render_comparison",
    "render_pool",
    "word_diff",
]

VIEWS = (("whole", "key_facts", "whole"), ("own", "key_facts_model", "model"), ("added", "key_facts_added", "added"))
"""The three views of an answer's key facts: name here, the metric and the ``facts_stated`` key in the report's
summary (:func:`lclfqa.eval.report.summarize_variant`)."""


@dataclass(frozen=True)
class Side:
    """The judge-free figures of one run's rows of one variant."""

    recall: dict[str, float]
    """Key-fact recall per view (``whole``, ``own``, ``added``; ``nan`` where the rows lack the view)."""
    stated: dict[str, int]
    """Key facts stated, per view."""
    verdicts: tuple[int, int]
    """``(right, asked)``."""
    unanswerable_refused: tuple[int, int]
    answerable_refused: tuple[int, int]
    wrong_fact_rate: float
    tokens_p50: float
    evaluated_p50: float
    """Prompt tokens not held by the KV cache, plus generated ones (``nan`` for replayed rows)."""
    seconds_p50: float
    answer_chars_p90: float
    """The 90th percentile (nearest rank) of the answers' lengths in characters, refusals aside."""


@dataclass(frozen=True)
class Changed:
    """A question whose answer differs between the runs."""

    id: str
    run: int
    facts: tuple[str, str]
    """Whole-answer key facts before and after, as ``hit/total`` (``"refused"`` for a refusal)."""
    own: tuple[str, str]
    verdict: tuple[str, str]
    refused: tuple[bool, bool]
    answers: tuple[str, str] = ("", "")
    """The answer before and after (``lclfqa eval diff --answers`` shows the words that differ; ``--json``
    always carries both)."""


def word_diff(before: str, after: str) -> str:
    """``after`` with the words ``before`` had and it lacks as ``[-…-]`` and its new words as ``{+…+}`` (git's
    word diff), so a replay's every change can be read in one line: "In A v B {+[2019]+} ABC 7, [-it-] {+the Court+}
    held …"."""
    from difflib import SequenceMatcher

    old, new = before.split(), after.split()
    if old == new and before != after:
        return f"{after} (only the spacing changed)"
    out: list[str] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            out += new[j1:j2]
            continue
        if i2 > i1:
            out.append(f"[-{' '.join(old[i1:i2])}-]")
        if j2 > j1:
            out.append(f"{{+{' '.join(new[j1:j2])}+}}")
    return " ".join(out)


@dataclass(frozen=True)
class Comparison:
    """One variant of both runs."""

    variant: str
    rows: int
    identical: int
    """Rows whose answer (and refusal) is the same in both runs."""
    before: Side
    after: Side
    p_key_facts: float
    """Paired permutation test of the whole answer's key-fact recall, question by question."""
    questions: int
    """Questions the test pairs (answerable, with key facts)."""
    changed: list[Changed] = field(default_factory=list)


def _scored(row: dict[str, Any]) -> bool:
    """Whether ``row`` was answered and scored (a failed row carries ``error`` and no ``metrics``)."""
    return not row.get("error") and "metrics" in row and "id" in row and "variant" in row


def _key(row: dict[str, Any]) -> tuple[str, str, int]:
    return str(row["id"]), str(row["variant"]), int(row.get("run", 0))


def side(rows: Sequence[dict[str, Any]]) -> Side:
    """The figures of ``rows`` (one variant's judged rows of one run), as ``eval qa``'s report computes them
    (:func:`lclfqa.eval.report.summarize_variant`)."""
    s = summarize_variant(list(rows), failed=0)
    whole = s["key_facts"]
    return Side(
        recall={v: float(s[metric]["key_fact_recall"]) for v, metric, _ in VIEWS},
        stated={v: s["facts_stated"][stated] for v, _, stated in VIEWS},
        verdicts=(whole["verdicts_right"], whole["verdict_rows"]),
        unanswerable_refused=(whole["unanswerable_refusals"], whole["unanswerable_rows"]),
        answerable_refused=(whole["over_refusals"], whole["answerable_rows"]),
        wrong_fact_rate=float(whole["wrong_fact_rate"]),
        tokens_p50=s["tokens_p50"],
        evaluated_p50=s["evaluated_tokens_p50"],
        seconds_p50=s["seconds_p50"],
        answer_chars_p90=s["answer_chars_p90"],
    )


def _facts(row: dict[str, Any], metric: str) -> str:
    if row.get("refused"):
        return "refused"
    kf = row["metrics"].get(metric) or {}
    if not kf.get("key_facts_total"):
        return "–"
    return f"{len(kf.get('key_facts_hit') or [])}/{kf['key_facts_total']}"


def _verdict(row: dict[str, Any]) -> str:
    return str((row["metrics"].get("key_facts") or {}).get("verdict_given") or "–")


def compare_runs(
    before: Iterable[dict[str, Any]], after: Iterable[dict[str, Any]], variants: Sequence[str] = ()
) -> list[Comparison]:
    """Per variant both runs share (those in ``variants``, when given; in the first run's order), the figures
    of each run over the rows both hold. Rows that failed (``error``) or were not scored are left out."""
    scored = [{_key(r): r for r in rows if _scored(r)} for rows in (before, after)]
    common = [k for k in scored[0] if k in scored[1]]
    names = list(dict.fromkeys(v for _, v, _ in common))
    if variants:
        names = [v for v in names if v in variants]
    out = []
    for name in names:
        keys = [k for k in common if k[1] == name]
        b, a = [scored[0][k] for k in keys], [scored[1][k] for k in keys]
        same = [
            x.get("answer") == y.get("answer") and bool(x.get("refused")) == bool(y.get("refused"))
            for x, y in zip(b, a, strict=True)
        ]
        facts_b, facts_a = key_fact_recall_by_question(b), key_fact_recall_by_question(a)
        paired = [q for q in facts_b if q in facts_a]
        changed = [
            Changed(
                id=k[0],
                run=k[2],
                facts=(_facts(x, "key_facts"), _facts(y, "key_facts")),
                own=(_facts(x, "key_facts_model"), _facts(y, "key_facts_model")),
                verdict=(_verdict(x), _verdict(y)),
                refused=(bool(x.get("refused")), bool(y.get("refused"))),
                answers=(str(x.get("answer") or ""), str(y.get("answer") or "")),
            )
            for k, x, y, s in zip(keys, b, a, same, strict=True)
            if not s
        ]
        out.append(
            Comparison(
                variant=name,
                rows=len(keys),
                identical=sum(same),
                before=side(b),
                after=side(a),
                p_key_facts=paired_permutation_test([facts_a[q] for q in paired], [facts_b[q] for q in paired]),
                questions=len(paired),
                changed=changed,
            )
        )
    return out


def _n(x: float, digits: int = 3) -> str:
    return "–" if x != x else f"{x:.{digits}f}"  # nan


def _count(x: float) -> str:
    return "–" if x != x else f"{x:,.0f}"


def _figures(s: Side) -> list[str]:
    r = s.recall
    return [
        f"{_n(r['whole'])} / {_n(r['own'])} / {_n(r['added'])}",
        f"{s.stated['whole']} ({s.stated['own']})",
        f"{s.verdicts[0]}/{s.verdicts[1]}",
        f"{s.unanswerable_refused[0]}/{s.unanswerable_refused[1]}",
        f"{s.answerable_refused[0]}/{s.answerable_refused[1]}",
        _n(s.wrong_fact_rate, 2),
        f"{_count(s.tokens_p50)} ({_count(s.evaluated_p50)})",
        _n(s.seconds_p50, 1),
        _count(s.answer_chars_p90),
    ]


LABELS = (
    "key facts: whole / own words / added",
    "facts stated (in the model's words)",
    "verdicts right",
    "unanswerable refused",
    "answerable refused",
    "wrong-fact rate",
    "tokens p50 (evaluated)",
    "s p50",
    "answer characters p90",
)


def render_comparison(
    comparisons: Sequence[Comparison], before: str = "before", after: str = "after", answers: bool = False
) -> str:
    """The comparison as Markdown: per variant a table of both runs' figures, the paired test, and a table of
    the questions whose answer changed; with ``answers``, each changed answer as a word diff (:func:`word_diff`)."""
    lines: list[str] = []
    for c in comparisons:
        lines += [
            f"## {c.variant}: {c.rows} rows, {c.identical} answers identical",
            "",
            f"| | {before} | {after} |",
            "|---|---|---|",
            *(
                f"| {label} | {x} | {y} |"
                for label, x, y in zip(LABELS, _figures(c.before), _figures(c.after), strict=True)
            ),
            "",
            f"Whole-answer key facts, paired permutation test over {c.questions} questions: "
            f"p = {_n(c.p_key_facts, 2)}.",
            "",
        ]
        if c.changed:
            lines += ["| question | key facts | own words | verdict | refused |", "|---|---|---|---|---|"]
            for ch in c.changed:
                name = ch.id if ch.run == 0 else f"{ch.id} (run {ch.run})"
                cells = [f"{x} → {y}" if x != y else x for x, y in (ch.facts, ch.own, ch.verdict)]
                refused = " → ".join("yes" if r else "no" for r in ch.refused) if ch.refused[0] != ch.refused[1] else ""
                lines.append(f"| {name} | {' | '.join(cells)} | {refused} |")
            lines.append("")
            if answers:
                for ch in c.changed:
                    name = ch.id if ch.run == 0 else f"{ch.id} (run {ch.run})"
                    lines += [f"- **{name}**: {word_diff(*ch.answers)}", ""]
    return "\n".join(lines).rstrip() + "\n"


@dataclass(frozen=True)
class Pooled:
    """One variant over the rows of several runs of different sets."""

    variant: str
    rows: int
    side: Side
    p_vs_baseline: float
    """Paired permutation test of the whole answer's key-fact recall against the baseline (``nan`` for itself)."""
    questions: int
    """Questions the test pairs (answerable, with key facts)."""
    verdicts_by_expected: dict[str, tuple[int, int]]
    """Expected verdict (``true``, ``false``, ``yes``, ``no``) → ``(right, asked)``."""


def pool_runs(runs: Sequence[tuple[str, Iterable[dict[str, Any]]]], baseline: str = "rag") -> list[Pooled]:
    """The variants every run of ``runs`` (``(set name, rows)``) holds, each over all their scored rows, with a
    paired test against ``baseline`` where the runs hold it. A question is ``"set/id"``, so two sets' ids
    never meet."""
    if len({name for name, _ in runs}) != len(runs):
        names = ", ".join(name for name, _ in runs)
        raise ValueError(f"two runs share a name ({names}): a question would be paired with itself")
    pooled: dict[str, list[dict[str, Any]]] = {}
    shared: set[str] | None = None
    for name, rows in runs:
        scored = [r for r in rows if _scored(r)]
        variants = {str(r["variant"]) for r in scored}
        shared = variants if shared is None else shared & variants
        for r in scored:
            pooled.setdefault(str(r["variant"]), []).append(r | {"id": f"{name}/{r['id']}"})
    names = [v for v in pooled if shared and v in shared]
    facts = {v: key_fact_recall_by_question(pooled[v]) for v in names}
    out = []
    for v in names:
        paired = [q for q in facts[v] if q in facts.get(baseline, {})] if v != baseline else []
        by_expected: dict[str, list[int]] = {}
        for r in pooled[v]:
            kf = r["metrics"].get("key_facts") or {}
            if kf.get("verdict_expected"):
                tally = by_expected.setdefault(str(kf["verdict_expected"]), [0, 0])
                tally[0] += bool(kf.get("verdict_correct"))
                tally[1] += 1
        out.append(
            Pooled(
                variant=v,
                rows=len(pooled[v]),
                side=side(pooled[v]),
                p_vs_baseline=paired_permutation_test(
                    [facts[v][q] for q in paired], [facts[baseline][q] for q in paired]
                )
                if paired
                else float("nan"),
                questions=len(paired),
                verdicts_by_expected={k: (a, n) for k, (a, n) in sorted(by_expected.items())},
            )
        )
    return out


def render_pool(pooled: Sequence[Pooled], sets: Sequence[str], baseline: str = "rag") -> str:
    """The pooled figures as Markdown: one column per variant."""
    names = [p.variant for p in pooled]
    expected = sorted({k for p in pooled for k in p.verdicts_by_expected})
    lines = [
        f"Pooled over {len(sets)} runs ({', '.join(sets)}); baseline `{baseline}`.",
        "",
        "| | " + " | ".join(f"{n} ({p.rows} rows)" for n, p in zip(names, pooled, strict=True)) + " |",
        "|---|" + "---|" * len(names),
    ]
    figures = [_figures(p.side) for p in pooled]
    lines += [f"| {label} | " + " | ".join(f[i] for f in figures) + " |" for i, label in enumerate(LABELS)]
    lines.append(
        f"| p vs `{baseline}` (whole answer, paired) | "
        + " | ".join("–" if p.variant == baseline else f"{_n(p.p_vs_baseline, 3)} ({p.questions} q)" for p in pooled)
        + " |"
    )
    for e in expected:
        cells = [
            f"{p.verdicts_by_expected[e][0]}/{p.verdicts_by_expected[e][1]}" if e in p.verdicts_by_expected else "–"
            for p in pooled
        ]
        lines.append(f'| verdicts right where "{e}" is expected | ' + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
