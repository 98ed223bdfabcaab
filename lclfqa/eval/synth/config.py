"""What one synthetic-QA run is asked for (LCLF-QA Appendix A: budget ``b``, clusters ``k``, chunks ``n``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: The question styles of LCLF-QA Appendix A, in the paper's order.
STYLES: tuple[str, ...] = ("instruction", "reason", "evidence", "comparison", "list", "domain-specific")
#: QA pairs asked for per generator call, as in the paper's prompts.
PAIRS_PER_CALL = 2


class SynthError(RuntimeError):
    """Synthetic QA cannot be generated (too few pages, the chat model keeps failing); the message says why."""


@dataclass(frozen=True)
class SynthConfig:
    """Settings of one generation run (LCLF-QA Appendix A: budget ``b``, clusters ``k``, chunks ``n``)."""

    budget: int = 20
    clusters: int = 5
    chunks_per_question: int = 2
    styles: tuple[str, ...] = STYLES
    seed: int = 0
    max_pages: int | None = None
    #: pages with less text than this are skipped
    min_page_chars: int = 200
    #: a page longer than this is split into parts (and a summary prompt never sees more)
    max_chunk_chars: int = 4000
    summary_tokens: int = 256
    qa_tokens: int = 1024
    #: generator calls allowed in all (malformed or duplicate output costs calls); default 3 per call needed
    max_calls: int | None = None
    id_prefix: str = "SYN"

    def __post_init__(self) -> None:
        for name in ("budget", "clusters", "chunks_per_question", "max_chunk_chars", "summary_tokens", "qa_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1; got {getattr(self, name)!r}")
        if self.max_pages is not None and self.max_pages < 1:
            raise ValueError(f"max_pages must be at least 1; got {self.max_pages!r}")
        if self.max_calls is not None and self.max_calls < 1:
            raise ValueError(f"max_calls must be at least 1; got {self.max_calls!r}")
        if self.min_page_chars < 0:
            raise ValueError(f"min_page_chars must not be negative; got {self.min_page_chars!r}")
        unknown = [s for s in self.styles if s not in STYLES]
        if unknown or not self.styles:
            raise ValueError(f"unknown question style(s) {unknown or '(none given)'}; known: {', '.join(STYLES)}")

    @property
    def call_limit(self) -> int:
        return self.max_calls or 3 * math.ceil(self.budget / PAIRS_PER_CALL)
