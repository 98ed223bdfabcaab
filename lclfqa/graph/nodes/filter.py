"""``filter`` — the LongRAG CoT filter (LCLF-QA §3.5): a short thought, then True/False per child.

Setting ``filter_thought`` off (ablation ``no-thought``) asks for the booleans alone, with nothing generated
before them.

Reads ``retrieved`` (children with their source numbers), ``standalone_question``, ``translation``; writes
``thought``, ``filtered``, ``dropped``, ``answered`` and starts ``transcript``, the reading conversation the
extractor and the reader continue (:mod:`lclfqa.graph.evidence.reading`). One call over all children, constrained
to JSON: a short thought (at most ``THOUGHT_CHARS``), exactly one boolean per child, then whether the references state
the answer (``yes``/``partly``/``no``; ``""`` when unreadable), which the reader uses to decide on refusal.
Malformed output keeps the child; an answer that keeps nothing keeps everything (LongRAG's rule: the
reader decides); an LLM failure keeps everything. Never silently drop evidence.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from lclfqa.graph.context import QAContext
from lclfqa.graph.evidence.reading import instruction, prefix
from lclfqa.graph.state import QAState
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.schemas import exactly, object_schema

log = logging.getLogger(__name__)

THOUGHT_CHARS = 100
FILTER_VERDICTS = ("yes", "partly", "no")
"""Whether the references state the answer (the reader is invited to refuse on ``no``)."""


def verdict_schema(n: int, thought: bool = True) -> dict[str, Any]:
    """JSON schema of the filter call: a short thought (unless ``thought`` is off), exactly ``n`` booleans,
    whether the references answer."""
    decisions = {
        "relevant": exactly(n, {"type": "boolean"}),
        "answered": {"type": "string", "enum": list(FILTER_VERDICTS)},
    }
    if not thought:
        return object_schema(**decisions)
    return object_schema(thought={"type": "string", "maxLength": THOUGHT_CHARS}, **decisions)


def filter_children(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("filter")
    children = state.get("retrieved", [])
    keep_all = {"thought": "", "filtered": children, "dropped": [], "answered": "", "transcript": []}
    if not ctx.plan.filter or not children:
        return keep_all | meter.record(skipped=True, kept=len(children))
    n = len(children)
    thinks = ctx.settings.filter_thought
    ask = instruction("filter_cot" if thinks else "filter_direct", n=n)
    try:
        raw = chat(
            ctx.resources.llm,
            [*prefix(state, children, numbered=ctx.plan.extract), HumanMessage(ask)],
            meter,
            max_tokens=(THOUGHT_CHARS // 3 if thinks else 0) + 12 * n + 40,
            schema=verdict_schema(n, thinks),
        )
    except Exception as exc:
        log.warning("the CoT filter failed, keeping every child: %s", exc)
        return keep_all | meter.record(error=str(exc), kept=n)
    verdicts, ok = parsing.booleans(raw, n)
    answered = parsing.choice(raw, "answered", FILTER_VERDICTS)
    obj = parsing.json_object(raw)
    if not thinks:
        thought = ""
    elif obj is None:  # not JSON: a thought in tags, as the paper's prompt asked for it
        thought = parsing.tagged(raw, "thought_process")
    else:
        thought = obj["thought"] if isinstance(obj.get("thought"), str) else ""
    notes: dict[str, Any] = {"well_formed": ok, "answered": answered}
    if not any(verdicts):
        verdicts = [True] * n
        notes["none_relevant_kept_all"] = True
    filtered = [c for c, v in zip(children, verdicts, strict=True) if v]
    dropped = [c["id"] for c, v in zip(children, verdicts, strict=True) if not v]
    transcript = [{"role": "user", "content": ask}, {"role": "assistant", "content": raw}]
    return {
        "thought": thought.strip(),
        "filtered": filtered,
        "dropped": dropped,
        "answered": answered,
        "transcript": transcript,
    } | meter.record(kept=len(filtered), **notes)
