"""The LCLF-QA LangGraph: state (``state.py``), runtime context (``context.py``), wiring (``build.py``)
and the notebook-facing result (``result.py``)."""

from __future__ import annotations

from typing import Any

__all__ = ["QAContext", "QAGraph", "QAResult", "QAState", "Resources", "build_graph", "load_graph"]


def __getattr__(name: str) -> Any:  # lazy, so nodes can import graph.state/graph.context without a cycle
    if name in ("QAGraph", "build_graph", "load_graph"):
        from lclfqa.graph import build

        return getattr(build, name)
    if name in ("QAContext", "Resources"):
        from lclfqa.graph import context

        return getattr(context, name)
    if name == "QAResult":
        from lclfqa.graph.result import QAResult

        return QAResult
    if name == "QAState":
        from lclfqa.graph.state import QAState

        return QAState
    raise AttributeError(f"module 'lclfqa.graph' has no attribute {name!r}")
