"""The synthetic-QA run (LCLF-QA Appendix A, steps 2-5): page summaries, clusters of their embeddings, then
generation in shuffled question styles until the budget is reached (the method: :mod:`lclfqa.eval.synth`)."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lclfqa.eval.synth.clusters import kmeans, pick_cluster
from lclfqa.eval.synth.config import SynthConfig, SynthError
from lclfqa.eval.synth.evidence import verbatim_quotes
from lclfqa.eval.synth.pages import PageChunk, clean_text, format_chunks, page_chunks
from lclfqa.eval.synth.pairs import QAPair, parse_qa_pairs, question_key
from lclfqa.eval.synth.styles import QA_SCHEMA, combine, output_format, style_rounds, synth_messages
from lclfqa.llm.calls import Meter, chat, json_schema_kwargs
from lclfqa.llm.models import embed_array

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

    from lclfqa.index.protocol import IndexBackend as Index

Progress = Callable[[str, int, int], None]

#: After this many LLM failures in a row the run stops: the model or endpoint is down, not one bad prompt.
MAX_CONSECUTIVE_FAILURES = 5


@dataclass
class SynthReport:
    """What a run produced (``records``, rows for :func:`write_jsonl`) and what it cost."""

    records: list[dict[str, Any]] = field(default_factory=list)
    pages: int = 0  # page chunks in the index after skipping near-empty ones
    pages_summarised: int = 0
    summary_failures: int = 0  # summary calls that failed (the page's own text was clustered instead)
    clusters: int = 0  # k actually used
    cluster_sizes: list[int] = field(default_factory=list)
    cluster_rejections: int = 0  # clusters picked and rejected for having fewer than n pages
    generation_calls: int = 0
    malformed_outputs: int = 0  # generator outputs with no usable QA pair
    failed_calls: int = 0  # LLM calls that raised (summaries and generation)
    dropped_pairs: int = 0  # duplicate questions
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0

    @property
    def style_counts(self) -> dict[str, int]:
        return dict(Counter(r["question_style"] for r in self.records))

    def summary_line(self) -> str:
        return (
            f"{len(self.records)} QA pairs from {self.pages_summarised} summarised pages in {self.clusters} clusters; "
            f"{self.llm_calls} LLM calls ({self.generation_calls} generation), {self.malformed_outputs} malformed, "
            f"{self.dropped_pairs} duplicate, {self.failed_calls} failed; {self.seconds:.1f} s"
        )


# ----------------------------------------------------------------------------------------- generation


class _Failures:
    """Counts failed LLM calls; too many in a row end the run."""

    def __init__(self, report: SynthReport) -> None:
        self.report = report
        self.in_a_row = 0

    def failed(self, error: Exception) -> None:
        self.report.failed_calls += 1
        self.in_a_row += 1
        if self.in_a_row >= MAX_CONSECUTIVE_FAILURES:
            raise SynthError(f"the chat model failed {self.in_a_row} times in a row; last error: {error}") from error

    def ok(self) -> None:
        self.in_a_row = 0


def generate_synthetic_qa(
    index: Index,
    llm: BaseChatModel,
    embeddings: Embeddings,
    config: SynthConfig | None = None,
    progress: Progress | None = None,
) -> SynthReport:
    """Synthetic QA records from the pages of ``index`` (see the module docstring for the method).

    ``progress(stage, done, total)`` is called with stages ``"summarise"`` (pages) and ``"generate"``
    (QA pairs against the budget). Raises :class:`SynthError` when there are fewer pages than
    ``chunks_per_question`` or the chat model keeps failing.
    """
    config = config or SynthConfig()
    pages = page_chunks(index, min_chars=config.min_page_chars, max_chars=config.max_chunk_chars)
    return generate_from_pages(pages, llm, embeddings, config, progress)


def generate_from_pages(
    pages: Sequence[PageChunk],
    llm: BaseChatModel,
    embeddings: Embeddings,
    config: SynthConfig | None = None,
    progress: Progress | None = None,
) -> SynthReport:
    """:func:`generate_synthetic_qa` on page chunks already made (by :func:`page_chunks` or by hand)."""
    config = config or SynthConfig()
    tick = progress or (lambda stage, done, total: None)
    started = time.perf_counter()
    rng = random.Random(config.seed)
    meter = Meter("synth")
    report = SynthReport(pages=len(pages))
    failures = _Failures(report)
    n = config.chunks_per_question
    if len(pages) < n:
        raise SynthError(
            f"{len(pages)} page(s) with text (at least {config.min_page_chars} characters), but "
            f"{n} chunks per question were asked for: ingest more documents or lower --chunks"
        )

    # (2) page summaries, of at most max_pages pages drawn at random
    chosen = list(range(len(pages)))
    if config.max_pages is not None and config.max_pages < len(pages):
        chosen = sorted(rng.sample(chosen, max(config.max_pages, n)))
    pool = [pages[i] for i in chosen]
    summaries: list[str] = []
    tick("summarise", 0, len(pool))
    for i, page in enumerate(pool, 1):
        summary = ""
        try:
            text = chat(
                llm,
                synth_messages("summary", text=format_chunks([page], config.max_chunk_chars)),
                meter,
                max_tokens=config.summary_tokens,
            )
            summary = clean_text(text)
            failures.ok()
        except Exception as e:  # one failed page must not end the run; five in a row do
            failures.failed(e)
            report.summary_failures += 1
        if summary:
            report.pages_summarised += 1
        summaries.append(summary or page.text[: config.max_chunk_chars])
        tick("summarise", i, len(pool))

    # (3) k-means over the summary embeddings; k capped so that some cluster has n pages
    k = max(1, min(config.clusters, len(pool) // n))
    vectors = embed_array(embeddings, summaries)
    labels, _ = kmeans(vectors, k, seed=config.seed)
    members: list[list[int]] = [[] for _ in range(k)]
    for i, label in enumerate(labels.tolist()):
        members[label].append(i)
    report.clusters = k
    report.cluster_sizes = [len(m) for m in members]

    # (4) generation until the budget is reached
    json_output = bool(json_schema_kwargs(llm, QA_SCHEMA))
    fmt = output_format(json_output)
    styles = style_rounds(config.styles, rng)
    used: set[tuple[tuple[int, ...], str]] = set()
    seen: set[str] = set()
    records = report.records
    width = max(4, len(str(config.budget)))
    tick("generate", 0, config.budget)
    while len(records) < config.budget and report.generation_calls < config.call_limit:
        style = next(styles)
        for _ in range(20):  # prefer a page set this style has not seen (a deterministic model repeats itself)
            cluster, rejected = pick_cluster(report.cluster_sizes, n, rng)
            report.cluster_rejections += rejected
            picked = tuple(sorted(rng.sample(members[cluster], n)))
            if (picked, style) not in used:
                break
        used.add((picked, style))
        sources = [pool[i] for i in picked]
        messages = synth_messages(style, text=format_chunks(sources), combine=combine(n), output_format=fmt)
        report.generation_calls += 1
        try:
            output = chat(llm, messages, meter, max_tokens=config.qa_tokens, schema=QA_SCHEMA)
            failures.ok()
        except Exception as e:
            failures.failed(e)
            continue
        pairs = parse_qa_pairs(output)
        if not pairs:
            report.malformed_outputs += 1
            continue
        for pair in pairs:
            key = question_key(pair.question)
            if key in seen:
                report.dropped_pairs += 1
                continue
            seen.add(key)
            records.append(_record(f"{config.id_prefix}-{len(records) + 1:0{width}d}", pair, style, sources, cluster))
            if len(records) >= config.budget:
                break
        tick("generate", len(records), config.budget)

    report.llm_calls = meter.llm_calls
    report.prompt_tokens = meter.prompt_tokens
    report.completion_tokens = meter.completion_tokens
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _record(rid: str, pair: QAPair, style: str, sources: Sequence[PageChunk], cluster: int) -> dict[str, Any]:
    return {
        "id": rid,
        "question": pair.question,
        "gold_answer": pair.answer,
        "question_style": style,
        "documents": list(dict.fromkeys(s.document for s in sources)),
        "evidence": verbatim_quotes(pair.answer, sources),
        "source_chunks": [s.to_json() for s in sources],
        "cluster": cluster,
        "synthetic": True,
    }
