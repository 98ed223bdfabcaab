"""What every node may use besides the state: the settings and the loaded index and models.

LangGraph passes a :class:`QAContext` to each node as ``runtime.context`` (``context_schema``); nothing
is global. Models and the index are loaded on first use and then shared by all questions of a graph.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from lclfqa.config import Settings
from lclfqa.index.factory import open_index
from lclfqa.index.protocol import IndexBackend


@dataclass(frozen=True)
class Plan:
    """Which steps a pipeline runs (the baselines and ablations of the eval issue)."""

    rewrites: int
    expand_footnotes: bool
    parents: bool
    filter: bool
    extract: bool
    reader: Literal["domain", "basic"]
    additions: bool = False
    """The source's words code adds after the checked answer (each part's nearest quote)."""
    off: frozenset[str] = frozenset()
    """Stages of ``read`` switched off (:data:`lclfqa.config.READ_STAGES`; ``lclfqa eval qa``'s ablations)."""


def plan_for(settings: Settings) -> Plan:
    """``lclf``: the paper (settings choose rewrites and reader); ``longrag``: LongRAG — no rewriter, no
    footnote expansion, CoT filter + extractor, basic reader; ``rag``: top-k children straight to the same
    reader and instruction as ``lclf`` (a fair baseline: it differs only in the steps it skips); ``rag+``:
    ``rag`` with the source's words ``lclf`` adds after the checked answer (part quotes).
    ``stages_off`` names :data:`lclfqa.config.READ_STAGES` to switch off."""
    off = frozenset(s.strip() for s in settings.stages_off.split(",") if s.strip())
    if settings.pipeline in ("rag", "rag+"):
        return Plan(0, False, False, False, False, settings.reader, settings.pipeline == "rag+", off)
    extract = settings.extractor
    if settings.pipeline == "longrag":
        return Plan(0, False, True, settings.cot_filter, extract, "basic", True, off)
    return Plan(settings.query_rewrites, True, True, settings.cot_filter, extract, settings.reader, True, off)


class Resources:
    """Lazily loaded index, embedder (the one the index was built with) and chat model."""

    def __init__(
        self,
        index_dir: str | Path,
        settings: Settings,
        *,
        llm: BaseChatModel | None = None,
        embeddings: Embeddings | None = None,
        index: IndexBackend | None = None,
    ) -> None:
        self.index_dir = Path(index_dir)
        self.settings = settings
        self._llm = llm
        self._embeddings = embeddings
        self._index = index
        self._lock = threading.Lock()

    @property
    def index(self) -> IndexBackend:
        with self._lock:
            if self._index is None:
                self._index = open_index(self.settings, self.index_dir)
            return self._index

    @property
    def embeddings(self) -> Embeddings:
        index = self.index
        with self._lock:
            if self._embeddings is None:
                from lclfqa.llm.models import get_embeddings

                self._embeddings = get_embeddings(index.embedding_model, self.settings.openai_base_url)
            return self._embeddings

    @property
    def llm(self) -> BaseChatModel:
        with self._lock:
            if self._llm is None:
                from lclfqa.llm.models import get_chat_model

                self._llm = get_chat_model(self.settings.chat_model, settings=self.settings)
            return self._llm


@dataclass
class QAContext:
    """The LangGraph runtime context of the question-answering graph."""

    settings: Settings
    resources: Resources
    plan: Plan = field(init=False)

    def __post_init__(self) -> None:
        self.plan = plan_for(self.settings)
