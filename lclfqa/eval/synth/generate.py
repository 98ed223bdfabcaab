"""Synthetic QA pairs from an ingested index (LCLF-QA, Appendix A).

The method of the paper, step by step:

1. **Page chunks.** The section children of an index, grouped by (document, page) into one chunk per
   printed page, with that page's footnotes appended (:func:`page_chunks`). Children, not parents, are
   grouped: parents overlap by one section and often straddle two pages, children never overlap and carry
   their own pages. Near-empty pages are skipped; a page longer than ``max_chunk_chars`` (a plain-text file
   without form feeds is one "page") is split at child boundaries into several chunks of that page.
2. **Summaries.** Each page chunk is summarised by the chat model (Figure 13); at most ``max_pages`` pages,
   drawn at random when there are more.
3. **Clusters.** The summaries are embedded and clustered with k-means (:func:`kmeans`: numpy, k-means++
   initialisation, fixed seed). ``k`` is lowered to ``pages // n`` when needed, so that at least one
   cluster holds ``n`` pages (pigeonhole).
4. **Generation.** A cluster is picked at random; if it has fewer than ``n`` pages another one is picked at
   random, until one with ``n`` pages is found (:func:`pick_cluster`). ``n`` of its pages go to the
   question generator of one question style (instruction, reason, evidence, comparison, list,
   domain-specific; shuffled rounds, so every style is used once per round), which asks for 2 QA pairs.
   The output is constrained to JSON where the backend can (:data:`QA_SCHEMA`); otherwise the paper's
   bullet format (``Question 1: … / Answer 1: …``) is asked for; :func:`parse_qa_pairs` reads both.
5. Repeat until the budget ``b`` of QA pairs is reached, or ``max_calls`` generator calls were made.

Every random choice comes from ``random.Random(seed)`` (k-means from ``numpy.random.default_rng(seed)``),
so a run with the same index, model outputs and config gives the same records.

Records are rows of the QA JSON Lines format that :func:`lclfqa.eval.datasets.load_qa_jsonl` reads, plus
``source_chunks``, ``cluster`` and ``synthetic`` (which that loader ignores). ``evidence`` holds only
sentences of the answer that are printed verbatim (up to whitespace, as
:func:`lclfqa.eval.retrieval_metrics.evidence_recall` compares) on a source page; often it is empty.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from lclfqa import prompts
from lclfqa.llm.calls import Meter, chat, json_schema_kwargs
from lclfqa.llm.parsing import json_object

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

    from lclfqa.ingest.index import Index

__all__ = [
    "PAIRS_PER_CALL",
    "QA_SCHEMA",
    "STYLES",
    "PageChunk",
    "QAPair",
    "SynthConfig",
    "SynthError",
    "SynthReport",
    "clean_text",
    "format_chunks",
    "generate_from_pages",
    "generate_synthetic_qa",
    "kmeans",
    "output_format",
    "page_chunks",
    "parse_qa_pairs",
    "pick_cluster",
    "question_key",
    "synth_messages",
    "verbatim_quotes",
    "write_jsonl",
]

#: The question styles of LCLF-QA Appendix A, in the paper's order.
STYLES: tuple[str, ...] = ("instruction", "reason", "evidence", "comparison", "list", "domain-specific")
#: QA pairs asked for per generator call, as in the paper's prompts.
PAIRS_PER_CALL = 2

QA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pairs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"question": {"type": "string"}, "answer": {"type": "string"}},
                "required": ["question", "answer"],
            },
            "minItems": 1,
            "maxItems": PAIRS_PER_CALL,
        }
    },
    "required": ["pairs"],
}

Progress = Callable[[str, int, int], None]

#: After this many LLM failures in a row the run stops: the model or endpoint is down, not one bad prompt.
MAX_CONSECUTIVE_FAILURES = 5


class SynthError(RuntimeError):
    """Synthetic QA cannot be generated (too few pages, the chat model keeps failing); the message says why."""


# ------------------------------------------------------------------------------------------ prompts


def synth_messages(name: str, **values: Any) -> list[BaseMessage]:
    """System and user message of the synthetic-QA prompt ``name`` (``"summary"`` or a style of
    :data:`STYLES`), filled with ``values`` (``text``; for styles also ``combine`` and ``output_format``)."""
    table = prompts._load("synth")
    if name == "summary":
        t = table["summary"]
    elif name in table["styles"]:
        t = table["styles"][name]
    else:
        raise KeyError(
            f"no synthetic-QA prompt {name!r} in lclfqa/prompts/synth.toml; known: summary, {', '.join(STYLES)}"
        )
    out: list[BaseMessage] = []
    if t.get("system"):
        out.append(SystemMessage(prompts.render(t["system"], **values)))
    out.append(HumanMessage(prompts.render(t["user"], **values)))
    return out


def output_format(json_output: bool) -> str:
    """The output-format rule of the generator prompts: JSON pairs, or the paper's bullet points."""
    return prompts.render(prompts._load("synth")["format"]["json" if json_output else "bullets"])


# -------------------------------------------------------------------------------------- page chunks


@dataclass(frozen=True)
class PageChunk:
    """The text printed on one page of one document (``part`` > 0: a further piece of an over-long page)."""

    document: str
    page: int
    text: str
    part: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"document": self.document, "page": self.page, "text": self.text}


_MARKUP = re.compile(r"[ \t]*\n?</?(?:section-header|footnote|chunk|reference|information)\b[^>]*>\n?", re.I)
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def clean_text(text: str) -> str:
    """``text`` without the tags ingest and the prompts use (``<section-header>``, ``<footnote>``, …),
    keeping what they enclose; trailing spaces and runs of blank lines collapsed."""
    text = _MARKUP.sub("\n", text)
    text = "\n".join(line.rstrip() for line in text.splitlines())
    return _BLANK_RUNS.sub("\n\n", text).strip()


def page_chunks(index: Index, *, min_chars: int = 200, max_chars: int = 4000) -> list[PageChunk]:
    """One chunk per (document, page) of ``index``, in document order: the page's section children, then
    its footnotes. Pages with fewer than ``min_chars`` characters of text are skipped; a page longer than
    ``max_chars`` is split at child boundaries into parts."""
    from lclfqa.ingest.document import CHILD, FOOTNOTE

    # document -> page -> (section texts, footnote texts), in the order the chunks were written
    pages: dict[str, dict[int, tuple[list[str], list[str]]]] = {}
    for c in index.chunks():
        if c.kind not in (CHILD, FOOTNOTE):
            continue
        text = clean_text(c.text)
        if text:
            body, notes = pages.setdefault(c.document, {}).setdefault(c.page_start, ([], []))
            (body if c.kind == CHILD else notes).append(text)
    out: list[PageChunk] = []
    for document, by_page in pages.items():
        for page in sorted(by_page):
            body, notes = by_page[page]
            parts = [p for p in _pack([*body, *notes], max_chars) if len(p) >= min_chars]
            out.extend(PageChunk(document, page, text, part) for part, text in enumerate(parts))
    return out


def _pack(texts: list[str], max_chars: int) -> list[str]:
    """``texts`` joined by blank lines into parts of at most ``max_chars`` (a longer single text stays whole)."""
    parts: list[str] = []
    for t in texts:
        if parts and len(parts[-1]) + 2 + len(t) <= max_chars:
            parts[-1] += "\n\n" + t
        else:
            parts.append(t)
    return parts


def format_chunks(chunks: Sequence[PageChunk], max_chars: int | None = None) -> str:
    """The ``{text}`` of a prompt: each chunk inside ``<chunk></chunk>``, cut at ``max_chars``."""
    out = []
    for c in chunks:
        text = c.text if max_chars is None or len(c.text) <= max_chars else c.text[:max_chars].rstrip() + " …"
        out.append(f"<chunk>\n{text}\n</chunk>")
    return "\n".join(out)


# ------------------------------------------------------------------------------------------- k-means


def kmeans(points: np.ndarray, k: int, *, seed: int = 0, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's k-means with k-means++ initialisation; returns ``(labels, centroids)``.

    Deterministic for a given ``seed``. Labels are renumbered in order of first appearance (point 0 is in
    cluster 0), so equal partitions give equal labels. An emptied cluster takes the point farthest from its
    centroid. ``k`` must be between 1 and the number of points.
    """
    x = np.asarray(points, dtype=np.float64)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"points must be a non-empty 2-D array; got shape {x.shape}")
    n = len(x)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of points ({n}); got {k}")
    rng = np.random.default_rng(seed)
    sq = np.einsum("ij,ij->i", x, x)

    def distances(centroids: np.ndarray) -> np.ndarray:
        d = sq[:, None] - 2.0 * (x @ centroids.T) + np.einsum("ij,ij->i", centroids, centroids)[None, :]
        return np.maximum(d, 0.0)

    # k-means++: each next centre drawn with probability proportional to the squared distance to the nearest
    chosen = [int(rng.integers(n))]
    nearest = distances(x[chosen])[:, 0]
    for _ in range(1, k):
        total = nearest.sum()
        if total > 0:
            nxt = int(rng.choice(n, p=nearest / total))
        else:  # every point sits on a centre already (duplicates): any point not yet chosen
            nxt = next(i for i in range(n) if i not in chosen)
        chosen.append(nxt)
        nearest = np.minimum(nearest, distances(x[[nxt]])[:, 0])
    centroids = x[chosen].copy()

    labels = np.full(n, -1)
    for _ in range(max_iter):
        d = distances(centroids)
        new = d.argmin(axis=1)
        for c in range(k):  # an empty cluster takes the point farthest from its own centroid
            if not np.any(new == c):
                far = int(d[np.arange(n), new].argmax())
                new[far] = c
                d[far, :] = 0.0
        if np.array_equal(new, labels):
            break
        labels = new
        centroids = np.vstack([x[labels == c].mean(axis=0) for c in range(k)])
    order = {int(old): i for i, old in enumerate(dict.fromkeys(labels.tolist()))}
    relabel = np.array([order[int(v)] for v in labels])
    return relabel, centroids[[old for old in order]]


def pick_cluster(sizes: Sequence[int], n: int, rng: random.Random) -> tuple[int, int]:
    """A random cluster with at least ``n`` members, as the paper picks it: a cluster at random, and while
    it is too small another not yet tried. Returns ``(cluster, clusters rejected)``; :class:`SynthError`
    when no cluster is large enough."""
    untried = list(range(len(sizes)))
    rejected = 0
    while untried:
        c = untried.pop(rng.randrange(len(untried)))
        if sizes[c] >= n:
            return c, rejected
        rejected += 1
    raise SynthError(f"no cluster has {n} pages (sizes: {list(sizes)}); use fewer clusters or fewer chunks")


# ------------------------------------------------------------------------------------------- parsing


class QAPair(NamedTuple):
    question: str
    answer: str


_MARK = re.compile(
    r"^[ \t]*(?:[-*•+][ \t]*|\d+[.)][ \t]*)?(?:\*\*|__)?[ \t]*(question|answer|q|a)[ \t]*(\d+)?[ \t]*"
    r"(?:\*\*|__)?[ \t]*:[ \t]*(?:\*\*|__)?",
    re.I | re.M,
)


def _clean_field(text: str) -> str:
    """A question or answer as the model wrote it, without indentation, blank-line runs or bold markers."""
    text = "\n".join(line.strip() for line in text.strip().splitlines())
    text = re.sub(r"\n{3,}", "\n\n", text)
    for wrap in ("**", "__"):  # a bold marker the model opened or closed around the field
        if text.startswith(wrap) and text.endswith(wrap) and len(text) > 4:
            text = text[2:-2].strip()
    return text.strip().strip("*_").strip()


def _json_pairs(text: str) -> list[QAPair] | None:
    obj = json_object(text)
    if obj is None:
        return None
    items = obj.get("pairs")
    if items is None and "question" in obj:
        items = [obj]
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("question"), str) and isinstance(item.get("answer"), str):
            out.append(QAPair(_clean_field(item["question"]), _clean_field(item["answer"])))
    return out


def _bullet_pairs(text: str) -> list[QAPair]:
    marks = list(_MARK.finditer(text))
    out: list[QAPair] = []
    question: str | None = None
    for i, m in enumerate(marks):
        body = _clean_field(text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)])
        if m.group(1).lower().startswith("q"):
            question = body  # a question without an answer is replaced by the next one
        elif question is not None:
            out.append(QAPair(question, body))
            question = None
    return out


def parse_qa_pairs(text: str, limit: int = PAIRS_PER_CALL) -> list[QAPair]:
    """The QA pairs in a generator's output: JSON ``{"pairs": [{"question", "answer"}]}`` (bare, fenced or in
    prose), else the paper's bullets ``Question 1: … / Answer 1: …`` (``Q1:``/``**Question 1:**`` too; an
    answer may run over several lines). Pairs with an empty question or answer are dropped, at most
    ``limit`` are kept. Never raises: unreadable output gives ``[]``."""
    if not isinstance(text, str) or not text.strip():
        return []
    pairs = _json_pairs(text)
    if not pairs:
        pairs = _bullet_pairs(text)
    return [p for p in pairs if p.question and p.answer][:limit]


def question_key(question: str) -> str:
    """What makes two questions the same: case, whitespace and end punctuation ignored."""
    return re.sub(r"\s+", " ", question).strip().rstrip("?.!: ").casefold()


# ------------------------------------------------------------------------------------------ evidence

_SENTENCE_END = re.compile(r"(?<=[.!?;])[\"”’)]*\s+|\n+")
_QUOTED = re.compile(r"[\"“]([^\"“”]{20,})[\"”]")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\(?\w{1,3}[.)])\s+")


def verbatim_quotes(answer: str, pages: Sequence[PageChunk], min_words: int = 6) -> list[dict[str, Any]]:
    """Evidence ``{document, page, quote}`` for each sentence (or quoted passage) of ``answer`` that is printed
    verbatim on one of ``pages``, whitespace aside; quotes are whitespace-normalised, each kept once."""
    candidates = [m.group(1) for m in _QUOTED.finditer(answer)]
    candidates += [_BULLET.sub("", s) for s in _SENTENCE_END.split(answer)]
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    haystacks = [(p, _normalize(p.text)) for p in pages]
    for raw in candidates:
        quote = _normalize(raw).strip(" \"“”'‘’*_")
        if len(quote.split()) < min_words:
            continue
        for variant in (quote, quote.rstrip(".;:,")):
            if variant in seen:
                break
            hit = next(((p, variant) for p, h in haystacks if variant in h), None)
            if hit is not None:
                seen.add(variant)
                found.append({"document": hit[0].document, "page": hit[0].page, "quote": variant})
                break
    return found


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# --------------------------------------------------------------------------------------------- config


@dataclass(frozen=True)
class SynthConfig:
    """Settings of one generation run (LCLF-QA Appendix A: budget ``b``, clusters ``k``, chunks ``n``)."""

    budget: int = 20
    clusters: int = 5
    chunks_per_question: int = 2
    styles: tuple[str, ...] = STYLES
    seed: int = 0
    max_pages: int | None = None
    #: pages with less text than this are skipped
    min_page_chars: int = 200
    #: a page longer than this is split into parts (and a summary prompt never sees more)
    max_chunk_chars: int = 4000
    summary_tokens: int = 256
    qa_tokens: int = 1024
    #: generator calls allowed in all (malformed or duplicate output costs calls); default 3 per call needed
    max_calls: int | None = None
    id_prefix: str = "SYN"

    def __post_init__(self) -> None:
        for name in ("budget", "clusters", "chunks_per_question", "max_chunk_chars", "summary_tokens", "qa_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1; got {getattr(self, name)!r}")
        if self.max_pages is not None and self.max_pages < 1:
            raise ValueError(f"max_pages must be at least 1; got {self.max_pages!r}")
        if self.max_calls is not None and self.max_calls < 1:
            raise ValueError(f"max_calls must be at least 1; got {self.max_calls!r}")
        if self.min_page_chars < 0:
            raise ValueError(f"min_page_chars must not be negative; got {self.min_page_chars!r}")
        unknown = [s for s in self.styles if s not in STYLES]
        if unknown or not self.styles:
            raise ValueError(f"unknown question style(s) {unknown or '(none given)'}; known: {', '.join(STYLES)}")

    @property
    def call_limit(self) -> int:
        return self.max_calls or 3 * math.ceil(self.budget / PAIRS_PER_CALL)


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


def _style_rounds(styles: Sequence[str], rng: random.Random) -> Iterator[str]:
    """Styles in shuffled rounds: each style once per round, the order of each round random."""
    while True:
        order = list(styles)
        rng.shuffle(order)
        yield from order


def _combine(n: int) -> str:
    return "at least two of the chunks" if n >= 2 else "the chunk"


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
    from lclfqa.llm.models import embed_array

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
    styles = _style_rounds(config.styles, rng)
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
        messages = synth_messages(style, text=format_chunks(sources), combine=_combine(n), output_format=fmt)
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


# -------------------------------------------------------------------------------------------- output


def write_jsonl(records: Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write ``records`` as JSON Lines to ``path`` atomically (a temporary file next to it, then
    ``os.replace``): a crash leaves the old file or none, never half of one. Creates the parent folder."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
