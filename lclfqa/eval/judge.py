"""The LLM-judged answer metrics of LCLF-QA §4: claim-triple recall and the coverage category.

- :func:`extract_claims` — nested triples from the gold answer (the paper's modified RAGChecker prompt
  with domain examples); one call, JSON-constrained where the backend can, parsed defensively.
- :func:`check_claims` — each claim checked for entailment by the generated answer (RAGChecker's
  Entailment / Neutral / Contradiction); one call with exactly ``n`` labels. Recall = entailed / total.
- :func:`judge_coverage` — the paper's judge (Figure 20): a ``<thought_process>``, then COMPLETE /
  PARTIAL / INCORRECT. The decision comes from ``<decision>`` when the model wrote it, else from a
  second, schema-constrained call that continues the conversation.

Nothing here raises on malformed output: each result says whether the judge's output was well formed, and
an LLM error propagates to the caller (the batch runner records it on the row).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage

from lclfqa import prompts
from lclfqa.eval.triples import Triple, parse_triples
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat, json_schema_kwargs
from lclfqa.llm.schemas import exactly, object_schema

Label = Literal["Entailment", "Neutral", "Contradiction"]
Category = Literal["COMPLETE", "PARTIAL", "INCORRECT"]
LABELS: tuple[Label, ...] = ("Entailment", "Neutral", "Contradiction")
CATEGORIES: tuple[Category, ...] = ("COMPLETE", "PARTIAL", "INCORRECT")
POINTS: dict[str, int] = {"COMPLETE": 2, "PARTIAL": 1, "INCORRECT": 0}

_TERM = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3}]}
TRIPLES_SCHEMA: dict[str, Any] = object_schema(
    triples={
        "type": "array",
        "items": {"type": "array", "prefixItems": [_TERM, {"type": "string"}, _TERM], "minItems": 3, "maxItems": 3},
        "minItems": 1,
        "maxItems": 24,
    }
)
DECISION_SCHEMA: dict[str, Any] = object_schema(decision={"type": "string", "enum": list(CATEGORIES)})


def labels_schema(n: int) -> dict[str, Any]:
    """Exactly ``n`` entailment labels."""
    return object_schema(labels=exactly(n, {"type": "string", "enum": list(LABELS)}))


@dataclass(frozen=True)
class GoldAnswer:
    """What an answer is judged against: the question, its reference answer and the claims a complete answer
    must make (where the set lists them)."""

    question: str
    text: str
    necessary_claims: tuple[str, ...] = ()


@dataclass
class Claims:
    """Claims of a gold answer: triples when extraction worked, else the dataset's necessary claims."""

    triples: list[Triple]
    texts: list[str]
    """What the checker sees, one line per claim."""
    source: Literal["triples", "necessary_claims", "none"]
    well_formed: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "triples": [t.to_json() for t in self.triples],
            "texts": self.texts,
            "source": self.source,
            "well_formed": self.well_formed,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Claims:
        triples = [t for t in (Triple.from_json(v) for v in d.get("triples", [])) if t is not None]
        return cls(triples, list(d.get("texts", [])), d.get("source", "none"), bool(d.get("well_formed", False)))


@dataclass
class ClaimRecall:
    """How many of the gold claims the answer entails."""

    labels: list[str]
    well_formed: bool

    @property
    def total(self) -> int:
        return len(self.labels)

    @property
    def entailed(self) -> int:
        return sum(label == "Entailment" for label in self.labels)

    @property
    def recall(self) -> float | None:
        return self.entailed / self.total if self.total else None


@dataclass
class Coverage:
    """The judge's category for one answer, with its reasoning."""

    category: Category
    thought: str = ""
    well_formed: bool = True
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def points(self) -> int:
        return POINTS[self.category]


def extract_claims(llm: BaseChatModel, gold: GoldAnswer, meter: Meter | None = None) -> Claims:
    """Nested triples of the reference answer (conditioned on its question); falls back to its necessary claims."""
    meter = meter or Meter("claims")
    t = prompts.template("claim_extraction", "eval")
    msgs = prompts.messages_from("eval", "claim_extraction", question=gold.question, answer=gold.text)
    if json_schema_kwargs(llm, {}):  # constrained decoding: ask for the JSON form
        msgs[-1] = HumanMessage(f"{msgs[-1].content}\n\n{prompts.render(t['json'])}")
    raw = chat(llm, msgs, meter, max_tokens=900, schema=TRIPLES_SCHEMA)
    triples = parse_triples(raw)
    if triples:
        return Claims(triples, [str(t) for t in triples], "triples", True)
    if gold.necessary_claims:
        return Claims([], list(gold.necessary_claims), "necessary_claims", False)
    return Claims([], [], "none", False)


def check_claims(
    llm: BaseChatModel, question: str, answer: str, claims: list[str], meter: Meter | None = None
) -> ClaimRecall:
    """Entailment label per claim; unreadable or missing labels count as ``Neutral`` (not entailed)."""
    meter = meter or Meter("claim_check")
    n = len(claims)
    if n == 0:
        return ClaimRecall([], True)
    numbered = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1))
    msgs = prompts.messages_from("eval", "claim_check", question=question, answer=answer, claims=numbered, n=n)
    raw = chat(llm, msgs, meter, max_tokens=8 * n + 32, schema=labels_schema(n))
    return ClaimRecall(*parse_labels(raw, n))


_LABEL_WORD = re.compile(r"\b(entail(?:ment|ed|s)?|neutral|contradict(?:ion|ed|s)?)\b", re.I)


def parse_labels(text: str, n: int) -> tuple[list[str], bool]:
    """``n`` labels from ``{"labels": [...]}``, a JSON list, or label words in order; pads with Neutral."""
    obj = parsing.json_object(text)
    values = obj.get("labels") if obj is not None else None
    if not isinstance(values, list):
        values = [m.group(1) for m in _LABEL_WORD.finditer(text)]
    labels = [_label(v) for v in values[:n]]
    ok = len(values) == n and all(label is not None for label in labels)
    out = [label or "Neutral" for label in labels]
    return out + ["Neutral"] * (n - len(out)), ok


def _label(value: Any) -> str | None:
    word = str(value).strip().lower()
    if word.startswith("entail"):
        return "Entailment"
    if word.startswith("contradict"):
        return "Contradiction"
    if word.startswith("neutral"):
        return "Neutral"
    return None


def judge_coverage(llm: BaseChatModel, gold: GoldAnswer, answer: str, meter: Meter | None = None) -> Coverage:
    """COMPLETE / PARTIAL / INCORRECT for ``answer`` against the gold ``SOURCE`` (the reference answer, with the
    necessary claims listed when the dataset has them). An unreadable decision counts as INCORRECT and is
    marked not well formed."""
    meter = meter or Meter("coverage")
    t = prompts.template("coverage", "eval")
    source = gold.text.strip()
    if gold.necessary_claims:
        source += prompts.render(t["necessary_claims"], claims="\n".join(f"- {c}" for c in gold.necessary_claims))
    msgs = prompts.messages_from(
        "eval",
        "coverage",
        question=gold.question,
        source=source,
        answer=answer.strip() or t["empty_answer"],
        claims_hint=t["claims_hint"] if gold.necessary_claims else "",
    )
    first = chat(llm, msgs, meter, max_tokens=700)
    thought = parsing.tagged(first.split("<decision>")[0], "thought_process")
    category = parse_category(parsing.tagged(first, "decision")) if "<decision>" in first.lower() else None
    if category is None:
        follow = HumanMessage(prompts.render(t["decision"]))
        raw = chat(llm, [*msgs, AIMessage(first), follow], meter, max_tokens=24, schema=DECISION_SCHEMA)
        obj = parsing.json_object(raw)
        category = parse_category(str(obj.get("decision", "")) if obj else raw)
    if category is None:
        return Coverage("INCORRECT", thought, well_formed=False)
    return Coverage(category, thought)


_CATEGORY = re.compile(r"\b(COMPLETE|PARTIAL|INCORRECT)\b", re.I)


def parse_category(text: str) -> Category | None:
    """The last of COMPLETE / PARTIAL / INCORRECT named in ``text`` (the decision comes after the reasoning)."""
    found = _CATEGORY.findall(text)
    return found[-1].upper() if found else None  # type: ignore[return-value]
