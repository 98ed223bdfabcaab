"""The judge-free score: surface-form matching, verdicts, wrong facts, refusals, and the set's figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from lclfqa.eval.datasets import DatasetError, GradingKey, load_qa_jsonl
from lclfqa.eval.key_facts import score_answer, score_item, summarize_scores, verdict_of
from lclfqa.textnorm import matches, normalize

DEV = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tax-qa" / "dev.jsonl"


@pytest.mark.parametrize(
    ("form", "answer", "hit"),
    [
        # case, quotes, dashes
        ("joint return", "They must file a Joint Return.", True),
        ("not the taxpayer's dependent", "the child is not the taxpayer’s dependent", True),
        ("1st day through the 7th", "from the 1st day – through the 7th", True),
        # thousands separators and dollar scale words
        ("$80,000", "phase-out starts at $80000 of MAGI", True),
        ("80,000", "between $80,000 and $100,000", True),
        # a separator comma after the number (a list, a clause) is not part of it
        ("$1,000,000", "does not exceed $1,000,000, or", True),
        ("$80,000", "$80,000, and $100,000", True),
        ("$24 million", "a State ceiling of $24,000,000", True),
        ("$1,000,000", "repurchases under $1 million are exempt", True),
        ("$5 million", "$15 million", False),  # word boundary: 5 is not 15
        # percent
        ("1 percent", "a tax of 1% of the fair market value", True),
        ("1 percent", "a 1 per cent excise tax", True),
        ("1 percent", "21 percent", False),
        # section sign
        ("7703(b)", "treated as not married under § 7703(b)", True),
        ("section 21", "No credit under § 21 is allowed", True),
        ("section 21", "section 212 applies", False),
        # number words, ordinals, fractions, ranges
        ("90 days", "within ninety days of the sale", True),
        ("fifteenth", "by the 15th day of the month", True),
        ("15th", "on the fifteenth day", True),
        ("one-twelfth", "1/12 of the annual amount", True),
        ("1st through 7th", "deposits for days 1-7", True),
        ("January 1-7", "for January 1 through 7", True),
        ("16th through 22nd", "the 16th to the 22nd", False),  # "the" breaks the range: not the same wording
        # wildcards
        ("remarr*", "if the survivor remarries before year-end", True),
        ("remarr*", "a married survivor", False),
        ("18th week*", "around the 18th weeks", True),
        ("declined to resolve", "the Court declined to resolve it", True),
        ("first ~ movement", "the first felt movement of the fetus", True),
        ("first ~ movement", "the first time in years the mother felt any movement", False),  # > 3 words apart
        # at word boundaries only
        ("ESOP*", "an ESOP contribution", True),
        ("ESOP*", "AESOP", False),
        ("in cash", "paid in cashier's checks", False),
    ],
)
def test_surface_forms_match_after_normalising_both_sides(form: str, answer: str, hit: bool) -> None:
    assert matches(form, normalize(answer)) is hit


def test_normal_forms_are_what_the_rules_say() -> None:
    assert normalize("$24 million") == "$ 24000000"
    assert normalize("the 1st through 7th day") == "the 1 - 7 day"
    assert normalize("one-twelfth of 80,000") == "1 / 12 of 80000"
    assert normalize("§ 1.25A-1(g)") == "section 1.25 a 1 ( g )"
    assert normalize("one-time tax") == "1 time tax"


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("No. Married taxpayers must file jointly [1].", "no"),
        ("Generally not. The credit requires a joint return.", "no"),
        ("Generally, no: a joint return is required.", "no"),
        ("**Yes**, the State ceiling rises.", "yes"),
        ("Short answer: yes. The ceiling is $24 million.", "yes"),
        ("“Yes” — the carryforward applies.", "yes"),
        # the verdict is the opening, not a negation later in the answer
        ("Yes. No credit is allowed on a separate return unless they are not married.", "yes"),
        ("A joint return is required; no credit is allowed otherwise.", None),
        ("Nothing in the sources says so.", None),
        ("Notably, the rule applies.", None),
        ("", None),
    ],
)
def test_the_verdict_is_read_from_the_opening_only(answer: str, verdict: str | None) -> None:
    assert verdict_of(answer) == verdict


def test_a_row_is_scored_on_every_part_of_its_key() -> None:
    key = {
        "key_facts": [["$24 million"], ["$20 million"], ["year after", "year following"], ["State ceiling"]],
        "verdict": "yes",
        "wrong_facts": [["$5 million"], ["$30 million"]],
    }
    s = score_answer(
        "Yes. The State ceiling is $24,000,000 for the year following, not $30 million [1].",
        key_facts=key["key_facts"],
        verdict=key["verdict"],
        wrong_facts=key["wrong_facts"],
    )
    assert s.facts_hit == ["$24 million", "year following", "State ceiling"]
    assert s.facts_missed == ["$20 million"]
    assert s.recall == pytest.approx(3 / 4)
    assert s.verdict_given == "yes" and s.verdict_correct is True
    assert s.wrong_stated == ["$30 million"] and s.wrong_total == 2


def test_a_refusal_states_no_fact_and_has_no_verdict() -> None:
    s = score_answer(
        "The documents provided do not answer this question. $24 million.",
        key_facts=[["$24 million"]],
        verdict="yes",
        wrong_facts=[["$24 million"]],
        refused=True,
    )
    assert s.facts_hit == [] and s.recall == 0.0
    assert s.verdict_given is None and s.verdict_correct is False
    assert s.wrong_stated == []


def test_set_figures_key_facts_verdicts_wrong_facts_refusals() -> None:
    scores = [
        # answerable, verdict right, 2 of 2 facts
        score_answer(
            "No. A joint return is required under 7703(b).", key_facts=[["joint return"], ["7703(b)"]], verdict="no"
        ),  # fmt: skip
        # answerable, 1 of 4 facts, states a wrong fact
        score_answer(
            "The tax on stock is 4 percent.",
            key_facts=[["1 percent"], ["ESOP*"], ["$1,000,000"], ["stock"]],
            wrong_facts=[["4 percent"]],
        ),  # fmt: skip
        # answerable, refused (over-refusal): recall 0, verdict wrong
        score_answer("x", key_facts=[["joint*"]], verdict="yes", refused=True),
        # unanswerable, refused: right
        score_answer("x", unanswerable=True, wrong_facts=[["$1,500"]], refused=True),
        # unanswerable, answered with a wrong fact
        score_answer("The deduction is $1,500.", unanswerable=True, wrong_facts=[["$1,500"]]),
    ]
    s = summarize_scores(scores)
    assert s["key_fact_recall"] == pytest.approx((1 + 0.25 + 0) / 3)
    assert s["key_fact_rows"] == 3
    assert s["verdict_accuracy"] == pytest.approx(1 / 2) and s["verdict_rows"] == 2 and s["verdicts_right"] == 1
    assert s["wrong_fact_rate"] == pytest.approx(2 / 3) and s["wrong_fact_answers"] == 2
    assert s["unanswerable_refused"] == pytest.approx(1 / 2) and s["unanswerable_rows"] == 2
    assert s["unanswerable_refusals"] == 1
    assert s["over_refusals"] == 1 and s["answerable_rows"] == 3


def test_a_set_without_keys_has_no_figures() -> None:
    s = summarize_scores([])
    assert math.isnan(s["key_fact_recall"]) and s["rows"] == 0


FROZEN = Path(__file__).resolve().parents[1] / "benchmarks" / "data"


@pytest.mark.parametrize(
    ("path", "rows"),
    [
        pytest.param(DEV, 17, marks=pytest.mark.skipif(not DEV.exists(), reason="needs ../shared/data"), id="dev"),
        pytest.param(FROZEN / "validation.jsonl", 32, id="validation"),
        pytest.param(FROZEN / "fresh.jsonl", 15, id="fresh"),
        pytest.param(FROZEN / "fresh2.jsonl", 15, id="fresh2"),
        pytest.param(FROZEN / "fresh3.jsonl", 42, id="fresh3"),
        pytest.param(FROZEN / "fresh4.jsonl", 20, id="fresh4"),
        pytest.param(FROZEN / "unanswerable-probes.jsonl", 10, id="probes"),
    ],
)
def test_every_gold_answer_scores_full_marks_on_its_own_key(path: Path, rows: int) -> None:
    """The forms come from the gold answers' own wording: a checker that misses them, or a row whose key its own
    gold answer fails, is broken."""
    items = load_qa_jsonl(path)
    keyed = [i for i in items if i.key is not None]
    assert len(keyed) == len(items) == rows
    for item in keyed:
        s = score_item(item, item.gold_answer, refused=item.key.unanswerable)
        if item.key.unanswerable:
            assert s.refused and s.facts_total == 0
            continue
        assert s.recall == 1.0, (item.id, s.facts_missed)
        assert s.wrong_stated == [], item.id
        if item.key.verdict:
            assert s.verdict_correct, item.id


def test_grading_key_fields_are_validated(tmp_path: Path) -> None:
    row = {"id": "Q1", "question": "q?", "gold_answer": "No.", "key_facts": [["a", "b"], "c"], "verdict": "no"}
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps({"id": "Q2", "question": "q?", "gold_answer": "a"}) + "\n")
    first, second = load_qa_jsonl(path)
    assert first.key == GradingKey(key_facts=(("a", "b"), ("c",)), verdict="no")
    assert second.key is None  # a set without the fields still runs
    for bad, message in [
        ({"verdict": "maybe"}, "'verdict' must be"),
        ({"key_facts": [[]]}, "non-empty list"),
        ({"key_facts": "a"}, "must be a list of facts"),
        ({"unanswerable": "yes"}, "true or false"),
    ]:
        path.write_text(json.dumps({"id": "Q", "question": "q", "gold_answer": "a", **bad}) + "\n")
        with pytest.raises(DatasetError, match=message):
            load_qa_jsonl(path)
