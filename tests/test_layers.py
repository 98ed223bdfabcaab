"""Imports point down: nothing above ``lclfqa/index/`` names a backend, and the index room has no cycles.

Read from the source (every ``import``, the ones inside functions too), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lclfqa"
BACKEND_MODULES = {"lclfqa.index.embedded", "lclfqa.index.milvus", "lclfqa.index.milvus_schema", "lclfqa.index.writer"}
BACKEND_CLASSES = {"EmbeddedBackend", "MilvusBackend"}


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[tuple[str, str]]]:
    """module -> {(imported module, imported name or "")}."""
    out: dict[str, set[tuple[str, str]]] = {}
    for path in PACKAGE.rglob("*.py"):
        found: set[tuple[str, str]] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {(a.name, "") for a in node.names if a.name.startswith("lclfqa")}
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lclfqa"):
                found |= {(node.module, a.name) for a in node.names}
        out[_module(path)] = found
    return out


def test_nothing_above_the_index_room_names_a_backend() -> None:
    offenders = [
        (module, target, name)
        for module, imports in _imports().items()
        if not module.startswith("lclfqa.index")
        for target, name in imports
        if target in BACKEND_MODULES or name in BACKEND_CLASSES
    ]
    assert offenders == [], "use lclfqa.index.factory.open_index and the IndexBackend protocol"


def test_the_index_room_imports_nothing_above_it() -> None:
    allowed = ("lclfqa.index", "lclfqa.ingest.document", "lclfqa.config", "lclfqa.llm.models")
    offenders = [
        (module, target)
        for module, imports in _imports().items()
        if module.startswith("lclfqa.index")
        for target, _ in imports
        if not target.startswith(allowed)
    ]
    assert offenders == []


def test_no_import_cycles_through_the_index_room() -> None:
    modules = _imports()
    graph = {
        m: {t if t in modules else f"{t}.{n}" for t, n in imports if (t if t in modules else f"{t}.{n}") in modules}
        for m, imports in modules.items()
    }
    graph = {m: deps - {m} for m, deps in graph.items()}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        for dep in graph[node]:
            if dep in stack:
                cycle = stack[stack.index(dep) :]
                if any(m.startswith("lclfqa.index") for m in cycle):
                    cycles.append(cycle)
            elif dep not in done:
                visit(dep, [*stack, dep])
        done.add(node)

    done: set[str] = set()
    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    assert cycles == []
