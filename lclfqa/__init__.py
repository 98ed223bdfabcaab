"""lclfqa — long-context, long-form question answering over tax and legal documents (LCLF-QA).

Notebook use::

    from lclfqa import load_graph
    graph = load_graph(".lclfqa/index")
    graph.invoke({"question": "Can a married couple filing separately claim the AOTC?"})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Settings", "load_graph"]

if TYPE_CHECKING:
    from lclfqa.config import Settings
    from lclfqa.graph.build import load_graph


def __getattr__(name: str) -> Any:  # lazy: `lclfqa --help` must not import LangGraph and torch
    if name == "load_graph":
        from lclfqa.graph.build import load_graph

        return load_graph
    if name == "Settings":
        from lclfqa.config import Settings

        return Settings
    raise AttributeError(f"module 'lclfqa' has no attribute {name!r}")
