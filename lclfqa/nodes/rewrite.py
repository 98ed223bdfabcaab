"""``rewrite`` — query2doc (LCLF-QA §3.3): stand-alone question, acronyms, passage, rewrites, translation.

Reads ``question``, ``history``; writes ``standalone_question``, ``passage``, ``rewrites``, ``translation``.
With chat history the question is first made stand-alone. Acronyms are expanded from the glossary
(no LLM). The LLM then writes a passage answering the question (domain few-shot examples) and, in the
same conversation (so llama.cpp reuses the prompt), 1 or 3 rewrites plus a layman translation as JSON.
An LLM failure costs the rewrites, never the question.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.state import QAState
from lclfqa.nodes import parsing
from lclfqa.nodes.calls import Meter, chat

log = logging.getLogger(__name__)

PASSAGE_TOKENS = 256


def rewrites_schema(n: int) -> dict[str, Any]:
    """JSON schema of the rewrite call: exactly ``n`` rewrites and a translation."""
    return {
        "type": "object",
        "properties": {
            "rewrites": {"type": "array", "items": {"type": "string"}, "minItems": n, "maxItems": n},
            "translation": {"type": "string"},
        },
        "required": ["rewrites", "translation"],
    }


def rewrite(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("rewrite")
    question = (state.get("question") or "").strip()
    if not question:
        raise ValueError('the graph needs a non-empty "question", e.g. graph.invoke({"question": "..."})')
    history = state.get("history") or []
    standalone = question
    if history:
        try:
            msgs = prompts.messages("condense", history=prompts.format_history(history), question=question)
            condensed = chat(ctx.resources.llm, msgs, meter, max_tokens=128).strip().splitlines()
            if condensed and condensed[0].strip():
                standalone = condensed[0].strip()
        except Exception as exc:  # an LLM failure must not lose the question
            log.warning("condensing the follow-up question failed: %s", exc)
            meter.notes["condense_error"] = str(exc)
    expanded = prompts.expand_acronyms(standalone)
    out: dict[str, Any] = {"standalone_question": expanded, "passage": "", "rewrites": [], "translation": ""}
    n = ctx.plan.rewrites
    if n == 0:
        return out | meter.record(skipped=True)
    try:
        passage, rewrites, translation, ok = query2doc(ctx.resources.llm, expanded, n, meter)
        out |= {"passage": passage, "rewrites": rewrites, "translation": translation}
        meter.notes["well_formed"] = ok
    except Exception as exc:
        log.warning("query rewriting failed, retrieving with the question alone: %s", exc)
        meter.notes["error"] = str(exc)
    return out | meter.record()


def query2doc(llm: BaseChatModel, question: str, n: int, meter: Meter) -> tuple[str, list[str], str, bool]:
    """``(passage, rewrites, translation, well_formed)`` for ``question`` (acronyms already expanded): the
    passage call, then ``n`` rewrites and the translation in the same conversation. LLM errors propagate."""
    msgs = prompts.messages("query2doc", examples=prompts.query2doc_examples(), question=question)
    passage = parsing.tagged(chat(llm, msgs, meter, max_tokens=PASSAGE_TOKENS).strip(), "passage")
    follow = prompts.render(prompts.template("rewrites")["user"], n=n)
    raw = chat(
        llm,
        [*msgs, AIMessage(passage), HumanMessage(follow)],
        meter,
        max_tokens=80 * n + 120,
        schema=rewrites_schema(n),
    )
    found, translation, ok = parsing.rewrites(raw, n)
    rewrites = [prompts.expand_acronyms(r) for r in found if r.strip() and r.strip() != question]
    return passage, rewrites, translation, ok
