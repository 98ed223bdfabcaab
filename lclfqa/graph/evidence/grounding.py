"""Figures and quotations in an answer that no source contains: what a lawyer must check first.

A small reader invents rates, amounts and quotations when its sources do not hold the answer. After the
answer is written, ``read`` looks up every percentage, dollar amount and quoted passage of it in the
documents' text it was given (sources and children, not the extractor's output, which is itself
generated); what is not there is returned by :func:`unsupported` and shown under the answer as a warning.
No LLM call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lclfqa.llm.parsing import CITATION_RE

_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b|percentage points?\b)", re.I)
_DOLLARS = re.compile(
    r"\$\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s*(million|billion|thousand)\b)?",
    re.I,
)
_SCALE = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
# A quotation: straight or curly double quotes around at least six words.
_QUOTED = re.compile(r"[\"“]([^\"“”]+)[\"”]")
_WORD = re.compile(r"\w+")


def percentages(text: str) -> dict[float, str]:
    """Percentages in ``text`` (``20%``, ``1 percent``, ``2.5 percentage points``): value → as first written."""
    out: dict[float, str] = {}
    for m in _PERCENT.finditer(text):
        out.setdefault(float(m.group(1)), m.group(0).strip())
    return out


def dollar_amounts(text: str) -> dict[float, str]:
    """Dollar amounts in ``text`` (``$15,000``, ``$1.5 million``): value → as first written."""
    out: dict[float, str] = {}
    for m in _DOLLARS.finditer(text):
        whole = float(m.group(1).replace(",", ""))
        value = whole + (float(f"0.{m.group(2)}") if m.group(2) else 0.0)
        if m.group(3):
            value *= _SCALE[m.group(3).lower()]
        out.setdefault(round(value, 2), m.group(0).strip())
    return out


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def quotations(text: str, min_words: int = 6) -> list[str]:
    """Passages of at least ``min_words`` words that ``text`` puts inside double quotes."""
    return [q.strip() for q in _QUOTED.findall(text) if len(_WORD.findall(q)) >= min_words]


def unsupported(answer: str, texts: Iterable[str]) -> list[str]:
    """The percentages, dollar amounts and quotations of ``answer`` (as written there) that none of
    ``texts`` contains. Figures compare by value (``20%`` = ``20 percent``, ``$1.5 million`` =
    ``$1,500,000``); quotations by their words (case, punctuation, line breaks and hyphens aside)."""
    texts = list(texts)
    haystack = "\n".join(texts)
    found_pct = percentages(haystack)
    found_usd = dollar_amounts(haystack)
    words = _words(haystack.replace("-\n", "").replace("- ", ""))
    missing = [shown for value, shown in percentages(answer).items() if value not in found_pct]
    missing += [shown for value, shown in dollar_amounts(answer).items() if value not in found_usd]
    for q in quotations(answer):
        if f" {_words(CITATION_RE.sub(' ', q))} " not in f" {words} ":  # a citation marker inside is not text
            missing.append(f"“{q}”" if len(q) <= 80 else f"“{q[:77].rstrip()}…”")
    return missing
