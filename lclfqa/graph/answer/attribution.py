"""Whose words a quote is: the Court's opinion, a concurrence or a dissent — and answers that say so rightly.

A judgment's section path opens with the heading of the opinion a passage belongs to ("JUSTICE SMITH
delivered the opinion of the Court.", "JUSTICE LEE, concurring.", "JUSTICE PATEL, JUSTICE JONES, and
JUSTICE NGUYEN, dissenting."). With no LLM:

- :func:`the_courts` keeps from the reader, for a question about the holding, the quotes of separate
  opinions when the Court's own are there (shown a dissent's footnote on "the majority", the 1.5B default
  stated the dissent's words as the answer);
- :func:`reading_order` shows the reader the quotes nearest the question first;
- :func:`misnamed` finds a sentence that names an opinion or a Justice ("Justice Lee concurs that …")
  while every quote it cites comes from another opinion and mentions neither (the 1.5B default put a
  dissent's words in a concurrence's mouth); the reader removes it;
- :func:`unattributed` finds, in an answer about the holding, a sentence resting on separate opinions alone
  that does not say whose words they are; the reader removes it too;

Texts whose quotes name no opinion (statutes, regulations) are never checked.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.embeddings import Embeddings

from lclfqa.graph.evidence.nearest import rank_by_question
from lclfqa.index.opinion_scope import named_opinions, own_words
from lclfqa.llm import parsing

_HOLDING = re.compile(r"\b(?:hold|holds|held|holding|majority|the court(?:'s)?|opinion of the court)\b", re.I)
_DISSENT = r"dissent(?:s|ed|ing)?"
_CONCURRENCE = r"concurr(?:ing|ence|ences|ed|s)?"
_SEPARATE = re.compile(rf"\b(?:{_DISSENT}|{_CONCURRENCE})\b", re.I)
_OPINION = re.compile(rf"\b(?:{_DISSENT}|{_CONCURRENCE}|opinion of the court|delivered the opinion)\b", re.I)
_JUSTICE = re.compile(r"\b(?:Justice|JUSTICE)\s+([A-Z][A-Za-z-]+)(?:['’][sS])?|\b([A-Z][A-Za-z-]+),\s+(?:C\.\s*)?J\.")
_ROLES = {
    "dissent": re.compile(rf"\b{_DISSENT}\b", re.I),
    "concurrence": re.compile(rf"\b{_CONCURRENCE}\b", re.I),
    "court": re.compile(r"\b(?:majority|plurality|the court|opinion of the court)\b", re.I),
}
QUOTED = re.compile(r"[\"“][^\"“”]*[\"”]")


def separate_opinion(quote: dict[str, Any]) -> str:
    """The heading of the dissent or concurrence a quote comes from (its section path), or ``""``; a heading
    naming the judges who concur in the judgment is the judgment's (:func:`~lclfqa.index.opinion_scope.own_words`).
    (:func:`opinion_of` still reads such a heading as an opinion: changed, it forked a baseline answer;
    benchmarks/log/2026-12-03-judges-concurring-in-the-judgment.md.)"""
    return next((h for h in quote.get("section") or [] if _SEPARATE.search(own_words(h))), "")


def opinion_of(quote: dict[str, Any]) -> str:
    """The heading of the opinion a quote comes from (the Court's, a concurrence, a dissent), or ``""``."""
    return next((h for h in quote.get("section") or [] if _OPINION.search(h)), "")


def asks_holding(question: str) -> bool:
    """Whether ``question`` asks about the Court's holding or majority (and names no dissent or concurrence)."""
    return bool(_HOLDING.search(question)) and not _SEPARATE.search(question)


def who(text: str) -> set[str]:
    """The Justices (surnames, lower case) and opinions (``dissent``, ``concurrence``, ``court``) ``text``
    names."""
    names = {(m.group(1) or m.group(2)).lower() for m in _JUSTICE.finditer(text)}
    return names | {role for role, pattern in _ROLES.items() if pattern.search(text)}


def misnamed(sentence: str, cited: list[dict[str, Any]]) -> bool:
    """Whether ``sentence`` names an opinion or a Justice (outside its quotation marks) that none of the
    ``cited`` quotes comes from or mentions, every cited quote's opinion being known; where it names a
    Justice and no dissent or concurrence but his, the Justice decides ("Justice Lee dissents …" over a
    dissent he did not join is misnamed; "Unlike Justice Lee, the dissent …" is judged by both). A quote's
    own words
    vouch for the Justices and the dissents or concurrences they name, not for "the Court" or "the
    majority": every opinion speaks of those (a dissent's "the approach this Court has used" is not the
    majority's holding)."""
    text = QUOTED.sub(" ", parsing.CITATION_RE.sub(" ", sentence))
    named = who(text)
    heads = [opinion_of(q) for q in cited]
    if not named or not cited or not all(heads):
        return False
    if not all(who(h) - set(_ROLES) for h in heads):  # a heading naming no Justice cannot contradict a name
        named &= set(_ROLES)
    elif named - set(_ROLES) and not any(o.role for o in named_opinions(text)):
        # every dissent or concurrence said is a named Justice's ("Justice Lee dissents …", not "Unlike
        # Justice Lee, the dissent …"): the quotes must be his or name him
        named -= {"dissent", "concurrence"}
    return bool(named) and not any(
        named & (who(head) | (who(q["text"]) - {"court"})) for q, head in zip(cited, heads, strict=True)
    )


CLOSENESS_WEIGHT = 2
"""How much more the embedder's ranking counts than the extractor's in :func:`reading_order` (measured in
docs/reading.md)."""


def the_courts(question: str, quotes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``quotes`` without those from dissents and concurrences when ``question`` asks about the holding
    (:func:`asks_holding`) and some quote is not from one; else ``quotes`` as they are. A separate opinion's
    words do not answer what the Court held, and :func:`unattributed` would remove the sentences resting on
    them; the ``sources`` stage adds none of them either."""
    if not asks_holding(question):
        return quotes
    courts = [q for q in quotes if not separate_opinion(q)]
    return courts or quotes


def reading_order(question: str, quotes: list[dict[str, Any]], embeddings: Embeddings | None = None) -> list[int]:
    """The order (0-based indices) in which the reader is shown ``quotes``: by the extractor's rank (its picks
    first, then the nearest sentences) plus twice the rank by closeness to the question
    (:func:`lclfqa.graph.evidence.nearest.rank_by_question`), so that the sentences stating what is asked lead
    (the 1.5B default answers from the first quotes it is shown, and its picks mostly follow the order of
    the references: "2.1", "3.1", "4.1" …)."""
    closeness = {i: r for r, i in enumerate(rank_by_question(question, [q["text"] for q in quotes], embeddings))}
    return sorted(range(len(quotes)), key=lambda i: (i + CLOSENESS_WEIGHT * closeness[i], i))


def unattributed(question: str, sentence: str, cited: list[dict[str, Any]]) -> bool:
    """For a question about the holding (:func:`asks_holding`): whether ``sentence`` rests on separate
    opinions alone (every quote it cites is from a dissent or a concurrence) and names none of them, nor a
    Justice — a dissent's words stated as the answer ("The rule … 'is inconsistent with the approach this
    Court has used'" [a dissent's quote], in an answer on what the majority held)."""
    if not asks_holding(question) or not cited or not all(separate_opinion(q) for q in cited):
        return False
    return not (who(QUOTED.sub(" ", parsing.CITATION_RE.sub(" ", sentence))) - {"court"})
