"""QA pairs out of a generator's output (JSON or the paper's bullets), and what makes two questions the same."""

from __future__ import annotations

import re
from typing import NamedTuple

from lclfqa.eval.synth.config import PAIRS_PER_CALL
from lclfqa.llm.parsing import json_object


class QAPair(NamedTuple):
    """One generated question and its answer."""

    question: str
    answer: str


_MARK = re.compile(
    r"^[ \t]*(?:[-*•+][ \t]*|\d+[.)][ \t]*)?(?:\*\*|__)?[ \t]*(question|answer|q|a)[ \t]*(\d+)?[ \t]*"
    r"(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?",
    re.I | re.M,
)


def _clean_field(text: str) -> str:
    """A question or answer as the model wrote it, without indentation, blank-line runs or bold markers."""
    text = "\n".join(line.strip() for line in text.strip().splitlines())
    text = re.sub(r"\n{3,}", "\n\n", text)
    for wrap in ("**", "__"):  # a bold marker the model opened or closed around the field
        if text.startswith(wrap) and text.endswith(wrap) and len(text) > 4:
            text = text[2:-2].strip()
    return text.strip().strip("*_").strip()


def _json_pairs(text: str) -> list[QAPair] | None:
    obj = json_object(text)
    if obj is None:
        return None
    items = obj.get("pairs")
    if items is None and "question" in obj:
        items = [obj]
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("question"), str) and isinstance(item.get("answer"), str):
            out.append(QAPair(_clean_field(item["question"]), _clean_field(item["answer"])))
    return out


def _bullet_pairs(text: str) -> list[QAPair]:
    marks = list(_MARK.finditer(text))
    out: list[QAPair] = []
    question: str | None = None
    for i, m in enumerate(marks):
        body = _clean_field(text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)])
        if m.group(1).lower().startswith("q"):
            question = body  # a question without an answer is replaced by the next one
        elif question is not None:
            out.append(QAPair(question, body))
            question = None
    return out


def parse_qa_pairs(text: str, limit: int = PAIRS_PER_CALL) -> list[QAPair]:
    """The QA pairs in a generator's output: JSON ``{"pairs": [{"question", "answer"}]}`` (bare, fenced or in
    prose), else the paper's bullets ``Question 1: … / Answer 1: …`` (``Q1:``/``**Question 1:**`` too; an
    answer may run over several lines). Pairs with an empty question or answer are dropped, at most
    ``limit`` are kept. Never raises: unreadable output gives ``[]``."""
    if not isinstance(text, str) or not text.strip():
        return []
    pairs = _json_pairs(text)
    if not pairs:
        pairs = _bullet_pairs(text)
    return [p for p in pairs if p.question and p.answer][:limit]


def question_key(question: str) -> str:
    """What makes two questions the same: case, whitespace and end punctuation ignored."""
    return re.sub(r"\s+", " ", question).strip().rstrip("?.!: ").casefold()
