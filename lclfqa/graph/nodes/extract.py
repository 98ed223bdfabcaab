"""``extract`` — the long-context extractor (LCLF-QA §3.5), made to quote: verbatim quotes, by pointing.

Reads ``retrieved`` (the children, as numbered references whose sentences are numbered ``[i.j]``,
:mod:`lclfqa.graph.evidence.reading`), the question fields and the filter's ``transcript`` (continued, so llama.cpp
reuses the references' KV cache); writes ``quotes``, ``information`` and ``transcript``.

The model names up to :data:`MAX_QUOTES` sentence numbers, constrained by a JSON schema whose only
allowed values are the numbers shown, and each quote is that sentence of the source, copied by code: a
quote cannot be misquoted, and naming costs a few tokens where copying cost hundreds (output tokens are
the dearest part of a local answer: ~5 a second under a grammar on 2 cores). A reply that quotes text
instead (an endpoint without grammars) is checked against the references
(:func:`lclfqa.graph.evidence.quotes.check_quotes`: exact after normalisation, or a bounded fuzzy match; the kept
quote is the source's own text), and what is found nowhere is dropped and counted. A footnote child is a
reference of its own, so footnote text is quoted as the footnote. The sentences nearest the question by
embedding that the model passed over are added after its picks (:mod:`lclfqa.graph.evidence.nearest`;
``nearest_quotes`` setting). Then a footnote quote becomes the whole footnote and quotes a sentence or two
apart in one child join into one passage (:mod:`lclfqa.graph.evidence.widen`). An LLM failure leaves no
quotes (the reader then falls back on the filtered children). The verdict of a yes/no question is
decided over these quotes by the reader (:mod:`lclfqa.graph.answer.verdict`).
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from lclfqa.graph.context import QAContext
from lclfqa.graph.evidence.nearest import index_embeddings, nearest_quotes
from lclfqa.graph.evidence.quotes import check_quotes, quote_record
from lclfqa.graph.evidence.reading import Passage, conversation, instruction, passages
from lclfqa.graph.evidence.refs import information_text
from lclfqa.graph.evidence.widen import widened
from lclfqa.graph.state import QAState, question_fields
from lclfqa.index.provisions import mentions
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat

log = logging.getLogger(__name__)

MAX_QUOTES = 6


def quotes_schema(ids: list[str]) -> dict[str, Any]:
    """JSON schema of the extractor's reply: 1 to :data:`MAX_QUOTES` sentence numbers out of ``ids`` (at
    least one: whether the references answer at all is the filter's verdict)."""
    sentences = {"type": "array", "items": {"type": "string", "enum": ids}, "minItems": 1, "maxItems": MAX_QUOTES}
    return {"type": "object", "properties": {"sentences": sentences}, "required": ["sentences"]}


def proposed(raw: str) -> tuple[list[str], list[tuple[int | None, str]]]:
    """``(sentence numbers, (reference number, quoted text) pairs)`` from the reply: numbers under
    ``sentences``; text quotes under ``quotes`` (``{"ref", "quote"}`` objects or strings), or quoted lines
    when there is no JSON at all."""
    obj = parsing.json_object(raw)
    if obj is None:
        return [], [(None, line) for line in parsing.string_list(raw) if len(line.split()) >= 4]
    ids = [str(x).strip("[] ") for x in obj.get("sentences") or [] if isinstance(x, str | int | float)]
    texts: list[tuple[int | None, str]] = []
    for item in obj.get("quotes") or []:
        if isinstance(item, dict) and isinstance(item.get("quote"), str):
            ref = item.get("ref")
            texts.append((ref if isinstance(ref, int) and not isinstance(ref, bool) else None, item["quote"]))
        elif isinstance(item, str):
            texts.append((None, item))
    return ids, texts


def pointed_quotes(
    ids: list[str], numbered: dict[str, Passage], children: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """``(quotes, unknown numbers)``: the sentences named, as quote records of their source's text (each
    once, in the order named)."""
    quotes: list[dict[str, Any]] = []
    unknown: list[str] = []
    seen: set[str] = set()
    for sid in ids:
        p = numbered.get(sid)
        if p is None:
            unknown.append(sid)
        elif sid not in seen:
            seen.add(sid)
            quotes.append(quote_record(children[p.ref - 1], p.ref, p.start, p.end, "pointed"))
    return quotes, unknown


def naming_quote(
    cited: list[str], quotes: list[dict[str, Any]], numbered: dict[str, Passage], children: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """When the question cites provisions (``section 21``) and none of the chosen sentences names one, the
    first sentence of the references (in retrieval order) that does, as a quote to lead with; else ``None``.
    A question that names its provision asks about that provision: the 1.5B default otherwise picked the
    look-alike rule of a neighbouring credit and left the named section's own rule out."""
    if not cited or any(mentions(n, q["text"]) for n in cited for q in quotes):
        return None
    for p in numbered.values():
        text = children[p.ref - 1]["text"][p.start : p.end]
        if any(mentions(n, text) for n in cited):
            return quote_record(children[p.ref - 1], p.ref, p.start, p.end, "named")
    return None


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
    question = question_fields(state)["question"]
    numbered = passages(children)
    ask = instruction("extract", max_quotes=MAX_QUOTES)
    try:
        raw = chat(
            ctx.resources.llm,
            [*conversation(state, children, transcript), HumanMessage(ask)],
            meter,
            max_tokens=8 * MAX_QUOTES + 40,
            schema=quotes_schema(list(numbered)),
        )
    except Exception as exc:
        log.warning("the extractor failed, reading from the filtered children only: %s", exc)
        return nothing | meter.record(error=str(exc))
    ids, texts = proposed(raw)
    quotes, unknown = pointed_quotes(ids, numbered, children)
    pointed = len(quotes)
    named = naming_quote(state.get("cited_sections") or [], quotes, numbered, children)
    if named is not None:
        quotes.insert(0, named)
    checked = check_quotes(texts, children)
    taken = {(q["child"], q["text"]) for q in quotes}
    quotes += [q for q in checked.kept if (q["child"], q["text"]) not in taken]
    nearest = nearest_quotes(question, numbered, children, quotes, ctx.settings.nearest_quotes, index_embeddings(ctx))
    quotes += nearest
    quotes, widened_count = widened(quotes, children)
    out: dict[str, Any] = {"quotes": quotes, "information": information_text(quotes)}
    if not ctx.settings.parallel:  # in parallel mode the filter owns the transcript
        out["transcript"] = [*transcript, {"role": "user", "content": ask}, {"role": "assistant", "content": raw}]
    return out | meter.record(
        quotes_pointed=pointed,
        named_provision_quote=named is not None,
        nearest_quotes=len(nearest),
        widened_quotes=widened_count,
        unknown_sentences=unknown,
        **(checked.record() if texts else {}),
        dropped_quotes=[d["quote"][:120] for d in checked.dropped],
    )
