"""One typed settings object for ingest and question answering.

Values come, in rising precedence, from the defaults below, a TOML file (``--config``), environment
variables ``LCLFQA_<FIELD>`` and command-line flags. The graph receives the same object as LangGraph
context, never as a global.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_args

FootnoteChunks = Literal["page", "footnote"]
Chunking = Literal["layout", "plain"]
Pipeline = Literal["lclf", "longrag", "rag", "rag+"]
Reader = Literal["domain", "basic"]
IndexBackendName = Literal["embedded", "milvus"]

DEFAULT_INDEX = Path(".lclfqa/index")
"""The index every command, the server and :func:`lclfqa.graph.load_graph` use unless told another."""

DEFAULT_EMBEDDER = "local:all-MiniLM-L6-v2"
"""A new index's embedder unless one is named: the bundled MiniLM in float32 (sentence-transformers'
vectors). ``local:all-MiniLM-L6-v2-int8`` embeds 1.7x faster with retrieval within 0.01, but on the dev set
the lclf answers it led to stated fewer key facts (0.538 -> 0.429: the same children, ranked in another
order, showed the model its references in another order), so it is not the default (benchmarks/README.md)."""

LOCAL_EMBEDDER_INT8 = "local:all-MiniLM-L6-v2-int8"
"""The bundled MiniLM with int8 matrix products (:mod:`lclfqa.llm.minilm`)."""

EMBEDDER_REVISIONS: dict[str, str] = {LOCAL_EMBEDDER_INT8: "int8-per-token"}
"""What besides its name decides an embedder's vectors, for the embedders whose vectors changed between
lclfqa versions (the int8 MiniLM: one scale per batch until 2026-11-29, one per token since). Ingest records
it in the index (``embedder_revision``); an index of another revision is refused, for its vectors no longer
match the queries' (:func:`lclfqa.index.factory.open_index`). Embedders not named here have revision ``""``."""


READ_STAGES: dict[str, str] = {
    "cite": "each sentence cited to the quotes that hold its figures and words",
    "support": "sentences still unsupported (figures, words, markers, opinions named) are removed",
    "verdict": "the yes/no (true/false) verdict call, and the answer opening with its verdict",
    "sources": "each part of the question the answer leaves open gets its nearest quote, verbatim",
    "refuse": "an answer with no cited sentence left is the refusal; a refusal beside an answer is dropped",
}
"""Every post-processing stage of ``read`` that ``--ablations`` can switch off, and what it does."""


def setting(default: Any, help_text: str) -> Any:
    """A settings field: its default and the one-line help that ``--help`` and the config docs show."""
    return field(default=default, metadata={"help": help_text})


@dataclass(frozen=True)
class Settings:
    # --- chunking (LCLF-QA §3.2)
    parent_size: int = setting(2000, "L: sections merge into a parent until it reaches L characters")
    child_size: int = setting(500, "target size of a child chunk in characters")
    footnote_chunks: FootnoteChunks = setting(
        "footnote", "one footnote child per footnote (measured better: benchmarks/README.md) or per page"
    )
    chunking: Chunking = setting(
        "layout",
        "'layout' (sections, footnote chunks linked to parents; LCLF-QA §3.2) or 'plain' (ablation H3: "
        "fixed-size recursive chunks of the page text, no sections or footnote links)",
    )
    # --- document prefixes (Summary-Augmented Chunking, Reuter et al.)
    metadata_prefix: bool = setting(True, "prefix each child's indexed text with its document name")
    summaries: bool = setting(False, "ask the chat model for a ~150-character summary per document")
    summary_chars: int = setting(150, "target length of a document summary")
    # --- models
    embedding_model: str | None = setting(
        None,
        "'local:all-MiniLM-L6-v2' (bundled MiniLM, float32), 'local:all-MiniLM-L6-v2-int8' (the same with "
        "per-token int8 products: 1.7x faster ingest) or 'openai:<model>' (needs OPENAI_API_KEY); unset: an "
        "existing index's own embedder, else the float32 one",
    )
    chat_model: str = setting("local", "'local', 'local-tiny', 'openai:<model>' or 'replay:<FILE.jsonl>'")
    openai_base_url: str | None = setting(None, "OpenAI-compatible endpoint (vLLM, Ollama, Azure)")
    embed_batch_size: int = setting(64, "texts per embedding batch")
    llm_timeout: float = setting(300.0, "seconds one LLM call may take")
    llm_max_retries: int = setting(3, "retries (with backoff) on rate limits and timeouts")
    llm_cache: str | None = setting(None, "SQLite file caching LLM responses (eval reruns cost nothing)")
    n_ctx: int = setting(8192, "context window of the local model in tokens")
    n_threads: int | None = setting(None, "CPU threads for the local model (all cores)")
    n_batch: int = setting(
        512, "tokens the local model evaluates per batch of the prompt (answers must not depend on it)"
    )
    # --- question answering (LCLF-QA §3.3-3.5)
    pipeline: Pipeline = setting(
        "lclf",
        "'lclf' (the paper), 'longrag' (no rewriter/footnotes, basic reader), 'rag' (retrieve and read, "
        "same reader and instruction) or 'rag+' (rag with the source's words lclf adds)",
    )
    rewrites: int | None = setting(
        None,
        "query2doc rewrites: 0 (rewriter off), 1 or 3; unset: 3 with an API model, 0 with the local "
        "models, where they cost ~25 s a question and did not raise retrieval (benchmarks/README.md)",
    )
    reader: Reader = setting("domain", "'domain' (key legal phrases) or 'basic' reader")
    stages_off: str = setting(
        "",
        "comma-separated post-processing stages of the reader to switch off, for ablations (READ_STAGES: "
        "cite, support, verdict, sources, refuse)",
    )
    top_k: int = setting(8, "child chunks retrieved per question")
    document_scope: bool = setting(
        True,
        "a question that names indexed documents ('In Dobbs, …', 'Under the Inflation Reduction Act, "
        "…') is searched in those documents only, without its naming clause (lclfqa/index/scope.py)",
    )
    retrieval_depth: int = setting(50, "candidates per BM25/dense list before fusion")
    rrf_k: int = setting(60, "Reciprocal Rank Fusion constant (lambda)")
    sparse_weight: float = setting(1.0, "RRF weight of every BM25 list")
    dense_weight: float = setting(1.0, "RRF weight of every dense list")
    context_chars: int = setting(8000, "budget of parent text (characters) given to the extractor")
    nearest_quotes: int = setting(
        3,
        "sentences nearest the question (by embedding) added to the extractor's quotes when it did not "
        "pick them (0: the model's picks only; benchmarks/README.md)",
    )
    min_answer_support: float = setting(
        0.5,
        "share of an answer sentence's content words that must occur in the quotes or the question, or "
        "the sentence is removed as unfounded (0: off; lclfqa/graph/answer/check.py)",
    )
    cot_filter: bool = setting(
        True,
        "the CoT filter call before the extractor (lclf, longrag); off: the extractor reads the retrieved "
        "children directly and the reader is told they are relevant, as rag's is",
    )
    extractor: bool = setting(
        True,
        "the extractor call after the CoT filter (lclf, longrag); off: the reader reads the retrieved "
        "children in the filter's own prompt (evaluated once for filter, verdict and answer), as rag+ does",
    )
    filter_thought: bool = setting(
        True,
        "the CoT filter writes a short thought before its booleans (LongRAG's chain of thought); off: it "
        "gives the booleans and whether the references answer, nothing before them",
    )
    parallel: bool = setting(
        False,
        "run the CoT filter and the extractor in parallel (API models); off: the extractor continues the "
        "filter's conversation, so a local model evaluates the shared references once",
    )
    max_answer_tokens: int = setting(
        280, "longest answer the reader may write, in tokens (gold answers: 300-900 characters)"
    )
    # --- where the index lives (lclfqa/index/factory.py; docs/scaling.md)
    index_backend: IndexBackendName = setting(
        "embedded",
        "'embedded' (files in the --index folder: SQLite, bm25s, FAISS) or 'milvus' (Milvus Lite in a "
        "local .db file, or a Milvus server/cluster at milvus_uri)",
    )
    milvus_uri: str | None = setting(
        None,
        "Milvus to use with index_backend 'milvus': a local file path ending in .db (Milvus Lite) or "
        "http(s)://host:19530 (a server); unset: milvus.db inside the --index folder",
    )
    milvus_token: str | None = field(
        default=None,
        repr=False,
        metadata={"help": "Milvus credentials ('user:password' or an API key); prefer LCLFQA_MILVUS_TOKEN"},
    )
    milvus_prefix: str = setting(
        "lclfqa", "prefix of the Milvus collection names (<prefix>_chunks, _parents, _documents)"
    )
    # --- the fast path (lclfqa serve; docs/serving.md)
    server_url: str | None = setting(
        None,
        "a running `lclfqa serve` (http://127.0.0.1:8765) that `ask` sends its question to, models already "
        "loaded; unset, unreachable or holding another index: `ask` answers in-process",
    )
    # --- limits on every input (a file over a limit is skipped with a message naming the limit)
    max_file_mb: float = setting(200.0, "largest source file ingest reads, in MB (1 MB = 1,000,000 bytes)")
    max_pages: int = setting(5000, "most pages one document may have")
    max_chars: int = setting(
        10_000_000, "most characters of text one document may have (memory grows ~35 bytes per character)"
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_type(f.name, getattr(self, f.name), f.type)
        choices = {
            "footnote_chunks": FootnoteChunks,
            "chunking": Chunking,
            "pipeline": Pipeline,
            "reader": Reader,
            "index_backend": IndexBackendName,
        }
        for name, kind in choices.items():
            allowed = get_args(kind)
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")
        unknown = sorted({x.strip() for x in self.stages_off.split(",") if x.strip()} - set(READ_STAGES))
        if unknown:
            raise ValueError(f"stages_off: unknown stage(s) {', '.join(unknown)}; known: {', '.join(READ_STAGES)}")
        model = self.chat_model
        named = model.startswith(("openai:", "replay:")) and model.split(":", 1)[1].strip()
        if model not in ("local", "local-tiny") and not named:  # said here, not at the first question
            raise ValueError(
                f"chat_model: unknown chat model {model!r}; use 'local', 'local-tiny', 'openai:<model>' or "
                "'replay:<FILE.jsonl>'"
            )
        if self.rewrites not in (None, 0, 1, 3):
            raise ValueError(f"rewrites must be 0, 1 or 3; got {self.rewrites!r}")
        if not 0 <= self.min_answer_support <= 1:
            raise ValueError(f"min_answer_support must be 0 to 1; got {self.min_answer_support!r}")
        if not 0 <= self.nearest_quotes <= MAX_NEAREST_QUOTES:
            raise ValueError(f"nearest_quotes must be 0 to {MAX_NEAREST_QUOTES}; got {self.nearest_quotes!r}")
        for name in _POSITIVE:
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive; got {getattr(self, name)!r}")
        for name in ("sparse_weight", "dense_weight"):
            if not 0 <= getattr(self, name) < float("inf"):
                raise ValueError(f"{name} must be a number >= 0 (an RRF weight); got {getattr(self, name)!r}")
        if self.child_size > self.parent_size:
            raise ValueError(
                f"child_size ({self.child_size}) must not exceed parent_size ({self.parent_size}): a child is a "
                "piece of a parent; lower child_size or raise parent_size"
            )

    def embedder(self, index_model: str = "") -> str:
        """The embedding model to use: ``embedding_model`` when set; unset, ``index_model`` (the model an
        existing index was built with, so that adding documents to it never needs the flag), else the
        default for a new index (``DEFAULT_EMBEDDER``)."""
        return self.embedding_model or index_model or DEFAULT_EMBEDDER

    @property
    def query_rewrites(self) -> int:
        """The rewrites the graph makes: ``rewrites``, or its default for the chat model (see the field)."""
        if self.rewrites is not None:
            return self.rewrites
        # the expert-answer replay wraps the local model: it retrieves as the local model does
        return 0 if self.chat_model.startswith(("local", "replay:")) else 3

    def as_record(self) -> dict[str, Any]:
        """Every field as a JSON-ready dict for run records, secrets (``milvus_token``) left out."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _SECRETS}

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
            try:
                with open(path, "rb") as f:
                    values = tomllib.load(f)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(f"{path}: not valid TOML ({exc})") from None
            except UnicodeDecodeError:
                raise ValueError(f"{path}: not a TOML settings file (not UTF-8 text)") from None
            except OSError as exc:
                raise ValueError(f"{path}: cannot read the settings file ({exc.strerror or exc})") from None
            try:
                settings = settings.with_overrides(**values)
            except ValueError as exc:
                raise ValueError(f"{path}: {exc}") from None
        env = os.environ if env is None else env
        from_env: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"LCLFQA_{f.name.upper()}")
            if raw is not None and raw.strip():  # an empty variable (`LCLFQA_X=`, compose's unset ${X}) is unset
                from_env[f.name] = _coerce(raw, f.type, f"LCLFQA_{f.name.upper()}")
        try:
            settings = settings.with_overrides(**from_env)
        except ValueError as exc:  # name the variable the value came from: the user set it, not a field
            named = [n for n in from_env if str(exc).startswith(n)]
            if not named:
                raise
            raise ValueError(f"LCLFQA_{named[0].upper()}={env[f'LCLFQA_{named[0].upper()}']!r}: {exc}") from None
        return settings.with_overrides(**overrides)


MAX_NEAREST_QUOTES = 10
_SECRETS = frozenset({"milvus_token"})
_POSITIVE = (
    "parent_size",
    "child_size",
    "summary_chars",
    "embed_batch_size",
    "n_batch",
    "top_k",
    "retrieval_depth",
    "context_chars",
    "max_answer_tokens",
    "max_file_mb",
    "max_pages",
    "max_chars",
    "rrf_k",
)
_LITERALS = {
    "FootnoteChunks": FootnoteChunks,
    "Chunking": Chunking,
    "Pipeline": Pipeline,
    "Reader": Reader,
    "IndexBackendName": IndexBackendName,
}


def _check_type(name: str, value: Any, type_name: Any) -> None:
    """Raise ``ValueError`` naming the setting when ``value`` is not of the field's declared type.

    A TOML file can say ``top_k = "eight"``; that must be one clear line, not a ``TypeError`` deep in
    the graph. Integers are accepted for float fields; booleans are not numbers here.
    """
    declared = str(type_name)
    options = [t.strip() for t in declared.split("|")]
    if value is None and "None" in options:
        return
    for t in options:
        if t in _LITERALS and isinstance(value, str):
            return  # the allowed values are checked with their list in __post_init__
        if t == "str" and isinstance(value, str):
            return
        if t == "bool" and isinstance(value, bool):
            return
        if t == "int" and isinstance(value, int) and not isinstance(value, bool):
            return
        if t == "float" and isinstance(value, int | float) and not isinstance(value, bool):
            return
    wanted = " or ".join("a string" if t in _LITERALS else _TYPE_WORDS.get(t, t) for t in options)
    raise ValueError(f"setting {name} must be {wanted}; got {value!r} ({type(value).__name__})")


_TYPE_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "None": "unset",
}


def embedder_known(name: str) -> bool:
    """Whether ``name`` is an embedding model lclfqa can build: the bundled MiniLM (float32 or int8) or
    ``openai:<model>`` (library callers may name their own embedders, passed in as objects)."""
    return name in ("local", DEFAULT_EMBEDDER, LOCAL_EMBEDDER_INT8) or (
        name.startswith("openai:") and bool(name.split(":", 1)[1].strip())
    )


EMBEDDER_NAMES = f"{DEFAULT_EMBEDDER!r}, {LOCAL_EMBEDDER_INT8!r} or 'openai:<model>'"


OTHER_VARIABLES = frozenset({"LCLFQA_CONFIG", "LCLFQA_INDEX", "LCLFQA_CACHE_DIR"})
"""``LCLFQA_*`` variables that are not settings: the server's settings file and index, the weights' cache."""


def unknown_variables(env: dict[str, str] | None = None) -> list[str]:
    """``LCLFQA_*`` variables in ``env`` (default: the process's) that name no setting, each with the setting's
    variable it is closest to ("LCLFQA_TOPK (LCLFQA_TOP_K?)"): a mistyped name is otherwise ignored."""
    import difflib

    known = {f"LCLFQA_{f.name.upper()}" for f in fields(Settings)} | OTHER_VARIABLES
    out = []
    for name in sorted(n for n in (os.environ if env is None else env) if n.startswith("LCLFQA_")):
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            out.append(f"{name} ({close[0]}?)" if close else name)
    return out


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _coerce(raw: str, type_name: Any, name_of_env: str) -> Any:
    """An ``LCLFQA_*`` variable's text as the setting's type; a value that is none of it is a ``ValueError``
    naming the variable (a mistyped "ture" must not quietly turn a setting off)."""
    t = str(type_name)
    if t.startswith("bool"):
        word = raw.strip().lower()
        if word not in _TRUE | _FALSE:
            raise ValueError(f"{name_of_env} must be true or false (1/0, yes/no, on/off); got {raw!r}")
        return word in _TRUE
    try:
        if t.startswith("int"):
            return int(raw)
        if t.startswith("float"):
            return float(raw)
    except ValueError:
        raise ValueError(f"{name_of_env} must be a number; got {raw!r}") from None
    return raw


def record_digest(record: dict[str, Any], leave_out: frozenset[str] = frozenset()) -> str:
    """A short hash of a settings record (:meth:`Settings.as_record`) without the fields ``leave_out``: what
    ``lclfqa serve`` shows in ``GET /health`` and what ``eval qa`` compares before it resumes a batch."""
    kept = {k: v for k, v in record.items() if k not in leave_out}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()[:12]
