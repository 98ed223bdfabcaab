"""Evidence for a synthetic answer: its sentences that are printed verbatim on a source page."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lclfqa.eval.synth.pages import PageChunk

_SENTENCE_END = re.compile(r"(?<=[.!?;])[\"”’)]*\s+|\n+")
_QUOTED = re.compile(r"[\"“]([^\"“”]{20,})[\"”]")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\(?\w{1,3}[.)])\s+")


def verbatim_quotes(answer: str, pages: Sequence[PageChunk], min_words: int = 6) -> list[dict[str, Any]]:
    """Evidence ``{document, page, quote}`` for each sentence (or quoted passage) of ``answer`` that is printed
    verbatim on one of ``pages``, whitespace aside; quotes are whitespace-normalised, each kept once."""
    candidates = [m.group(1) for m in _QUOTED.finditer(answer)]
    candidates += [_BULLET.sub("", s) for s in _SENTENCE_END.split(answer)]
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    haystacks = [(p, _normalize(p.text)) for p in pages]
    for raw in candidates:
        quote = _normalize(raw).strip(" \"“”'‘’*_")
        if len(quote.split()) < min_words:
            continue
        for variant in (quote, quote.rstrip(".;:,")):
            if variant in seen:
                break
            hit = next(((p, variant) for p, h in haystacks if variant in h), None)
            if hit is not None:
                seen.add(variant)
                found.append({"document": hit[0].document, "page": hit[0].page, "quote": variant})
                break
    return found


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
