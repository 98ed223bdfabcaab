"""``expand`` — parents and footnote expansion (LCLF-QA §3.2/3.4): the numbered sources the reader cites.

Reads ``retrieved``; writes ``sources`` and ``retrieved`` again with each child's ``source`` number, and
``cited_sections`` / ``missing_sections``: the provisions the question cites and those none of the
sources mentions, and ``missing_terms``: the terms it defines ("… credit (WOTC)") that no source names
(:mod:`lclfqa.graph.evidence.refusal`; all sections or any term missing routes the graph straight to ``read``).
Walking the children best first, a section child brings its parent; a footnote child brings *every*
parent it is linked to (its page's parents and the one holding its marker), each with the footnote text
injected inside ``<footnote>`` tags. Parents are de-duplicated and kept while they fit the
``context_chars`` budget (the first always fits; injected footnotes count too). A child whose parents
did not fit becomes a source of its own, so nothing retrieved is lost. With ``parents`` off (the ``rag``
pipeline) every child is its own source; with footnote expansion off (``longrag``) a footnote child is.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from lclfqa.graph.context import QAContext
from lclfqa.graph.evidence.refs import chunk_ref
from lclfqa.graph.evidence.refusal import state_missing_quantities, state_missing_sections, state_missing_terms
from lclfqa.graph.state import QAState
from lclfqa.index.protocol import IndexBackend
from lclfqa.ingest.document import FOOTNOTE
from lclfqa.llm.calls import Meter


def build_sources(
    children: list[dict[str, Any]],
    index: IndexBackend,
    *,
    parents: bool,
    expand_footnotes: bool,
    budget: int,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(sources, children)``: numbered sources and the children annotated with their ``source``."""
    sources: list[dict[str, Any]] = []
    by_id: dict[str, dict[str, Any]] = {}
    used = 0

    def add(ref: dict[str, Any]) -> dict[str, Any]:
        ref["source"] = len(sources) + 1
        sources.append(ref)
        by_id[ref["id"]] = ref
        return ref

    def take_parent(parent_id: str) -> dict[str, Any] | None:
        nonlocal used
        if parent_id in by_id:
            return by_id[parent_id]
        parent = index.chunk(parent_id)
        if sources and used + len(parent.text) > budget:
            return None
        used += len(parent.text)
        return add(chunk_ref(parent, footnotes=[]))

    annotated = []
    for child in children:
        child = dict(child)
        is_footnote = child["kind"] == FOOTNOTE
        wanted = child["parent_ids"] if parents else []
        if is_footnote and not expand_footnotes:
            wanted = []
        elif not is_footnote:
            wanted = wanted[:1]  # the parent the child was cut from; the overlap copy adds nothing new
        holders = [p for p in (take_parent(pid) for pid in wanted) if p is not None]
        if is_footnote:
            for parent in holders:
                if child["text"] not in parent["footnotes"]:
                    parent["footnotes"].append(child["text"])
                    used += len(child["text"])  # injected text counts against the budget too
                    first, last = parent["pages"]
                    parent["pages"] = [min(first, child["pages"][0]), max(last, child["pages"][1])]
        if holders:
            child["source"] = holders[0]["source"]
        else:
            child["source"] = add({**child, "footnotes": []})["source"]
        annotated.append(child)
    return sources, annotated


def expand(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("expand")
    plan = ctx.plan
    sources, children = build_sources(
        state.get("retrieved", []),
        ctx.resources.index,
        parents=plan.parents,
        expand_footnotes=plan.expand_footnotes,
        budget=ctx.settings.context_chars,
    )
    injected = sum(len(s.get("footnotes", [])) for s in sources if s["kind"] != FOOTNOTE)
    found = {**state, "sources": sources, "retrieved": children}
    cited, missing = state_missing_sections(found)
    terms = state_missing_terms(found) + state_missing_quantities(found)
    return {
        "sources": sources,
        "retrieved": children,
        "cited_sections": cited,
        "missing_sections": missing,
        "missing_terms": terms,
    } | meter.record(sources=len(sources), footnotes_injected=injected, missing_sections=missing, missing_terms=terms)
