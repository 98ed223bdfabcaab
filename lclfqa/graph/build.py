"""The LCLF-QA graph: rewrite → retrieve → expand → filter → extract → read (filter ∥ extract with `parallel`).

``build_graph()`` wires the nodes (one module each in :mod:`lclfqa.graph.nodes`); ``load_graph()`` binds it to
an index, settings and models and returns a :class:`QAGraph`, the object notebooks and the CLI use.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from lclfqa.config import DEFAULT_INDEX, Settings
from lclfqa.graph.context import QAContext, Resources
from lclfqa.graph.evidence.refusal import subject_not_found
from lclfqa.graph.nodes.expand import expand
from lclfqa.graph.nodes.extract import extract_information
from lclfqa.graph.nodes.filter import filter_children
from lclfqa.graph.nodes.read import read
from lclfqa.graph.nodes.retrieve import retrieve
from lclfqa.graph.nodes.rewrite import rewrite
from lclfqa.graph.result import QAResult
from lclfqa.graph.state import QAInput, QAState
from lclfqa.graph.tracing import trace_config
from lclfqa.index.protocol import IndexBackend


def build_graph(
    checkpointer: BaseCheckpointSaver | None = None, *, parallel: bool = False, context_schema: type = QAContext
) -> CompiledStateGraph:
    """The compiled state graph; run it with ``context=QAContext(...)`` (or use :func:`load_graph`).

    ``filter`` then ``extract`` (the extractor continues the filter's conversation, so a local model
    evaluates the shared references once), then ``read``. ``parallel=True`` (pass the settings' value)
    runs filter and extract in the same step instead, for API models; ``read`` waits for both. A
    question citing provisions that no retrieved source mentions goes from ``expand`` straight to
    ``read``, which refuses (:mod:`lclfqa.graph.evidence.refusal`). ``context_schema`` is what LangGraph coerces a
    run's context into; a LangGraph server passes a JSON dict, so :mod:`lclfqa.graph.server` gives one
    that builds the context from it.
    """
    builder = StateGraph(QAState, context_schema=context_schema, input_schema=QAInput)
    builder.add_node("rewrite", rewrite)
    builder.add_node("retrieve", retrieve)
    builder.add_node("expand", expand)
    builder.add_node("filter", filter_children)
    builder.add_node("extract", extract_information)
    builder.add_node("read", read)

    builder.add_edge(START, "rewrite")
    builder.add_edge("rewrite", "retrieve")
    builder.add_edge("retrieve", "expand")
    after_expand = ["filter", "extract"] if parallel else ["filter"]
    builder.add_conditional_edges(
        "expand",
        lambda state: ["read"] if subject_not_found(state) else after_expand,
        ["filter", "extract", "read"],
    )
    if parallel:
        builder.add_edge(["filter", "extract"], "read")
    else:
        builder.add_edge("filter", "extract")
        builder.add_edge("extract", "read")
    builder.add_edge("read", END)
    return builder.compile(checkpointer=checkpointer, name="lclf-qa")


class QAGraph:
    """A compiled graph bound to its context: ``invoke``/``stream`` as on any LangGraph graph.

    ``graph.invoke({"question": "..."})`` returns the final state as a :class:`QAResult`, which renders
    as the answer with its sources in Jupyter. Pass ``config={"configurable": {"thread_id": ...}}`` with a
    checkpointer for multi-turn chat. Anything else is delegated to the compiled graph.
    """

    def __init__(self, graph: CompiledStateGraph, context: QAContext) -> None:
        self.graph = graph
        self.context = context

    @property
    def settings(self) -> Settings:
        return self.context.settings

    def invoke(self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> QAResult:
        """Answer one question; returns the final state."""
        return QAResult(self.graph.invoke(input, config, context=self.context, **kwargs))

    def stream(self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> Iterator[Any]:
        """``CompiledStateGraph.stream`` with this graph's context (``stream_mode="messages"`` streams tokens)."""
        yield from self.graph.stream(input, config, context=self.context, **kwargs)

    async def ainvoke(self, input: dict[str, Any], config: RunnableConfig | None = None, **kwargs: Any) -> QAResult:
        return QAResult(await self.graph.ainvoke(input, config, context=self.context, **kwargs))

    def ask(self, question: str, thread_id: str | None = None) -> QAResult:
        """``invoke({"question": question})``, in chat thread ``thread_id`` if given."""
        config: RunnableConfig | None = {"configurable": {"thread_id": thread_id}} if thread_id else None
        return self.invoke({"question": question}, config)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.graph, name)

    def __repr__(self) -> str:
        return f"QAGraph(index={str(self.context.resources.index_dir)!r}, pipeline={self.settings.pipeline!r})"


def load_graph(
    index_dir: str | Path = DEFAULT_INDEX,
    settings: Settings | None = None,
    *,
    llm: BaseChatModel | None = None,
    embeddings: Embeddings | None = None,
    index: IndexBackend | None = None,
    checkpointer: BaseCheckpointSaver | None = None,
    **overrides: Any,
) -> QAGraph:
    """The question-answering graph over the index in ``index_dir``.

    ``settings`` default to :meth:`Settings.load` (defaults + ``LCLFQA_*`` environment); keyword
    ``overrides`` replace single fields (``load_graph(d, pipeline="rag", top_k=4)``). ``llm`` and
    ``embeddings`` replace the models the settings name (tests pass fakes); by default the embedder is
    the one the index was built with and the chat model is ``settings.chat_model``. Models and index load
    on first use. Runs are named and tagged for LangSmith (:func:`~lclfqa.graph.tracing.trace_config`).
    """
    settings = (settings or Settings.load()).with_overrides(**overrides)
    resources = Resources(index_dir, settings, llm=llm, embeddings=embeddings, index=index)
    graph = build_graph(checkpointer, parallel=settings.parallel).with_config(trace_config(settings, index_dir))
    return QAGraph(graph, QAContext(settings, resources))
