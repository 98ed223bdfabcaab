"""The LCLF-QA LangGraph: state (``state.py``), runtime context (``context.py``), the nodes (``nodes/``, one
module per node plus the reading helpers they share), wiring (``build.py``) and the notebook-facing result
(``result.py``).

Import what you need from its module (``from lclfqa.graph.build import load_graph``); this package
re-exports nothing, so importing one part never loads the others (the nodes import ``state`` and
``context``, and ``build`` imports the nodes: a chain, not a cycle).
"""
