"""Compare retrieval configurations on one corpus and one LegalBench-RAG benchmark in one run.

Configurations (:data:`CONFIGS`):

- ``naive``: the naive-RAG baseline of STACK.md — plain 500-character ``RecursiveCharacterTextSplitter``
  chunks of the raw files (no layout, no section headers, no document prefix), dense cosine only.
- ``bm25`` / ``dense``: our index (layout-aware children with section header and document prefix), one
  retriever alone.
- ``hybrid``: our index through :func:`lclfqa.index.search.search` (BM25 + dense, weighted RRF), scope off.
- ``+scope``: ``hybrid`` with the document scope the graph's ``retrieve`` node applies: a query that names
  an indexed document is searched in it only, without its naming clause (:mod:`lclfqa.index.scope`).
- ``+rewrites``: ``hybrid`` with the question's rewrites from a ``rewriter`` (needs an LLM).
- ``+scope+rewrites``: both, as the graph's ``retrieve`` node searches with the default settings.
- ``+summaries``: ``hybrid`` on an index whose chunks carry document summaries (SAC; needs an LLM to
  build, or an index built with ``summaries = true``).

Our index is built once with :func:`lclfqa.index.ingest.ingest` (incremental: an existing index of the
same corpus is reused without re-embedding), on the backend the settings name (``index_backend``), and
searched with :meth:`~lclfqa.index.search.RetrievalParams.from_settings` as the graph searches.
Configurations that need what was not given are reported with a note instead of scores.
"""

from __future__ import annotations

import functools
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from lclfqa.config import Settings
from lclfqa.eval.datasets import RetrievalQuery
from lclfqa.eval.retrieval_metrics import RetrievalScores, RetrievedSpan, as_retrieved, mean_scores, score_ranking
from lclfqa.index.errors import IndexNotFound
from lclfqa.index.factory import open_index
from lclfqa.index.ingest import Summarizer, discover, ingest
from lclfqa.index.protocol import IndexBackend
from lclfqa.index.search import RetrievalParams, search
from lclfqa.llm.models import embed_array, get_embeddings

__all__ = [
    "CONFIGS",
    "DEFAULT_CONFIGS",
    "DEFAULT_KS",
    "ConfigResult",
    "NaiveDenseIndex",
    "RetrievalTable",
    "Rewriter",
    "graph_rewriter",
    "run_retrieval_eval",
]

from lclfqa.eval.configs import CONFIGS, DEFAULT_CONFIGS, DEFAULT_KS, NEEDS_REWRITER, SCOPED  # noqa: E402,F401

Rewriter = Callable[[str], "list[str] | tuple[list[str], list[str]]"]
"""Question -> its rewrites (searched with BM25 and dense next to the question; do not repeat it), or
``(sparse_queries, dense_queries)`` in full, as the graph's ``retrieve`` node builds them."""


def graph_rewriter(llm: BaseChatModel, n: int = 3, embeddings: Embeddings | None = None) -> Rewriter:
    """The graph's query side as a :data:`Rewriter`: acronyms expanded, query2doc passage and ``n``
    rewrites from ``llm`` (off-topic ones dropped, judged with ``embeddings`` as the graph does with the
    index's embedder), then the same BM25 and dense query lists the ``retrieve`` node searches. An LLM
    failure leaves the question alone (as in the graph)."""
    from lclfqa import prompts
    from lclfqa.graph.nodes.retrieve import queries
    from lclfqa.graph.nodes.rewrite import query2doc
    from lclfqa.llm.calls import Meter

    def rewrite(question: str) -> tuple[list[str], list[str]]:
        expanded = prompts.expand_acronyms(question)
        try:
            passage, rewrites, _, _ = query2doc(llm, expanded, n, Meter("rewrite"), embeddings)
        except Exception:  # noqa: BLE001 - as the graph: retrieval goes on with the question
            passage, rewrites = "", []
        sparse, dense = queries(expanded, passage, rewrites)
        if expanded != question:
            sparse, dense = [question, *sparse], [question, *dense]
        return sparse, dense

    return rewrite


Progress = Callable[[str], None]


# --------------------------------------------------------------------------------------- naive index


class GoldNotIndexed(ValueError):
    """The index built from the corpus lacks documents the benchmark's gold spans are in: every score of
    its queries would be zero, which says nothing about retrieval."""


def check_gold_indexed(
    queries: Sequence[RetrievalQuery], indexed: Iterable[str], skipped: Sequence[tuple[str, str]]
) -> None:
    """Raise :class:`GoldNotIndexed` when a gold document of ``queries`` is not among ``indexed`` (the index's
    document names, corpus-relative); ``skipped`` (the ingest's (path, reason) pairs) says why."""
    gold = set().union(*(q.documents for q in queries)) if queries else set()
    missing = sorted(gold - set(indexed))
    if not missing:
        return
    why = "; ".join(f"{path}: {reason}" for path, reason in skipped[:3]) or "no file was skipped"
    raise GoldNotIndexed(
        f"{len(missing)} of {len(gold)} gold documents are not in the index (first: {missing[0]}), so their queries "
        f"cannot be scored. The ingest of the corpus skipped: {why}"
    )


@dataclass
class NaiveDenseIndex:
    """500-character recursive chunks of the raw text with their character offsets, searched by cosine."""

    spans: list[RetrievedSpan]
    texts: list[str]
    vectors: np.ndarray  # (n, dim), unit rows

    @classmethod
    def build(
        cls,
        corpus_dir: str | Path,
        embeddings: Embeddings,
        *,
        chunk_size: int = 500,
        chunk_overlap: int = 0,
        batch_size: int = 64,
    ) -> NaiveDenseIndex:
        """Split every file of ``corpus_dir`` (named by its path relative to the folder) and embed the chunks.

        Plain-text files are read as ``open(path, encoding="utf-8").read()`` so offsets match the gold
        spans; other formats are parsed to text and their chunks carry no offsets.
        """
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        from lclfqa.ingest.formats import SUPPORTED_SUFFIXES, TEXT_SUFFIXES, parse_file

        splitter = RecursiveCharacterTextSplitter(
            chunk_size=chunk_size, chunk_overlap=chunk_overlap, add_start_index=True
        )
        spans: list[RetrievedSpan] = []
        texts: list[str] = []
        for path, name in discover([corpus_dir], SUPPORTED_SUFFIXES):
            if path.suffix.lower() in TEXT_SUFFIXES:
                with open(path, encoding="utf-8") as f:
                    text, exact = f.read(), True
            else:
                text, exact = "\n\n".join(s.text for s in parse_file(path).sections), False
            for doc in splitter.create_documents([text]):
                start = doc.metadata["start_index"]
                content = doc.page_content
                if exact and start >= 0:
                    spans.append(RetrievedSpan(name, start, start + len(content)))
                else:
                    spans.append(RetrievedSpan(name, None, None, len(content)))
                texts.append(content)
        parts = [embed_array(embeddings, texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        vectors = np.vstack(parts).astype(np.float32) if parts else np.zeros((0, 1), dtype=np.float32)
        return cls(spans, texts, vectors)

    def __len__(self) -> int:
        return len(self.spans)

    def search_many(self, query_vectors: np.ndarray, k: int) -> list[list[RetrievedSpan]]:
        """Top-``k`` chunks by cosine for each row of ``query_vectors`` (unit rows), best first."""
        if not self.spans or k <= 0:
            return [[] for _ in range(len(query_vectors))]
        scores = np.asarray(query_vectors, dtype=np.float32) @ self.vectors.T
        k = min(k, len(self.spans))
        out = []
        for row in scores:
            top = np.argpartition(-row, k - 1)[:k]
            top = top[np.argsort(-row[top], kind="stable")]
            out.append([self.spans[i] for i in top])
        return out


# ------------------------------------------------------------------------------------------- results


@dataclass
class ConfigResult:
    """Mean scores per ``k`` of one configuration, or a ``note`` saying why it was skipped."""

    name: str
    scores: dict[int, RetrievalScores] = field(default_factory=dict)
    per_query: list[dict[int, RetrievalScores]] = field(default_factory=list, repr=False)
    note: str = ""
    build_seconds: float = 0.0
    query_ms: float = 0.0
    chunks: int = 0

    @property
    def skipped(self) -> bool:
        return not self.scores

    def to_json(self, per_query: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "note": self.note,
            "chunks": self.chunks,
            "build_seconds": round(self.build_seconds, 3),
            "query_ms": round(self.query_ms, 3),
            "scores": {str(k): s.to_dict() for k, s in self.scores.items()},
        }
        if per_query:
            out["per_query"] = [{str(k): s.to_dict() for k, s in q.items()} for q in self.per_query]
        return out


@dataclass
class RetrievalTable:
    """What one eval run measured: one :class:`ConfigResult` per configuration asked for."""

    corpus: str
    queries: int
    ks: tuple[int, ...]
    rows: list[ConfigResult]
    index_dir: str = ""
    embedding_model: str = ""

    def row(self, name: str) -> ConfigResult:
        for r in self.rows:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_json(self, per_query: bool = False) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "queries": self.queries,
            "ks": list(self.ks),
            "index_dir": self.index_dir,
            "embedding_model": self.embedding_model,
            "configs": [r.to_json(per_query) for r in self.rows],
        }


# ------------------------------------------------------------------------------------------------ run


def _score(
    name: str, rankings: Sequence[Sequence[Any]], queries: Sequence[RetrievalQuery], ks: Sequence[int]
) -> ConfigResult:
    per_query = [
        score_ranking([as_retrieved(r) for r in ranked], q.snippets, ks)
        for ranked, q in zip(rankings, queries, strict=True)
    ]
    return ConfigResult(name, mean_scores(per_query), per_query)


def _hybrid_rankings(
    index: IndexBackend,
    embeddings: Embeddings,
    queries: Sequence[RetrievalQuery],
    params: RetrievalParams,
    rewriter: Rewriter | None = None,
) -> list[list[Any]]:
    out = []
    for q in queries:
        more = rewriter(q.query) if rewriter else []
        sparse, dense = more if isinstance(more, tuple) else ([q.query, *more], [q.query, *more])
        _, hits = search(index, embeddings, q.query, params, sparse_queries=sparse, dense_queries=dense)
        out.append([h.chunk for h in hits])
    return out


def _rank_on_index(
    name: str,
    index: IndexBackend,
    embeddings: Embeddings,
    texts: list[str],
    queries: Sequence[RetrievalQuery],
    params: RetrievalParams,
    rewriter: Rewriter | None,
) -> list[list[Any]]:
    """Ranked chunks per query for ``bm25``, ``dense``, ``hybrid``, ``+scope`` or ``+rewrites`` on our index."""
    if name == "bm25":
        return [[index.chunk(cid) for cid, _ in index.search_sparse(t, params.k)] for t in texts]
    if name == "dense":
        hits = index.search_dense(embed_array(embeddings, texts), params.k)
        return [[index.chunk(cid) for cid, _ in row] for row in hits]
    return _hybrid_rankings(
        index,
        embeddings,
        queries,
        replace(params, document_scope=name in SCOPED),
        rewriter if name in NEEDS_REWRITER else None,
    )


def run_retrieval_eval(
    queries: Sequence[RetrievalQuery],
    corpus_dir: str | Path,
    *,
    configs: Iterable[str] = DEFAULT_CONFIGS,
    ks: Iterable[int] = DEFAULT_KS,
    index_dir: str | Path | None = None,
    settings: Settings | None = None,
    embeddings: Embeddings | None = None,
    depth: int = 50,
    rewriter: Rewriter | None = None,
    summaries_index: str | Path | None = None,
    summarizer: Summarizer | None = None,
    progress: Progress | None = None,
) -> RetrievalTable:
    """Score each configuration in ``configs`` on ``queries`` over the documents in ``corpus_dir``.

    ``index_dir``: where our index is built or reused (a temporary folder, deleted afterwards, when None).
    ``depth``: candidates per list for hybrid fusion (at least the largest k). ``rewriter`` enables
    ``+rewrites``. ``summaries_index`` (an index built with ``summaries = true``, or a folder to build one
    in with ``summarizer``) enables ``+summaries``. ``progress`` receives one line per step.
    """
    names = list(dict.fromkeys(configs))
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        raise ValueError(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(CONFIGS)}")
    ks = tuple(sorted(set(ks)))
    if not ks or ks[0] < 1:
        raise ValueError("ks must be positive integers")
    max_k = ks[-1]
    settings = settings or Settings()
    params = RetrievalParams.from_settings(settings, k=max_k, depth=max(depth, max_k))
    say = progress or (lambda line: None)
    if rewriter is not None:
        rewriter = functools.cache(rewriter)  # +rewrites and +scope+rewrites share one query2doc per query
    embeddings = embeddings or get_embeddings(settings.embedder(), settings.openai_base_url)
    queries = list(queries)
    texts = [q.query for q in queries]
    rows: list[ConfigResult] = []

    with tempfile.TemporaryDirectory(prefix="lclfqa-eval-") as tmp:
        index: IndexBackend | None = None
        needs_index = {"bm25", "dense", "hybrid", *SCOPED, *NEEDS_REWRITER} & set(names)
        build_seconds = 0.0
        if needs_index:
            target = Path(index_dir) if index_dir is not None else Path(tmp) / "index"
            say(f"indexing {corpus_dir} into {target} (reused where unchanged)")
            t0 = time.perf_counter()
            # the configurations other than +summaries are scored on chunks without document summaries,
            # whatever the settings say (``summaries = true`` made this ingest fail for want of a summarizer)
            report = ingest([corpus_dir], target, settings.with_overrides(summaries=False), embeddings=embeddings)
            build_seconds = time.perf_counter() - t0
            say(report.summary_line())
            if not report.documents:  # every file skipped: no index was written; say why the gold is missing
                check_gold_indexed(queries, {}, report.skipped)
            index = open_index(settings, target)
        try:
            if index is not None:  # built just above, with its ingest report
                check_gold_indexed(queries, index.documents, report.skipped)
            for name in names:
                say(f"running {name} on {len(queries)} queries")
                if name == "naive":
                    t0 = time.perf_counter()
                    naive = NaiveDenseIndex.build(corpus_dir, embeddings)
                    built, chunks = time.perf_counter() - t0, len(naive)
                    t0 = time.perf_counter()
                    ranked: list[list[Any]] = list(naive.search_many(embed_array(embeddings, texts), max_k))
                elif name == "+summaries":
                    where = summaries_index or (Path(tmp) / "summaries" if summarizer else None)
                    summary_index, note, built = _summary_index(
                        where, corpus_dir, settings, embeddings, summarizer, say
                    )
                    if summary_index is None:
                        rows.append(ConfigResult(name, note=note))
                        continue
                    chunks = len(summary_index)
                    t0 = time.perf_counter()
                    try:
                        ranked = _hybrid_rankings(
                            summary_index, embeddings, queries, replace(params, document_scope=False)
                        )
                    finally:
                        summary_index.close()
                elif name in NEEDS_REWRITER and rewriter is None:
                    rows.append(ConfigResult(name, note="skipped: needs a rewriter (an LLM); none given"))
                    continue
                else:
                    assert index is not None
                    built, chunks = build_seconds, len(index)
                    t0 = time.perf_counter()
                    ranked = _rank_on_index(name, index, embeddings, texts, queries, params, rewriter)
                secs = time.perf_counter() - t0
                result = _score(name, ranked, queries, ks)
                result.build_seconds, result.chunks = built, chunks
                result.query_ms = 1000 * secs / max(1, len(queries))
                rows.append(result)
        finally:
            if index is not None:
                index.close()

    return RetrievalTable(
        corpus=str(corpus_dir),
        queries=len(queries),
        ks=ks,
        rows=rows,
        index_dir=str(index_dir) if index_dir is not None else "",
        embedding_model=settings.embedder(),
    )


def _summary_index(
    summaries_index: str | Path | None,
    corpus_dir: str | Path,
    settings: Settings,
    embeddings: Embeddings,
    summarizer: Summarizer | None,
    say: Progress,
) -> tuple[IndexBackend | None, str, float]:
    """The index with summary-prefixed chunks, building it when a summarizer is given; else a skip note."""
    if summaries_index is None:
        return None, "skipped: needs an index built with summaries (an LLM); none given", 0.0
    built = 0.0
    if summarizer is not None:
        say(f"indexing {corpus_dir} with document summaries into {summaries_index}")
        t0 = time.perf_counter()
        ingest(
            [corpus_dir],
            summaries_index,
            settings.with_overrides(summaries=True),
            embeddings=embeddings,
            summarizer=summarizer,
        )
        built = time.perf_counter() - t0
    try:
        index = open_index(settings, summaries_index)
    except IndexNotFound:
        return None, f"skipped: no index at {summaries_index} and no summarizer to build one", 0.0
    if not any(rec.summary for rec in index.documents.values()):
        index.close()
        return None, f"skipped: the index at {summaries_index} has no document summaries", 0.0
    return index, "", built
