"""What ``lclfqa eval qa`` compares: the three pipelines and the paper's ablations (LCLF-QA Tables 1-2).

A variant is a name, the :class:`~lclfqa.config.Settings` fields it changes, and which index it runs on
(``"layout"``: the index given; ``"plain"``: the same documents chunked without layout, for H3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class Variant:
    name: str
    overrides: dict[str, Any] = field(default_factory=dict)
    index: Literal["layout", "plain"] = "layout"
    description: str = ""
    ablation: bool = False


PIPELINES: dict[str, Variant] = {
    "lclf": Variant("lclf", {"pipeline": "lclf"}, description="LCLF-QA: query2doc rewriter, footnotes, domain reader"),
    "longrag": Variant("longrag", {"pipeline": "longrag"}, description="LongRAG: hybrid retrieval, filter, extractor"),
    "rag": Variant("rag", {"pipeline": "rag"}, description="naive RAG: retrieve and read"),
}

ABLATIONS: dict[str, Variant] = {
    "no-rewriter": Variant(
        "no-rewriter",
        {"pipeline": "lclf", "rewrites": 0},
        description="H2a: LCLF-QA without the rewriter",
        ablation=True,
    ),
    "1-rewrite": Variant(
        "1-rewrite", {"pipeline": "lclf", "rewrites": 1}, description="H2b: one rewrite instead of three", ablation=True
    ),
    "no-layout": Variant(
        "no-layout",
        {"pipeline": "lclf"},
        index="plain",
        description="H3: LCLF-QA on fixed-size chunks (no sections, no footnote links)",
        ablation=True,
    ),
    "basic-reader": Variant(
        "basic-reader",
        {"pipeline": "lclf", "reader": "basic"},
        description="H4: LCLF-QA with the basic reader",
        ablation=True,
    ),
}


def select_variants(pipelines: str, ablations: str = "") -> list[Variant]:
    """Variants from comma-separated names (``"lclf,rag"``, ``"all"`` for every ablation); order kept,
    duplicates dropped. Raises ``ValueError`` naming the unknown ones and the known ones."""
    chosen: list[Variant] = []
    for raw, table, what in ((pipelines, PIPELINES, "pipeline"), (ablations, ABLATIONS, "ablation")):
        names = [n.strip() for n in raw.split(",") if n.strip()]
        if names == ["all"]:
            names = list(table)
        unknown = [n for n in names if n not in table]
        if unknown:
            raise ValueError(f"unknown {what}(s): {', '.join(unknown)}; known: {', '.join(table)}")
        chosen += [table[n] for n in names if table[n] not in chosen]
    if not chosen:
        raise ValueError("choose at least one pipeline or ablation")
    return chosen
