"""The ``repair`` stage: one call rewrites the sentences that state a figure, date, section number or quoted
phrase that no quote they cite holds (:mod:`lclfqa.graph.answer.check`). Only those sentences are generated
again, under a JSON schema of exactly as many strings; a sentence the reply does not give back stays as it
was; the rewrite is cited anew (``cite``), and what still fails is removed by ``support``. A sentence that
only says what no quote says gets no call: it has no figure to save, and a call costs ~10 s on 2 cores."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from lclfqa.graph.answer.check import SentenceCheck, check_answer, problems_text
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.graph.answer.support import cite
from lclfqa.graph.answer.tidy import is_finished
from lclfqa.graph.evidence.reading import instruction
from lclfqa.graph.evidence.sentences import split as sentences
from lclfqa.llm import parsing
from lclfqa.llm.calls import chat

REPAIR_CHARS = 400


def strings_schema(key: str, n: int, max_length: int) -> dict[str, Any]:
    """JSON schema of ``{key: [exactly n strings of at most max_length characters]}``."""
    item = {"type": "string", "maxLength": max_length}
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": item, "minItems": n, "maxItems": n}},
        "required": [key],
    }


def _key(sentence: str) -> str:
    """A sentence compared without its citation markers, case and spacing."""
    return " ".join(parsing.CITATION_RE.sub(" ", sentence).lower().split()).rstrip(" .")


def repaired(reading: Reading, written: str, checks: list[SentenceCheck]) -> str:
    """The answer with its failing sentences rewritten by one call that names them. A rewrite keeps only
    its new, finished sentences (a small model pastes the whole answer back, or runs into the length limit),
    and only when it is one sentence or more of the same subject: a rewrite that is shorter than half the
    sentence's words leaves the sentence as it was (for ``support`` to judge)."""
    failing = [c for c in checks if not c.ok]
    fix = instruction("repair", problems=problems_text(checks), unit_plural=reading.units, n=len(failing))
    raw = chat(
        reading.ctx.resources.llm,
        [*reading.msgs, AIMessage(written), HumanMessage(fix)],
        reading.meter,
        max_tokens=len(failing) * REPAIR_CHARS // 4 + 20,
        schema=strings_schema("sentences", len(failing), REPAIR_CHARS),
        stream=False,
    )
    obj = parsing.json_object(raw) or {}
    again = [t for t in obj.get("sentences") or [] if isinstance(t, str)]
    kept = {_key(c.text) for c in checks if c.ok}
    out, k = [], 0
    for c in checks:
        if c.ok:
            out.append(c.text)
            continue
        text = parsing.clean_answer(again[k]) if k < len(again) else ""
        k += 1
        new = [t for t in sentences(text) if _key(t) not in kept and is_finished(t)]
        enough = len(" ".join(new).split()) * 2 >= len(parsing.CITATION_RE.sub(" ", c.text).split())
        out.append(" ".join(new) if new and enough else c.text)
        kept.update(_key(t) for t in new)
    return " ".join(t for t in out if t)


def repair(draft: Draft, reading: Reading) -> None:
    """The ``repair`` stage (see the module docstring)."""
    checks = draft.checks or check_answer(draft.answer, reading.texts, reading.question, reading.floor)
    if not any(c.missing for c in checks):
        return
    draft.notes["repaired"] = sum(not c.ok for c in checks)
    try:
        draft.answer = repaired(reading, draft.written, checks)
    except Exception as exc:  # ``support`` still guarantees a checked answer
        draft.notes["repair_error"] = str(exc)
    if "cite" in reading.ctx.plan.off:
        draft.checks = check_answer(draft.answer, reading.texts, reading.question, reading.floor)
    else:  # the rewrite cites anew
        cite(draft, reading)
