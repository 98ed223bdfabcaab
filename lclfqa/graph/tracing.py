"""Run names, tags and metadata so that a LangSmith trace reads as the chain.

Nothing here turns tracing on or calls the network: LangChain traces only when the user sets
``LANGSMITH_TRACING=true`` (and ``LANGSMITH_API_KEY``; ``LANGSMITH_ENDPOINT`` for a self-hosted LangSmith).
Then, with no code change, a question shows up as one ``lclf-qa`` run tagged with its pipeline and chat
model; under it one run per node (``rewrite``, ``retrieve``, …, named by LangGraph, which adds
``langgraph_node`` to their metadata) inheriting those tags; and under a node each LLM call, named
``<node>.llm`` and tagged ``node:<node>`` (:func:`lclfqa.llm.calls.llm_call_config`), with its token counts
(``usage_metadata``). The node's output ``steps`` holds its wall time, LLM calls and tokens.
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.runnables import RunnableConfig

from lclfqa.config import Settings

RUN_NAME = "lclf-qa"


def trace_config(settings: Settings, index_dir: str | Path | None = None) -> RunnableConfig:
    """The graph's root run name, and the tags and metadata every run under it inherits."""
    metadata: dict[str, object] = {
        "lclfqa_pipeline": settings.pipeline,
        "lclfqa_chat_model": settings.chat_model,
        "lclfqa_embedding_model": settings.embedding_model,
        "lclfqa_reader": settings.reader,
        "lclfqa_rewrites": settings.rewrites,
        "lclfqa_top_k": settings.top_k,
    }
    if index_dir is not None:
        metadata["lclfqa_index"] = str(index_dir)
    return {
        "run_name": RUN_NAME,
        "tags": ["lclfqa", f"pipeline:{settings.pipeline}", f"model:{settings.chat_model}"],
        "metadata": metadata,
    }
