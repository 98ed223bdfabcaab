"""``filter`` — the LongRAG CoT filter (LCLF-QA §3.5): one thought process, then True/False per child.

Reads ``retrieved`` (children with their source numbers), ``standalone_question``, ``translation``; writes
``thought``, ``filtered``, ``dropped``, ``answered``. Runs in parallel with ``extract``. The validation call
continues the thought-process conversation, so a local llama.cpp model reuses the whole reference prompt,
and it is constrained to JSON: exactly one boolean per child, then whether the references state the
answer (``yes``/``partly``/``no``; ``""`` when unreadable), which the reader uses to decide on refusal.
Malformed output keeps the child; an answer that keeps nothing keeps everything (LongRAG's rule: the
reader decides); an LLM failure keeps everything. Never silently drop evidence.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.state import QAState, question_fields
from lclfqa.nodes import parsing
from lclfqa.nodes.calls import Meter, chat
from lclfqa.nodes.refs import body, label
from lclfqa.nodes.refusal import FILTER_VERDICTS

log = logging.getLogger(__name__)

THOUGHT_TOKENS = 320


def verdict_schema(n: int) -> dict[str, Any]:
    """JSON schema of the validation call: exactly ``n`` booleans, then whether the references state the answer."""
    return {
        "type": "object",
        "properties": {
            "relevant": {"type": "array", "items": {"type": "boolean"}, "minItems": n, "maxItems": n},
            "answered": {"type": "string", "enum": list(FILTER_VERDICTS)},
        },
        "required": ["relevant", "answered"],
    }


def references(children: list[dict[str, Any]]) -> str:
    """The children as numbered ``<reference>`` blocks (numbered by position, 1…n)."""
    return "\n\n".join(f"<reference {i}> ({label(c)})\n{body(c)}\n</reference {i}>" for i, c in enumerate(children, 1))


def filter_children(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("filter")
    children = state.get("retrieved", [])
    keep_all = {"thought": "", "filtered": children, "dropped": [], "answered": ""}
    if not ctx.plan.filter or not children:
        return keep_all | meter.record(skipped=True, kept=len(children))
    n = len(children)
    msgs = prompts.messages(
        "filter_cot",
        references=references(children),
        **question_fields(state),
    )
    try:
        thought = parsing.tagged(chat(ctx.resources.llm, msgs, meter, max_tokens=THOUGHT_TOKENS), "thought_process")
        follow = prompts.render(prompts.template("filter_validate")["user"], n=n)
        raw = chat(
            ctx.resources.llm,
            [*msgs, AIMessage(thought), HumanMessage(follow)],
            meter,
            max_tokens=12 * n + 40,
            schema=verdict_schema(n),
        )
    except Exception as exc:
        log.warning("the CoT filter failed, keeping every child: %s", exc)
        return keep_all | meter.record(error=str(exc), kept=n)
    verdicts, ok = parsing.booleans(raw, n)
    answered = parsing.choice(raw, "answered", FILTER_VERDICTS)
    notes: dict[str, Any] = {"well_formed": ok, "answered": answered}
    if not any(verdicts):
        verdicts = [True] * n
        notes["none_relevant_kept_all"] = True
    filtered = [c for c, v in zip(children, verdicts, strict=True) if v]
    dropped = [c["id"] for c, v in zip(children, verdicts, strict=True) if not v]
    return {"thought": thought, "filtered": filtered, "dropped": dropped, "answered": answered} | meter.record(
        kept=len(filtered), **notes
    )
