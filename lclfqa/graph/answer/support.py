"""The ``cite`` and ``support`` stages, over :mod:`lclfqa.graph.answer.check`'s per-sentence check.

``cite``: every sentence that fails on its citations (a figure or phrase its quotes lack, a marker with no
quote, its words another quote's) or cites nothing is cited to the quotes that hold it
(:func:`~lclfqa.graph.answer.check.recited`); a sentence no quotes hold keeps its markers.

``support``: what is still unsupported is removed, each with the rule that removed it — a figure no cited
quote holds, under ``min_answer_support`` of its content words in the quotes, a marker with no quote
behind it, a bare pointer ("See [3]."), a sentence that asks a question back, an opinion or a Justice named
that its quotes are not from, a separate opinion's words stated as the holding
(:mod:`lclfqa.graph.answer.attribution`), a sentence resting only on a document whose quotes concern none of
the provisions the question cites while another document's do (:func:`elsewhere`), a sentence naming the
authority its source cites for another sentence (:func:`misplaced`), the reader's instructions said back
(:func:`said_back`). A later listed clause
holding the miss is cut first where that saves the sentence (:func:`~lclfqa.graph.answer.check.keep_supported`);
a repeat is said once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lclfqa import prompts
from lclfqa.graph.answer.attribution import QUOTED, misnamed, unattributed
from lclfqa.graph.answer.check import (
    MIN_CONTENT_WORDS,
    SentenceCheck,
    check_answer,
    content_words,
    figures,
    is_pointer,
    keep_supported,
    needs_citing,
    occurs,
    resting_on,
    with_recitations,
)
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.graph.answer.tidy import refuses
from lclfqa.graph.evidence.sentences import citing, spans
from lclfqa.index.provisions import citations, cited_sections, section_of
from lclfqa.index.tokens import tokenize
from lclfqa.llm import parsing
from lclfqa.llm.parsing import split_sentences as split


def asks_back(sentence: str) -> bool:
    """Whether ``sentence`` is a question (it ends in "?" before its markers): an answer that restates what
    is asked ("When is the election due [2]?") states nothing."""
    text = QUOTED.sub(" “…”", parsing.CITATION_RE.sub(" ", sentence))  # a question it quotes asks nothing
    return text.rstrip(" .").endswith("?")


def said_back(sentence: str) -> bool:
    """Whether ``sentence`` is the reader's instructions said back (:func:`lclfqa.prompts.repeats_instructions`);
    a refusal never is."""
    return not refuses(sentence) and prompts.repeats_instructions(parsing.CITATION_RE.sub(" ", sentence))


def cite(draft: Draft, reading: Reading) -> None:
    """The ``cite`` stage (see the module docstring)."""
    checks = check_answer(draft.answer, reading.texts, reading.question, reading.floor)
    if any(needs_citing(c) for c in checks):
        refs = reading.references
        avoid = {k for k, r in enumerate(refs) if elsewhere(reading.question, [r], refs)}  # as `support` judges
        draft.answer, n = with_recitations(checks, reading.texts, reading.question, avoid)
        draft.notes["recited"] = draft.notes.get("recited", 0) + n


def why_unsupported(check: SentenceCheck) -> str:
    """The rule that removed a sentence in the support stage (for ``steps.read.removed_by``)."""
    if check.missing:
        return "support: figures or quotations no cited quote holds"
    if check.unknown:
        return "support: a marker with no quote behind it"
    if check.unfounded:
        return "support: under the share of words found in the quotes"
    if is_pointer(check.text):
        return "support: a pointer to the sources"
    return "support: says again what an earlier sentence said"


# a heading that opens with its number: "§ 1.25A-1 Calculation …", "SEC. 13401. CLEAN …", "13 The duty …"
_HEADING_NUMBER = re.compile(
    r"^\W*(?:§+|sec(?:tion)?\.?|s|clause|article|art\.?)?\s*(\d[\d.]*[A-Z]{0,2}(?:[–-]\d+)?)\b", re.I
)
_SHORT_CITATION = re.compile(r"\b(?:s|ss|clause|cl\.)\s*(\d+(?:\.\d+)*[A-Z]{0,2})\b", re.I)


def provisions_named(ref: dict[str, Any]) -> set[str]:
    """The provision numbers quote record ``ref`` names as provisions — cited in its text, section path or
    document name ("section 25A", "s 54", "clause 7.2", "26 CFR 1.25A-1"), or opening a heading of its path —
    each regulation with the section it is under; a bare number in the text ("45 days") names none."""
    path = [str(h) for h in ref.get("section") or []]
    named = set()
    for text in [str(ref.get("text", "")), " ".join(path), str(ref.get("document", ""))]:
        named |= {n for _, numbers in citations(text) for n in numbers}
        named |= {m.group(1).upper() for m in _SHORT_CITATION.finditer(text)}
    named |= {m.group(1).upper().rstrip(".") for h in path if (m := _HEADING_NUMBER.match(h))}
    return named | {section for n in named if (section := section_of(n))}


def elsewhere(question: str, cited: list[dict[str, Any]], refs: list[dict[str, Any]]) -> bool:
    """Whether a sentence resting on ``cited`` answers about another provision than the one ``question``
    cites: other documents' quotes name a cited provision (:func:`provisions_named`; a regulation counts for
    the section it is under), none of ``cited`` is from those documents, and ``cited`` name provisions of
    their own (a clean-vehicle threshold from one Act's section, for a question on the education credits'
    phase-out that a regulation states). A quote from the same document counts (an opinion discusses a
    statute it cites on another page), and so does one naming no provision."""
    asked = cited_sections(question)
    asked += [section for n in asked if (section := section_of(n))]
    if not asked or not cited:
        return False
    home = {r.get("document") for r in refs if any(n in provisions_named(r) for n in asked)}
    if not home or any(r.get("document") in home for r in cited):
        return False
    return any(provisions_named(r) for r in cited)


def _authority(piece: str) -> str:
    """The provisions a source sentence's own citation sentences cite (:func:`lclfqa.graph.evidence.sentences.citing`;
    "Id." and a case name cite none), normalised for :func:`~lclfqa.graph.answer.check.occurs`."""
    cites = " ".join(p for p in split(piece)[1:] if citing(p))
    return figures(" ".join(c for c, _ in citations(cites)))


def misplaced(sentence: str, cited: list[dict[str, Any]]) -> bool:
    """Whether ``sentence`` names, for a source sentence's words, the provision a cited quote cites for
    another of its sentences: in one quote, the source sentence holding most of its content words (more than
    any other, and at least :data:`~lclfqa.graph.answer.check.MIN_CONTENT_WORDS`) carries a citation
    sentence of its own naming provisions (:func:`lclfqa.graph.evidence.sentences.spans` keeps one with the
    sentence it follows) but not the one ``sentence`` names, which another sentence's citation gives
    ("Treas. Reg. § 1.25A-1(b)(1) states that married taxpayers who file separately may claim neither
    credit" over "… the same year. Treas. Reg. § 1.25A-1(b)(1). Married taxpayers who file separately may
    claim neither credit … IRC § 25A(g)(6); Treas. Reg. § 1.25A-1(g)."). A provision in a quote's section
    path is its own; "Id." or a case cited for the sentence leaves the check no say."""
    text = QUOTED.sub(" ", parsing.CITATION_RE.sub(" ", sentence))
    written = [c for c, _ in citations(text)]
    named = [re.sub(r"^\D+", "", c) for c in written]
    words = content_words(re.sub("|".join(map(re.escape, written)) or "$^", " ", text))  # its words, not its citations
    for r in cited:
        path = figures(" ".join(r.get("section") or []))
        own = [n for n in named if not occurs(n, path)]
        pieces = [r["text"][a:b] for a, b in spans(r["text"], r.get("section") or ())]
        if not own or len(pieces) < 2:
            continue
        bodies = [" ".join(c for c in split(p) if not citing(c)) for p in pieces]
        shared = sorted(((len(words & set(tokenize(b))), i) for i, b in enumerate(bodies)), reverse=True)
        (top, best), runner_up = shared[0], shared[1][0]
        authority = _authority(pieces[best])
        if top < MIN_CONTENT_WORDS or top == runner_up or not authority:
            continue  # no one sentence holds its words, or the source cites no provision for them
        held = f"{figures(pieces[best])} {authority}"
        others = [_authority(p) for i, p in enumerate(pieces) if i != best]
        if any(not occurs(n, held) and any(occurs(n, o) for o in others) for n in own):
            return True
    return False


def keep(draft: Draft, reading: Reading) -> None:
    """The ``support`` stage (see the module docstring)."""
    texts, asked = reading.texts, reading.question
    checks = check_answer(draft.answer, texts, asked, reading.floor)
    draft.notes["unfounded"] = sum(c.unfounded for c in checks)
    kept, removed = keep_supported(checks, texts, asked, reading.floor)
    by_text = {c.text: c for c in checks}
    draft.removed += [(t, why_unsupported(by_text[t])) for t in removed]
    refs = reading.references
    faults: dict[str, Callable[[SentenceCheck, list[dict[str, Any]]], bool]] = {
        "support: repeats the reader's instructions": lambda c, _: said_back(c.text),
        "support: asks a question back": lambda c, _: asks_back(c.text),
        "support: names an opinion its quotes are not from": lambda c, cited: misnamed(c.text, cited),
        "support: a separate opinion's words as the holding": lambda c, cited: unattributed(asked, c.text, cited),
        "support: rests on another provision than the question cites": lambda c, cited: elsewhere(asked, cited, refs),
        "support: names the authority its source cites for another sentence": lambda c, cited: misplaced(c.text, cited),
    }
    for rule, fault in faults.items():
        # a sentence citing nothing is judged by the quote holding most of its words
        wrong = [c for c in kept if fault(c, [refs[n - 1] for n in resting_on(c, texts, asked)])]
        kept = [c for c in kept if c not in wrong]
        draft.removed += [(c.text, rule) for c in wrong]
    draft.answer = " ".join(c.text for c in kept)
