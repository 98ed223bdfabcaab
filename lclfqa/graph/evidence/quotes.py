"""Verbatim quotes: checked against the text they claim to come from, and snapped to its exact words.

The extractor is asked to copy sentences, and a small model copies almost: a dropped word, a changed
hyphen, a line break, a ``§`` for "section". A quote is kept when its words occur in the reference text
it names (or, failing that, in another of the references) after whitespace, case, quote/dash and
line-end-hyphen normalisation (*exact*), or when a window of that text matches it with at most a few word
edits (*fuzzy*: similarity ≥ :data:`FUZZY_MIN` and at most :data:`FUZZY_MAX_EDITS` words off). Either way
the kept quote is the *source's* text for that span, never the model's, so what the reader gets is
verbatim. Anything else is dropped and counted. No LLM here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

FUZZY_MIN = 0.85
"""Least share of a quote's words that must line up with the source window (difflib ratio)."""
FUZZY_MAX_EDITS = 6
"""Most words a fuzzy quote may differ from the source window (inserted, dropped or changed)."""
MIN_WORDS = 4
"""Shorter quotes ("the credit", "yes") say nothing checkable and are dropped."""

_WORD = re.compile(r"[^\W_]+(?:['’.][^\W_]+)*|[$%§]", re.U)
_TRANSLATE = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"', "–": "-", "—": "-", "‐": "-", "‑": "-"})


def _words(text: str) -> list[tuple[str, int, int]]:
    """``(normalised word, start, end)`` for every word of ``text`` (line-end hyphens joined)."""
    out = []
    for m in _WORD.finditer(text):
        out.append((m.group(0).translate(_TRANSLATE).lower(), m.start(), m.end()))
    # "Com-\npare" → one word: merge a word ending right before "-\n" with the next
    merged: list[tuple[str, int, int]] = []
    for w in out:
        if merged:
            prev = merged[-1]
            gap = text[prev[2] : w[1]]
            if re.fullmatch(r"-\s*\n\s*", gap):
                merged[-1] = (prev[0] + w[0], prev[1], w[2])
                continue
        merged.append(w)
    return merged


@dataclass(frozen=True)
class Match:
    """Where a quote was found: the character span of the source text, and how."""

    start: int
    end: int
    how: str
    """``exact`` or ``fuzzy``."""
    similarity: float


def locate(quote: str, text: str) -> Match | None:
    """The span of ``text`` that ``quote`` copies (module docstring), or ``None``."""
    q = [w for w, _, _ in _words(quote)]
    if len(q) < MIN_WORDS:
        return None
    words = _words(text)
    tokens = [w for w, _, _ in words]
    n = len(q)
    # exact: the quote's words appear contiguously
    first = q[0]
    for i, tok in enumerate(tokens):
        if tok == first and tokens[i : i + n] == q:
            return Match(words[i][1], words[i + n - 1][2], "exact", 1.0)
    # fuzzy: the best window around the longest common run of words
    matcher = SequenceMatcher(None, tokens, q, autojunk=False)
    anchor = matcher.find_longest_match(0, len(tokens), 0, n)
    if anchor.size < min(3, n):
        return None
    best: Match | None = None
    origin = anchor.a - anchor.b  # where the quote would start if the words before the anchor line up
    for start in range(max(0, origin - FUZZY_MAX_EDITS), min(len(tokens), origin + FUZZY_MAX_EDITS) + 1):
        if start > anchor.a:
            break
        for end in range(max(start + n - FUZZY_MAX_EDITS, anchor.a + anchor.size), start + n + FUZZY_MAX_EDITS + 1):
            if end > len(tokens):
                break
            window = tokens[start:end]
            sm = SequenceMatcher(None, window, q, autojunk=False)
            ratio = sm.ratio()
            if best is not None and ratio <= best.similarity:
                continue
            matched = sum(b.size for b in sm.get_matching_blocks())
            edits = max(len(window), n) - matched
            if ratio >= FUZZY_MIN and edits <= FUZZY_MAX_EDITS:
                best = Match(words[start][1], words[end - 1][2], "fuzzy", ratio)
    return best


@dataclass(frozen=True)
class QuoteCheck:
    """The extractor's quotes after checking: the kept ones (source text) and what was dropped."""

    kept: list[dict[str, Any]]
    dropped: list[dict[str, Any]]
    exact: int
    fuzzy: int
    moved: int
    """Kept quotes found in another reference than the one the model named."""

    def record(self) -> dict[str, int]:
        """Counts for the node's ``steps`` entry."""
        return {
            "quotes_proposed": len(self.kept) + len(self.dropped) + self.duplicates,
            "quotes_kept": len(self.kept),
            "quotes_exact": self.exact,
            "quotes_fuzzy": self.fuzzy,
            "quotes_moved": self.moved,
            "quotes_dropped": len(self.dropped),
        }

    duplicates: int = 0


def quote_record(ref: dict[str, Any], number: int, start: int, end: int, how: str) -> dict[str, Any]:
    """The quote ``ref["text"][start:end]`` of reference ``number`` (1-based), with where it comes from:
    ``{"text", "ref", "child", "source", "document", "pages", "section", "kind", "how"}``."""
    return {
        "text": ref["text"][start:end],
        "ref": number,
        "child": ref["id"],
        "source": ref.get("source"),
        "document": ref["document"],
        "pages": ref["pages"],
        "section": ref.get("section", []),
        "kind": ref.get("kind"),
        "how": how,
    }


def check_quotes(proposed: Sequence[tuple[int | None, str]], references: Sequence[dict[str, Any]]) -> QuoteCheck:
    """Check ``(reference number, quote)`` pairs (1-based positions in ``references``, ``None`` when the model
    named none) against the references' text; see the module docstring.

    A kept quote is ``{"text", "ref", "child", "source", "document", "pages", "section", "kind", "how"}``:
    the source's own words, where they were found (the reference's chunk id, its source number, pages and
    section path), and ``exact``/``fuzzy``. The same span quoted twice is kept once."""
    kept: list[dict[str, Any]] = []
    dropped: list[dict[str, Any]] = []
    exact = fuzzy = moved = duplicates = 0
    seen: set[tuple[str, int, int]] = set()
    for ref, quote in proposed:
        quote = (quote or "").strip().strip('"“”').strip()
        order = sorted(range(len(references)), key=lambda i: i + 1 != ref)  # the reference named first
        found = next(((i, m) for i in order if (m := locate(quote, references[i]["text"])) is not None), None)
        if found is None:
            dropped.append({"ref": ref, "quote": quote})
            continue
        i, match = found
        r = references[i]
        key = (r["id"], match.start, match.end)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        exact += match.how == "exact"
        fuzzy += match.how == "fuzzy"
        moved += ref is not None and ref != i + 1
        kept.append(quote_record(r, i + 1, match.start, match.end, match.how))
    return QuoteCheck(kept, dropped, exact, fuzzy, moved, duplicates)
