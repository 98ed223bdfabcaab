"""What ``lclfqa eval qa`` compares: the pipelines, the paper's ablations (LCLF-QA Tables 1-2) and the read
stages switched off one at a time.

A variant is a name, the :class:`~lclfqa.config.Settings` fields it changes, and which index it runs on
(``"layout"``: the index given; ``"plain"``: the same documents chunked without layout, for H3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from lclfqa.config import READ_STAGES


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
    "rag": Variant(
        "rag", {"pipeline": "rag"}, description="RAG: retrieve and read, with lclf's reader and instruction"
    ),
    "rag+": Variant(
        "rag+",
        {"pipeline": "rag+"},
        description="rag with the source's words lclf adds after the checked answer (part quotes, variants, caveat)",
    ),
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
    "no-filter": Variant(
        "no-filter",
        {"pipeline": "lclf", "cot_filter": False},
        description="LCLF-QA without the CoT filter call (the extractor reads the retrieved children directly)",
        ablation=True,
    ),
    "no-extract": Variant(
        "no-extract",
        {"pipeline": "lclf", "extractor": False},
        description="LCLF-QA without the extractor: the reader reads the retrieved children in the filter's prompt",
        ablation=True,
    ),
    "no-thought": Variant(
        "no-thought",
        {"pipeline": "lclf", "filter_thought": False},
        description="LCLF-QA with the CoT filter's booleans alone (no thought generated before them)",
        ablation=True,
    ),
    "basic-reader": Variant(
        "basic-reader",
        {"pipeline": "lclf", "reader": "basic"},
        description="H4: LCLF-QA with the basic reader",
        ablation=True,
    ),
}


STAGE_ABLATIONS: dict[str, Variant] = {
    f"no-{stage}": Variant(
        f"no-{stage}",
        {"pipeline": "lclf", "stages_off": stage},
        description=f"lclf without the read stage '{stage}': {what}",
        ablation=True,
    )
    for stage, what in READ_STAGES.items()
}
"""One variant per post-processing stage of ``read``, switched off alone (``--ablations stages`` runs them
all); only the reader's stages change, so with the response cache the earlier calls are not made again."""
ABLATIONS.update(STAGE_ABLATIONS)


def select_variants(pipelines: str, ablations: str = "") -> list[Variant]:
    """Variants from comma-separated names (``"lclf,rag"``, ``"all"`` for every ablation); order kept,
    duplicates dropped. Raises ``ValueError`` naming the unknown ones and the known ones."""
    chosen: list[Variant] = []
    for raw, table, what in ((pipelines, PIPELINES, "pipeline"), (ablations, ABLATIONS, "ablation")):
        names = [n.strip() for n in raw.split(",") if n.strip()]
        if names == ["all"]:
            names = list(table)
        if "stages" in names and table is ABLATIONS:  # every read stage, switched off one at a time
            at = names.index("stages")
            names[at : at + 1] = list(STAGE_ABLATIONS)
        unknown = [n for n in names if n not in table]
        if unknown:
            raise ValueError(f"unknown {what}(s): {', '.join(unknown)}; known: {', '.join(table)}")
        chosen += [table[n] for n in names if table[n] not in chosen]
    if not chosen:
        raise ValueError("choose at least one pipeline or ablation")
    return chosen
