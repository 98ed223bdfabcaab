"""``extract`` — the LongRAG long-context extractor (LCLF-QA §3.5) over the numbered sources.

Reads ``sources`` (parents with injected footnotes), ``standalone_question``, ``translation``; writes
``information``: what must be cited to answer, tagged with source numbers [n]. Runs in parallel with
``filter``. Missing tags are tolerated; ``NONE`` or an LLM failure leaves the information empty (the
reader still has the filtered children).
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.state import QAState, question_fields
from lclfqa.nodes import parsing
from lclfqa.nodes.calls import Meter, chat
from lclfqa.nodes.refs import body, label

log = logging.getLogger(__name__)

INFORMATION_TOKENS = 600


def numbered_sources(sources: list[dict[str, Any]]) -> str:
    """``[n] (document, pages, section)`` then the text, for every source."""
    return "\n\n".join(f"[{s['source']}] ({label(s)})\n{body(s)}" for s in sources)


def extract_information(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("extract")
    sources = state.get("sources", [])
    if not ctx.plan.extract or not sources:
        return {"information": ""} | meter.record(skipped=True)
    msgs = prompts.messages(
        "extract",
        sources=numbered_sources(sources),
        **question_fields(state),
    )
    try:
        raw = chat(ctx.resources.llm, msgs, meter, max_tokens=INFORMATION_TOKENS)
    except Exception as exc:
        log.warning("the extractor failed, reading from the filtered children only: %s", exc)
        return {"information": ""} | meter.record(error=str(exc))
    information = parsing.tagged(raw, "information")
    if information.strip().rstrip(".").upper() == "NONE":
        information = ""
    return {"information": information} | meter.record(chars=len(information))
