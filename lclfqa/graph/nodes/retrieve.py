"""``retrieve`` — hybrid retrieval (LCLF-QA §3.4): BM25 + dense for the question and each rewrite, RRF.

Reads ``standalone_question``, ``passage``, ``rewrites``; writes ``retrieved`` (top-k children, best first, with
their fused ``score``; ``opinion_pick`` on a named opinion's best passage) and ``scope``. BM25 sees the question
repeated five times before the query2doc passage (query2doc's recipe, so the passage's words do not swamp the
question); the embedder sees the question, question + passage, and each rewrite. A question that names indexed
documents is searched in those only, every query without its naming clause (``document_scope``,
:mod:`lclfqa.index.scope`); one that names separate opinions of a judgment gets each one's best passage at the
head of its top k (:mod:`lclfqa.index.opinion_scope`).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from lclfqa.graph.context import QAContext
from lclfqa.graph.evidence.refs import chunk_ref
from lclfqa.graph.state import QAState
from lclfqa.index.search import RetrievalParams, search
from lclfqa.llm.calls import Meter

QUERY_REPEATS = 5


def queries(question: str, passage: str, rewrites: list[str]) -> tuple[list[str], list[str]]:
    """``(sparse_queries, dense_queries)`` for one question."""
    sparse, dense = [question], [question]
    if passage:
        sparse.append(" ".join([question] * QUERY_REPEATS) + " " + passage)
        dense.append(f"{question}\n{passage}")
    sparse += rewrites
    dense += rewrites
    return sparse, dense


def retrieve(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("retrieve")
    question = state.get("standalone_question") or state["question"]
    sparse, dense = queries(question, state.get("passage", ""), state.get("rewrites", []))
    scope, hits = search(
        ctx.resources.index,
        ctx.resources.embeddings,
        question,
        RetrievalParams.from_settings(ctx.settings),
        sparse_queries=sparse,
        dense_queries=dense,
    )
    retrieved = [
        chunk_ref(h.chunk, score=round(h.score, 6), **({"opinion_pick": True} if h.pick else {})) for h in hits
    ]
    notes = {"queries": len(sparse) + len(dense), "children": len(retrieved)}
    if scope:
        notes["scope"] = list(scope.documents)
    return {"retrieved": retrieved, "scope": list(scope.documents)} | meter.record(**notes)
