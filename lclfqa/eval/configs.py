"""Names shared by the retrieval eval and its CLI (kept import-light so ``lclfqa --help`` stays fast)."""

from __future__ import annotations

DEFAULT_KS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
DEFAULT_CONFIGS: tuple[str, ...] = ("naive", "bm25", "dense", "hybrid", "+scope")
CONFIGS: tuple[str, ...] = (*DEFAULT_CONFIGS, "+rewrites", "+scope+rewrites", "+summaries")
NEEDS_REWRITER: frozenset[str] = frozenset({"+rewrites", "+scope+rewrites"})
SCOPED: frozenset[str] = frozenset({"+scope", "+scope+rewrites"})
