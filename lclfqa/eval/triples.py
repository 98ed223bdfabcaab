"""Nested claim triples (LCLF-QA §4, after RAGChecker): ``("subject", "predicate", "object")`` where the
subject or the object may itself be a triple, and a parser that survives what LLMs write.

:func:`parse_triples` accepts the paper's line format (``("a", "b", "c")`` per line, with or without
bullets, quotes of any kind, nested parentheses, trailing commas, unquoted words, commas inside quotes)
and JSON (``{"triples": [[s, p, o], ...]}`` or a bare list, nested lists for nested triples). It never
raises; what it cannot read as a triple is skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Union

from lclfqa.llm.parsing import json_object

Term = Union[str, "Triple"]

_QUOTES = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»"}


@dataclass(frozen=True)
class Triple:
    """A claim: subject, predicate, object; subject and object may be triples (implications, exceptions)."""

    subject: Term
    predicate: str
    object: Term

    def __str__(self) -> str:
        return f"({_term(self.subject)}, {_term(self.predicate)}, {_term(self.object)})"

    def to_json(self) -> list[Any]:
        return [_json(self.subject), self.predicate, _json(self.object)]

    @classmethod
    def from_json(cls, value: Any) -> Triple | None:
        """A triple from ``[s, p, o]`` (nested lists allowed) or ``{"subject", "predicate", "object"}``."""
        if isinstance(value, dict):
            value = [value.get("subject"), value.get("predicate"), value.get("object")]
        if not isinstance(value, list | tuple) or len(value) != 3:
            return None
        s, p, o = (_from_json_term(v) for v in value)
        if s is None or o is None or not isinstance(p, str) or not p:
            return None
        return cls(s, p, o)


def _term(t: Term) -> str:
    return str(t) if isinstance(t, Triple) else json.dumps(t, ensure_ascii=False)


def _json(t: Term) -> Any:
    return t.to_json() if isinstance(t, Triple) else t


def _from_json_term(value: Any) -> Term | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list | tuple | dict):
        return Triple.from_json(value)
    return None


def parse_triples(text: str) -> list[Triple]:
    """Every triple in ``text`` (JSON or the line format), in order, duplicates removed."""
    found = _from_json(text)
    if not found:
        found = []
        pos = 0
        while (start := text.find("(", pos)) != -1:
            term, end = _parse_group(text, start)
            if isinstance(term, Triple):
                found.append(term)
                pos = end
            else:
                pos = start + 1
    seen: set[Triple] = set()
    return [t for t in found if not (t in seen or seen.add(t))]


def _from_json(text: str) -> list[Triple]:
    value: Any = json_object(text)
    if value is not None:
        value = value.get("triples", value.get("KG", value.get("kg")))
    else:
        start = text.find("[")
        try:
            value, _ = json.JSONDecoder().raw_decode(text[start:]) if start != -1 else (None, 0)
        except ValueError:
            value = None
    if not isinstance(value, list):
        return []
    return [t for t in (Triple.from_json(v) for v in value) if t is not None]


def _parse_group(text: str, start: int) -> tuple[Term | None, int]:
    """Parse the parenthesised group opening at ``text[start]``; returns (a Triple or None, end index)."""
    items: list[Term] = []
    i = start + 1
    current: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch in _QUOTES and _opens_quote(text, i, current):
            close = _QUOTES[ch]
            end = text.find(close, i + 1)
            while end != -1 and close == "'" and end + 1 < len(text) and text[end + 1].isalpha():
                end = text.find(close, end + 1)  # an apostrophe inside a single-quoted term (taxpayer's)
            if end == -1:
                return None, len(text)
            current.append(text[i + 1 : end])
            i = end + 1
        elif ch == "(":
            inner, end = _parse_group(text, i)
            if isinstance(inner, Triple) and not "".join(current).strip():
                items.append(inner)
                current = []
                i = end
                while i < len(text) and text[i] in " \t":
                    i += 1
                if i < len(text) and text[i] == ",":
                    i += 1
                continue
            current.append(text[i:end])  # a parenthetical inside a term: "section 7703(b)"
            i = end
        elif ch == ")":
            _flush(items, current)
            if len(items) == 3 and isinstance(items[1], str):
                return Triple(items[0], items[1], items[2]), i + 1
            return None, i + 1
        elif ch == ",":
            _flush(items, current)
            current = []
            i += 1
        elif ch == "\n" and not items and not "".join(current).strip():
            return None, i  # a lone "(" at a line end is prose, not a triple
        else:
            current.append(ch)
            i += 1
    return None, len(text)


def _opens_quote(text: str, i: int, current: list[str]) -> bool:
    """A quote opens a quoted term only at the start of an item (not an apostrophe inside a word)."""
    return not "".join(current).strip() and not (i > 0 and text[i - 1].isalnum())


def _flush(items: list[Term], current: list[str]) -> None:
    value = "".join(current).strip().strip('"').strip()
    if value:
        items.append(value)
