"""``extract`` — the long-context extractor (LCLF-QA §3.5), made to quote: verbatim quotes, checked.

Reads ``retrieved`` (the children, as numbered references), the question fields and the filter's
``transcript`` (continued, so llama.cpp reuses the references' KV cache); writes ``quotes``, ``information``
and ``transcript``. The model copies up to :data:`MAX_QUOTES` passages, each with the number of its
reference, as JSON constrained by a schema. Every quote is then looked up in the references
(:func:`lclfqa.nodes.quotes.check_quotes`): exact after normalisation, or a bounded fuzzy match; the kept
quote is the source's own text, a quote found nowhere is dropped and counted. A footnote child is a
reference of its own, so footnote text is quoted as the footnote. An LLM failure leaves no quotes (the
reader then falls back on the filtered children).
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from lclfqa.graph.context import QAContext
from lclfqa.graph.state import QAState
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.nodes.quotes import check_quotes
from lclfqa.nodes.reading import conversation, instruction
from lclfqa.nodes.refs import label

log = logging.getLogger(__name__)

MAX_QUOTES = 6
MAX_WORDS = 60
QUOTE_CHARS = 480


def quotes_schema(n: int) -> dict[str, Any]:
    """JSON schema of the extractor's reply: 1 to :data:`MAX_QUOTES` ``{"ref", "quote"}`` over ``n`` references
    (at least one: allowed an empty list, the 1.5B default took it; whether the references answer at all is
    the filter's verdict, and a quote that is not there is dropped anyway)."""
    return {
        "type": "object",
        "properties": {
            "quotes": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "ref": {"type": "integer", "minimum": 1, "maximum": n},
                        "quote": {"type": "string", "maxLength": QUOTE_CHARS},
                    },
                    "required": ["ref", "quote"],
                },
                "minItems": 1,
                "maxItems": MAX_QUOTES,
            }
        },
        "required": ["quotes"],
    }


def proposed_quotes(raw: str) -> list[tuple[int | None, str]]:
    """``(reference number, quote)`` pairs from the reply: the JSON object, or quoted lines as a fallback."""
    obj = parsing.json_object(raw)
    items = obj.get("quotes") if obj is not None else None
    out: list[tuple[int | None, str]] = []
    if isinstance(items, list):
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("quote"), str):
                ref = item.get("ref")
                out.append((ref if isinstance(ref, int) and not isinstance(ref, bool) else None, item["quote"]))
            elif isinstance(item, str):
                out.append((None, item))
        return out
    return [(None, line) for line in parsing.string_list(raw) if len(line.split()) >= 4]


def information_text(quotes: list[dict[str, Any]]) -> str:
    """The verified quotes as the reader sees them: ``[k] “…” (document, page, section)``; a footnote's
    and a separate opinion's quotes say so (the label keeps a judgment's top-level opinion heading)."""
    return "\n".join(f"[{k}] “{q['text']}” ({label(q)})" for k, q in enumerate(quotes, 1))


def extract_information(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("extract")
    children = state.get("retrieved", [])
    nothing = {"quotes": [], "information": ""}
    if not ctx.plan.extract or not children:
        return nothing | meter.record(skipped=True)
    # sequential graph: continue the filter's conversation (same prefix, KV cache reused); in parallel
    # mode the filter has not answered yet, so start from the shared prefix alone
    transcript = [] if ctx.settings.parallel else list(state.get("transcript") or [])
    ask = instruction("extract", max_quotes=MAX_QUOTES, max_words=MAX_WORDS)
    try:
        raw = chat(
            ctx.resources.llm,
            [*conversation(state, children, transcript), HumanMessage(ask)],
            meter,
            max_tokens=MAX_QUOTES * (QUOTE_CHARS // 4 + 12) // 2 + 40,
            schema=quotes_schema(len(children)),
        )
    except Exception as exc:
        log.warning("the extractor failed, reading from the filtered children only: %s", exc)
        return nothing | meter.record(error=str(exc))
    checked = check_quotes(proposed_quotes(raw), children)
    out: dict[str, Any] = {"quotes": checked.kept, "information": information_text(checked.kept)}
    if not ctx.settings.parallel:  # in parallel mode the filter owns the transcript
        out["transcript"] = [*transcript, {"role": "user", "content": ask}, {"role": "assistant", "content": raw}]
    return out | meter.record(**checked.record(), dropped_quotes=[d["quote"][:120] for d in checked.dropped])
