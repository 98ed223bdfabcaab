"""When the reader must refuse: the question cites a section or names a term no source mentions, or the
filter says so.

A small reader with sources in front of it answers, whether or not they hold the answer. Two checks that
do not rely on the reader decide instead:

- **Cited sections** (no LLM): a question that cites ``section 199A``, ``§ 1.25A-1`` or ``26 CFR 1.21-3``
  is about that provision. When none of the sources the reader would see mentions any of the provisions
  the question cites, the graph goes from ``expand`` straight to ``read``, which refuses and names them
  (no filter, extractor or reader call); when only some are missing, the reader is told which, so that
  it says they are not covered.
- **Defined terms** (no LLM): a question that spells out its subject with its initials ("the work
  opportunity tax credit (WOTC)") is about that subject. When no source names it (neither the initials as
  a word nor, in one text, every content word of the long form) the graph refuses the same way and names it.
- **Asked quantities** (no LLM): a question every part of which asks *how many* hours, days, weeks,
  months, years or minutes, or *what percentage*, asks for a number of that unit. When no source states
  one ("72 hours", "a 60-day period", "15 per cent"), the documents cannot answer it: the graph refuses the
  same way and names what is missing ("a number of hours").
- **The filter's verdict**: the CoT filter's validation call also states whether the kept references,
  taken together, state the answer (``yes`` / ``partly`` / ``no``). On ``no`` the reader is invited to
  refuse instead of told to answer from the sources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from lclfqa import prompts
from lclfqa.index.provisions import cited_sections, mentions
from lclfqa.index.tokens import tokenize
from lclfqa.textnorm import normalize


def missing_sections(question: str, texts: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(cited, missing)``: the sections ``question`` cites, and those no text in ``texts`` mentions."""
    cited = cited_sections(question)
    if not cited:
        return [], []
    haystack = "\n".join(texts)
    return cited, [n for n in cited if not mentions(n, haystack)]


# "work opportunity tax credit (WOTC)", "Modified Adjusted Gross Income (MAGI)": words, then their initials
_DEFINED = re.compile(r"((?:[A-Za-z][\w'’-]*\s+){1,10})\(([A-Z]{2,6})s?\)")
_JOINING = frozenset("of and for the on to in a an or".split())


def defined_terms(question: str) -> list[str]:
    """The terms ``question`` spells out before their initials: ``work opportunity tax credit (WOTC)``.

    The long form is the shortest run of words before the parenthesis whose initials spell the
    acronym (joining words such as "of" may be skipped); a parenthesis that no words spell out
    (``the credit (IRA)``) defines nothing.
    """
    out = []
    for m in _DEFINED.finditer(question):
        words, acronym = m.group(1).split(), m.group(2)
        for start in range(len(words) - 1, -1, -1):
            initials = "".join(w[0] for w in words[start:] if w.lower() not in _JOINING).upper()
            if initials == acronym and words[start].lower() not in _JOINING:
                out.append(f"{' '.join(words[start:])} ({acronym})")
                break
    return list(dict.fromkeys(out))


def names_term(term: str, texts: Iterable[str]) -> bool:
    """Whether some text names ``term`` (``long form (ACR)``): the initials as a word, or every content
    word of the long form (stemmed: "opportunities" names "opportunity") in one text."""
    long_form, _, acronym = term.rpartition(" (")
    acronym = acronym.rstrip(")")
    wanted = set(tokenize(long_form))
    initials = re.compile(rf"\b{re.escape(acronym)}s?\b")
    return any(initials.search(text) or (wanted and wanted <= set(tokenize(text))) for text in texts)


_UNITS = ("hour", "day", "week", "month", "year", "minute")
_HOW_MANY = re.compile(rf"\bhow\s+many\s+(?:\w+\s+){{0,2}}?({'|'.join(_UNITS)})s?\b", re.I)
_WHAT_SHARE = re.compile(r"\bwhat\s+(?:\w+\s+){0,3}?(?:percentage|percent|per cent)\b", re.I)


def asked_quantity(part: str) -> str:
    """The unit a part of a question asks a number of: ``hour`` … ``minute`` ("Within how many days …"),
    ``percent`` ("What percentage of …"); ``""`` when it asks for no count."""
    m = _HOW_MANY.search(part)
    if m:
        return m.group(1).lower()
    return "percent" if _WHAT_SHARE.search(part) else ""


def states_quantity(unit: str, text: str, normalized: bool = False) -> bool:
    """Whether ``text`` states a number of ``unit`` — a number, at most one word, the unit: "72 hours", "a
    60-day period", "30 calendar days", "fifteen per cent" (read as :func:`lclfqa.textnorm.normalize` does;
    ``normalized``: ``text`` already is)."""
    word = "percent(?:age points?)?" if unit == "percent" else f"{unit}s?"
    return bool(re.search(rf"\d(?:\s\))?\s(?:\w+\s)?{word}\b", text if normalized else normalize(text), re.I))


def unstated_quantities(question: str, texts: Iterable[str]) -> list[str]:
    """What ``question`` asks a number of, where every part of it asks for one (:func:`asked_quantity`) and
    no text in ``texts`` states any (:func:`states_quantity`): ``["a number of hours"]``; else ``[]``."""
    units = [asked_quantity(p) for p in prompts.question_parts(question)]
    if not units or not all(units):
        return []
    haystack = normalize("\n".join(texts))  # once, for every unit asked
    if any(states_quantity(u, haystack, normalized=True) for u in units):
        return []
    return [f"a number of {u}s" if u != "percent" else "a percentage" for u in dict.fromkeys(units)]


def _texts(state: Mapping[str, Any]) -> list[str]:
    """Everything the filter, extractor and reader get: this turn's sources and retrieved children, with
    their document names, section paths and injected footnotes."""
    return [
        part
        for ref in (*state.get("sources", []), *state.get("retrieved", []))
        for part in (ref.get("text", ""), ref.get("document", ""), *ref.get("section", []), *ref.get("footnotes", []))
    ]


def state_missing_terms(state: Mapping[str, Any]) -> list[str]:
    """The terms the question defines (:func:`defined_terms`) that no source or retrieved child names."""
    terms = defined_terms(str(state.get("question", "")))
    if not terms:
        return []
    texts = _texts(state)
    return [t for t in terms if not names_term(t, texts)]


def state_missing_quantities(state: Mapping[str, Any]) -> list[str]:
    """:func:`unstated_quantities` of the question (made stand-alone in a chat, without glossary glosses)
    against everything the filter, extractor and reader get."""
    question = prompts.unexpand(str(state.get("standalone_question") or state.get("question", "")))
    return unstated_quantities(question, _texts(state))


def state_missing_sections(state: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """:func:`missing_sections` for a graph state: the question as asked and made stand-alone, against
    this turn's sources and retrieved children (everything the filter, extractor and reader get) with
    their document names, section paths ("26 CFR 1.21-3 ….pdf", "§ 1.21-3 Special rules …") and
    injected footnotes."""
    question = f"{state.get('question', '')}\n{state.get('standalone_question', '')}"
    return missing_sections(question, _texts(state))


def subject_not_found(state: Mapping[str, Any]) -> bool:
    """The question cites provisions and no source mentions any of them, or it defines a term that no
    source names (as ``expand`` found): refuse without reading."""
    cited = state.get("cited_sections") or []
    all_missing = bool(cited) and len(state.get("missing_sections") or []) == len(cited)
    return all_missing or bool(state.get("missing_terms"))


def refusal_reason(missing: list[str], terms: Iterable[str] = ()) -> str:
    """The sentence that follows the refusal: which cited provisions and defined terms no source mentions."""
    return f"None of the sources found mentions {_and([*(provision(n) for n in missing), *terms])}."


def provision(number: str) -> str:
    """``199A`` → ``section 199A``; ``1.25A-1`` → ``§ 1.25A-1`` (a regulation)."""
    return f"§ {number}" if "." in number else f"section {number}"


def _and(items: Iterable[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]
