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

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.state import QAState
from lclfqa.index.tokens import tokenize
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.models import embed_array
from lclfqa.llm.schemas import exactly, object_schema

log = logging.getLogger(__name__)

PASSAGE_TOKENS = 256


def rewrites_schema(n: int) -> dict[str, Any]:
    """JSON schema of the rewrite call: exactly ``n`` rewrites and a translation."""
    return object_schema(rewrites=exactly(n, {"type": "string"}), translation={"type": "string"})


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
        passage, rewrites, translation, ok = query2doc(ctx.resources.llm, expanded, n, meter, ctx.resources.embeddings)
        out |= {"passage": passage, "rewrites": rewrites, "translation": translation}
        meter.notes["well_formed"] = ok
    except Exception as exc:
        log.warning("query rewriting failed, retrieving with the question alone: %s", exc)
        meter.notes["error"] = str(exc)
    return out | meter.record()


def query2doc(
    llm: BaseChatModel, question: str, n: int, meter: Meter, embeddings: Embeddings | None = None
) -> tuple[str, list[str], str, bool]:
    """``(passage, rewrites, translation, well_formed)`` for ``question`` (acronyms already expanded): the
    passage call, then ``n`` rewrites and the translation in the same conversation. LLM errors propagate.

    A passage or rewrite that is off the question's topic (:func:`on_topic`) is dropped and counted in
    ``meter.notes["off_topic"]``: a 1.5B model given a question outside the few-shot examples' field
    copies an example instead (a Fiverr privacy-policy question got a like-kind-exchange passage and PFIC
    rewrites), which pulls retrieval to the wrong documents.

    A translation that does not ask (no question mark at its end) is dropped and kept in
    ``meter.notes["translation_dropped"]``: every later step reads the translation as the question "in plain
    terms", and the 1.5B default, asked to translate a question, sometimes answered it instead, with a
    condition no source states, which the reader then copied as its answer.
    """
    msgs = prompts.messages("query2doc", examples=prompts.query2doc_examples(), question=question)
    passage = parsing.tagged(chat(llm, msgs, meter, max_tokens=PASSAGE_TOKENS).strip(), "passage")
    follow = prompts.render(prompts.template("rewrites")["user"], n=n, question=question)
    raw = chat(
        llm,
        [*msgs, AIMessage(passage), HumanMessage(follow)],
        meter,
        max_tokens=80 * n + 120,
        schema=rewrites_schema(n),
    )
    found, translation, ok = parsing.rewrites(raw, n)
    if translation and not translation.rstrip().endswith("?"):
        meter.notes["translation_dropped"] = translation
        translation = ""
    rewrites = [prompts.expand_acronyms(r) for r in found if r.strip() and r.strip() != question]
    keep = on_topic([passage, *rewrites], question, embeddings)
    if not all(keep):
        meter.notes["off_topic"] = keep.count(False)
    kept = [r for r, k in zip(rewrites, keep[1:], strict=True) if k]
    return (passage if keep[0] else ""), kept, translation, ok


#: On topic: at least this share of the question's content words (stemmed BM25 tokens) ...
ON_TOPIC_SHARE = 0.34
#: ... or at least this cosine to the question with the index's embedder. Measured with MiniLM: good
#: rewrites and passages 0.49-0.80, copied few-shot examples 0.08-0.18.
ON_TOPIC_COSINE = 0.3


def on_topic(texts: list[str], question: str, embeddings: Embeddings | None = None) -> list[bool]:
    """Per text: on the question's topic by its words, or (with ``embeddings``) by its meaning. An empty
    text passes; so does everything when the question has no content words."""
    asked = set(tokenize(question))
    if not asked:
        return [True] * len(texts)
    need = max(1.0, ON_TOPIC_SHARE * len(asked))
    verdicts = [not t.strip() or len(asked & set(tokenize(t))) >= need for t in texts]
    doubtful = [i for i, v in enumerate(verdicts) if not v]
    if doubtful and embeddings is not None:
        vectors = embed_array(embeddings, [question, *(texts[i] for i in doubtful)])
        for i, cosine in zip(doubtful, vectors[1:] @ vectors[0], strict=True):
            verdicts[i] = float(cosine) >= ON_TOPIC_COSINE
    return verdicts
