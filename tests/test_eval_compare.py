"""``lclfqa eval diff``: two QA runs of one set compared, question by question (invented questions and keys)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.eval.compare import compare_runs, render_comparison
from lclfqa.eval.key_facts import score_answer
from lclfqa.eval.stats import nearest_rank

KEYS = {
    "Q1": {"key_facts": [["60 days", "sixty days"], ["in writing"]], "verdict": None, "unanswerable": False},
    "Q2": {"key_facts": [["joint return"]], "verdict": "no", "unanswerable": False},
    "Q3": {"key_facts": [], "verdict": None, "unanswerable": True},
}


def row(qid: str, answer: str, variant: str = "lclf", added: str = "", refused: bool = False, **extra) -> dict:
    """A results row as ``eval qa --judge none`` writes it, scored by the real key-fact scorer."""
    key = KEYS[qid]

    def score(text: str) -> dict:
        return score_answer(
            text,
            key_facts=key["key_facts"],
            verdict=key["verdict"],
            wrong_facts=[],
            unanswerable=key["unanswerable"],
            refused=refused,
        ).to_json()

    own = answer.replace(added, "") if added else answer
    metrics = {
        "refusal": {
            (True, True): "correct_refusal",
            (True, False): "missed_refusal",
            (False, True): "wrong_refusal",
        }.get((key["unanswerable"], refused), "answered"),
        "key_facts": score(answer),
        "key_facts_model": score(own),
        "key_facts_added": score(added),
    }
    return {
        "id": qid,
        "variant": variant,
        "run": 0,
        "answer": answer,
        "refused": refused,
        "metrics": metrics,
        "judge": {"by": "none"},
        "tokens": {"prompt": 1000, "completion": 100, "reused": 400},
        "seconds": 10.0,
    } | extra


BEFORE = [
    row("Q1", "The notice is due within 60 days [1]."),
    row("Q2", "No, spouses must file a joint return [1]."),
    row("Q3", "The documents provided do not answer this question.", refused=True),
    row("Q1", "Within 60 days [1].", variant="rag"),
]


def test_identical_runs_show_no_change():
    (c,) = compare_runs(BEFORE, BEFORE, ["lclf"])
    assert (c.rows, c.identical, c.changed, c.p_key_facts) == (3, 3, [], 1.0)
    assert c.before == c.after
    assert c.before.recall["whole"] == pytest.approx((0.5 + 1.0) / 2)
    assert (c.before.verdicts, c.before.unanswerable_refused, c.before.answerable_refused) == ((1, 1), (1, 1), (0, 2))
    assert c.before.evaluated_p50 == 700 and c.before.tokens_p50 == 1100
    assert c.before.answer_chars_p90 == len("No, spouses must file a joint return [1].")  # the refusal aside


def test_a_changed_answer_is_listed_with_its_figures():
    after = [
        row(
            "Q1",
            "The notice is due in writing within 60 days [1]. “Notice must be in writing.” [2]",
            added="“Notice must be in writing.” [2]",
        ),
        BEFORE[1],
        row("Q3", "Yes, it is allowed [1].", seconds=30.0),
        BEFORE[3],
    ]
    comparisons = compare_runs(BEFORE, after)
    assert [c.variant for c in comparisons] == ["lclf", "rag"]
    c = comparisons[0]
    assert c.identical == 1
    assert [(ch.id, ch.facts, ch.refused) for ch in c.changed] == [
        ("Q1", ("1/2", "2/2"), (False, False)),
        ("Q3", ("refused", "–"), (True, False)),
    ]
    assert c.after.recall["whole"] == 1.0 and c.after.unanswerable_refused == (0, 1)
    assert c.after.seconds_p50 == 10.0 and c.after.stated == {"whole": 3, "own": 3, "added": 1}
    text = render_comparison(comparisons, "old", "new")
    assert "## lclf: 3 rows, 1 answers identical" in text
    assert "| Q1 | 1/2 → 2/2 |" in text and "| yes → no |" in text
    assert "## rag: 1 rows, 1 answers identical" in text
    assert "[-" not in text  # no word diff unless asked
    shown = render_comparison(comparisons, "old", "new", answers=True)
    assert "- **Q3**: [-The documents provided do not answer this question.-] {+Yes, it is allowed [1].+}" in shown
    assert (
        "- **Q1**: The notice is due {+in writing+} within 60 days [1]. {+“Notice must be in writing.” [2]+}" in shown
    )


def test_a_word_diff_shows_only_the_words_that_changed():
    from lclfqa.eval.compare import word_diff

    assert word_diff("In A v B  HCA 7, it held [2].", "In A v B [2019] HCA 7, it held [2].") == (
        "In A v B {+[2019]+} HCA 7, it held [2]."
    )
    assert word_diff("Due [4] [4].", "Due [4].") == "Due [-[4]-] [4]."
    assert word_diff("same", "same") == "same" and word_diff("", "new") == "{+new+}"
    assert word_diff("In A  v B.", "In A v B.") == "In A v B. (only the spacing changed)"


def test_rows_only_one_run_has_and_failed_rows_are_left_out():
    after = [BEFORE[0], {"id": "Q2", "variant": "lclf", "run": 0, "error": "timeout"}]
    (c,) = compare_runs(BEFORE, after, ["lclf"])
    assert (c.rows, c.questions, c.identical) == (1, 1, 1)
    assert math.isnan(c.before.wrong_fact_rate)  # no row lists wrong facts


def _write(folder: Path, rows: list[dict]) -> Path:
    folder.mkdir()
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


def test_the_cli_prints_the_comparison_and_refuses_what_it_cannot_compare(tmp_path):
    before = _write(tmp_path / "before", BEFORE)
    after = _write(tmp_path / "after", [row("Q1", "Due in writing [1].")])
    runner = CliRunner()
    result = runner.invoke(app, ["eval", "diff", str(before), str(after)])
    assert result.exit_code == 0, result.output
    assert "## lclf: 1 rows, 0 answers identical" in result.output and "| Q1 | 1/2 |" in result.output
    as_json = runner.invoke(app, ["eval", "diff", str(before), str(after / "results.jsonl"), "--json"])
    data = json.loads(as_json.output)  # strict JSON: a figure no row has is null, not NaN
    assert data[0]["changed"][0]["id"] == "Q1" and data[0]["before"]["wrong_fact_rate"] is None
    assert data[0]["changed"][0]["answers"] == ["The notice is due within 60 days [1].", "Due in writing [1]."]
    words = runner.invoke(app, ["eval", "diff", str(before), str(after), "--answers"])
    assert words.exit_code == 0
    assert "- **Q1**: [-The notice is due within 60 days-] {+Due in writing+} [1]." in words.output

    missing = runner.invoke(app, ["eval", "diff", str(before), str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "no results.jsonl" in missing.output and "Traceback" not in missing.output
    other = _write(tmp_path / "other", [row("Q2", "No [1].") | {"id": "Q9"}])  # another set's question
    unrelated = runner.invoke(app, ["eval", "diff", str(before), str(other)])
    assert unrelated.exit_code == 2 and "share no scored rows" in unrelated.output
    # runs of one set by other pipelines: each run's variants named, not "are they of one QA set?"
    baseline = _write(tmp_path / "baseline", [row("Q1", "No [1].", variant="rag+")])
    pipelines = runner.invoke(app, ["eval", "diff", str(before), str(baseline), "--variants", "lclf"])
    out = " ".join(pipelines.output.split())
    assert pipelines.exit_code == 2 and "no variant lclf in both runs" in out and f"{baseline} ran rag+" in out


@pytest.mark.parametrize(
    ("values", "p90"),
    [([], math.nan), ([700], 700.0), (list(range(1, 11)), 9.0), (list(range(1, 12)), 10.0), ([5, 1, 3], 5.0)],
)
def test_the_answers_p90_is_a_nearest_rank_value(values, p90):
    got = nearest_rank(values, 0.9)
    assert (math.isnan(got) and math.isnan(p90)) or got == p90


def test_runs_of_two_sets_pool_with_their_own_names_and_a_paired_test():
    from lclfqa.eval.compare import pool_runs, render_pool

    first = [
        *BEFORE,
        row("Q2", "Yes, a joint return is not needed [1].", variant="rag"),
        row("Q3", "The documents provided do not answer this question.", variant="rag", refused=True),
    ]
    second = [
        row("Q1", "Within sixty days, in writing [1]."),
        row("Q1", "In writing [1].", variant="rag"),
        row("Q2", "No, a joint return is needed [1]."),
        row("Q2", "Yes [1].", variant="rag"),
    ]
    pooled = {p.variant: p for p in pool_runs([("a", first), ("b", second)], baseline="rag")}
    assert set(pooled) == {"lclf", "rag"} and pooled["lclf"].rows == 5 and pooled["rag"].rows == 5
    lclf, rag = pooled["lclf"], pooled["rag"]
    assert lclf.side.stated["whole"] == 1 + 1 + 2 + 1 and rag.side.stated["whole"] == 1 + 0 + 1 + 1
    assert lclf.verdicts_by_expected == {"no": (2, 2)} and rag.verdicts_by_expected == {"no": (0, 2)}
    assert lclf.questions == 4 and 0 < lclf.p_vs_baseline <= 1 and math.isnan(rag.p_vs_baseline)
    text = render_pool(list(pooled.values()), ["a", "b"])
    assert '| verdicts right where "no" is expected | 2/2 | 0/2 |' in text
    with pytest.raises(ValueError, match="share a name"):
        pool_runs([("a", first), ("a", second)])


def test_the_cli_pools_named_runs_and_refuses_what_it_cannot_pool(tmp_path):
    one = _write(tmp_path / "one", BEFORE)
    two = _write(tmp_path / "two", [row("Q1", "Within 60 days, in writing [1]."), row("Q1", "No [1].", variant="rag")])
    runner = CliRunner()
    result = runner.invoke(app, ["eval", "pool", str(one), f"second={two}", "--baseline", "rag"])
    assert result.exit_code == 0, result.output
    assert "Pooled over 2 runs (one, second)" in result.output and "| p vs `rag`" in result.output
    as_json = runner.invoke(app, ["eval", "pool", str(one), str(two), "--json"])
    assert {p["variant"] for p in json.loads(as_json.output)} == {"lclf", "rag"}
    alone = runner.invoke(app, ["eval", "pool", str(one)])
    assert alone.exit_code == 2 and "two runs or more" in alone.output and "Traceback" not in alone.output
    same = runner.invoke(app, ["eval", "pool", str(one), f"one={two}"])
    assert same.exit_code == 2 and "share a name" in same.output
    other = _write(tmp_path / "other", [row("Q2", "No [1].", variant="rag+")])
    unrelated = runner.invoke(app, ["eval", "pool", str(one), str(other)])
    assert unrelated.exit_code == 2 and "share no variant" in unrelated.output


def test_lines_that_are_not_rows_are_said_and_a_baseline_no_run_has_is_refused(tmp_path):
    """A torn or garbled line was dropped without a word (the pooled counts quietly shrank), and a baseline in
    none of the runs gave a table with exit 0."""
    one = _write(tmp_path / "one", BEFORE)
    two = _write(tmp_path / "two", [row("Q1", "Within 60 days, in writing [1]."), row("Q1", "No [1].", variant="rag")])
    with open(two / "results.jsonl", "a", encoding="utf-8") as f:
        f.write('{"id": "Q2", "variant": "lclf", "answ\n')
    runner = CliRunner()
    result = runner.invoke(app, ["eval", "pool", str(one), str(two)])
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "1 line(s) are not result rows and are left out (line 3)" in said, said
    lclf_only = [_write(tmp_path / n, [row("Q1", "No [1].")]) for n in ("l1", "l2")]
    result = runner.invoke(app, ["eval", "pool", *map(str, lclf_only)])  # no rag: the baseline is what they share
    assert result.exit_code == 0 and "baseline `lclf`" in result.output, result.output
    result = runner.invoke(app, ["eval", "pool", str(one), str(two), "--baseline", "nope"])
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "--baseline 'nope' is not among the variants the runs share" in said, said
