"""The records the reader's stages pass on (:class:`Draft`) and read (:class:`Reading`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings

from lclfqa.graph.context import QAContext


@dataclass
class Draft:
    """The answer as the stages pass it on."""

    answer: str
    written: str
    """The model's text, cleaned (the numbers of a source list at its end still count as cited)."""
    refused: bool = False
    removed: list[tuple[str, str]] = field(default_factory=list)
    """``(sentence, rule)`` for every sentence a stage removed."""
    added: list[str] = field(default_factory=list)
    """The source's words code appended (the rest of the answer is the model's own)."""
    notes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reading:
    """What the stages read: the question, the numbered evidence and the reader's conversation."""

    ctx: QAContext
    question: str
    texts: list[str]
    """The evidence as numbered for the model (``[1]`` is ``texts[0]``), each followed by the section numbers
    printed above it (:func:`lclfqa.graph.evidence.refs.with_section_labels`)."""
    references: list[dict[str, Any]]
    """The records behind ``texts`` (quotes with the extractor, the retrieved children without)."""
    retrieved: list[dict[str, Any]]
    verdict: str = ""
    """``yes``/``no`` as the verdict call decided it over the evidence; ``""`` when it did not run."""
    rule: int | None = None
    """The quote (0-based) stating the rule the verdict call chose."""
    embeddings: Embeddings | None = None

    @property
    def floor(self) -> float:
        """The share of a sentence's content words the quotes must hold (setting ``min_answer_support``)."""
        return self.ctx.settings.min_answer_support
