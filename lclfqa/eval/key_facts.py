"""The judge-free answer score: key facts, verdicts, wrong facts and refusals, with no LLM.

A QA row may carry a grading key (``../shared/data/README.md``; :class:`~lclfqa.eval.datasets.GradingKey`):

- ``key_facts`` — facts a correct answer must state, each a list of accepted surface forms (any one counts);
- ``verdict`` — ``"yes"``/``"no"`` where the gold answer opens with one (``"true"``/``"false"`` for a statement
  to judge, which an opening "True"/"Yes" or "False"/"No" agrees with); the answer's opening must agree;
- ``wrong_facts`` — tempting wrong values from the same documents; stating one is an error;
- ``unanswerable`` — the documents do not answer: the answer must decline.

Forms match the answer at word boundaries after both are normalised the same way (:func:`normalize`):
case, quotes and dashes; ``§`` = "section"; ``%`` = "percent"; thousands separators; dollar amounts with
a scale word ("$24 million" = "$24,000,000"); number words ("ninety" = "90", "fifteenth" = "15th",
"one-twelfth" = "1/12"); ordinal suffixes ("15th" = "15"); ranges ("1st through 7th" = "1-7"). Two
wildcards in forms: ``*`` lets a word run on (``remarr*``), `` ~ `` allows up to three words between its
two sides. A refusal states no fact and has no verdict.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from lclfqa.eval.datasets import QAItem
from lclfqa.textnorm import QUOTE_MAP, matches, normalize

# ----------------------------------------------------------------------------------------- verdicts

_FILLER = re.compile(
    r"^(?:(?:the\s+)?short\s+answer(?:\s+is)?|in\s+short|answer|generally|in\s+general|as\s+a\s+(?:general\s+)?rule"
    r"|ordinarily|typically|briefly)\s*[:,.\-]*\s*",
    re.I,
)
_OPENING = re.compile(r"^(yes|no|not|true|false)\b", re.I)
_SAME_VERDICT = {"true": "yes", "false": "no"}
"""A true-or-false statement's verdict is a yes/no one: "True" agrees as "Yes" does."""


def verdict_of(answer: str) -> str | None:
    """``"yes"``/``"no"`` when the answer opens with one ("No.", "Generally not.", "**Yes**, …", or "True."/
    "False." for a statement to judge), else None.

    Only the opening counts: a "not" later in the answer is a condition, not the verdict."""
    head = re.sub(r"^[\s*_#>\"'“(\[]+", "", answer.translate(QUOTE_MAP))
    for _ in range(3):
        stripped = _FILLER.sub("", head, count=1)
        if stripped == head:
            break
        head = re.sub(r"^[\s*_\"'(]+", "", stripped)
    m = _OPENING.match(head)
    if not m:
        return None
    word = m.group(1).lower()
    return "yes" if word in ("yes", "true") else "no"


# ------------------------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class KeyFactScore:
    """What one answer states of its row's grading key."""

    facts_total: int
    facts_hit: list[str] = field(default_factory=list)
    """The first accepted form found, per key fact found."""
    facts_missed: list[str] = field(default_factory=list)
    """The first form of each key fact not found."""
    wrong_total: int = 0
    """How many wrong facts the row lists."""
    wrong_stated: list[str] = field(default_factory=list)
    verdict_expected: str | None = None
    verdict_given: str | None = None
    refused: bool = False
    unanswerable: bool = False

    @property
    def recall(self) -> float:
        """Key facts stated / key facts; ``nan`` for a row without key facts."""
        return len(self.facts_hit) / self.facts_total if self.facts_total else math.nan

    @property
    def verdict_correct(self) -> bool | None:
        """``None`` for a row without a verdict; a refusal has no verdict, so it is wrong."""
        if self.verdict_expected is None:
            return None
        expected = _SAME_VERDICT.get(self.verdict_expected, self.verdict_expected)
        return not self.refused and self.verdict_given == expected

    def to_json(self) -> dict[str, object]:
        return {
            "key_fact_recall": self.recall,
            "key_facts_total": self.facts_total,
            "key_facts_hit": self.facts_hit,
            "key_facts_missed": self.facts_missed,
            "wrong_facts_total": self.wrong_total,
            "wrong_facts_stated": self.wrong_stated,
            "verdict_expected": self.verdict_expected,
            "verdict_given": self.verdict_given,
            "verdict_correct": self.verdict_correct,
            "refused": self.refused,
            "unanswerable": self.unanswerable,
        }


def score_answer(
    answer: str,
    *,
    key_facts: Sequence[Sequence[str]] = (),
    verdict: str | None = None,
    wrong_facts: Sequence[Sequence[str]] = (),
    unanswerable: bool = False,
    refused: bool = False,
) -> KeyFactScore:
    """Score ``answer`` on a grading key. A refused answer states nothing: no key or wrong fact, no verdict."""
    text = "" if refused else normalize(answer)
    hit, missed = [], []
    for forms in key_facts:
        found = next((f for f in forms if matches(f, text)), None)
        (hit if found is not None else missed).append(found if found is not None else (forms[0] if forms else ""))
    wrong = [
        next(f for f in forms if matches(f, text)) for forms in wrong_facts if any(matches(f, text) for f in forms)
    ]
    return KeyFactScore(
        facts_total=len(key_facts),
        facts_hit=hit,
        facts_missed=missed,
        wrong_total=len(wrong_facts),
        wrong_stated=wrong,
        verdict_expected=verdict,
        verdict_given=None if refused else verdict_of(answer),
        refused=refused,
        unanswerable=unanswerable,
    )


def summarize_scores(scores: Iterable[KeyFactScore]) -> dict[str, float | int]:
    """The set-level figures: key-fact recall (answerable rows; a refusal scores 0), verdict accuracy (rows
    with a verdict), wrong-fact rate (share of rows listing wrong facts whose answer states one), refusal
    of unanswerable rows, over-refusals (answerable rows refused)."""
    scores = list(scores)
    answerable = [s for s in scores if not s.unanswerable]
    with_facts = [s for s in answerable if s.facts_total]
    with_verdict = [s for s in scores if s.verdict_expected is not None]
    unanswerable = [s for s in scores if s.unanswerable]
    return {
        "rows": len(scores),
        "key_fact_recall": _mean([0.0 if s.refused else s.recall for s in with_facts]),
        "key_fact_rows": len(with_facts),
        "verdict_accuracy": _mean([float(bool(s.verdict_correct)) for s in with_verdict]),
        "verdict_rows": len(with_verdict),
        "verdicts_right": sum(bool(s.verdict_correct) for s in with_verdict),
        "wrong_fact_rate": _mean([float(bool(s.wrong_stated)) for s in scores if s.wrong_total]),
        "wrong_fact_answers": sum(bool(s.wrong_stated) for s in scores),
        "unanswerable_refused": _mean([float(s.refused) for s in unanswerable]),
        "unanswerable_rows": len(unanswerable),
        "unanswerable_refusals": sum(s.refused for s in unanswerable),
        "over_refusals": sum(s.refused for s in answerable),
        "answerable_rows": len(answerable),
    }


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def score_item(item: QAItem, answer: str, refused: bool) -> KeyFactScore | None:
    """:func:`score_answer` on ``item``'s grading key; ``None`` for a row without one."""
    key = item.key
    if key is None:
        return None
    return score_answer(
        answer,
        key_facts=key.key_facts,
        verdict=key.verdict,
        wrong_facts=key.wrong_facts,
        unanswerable=key.unanswerable,
        refused=refused,
    )


def score_from_json(data: dict[str, object]) -> KeyFactScore:
    """A :class:`KeyFactScore` back from a results row's ``metrics["key_facts"]``."""
    hit = list(data.get("key_facts_hit") or [])
    return KeyFactScore(
        facts_total=int(data.get("key_facts_total") or 0),
        facts_hit=hit,
        facts_missed=list(data.get("key_facts_missed") or []),
        wrong_total=int(data.get("wrong_facts_total") or 0),
        wrong_stated=list(data.get("wrong_facts_stated") or []),
        verdict_expected=data.get("verdict_expected"),  # type: ignore[arg-type]
        verdict_given=data.get("verdict_given"),  # type: ignore[arg-type]
        refused=bool(data.get("refused")),
        unanswerable=bool(data.get("unanswerable")),
    )


VIEWS = ("model", "added", "whole")
"""The three views of an answer's key facts: the model's own sentences, the source's words code added after
the check (part quotes, example variants, the quoted fallback), and the whole answer as shown."""


def model_words(answer: str, added: Sequence[str]) -> str:
    """``answer`` without the pieces code ``added`` to it (each removed once): the model's own sentences."""
    text = answer
    for piece in added:
        if piece:
            text = text.replace(piece, " ", 1)
    return " ".join(text.split())


def score_views(item: QAItem, answer: str, added: Sequence[str], refused: bool) -> dict[str, KeyFactScore] | None:
    """:func:`score_item` on each of :data:`VIEWS`; ``None`` for a row without a grading key. The ``added`` view
    has no verdict of its own (the source's words open no answer); a refusal states nothing in any view."""
    whole = score_item(item, answer, refused)
    if whole is None:
        return None
    model = score_item(item, model_words(answer, added), refused)
    extra = score_item(item, " ".join(a for a in added if a), refused)
    assert model is not None and extra is not None
    return {"model": model, "added": replace(extra, verdict_given=None), "whole": whole}


def facts_found(item: QAItem, text: str) -> list[bool]:
    """Per key fact of ``item`` (none without a grading key), whether ``text`` states one of its forms."""
    key = item.key
    norm = normalize(text)
    return [any(matches(f, norm) for f in forms) for forms in (key.key_facts if key else ())]
