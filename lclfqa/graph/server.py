"""The graph as a LangGraph server serves it: ``langgraph.json`` names :func:`make_graph`.

``langgraph dev`` (``pip install -e ".[server]"``) imports this module and calls the factory for each run;
the server brings threads, checkpoints, streaming and the LangGraph SDK / Studio as clients. What the
in-process :class:`~lclfqa.graph.build.QAGraph` gets as arguments comes from the server's environment:

- ``LCLFQA_INDEX``: the index directory (default ``.lclfqa/index``, relative to where the server starts);
- ``LCLFQA_CONFIG``: an optional TOML settings file;
- ``LCLFQA_<FIELD>``: any field of :class:`~lclfqa.config.Settings` (``LCLFQA_CHAT_MODEL=local-tiny``,
  ``LCLFQA_CHAT_MODEL=openai:NAME`` with ``LCLFQA_OPENAI_BASE_URL``, ``LCLFQA_TOP_K=4``, …).

A client may change a few question-answering settings per run with the run's ``context``
(``client.runs.stream(thread_id, "lclf", input=..., context={"top_k": 4, "pipeline": "rag"})``), the
fields of :class:`ServedContext`; the index and the models stay those of the server. The index and models
load once per server process, at the first run, and are shared by every run and thread. Nothing here blocks
the server's event loop: files are read when the module is imported.
"""

from __future__ import annotations

import os
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph

from lclfqa import environment
from lclfqa.config import DEFAULT_INDEX, Pipeline, Reader, Settings
from lclfqa.graph.context import Plan, QAContext, Resources
from lclfqa.graph.tracing import trace_config

# A run's context is built on the server's event loop, where `langgraph dev` refuses blocking calls (file
# reads, even os.getcwd). So the files are read when the module is imported (the server imports it in a
# worker thread), and what they gave, or the error, is kept per environment.
_served: dict[tuple[tuple[str, str], ...], tuple[Settings, Path] | Exception] = {}
_resources: dict[tuple[tuple[str, str], ...], Resources] = {}
_served_lock = threading.Lock()


def _environment() -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("LCLFQA_")))


def served_settings(env: dict[str, str] | None = None) -> Settings:
    """The server's settings: defaults, then ``LCLFQA_CONFIG`` (a TOML file), then ``LCLFQA_*`` variables."""
    env = dict(os.environ if env is None else env)
    config = env.pop("LCLFQA_CONFIG", None)
    env.pop("LCLFQA_INDEX", None)  # not a Settings field
    return Settings.load(config or None, env=env)


def served_index(env: dict[str, str] | None = None) -> Path:
    """The index directory the server answers from (``LCLFQA_INDEX``)."""
    env = os.environ if env is None else env
    return Path(env.get("LCLFQA_INDEX") or DEFAULT_INDEX)


def _load_served() -> tuple[Settings, Path]:
    """Settings and the resolved index directory for the current environment (reads files once)."""
    key = _environment()
    with _served_lock:
        if key not in _served:
            try:
                index = served_index().resolve()
                if not index.is_dir():
                    raise FileNotFoundError(
                        f"no index at {index}: set LCLFQA_INDEX to a directory made by "
                        "`lclfqa ingest PATH --index DIR` before starting the server"
                    )
                _served[key] = (served_settings(), index)
            except (OSError, ValueError) as exc:
                _served[key] = exc
        found = _served[key]
    if isinstance(found, Exception):
        raise found
    return found


def served_resources() -> Resources:
    """The process's index and models (loaded at the first run that needs them), one per environment."""
    settings, index = _load_served()
    key = _environment()
    with _served_lock:
        if key not in _resources:
            _resources[key] = Resources(index, settings)
        return _resources[key]


@dataclass
class ServedContext:
    """What a run's ``context`` may set; ``None`` (or leaving it out) keeps the server's setting.

    LangGraph coerces the run's context dict into this class (unknown keys are filtered out by the server)
    and hands it to every node as ``runtime.context``; it offers what the nodes read from a
    :class:`~lclfqa.graph.context.QAContext`: ``settings``, ``resources`` and ``plan``.
    """

    pipeline: Pipeline | None = field(default=None, metadata={"help": "'lclf', 'longrag' or 'rag'"})
    rewrites: int | None = field(default=None, metadata={"help": "query2doc rewrites: 0, 1 or 3"})
    reader: Reader | None = field(default=None, metadata={"help": "'domain' or 'basic' reader"})
    top_k: int | None = field(default=None, metadata={"help": "child chunks retrieved per question"})
    document_scope: bool | None = field(default=None, metadata={"help": "search only the documents a question names"})
    max_answer_tokens: int | None = field(default=None, metadata={"help": "longest answer the reader may write"})

    def __post_init__(self) -> None:
        resources = served_resources()
        settings = resources.settings.with_overrides(**asdict(self))
        self._context = QAContext(settings, resources)

    @property
    def settings(self) -> Settings:
        return self._context.settings

    @property
    def resources(self) -> Resources:
        return self._context.resources

    @property
    def plan(self) -> Plan:
        return self._context.plan


def overrides_of(config: RunnableConfig | None) -> dict[str, Any]:
    """The :class:`ServedContext` fields a run set (the server mirrors a run's context into ``configurable``)."""
    configurable = (config or {}).get("configurable") or {}
    names = {f.name for f in fields(ServedContext)}
    return {k: v for k, v in configurable.items() if k in names and v is not None}


def make_graph(config: RunnableConfig) -> CompiledStateGraph:
    """The graph ``langgraph.json`` serves: the question-answering graph with a :class:`ServedContext`.

    The server calls this for every run (and for schema reads); building the graph takes milliseconds, the
    index and models are loaded once. Each run is tagged with its pipeline and model for LangSmith
    (:mod:`lclfqa.graph.tracing`). Telemetry of the libraries is off (:func:`lclfqa.environment.configure`).
    """
    from lclfqa.graph.build import build_graph

    environment.configure()
    try:
        settings, index = _load_served()
    except (OSError, ValueError):  # schema reads work without an index; a run says what is missing
        settings, index = Settings(), served_index()
    settings = settings.with_overrides(**overrides_of(config))
    graph = build_graph(parallel=settings.parallel, context_schema=ServedContext)
    return graph.with_config(trace_config(settings, index))


try:  # read the settings file and resolve the index now, off the server's event loop (see above)
    _load_served()
except (OSError, ValueError):
    pass  # kept, and raised at the first run
