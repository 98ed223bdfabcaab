"""The one query-side function: document scope → a BM25 and a dense list per query → RRF → children
(→ the best passage of each opinion the question names, and the text of each provision it cites that no hit
is: "§ 15" turns to section 15).

The ``retrieve`` node, ``lclfqa search`` and the retrieval eval all call :func:`search` with
:meth:`RetrievalParams.from_settings`, so ``lclfqa search`` ranks exactly as ``ask`` retrieves. The
backend does the fusion (:meth:`~lclfqa.index.protocol.IndexBackend.hybrid`): the embedded one here
(:func:`lclfqa.index.fusion.rrf`), Milvus on its server (``RRFRanker``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

import numpy as np
from langchain_core.embeddings import Embeddings

from lclfqa.config import Settings
from lclfqa.index.fusion import Fusion
from lclfqa.index.opinion_scope import named_opinions, opinion_picks, ranking_query, with_picks
from lclfqa.index.protocol import IndexBackend
from lclfqa.index.provisions import cited_sections, mentions
from lclfqa.index.scope import DocumentScope, find_scope
from lclfqa.ingest.document import Chunk
from lclfqa.llm.models import embed_array

__all__ = ["Hit", "RetrievalParams", "search"]


@dataclass(frozen=True)
class Hit:
    """A retrieved child chunk with its fused score; ``pick``: the best passage of an opinion the question
    names (:mod:`lclfqa.index.opinion_scope`)."""

    chunk: Chunk
    score: float
    pick: bool = False


@dataclass(frozen=True)
class RetrievalParams(Fusion):
    """How a question is searched: the :class:`~lclfqa.index.fusion.Fusion` of its lists, within the
    documents the question names when ``document_scope``."""

    document_scope: bool = True

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: object) -> RetrievalParams:
        """The parameters ``settings`` name (``top_k``, ``retrieval_depth``, the RRF weights and constant,
        ``document_scope``); ``overrides`` that are not ``None`` replace single fields (``k=4``)."""
        known = {f.name for f in fields(cls)}
        unknown = set(overrides) - known
        if unknown:
            raise ValueError(f"unknown retrieval parameter(s) {', '.join(sorted(unknown))}; known: {', '.join(known)}")
        values = {
            "k": settings.top_k,
            "depth": settings.retrieval_depth,
            "sparse_weight": settings.sparse_weight,
            "dense_weight": settings.dense_weight,
            "rrf_k": settings.rrf_k,
            "document_scope": settings.document_scope,
        }
        values.update({name: value for name, value in overrides.items() if value is not None})
        return cls(**values)  # type: ignore[arg-type]


def search(
    index: IndexBackend,
    embeddings: Embeddings,
    question: str,
    params: RetrievalParams = RetrievalParams(),
    *,
    sparse_queries: Sequence[str] | None = None,
    dense_queries: Sequence[str] | None = None,
) -> tuple[DocumentScope, list[Hit]]:
    """Top ``params.k`` children for ``question``; returns the document scope with them (the graph records
    it, the CLI prints it).

    ``sparse_queries`` / ``dense_queries`` (default: the question alone) are what BM25 and the embedder
    search: query2doc gives BM25 the question repeated before its passage, the embedder question and
    passage as written. Within the documents ``question`` names (:mod:`lclfqa.index.scope`) every query
    loses its naming clause; the whole index, queries unchanged, when it names none or the scope is off.
    Each opinion of a judgment the question names gets its best passage into the top ``k``
    (:mod:`lclfqa.index.opinion_scope`).
    """
    sparse = list(sparse_queries) if sparse_queries is not None else [question]
    dense = list(dense_queries) if dense_queries is not None else [question]
    scope = find_scope(question, index.documents) if params.document_scope else DocumentScope()
    if scope:
        sparse = [scope.ranking_query(q) for q in sparse]
        dense = [scope.ranking_query(q) for q in dense]
    sparse = [q for q in sparse if q.strip()]
    dense = [q for q in dense if q.strip()]
    if (not sparse and not dense) or len(index) == 0:
        return scope, []
    vectors = embed_array(embeddings, dense) if dense else np.zeros((0, index.dimension), dtype=np.float32)
    fusion = Fusion(params.k, max(params.depth, params.k), params.rrf_k, params.sparse_weight, params.dense_weight)
    fused = index.hybrid(sparse, vectors, fusion, scope.documents or None)
    read: dict[str, Chunk] = {}

    def chunk(cid: str) -> Chunk:  # each chunk read from the backend once per question
        if cid not in read:
            read[cid] = index.chunk(cid)
        return read[cid]

    named = named_opinions(question) if fused else []
    picks: list[str] = []
    if named:  # each opinion the question names gets its best passage, ranked without the naming words
        query = ranking_query(scope.ranking_query(question))
        pool = Fusion(fusion.depth, fusion.depth, params.rrf_k, params.sparse_weight, params.dense_weight)
        ranked = index.hybrid([query], embed_array(embeddings, [query]), pool, scope.documents or None)
        documents = {chunk(cid).document for cid, _ in fused}
        picks = opinion_picks(named, [cid for cid, _ in ranked], chunk, documents)
        fused = with_picks(fused, picks, params.k)
    cited = [n for n in cited_sections(question) if fused and not any(_headed(n, chunk(cid)) for cid, _ in fused)]
    if cited:  # a provision the question cites and no hit is: its own text leads, as a lawyer turns to it
        found = provision_picks(index, scope.ranking_query(question), cited, chunk, fusion.depth, scope.documents)
        fused = with_picks(fused, [*picks, *found], params.k)
    return scope, [Hit(chunk(cid), score, cid in picks) for cid, score in fused]


_MARKER = r"\W*(?:§+|sec(?:tion)?s?\.?|s\.?|article|art\.|clause|rule|regulation|reg\.)?\s*"


def _heads(number: str, heading: str) -> bool:
    """Whether ``heading`` is provision ``number``'s own: "§ 50.", "Sec. 13401.", "15 Certain other laws …" —
    not a heading that refers to it ("(B) … described in section 50(b)")."""
    m = re.match(_MARKER, heading, re.I)
    return mentions(number, heading[m.end() : m.end() + len(number) + 1] if m else "")


def _headed(number: str, chunk: Chunk) -> bool:
    """Whether ``chunk`` is (part of) provision ``number``: a heading above it is the provision's own."""
    return any(_heads(number, h) for h in chunk.section_path)


def provision_picks(
    index: IndexBackend,
    question: str,
    numbers: Sequence[str],
    chunk: Callable[[str], Chunk],
    depth: int,
    documents: Sequence[str] = (),
) -> list[str]:
    """For each of ``numbers`` (provisions ``question`` cites that no hit is), the child that is
    that provision: the first, by BM25 for the question and then for the number, under the provision's own
    heading (:func:`_heads`; a subsection's child counts) — in a document the question names, or, without a
    scope, a heading that cites it ("§ 11. Tax imposed", not an agreement's "11. Governing law"). None when
    no child is."""
    out: list[str] = []
    for number in numbers:
        ranked = [
            cid for query in (question, number) for cid, _ in index.search_sparse(query, depth, documents or None)
        ]
        for cid in ranked:
            path = chunk(cid).section_path  # the section's heading, or a subsection's under it
            if any(_heads(number, h) and (documents or number in cited_sections(h)) for h in path):
                if cid not in out:
                    out.append(cid)
                break
    return out
