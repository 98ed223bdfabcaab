"""One typed settings object for ingest and question answering.

Values come, in rising precedence, from the defaults below, a TOML file (``--config``), environment
variables ``LCLFQA_<FIELD>`` and command-line flags. The graph receives the same object as LangGraph
context, never as a global.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

FootnoteChunks = Literal["page", "footnote"]
Chunking = Literal["layout", "plain"]
Pipeline = Literal["lclf", "longrag", "rag"]
Reader = Literal["domain", "basic"]


@dataclass(frozen=True)
class Settings:
    # --- chunking (LCLF-QA §3.2)
    parent_size: int = field(
        default=2000, metadata={"help": "L: sections merge into a parent until it reaches L characters"}
    )
    child_size: int = field(default=500, metadata={"help": "target size of a child chunk in characters"})
    footnote_chunks: FootnoteChunks = field(
        default="footnote",
        metadata={"help": "one footnote child per footnote (measured better: benchmarks/README.md) or per page"},
    )
    chunking: Chunking = field(
        default="layout",
        metadata={
            "help": "'layout' (sections, footnote chunks linked to parents; LCLF-QA §3.2) or 'plain' (ablation H3: "
            "fixed-size recursive chunks of the page text, no sections or footnote links)"
        },
    )
    # --- document prefixes (Summary-Augmented Chunking, Reuter et al.)
    metadata_prefix: bool = field(
        default=True, metadata={"help": "prefix each child's indexed text with its document name"}
    )
    summaries: bool = field(
        default=False, metadata={"help": "ask the chat model for a ~150-character summary per document"}
    )
    summary_chars: int = field(default=150, metadata={"help": "target length of a document summary"})
    # --- models
    embedding_model: str = field(
        default="local:all-MiniLM-L6-v2",
        metadata={"help": "'local:all-MiniLM-L6-v2' (bundled) or 'openai:<model>' (needs OPENAI_API_KEY)"},
    )
    chat_model: str = field(default="local", metadata={"help": "'local', 'local-tiny' or 'openai:<model>'"})
    openai_base_url: str | None = field(
        default=None, metadata={"help": "OpenAI-compatible endpoint (vLLM, Ollama, Azure)"}
    )
    embed_batch_size: int = field(default=64, metadata={"help": "texts per embedding batch"})
    llm_timeout: float = field(default=300.0, metadata={"help": "seconds one LLM call may take"})
    llm_max_retries: int = field(default=3, metadata={"help": "retries (with backoff) on rate limits and timeouts"})
    llm_cache: str | None = field(
        default=None, metadata={"help": "SQLite file caching LLM responses (eval reruns cost nothing)"}
    )
    n_ctx: int = field(default=8192, metadata={"help": "context window of the local model in tokens"})
    n_threads: int | None = field(default=None, metadata={"help": "CPU threads for the local model (all cores)"})
    # --- question answering (LCLF-QA §3.3-3.5)
    pipeline: Pipeline = field(
        default="lclf",
        metadata={"help": "'lclf' (the paper), 'longrag' (no rewriter/footnotes, basic reader) or 'rag' (naive)"},
    )
    rewrites: int | None = field(
        default=None,
        metadata={
            "help": "query2doc rewrites: 0 (rewriter off), 1 or 3; unset: 3 with an API model, 0 with the local "
            "models, where they cost ~25 s a question and did not raise retrieval (benchmarks/README.md)"
        },
    )
    reader: Reader = field(default="domain", metadata={"help": "'domain' (key legal phrases) or 'basic' reader"})
    top_k: int = field(default=8, metadata={"help": "child chunks retrieved per question"})
    document_scope: bool = field(
        default=True,
        metadata={
            "help": "a question that names indexed documents ('In Dobbs, …', 'Under the Inflation Reduction Act, "
            "…') is searched in those documents only, without its naming clause (lclfqa/scope.py)"
        },
    )
    retrieval_depth: int = field(default=50, metadata={"help": "candidates per BM25/dense list before fusion"})
    rrf_k: int = field(default=60, metadata={"help": "Reciprocal Rank Fusion constant (lambda)"})
    sparse_weight: float = field(default=1.0, metadata={"help": "RRF weight of every BM25 list"})
    dense_weight: float = field(default=1.0, metadata={"help": "RRF weight of every dense list"})
    context_chars: int = field(
        default=8000, metadata={"help": "budget of parent text (characters) given to the extractor"}
    )
    parallel: bool = field(
        default=False,
        metadata={
            "help": "run the CoT filter and the extractor in parallel (API models); off: the extractor continues the "
            "filter's conversation, so a local model evaluates the shared references once"
        },
    )
    max_answer_tokens: int = field(default=600, metadata={"help": "longest answer the reader may write"})

    def __post_init__(self) -> None:
        choices = {"footnote_chunks": FootnoteChunks, "chunking": Chunking, "pipeline": Pipeline, "reader": Reader}
        for name, kind in choices.items():
            allowed = get_args(kind)
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        if self.rewrites not in (None, 0, 1, 3):
            raise ValueError(f"rewrites must be 0, 1 or 3; got {self.rewrites!r}")
        for name in ("parent_size", "child_size", "top_k", "retrieval_depth", "context_chars", "max_answer_tokens"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive; got {getattr(self, name)!r}")

    @property
    def query_rewrites(self) -> int:
        """The rewrites the graph makes: ``rewrites``, or its default for the chat model (see the field)."""
        if self.rewrites is not None:
            return self.rewrites
        return 0 if self.chat_model.startswith("local") else 3

    def with_overrides(self, **values: Any) -> Settings:
        """A copy with the given fields replaced; ``None`` values are ignored (unset CLI flags)."""
        known = {f.name for f in fields(self)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown setting(s): {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
        return replace(self, **{k: v for k, v in values.items() if v is not None})

    @classmethod
    def load(cls, path: str | Path | None = None, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Defaults, then the TOML file, then ``LCLFQA_*`` environment variables, then ``overrides``."""
        settings = cls()
        if path is not None:
            with open(path, "rb") as f:
                settings = settings.with_overrides(**tomllib.load(f))
        env = os.environ if env is None else env
        from_env: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"LCLFQA_{f.name.upper()}")
            if raw is not None:
                from_env[f.name] = _coerce(raw, f.type)
        return settings.with_overrides(**from_env).with_overrides(**overrides)


def _coerce(raw: str, type_name: Any) -> Any:
    t = str(type_name)
    if t.startswith("bool"):
        return raw.strip().lower() in {"1", "true", "yes", "on"}
    if t.startswith("int"):
        return int(raw)
    if t.startswith("float"):
        return float(raw)
    return raw
