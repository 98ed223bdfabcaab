"""The source's words for each part of the question, added to an answer that does not give them.

The 1.5B default answers from the first quotes it is shown and often stops after the first thing a question
asks (on the tax dev set it stated 34 of the 49 key facts its quotes held; asked once more for a part it
left open, it contradicted its own verdict: "No, that is not allowed. … Yes, that is allowed."). So once
the answer is checked, each part of the question (:func:`lclfqa.prompts.question_parts`) gets the quote
nearest it (:func:`lclfqa.graph.nodes.nearest.closeness_by_part`) in the source's words, shortened to
:data:`RULE_QUOTE_CHARS` — unless the answer cites that quote or already gives at least
:data:`STATED_SHARE` of its content words. For a yes/no question the first part's quote is the one stating
the rule the verdict call decided (:func:`stating`). An added quote is the source's own text, so it needs
no check; in an answer about the Court's holding no separate opinion's quote is added this way.
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings

from lclfqa import prompts
from lclfqa.graph.nodes.attribution import asks_holding, separate_opinion
from lclfqa.graph.nodes.nearest import closeness_by_part
from lclfqa.index.tokens import tokenize
from lclfqa.llm import parsing

RULE_QUOTE_CHARS = 320
MAX_PART_QUOTES = 3
"""A question asking more things gets the source's words for its first three only: quotes, not a dump."""
STATED_SHARE = 0.5
"""An answer holding this share of a quote's content words (stemmed) already gives it."""


def shortened(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters (with "…")."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:—–-") + " …"


def stating(rule: str | None, texts: list[str]) -> int | None:
    """The quote (0-based) that states the decided ``rule`` — the one sharing most of its words — or None
    when no rule was decided."""
    words = set(tokenize(rule or ""))
    if not words or not texts:
        return None
    shared = [len(words & set(tokenize(t))) for t in texts]
    return max(range(len(texts)), key=lambda i: (shared[i], -i))


def stated_share(text: str, answer: str) -> float:
    """The share of ``text``'s content words (stemmed) that ``answer`` holds."""
    words = set(tokenize(text))
    return len(words & set(tokenize(answer))) / len(words) if words else 1.0


def part_quotes(
    question: str,
    quotes: list[dict[str, Any]],
    answer: str,
    rule: int | None = None,
    embeddings: Embeddings | None = None,
    written: str = "",
) -> list[int]:
    """The quotes (0-based, in the order of the parts they answer) to add to ``answer``: for each part of
    ``question``, the quote nearest it (``rule`` for the first part, when given) that the answer neither
    cites nor gives (:data:`STATED_SHARE`); each quote once, at most :data:`MAX_PART_QUOTES`. A source list
    the model ``written`` at the end (not shown) counts as citing."""
    texts = [q["text"] for q in quotes]
    if not texts:
        return []
    parts = prompts.question_parts(question)
    scores = closeness_by_part(parts, texts, embeddings)
    holding = asks_holding(question)
    allowed = [i for i, q in enumerate(quotes) if not (holding and separate_opinion(q))]
    cited = {n - 1 for n in [*parsing.cited_numbers(answer), *parsing.cited_numbers(written)]}
    picked: list[int] = []
    for j in range(len(parts)):
        if len(picked) == MAX_PART_QUOTES:
            break
        if j == 0 and rule is not None and rule in allowed:
            i = rule
        elif allowed:
            i = max(allowed, key=lambda k: (scores[k][j], -k))
        else:
            break
        text = shortened(texts[i], RULE_QUOTE_CHARS)
        if i in picked or i in cited or stated_share(text, answer) >= STATED_SHARE:
            continue
        picked.append(i)
    return picked


def with_part_quotes(
    answer: str,
    question: str,
    quotes: list[dict[str, Any]],
    rule: int | None = None,
    embeddings: Embeddings | None = None,
    written: str = "",
) -> tuple[str, int]:
    """``(answer, added)``: ``answer`` followed by :func:`part_quotes`, each as "The source reads: “…” [n]"."""
    picked = part_quotes(question, quotes, answer, rule, embeddings, written)
    added = [
        prompts.phrase("rule_quote", quote=shortened(quotes[i]["text"], RULE_QUOTE_CHARS), n=i + 1) for i in picked
    ]
    return " ".join([answer.rstrip(), *added]).strip(), len(added)
