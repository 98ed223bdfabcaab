"""The ``cite`` and ``support`` stages, over :mod:`lclfqa.graph.answer.check`'s per-sentence check.

``cite``: every sentence that fails on its citations (a figure or phrase its quotes lack, a marker with no
quote, its words another quote's) or cites nothing is cited to the quotes that hold it
(:func:`~lclfqa.graph.answer.check.recited`); a sentence no quotes hold keeps its markers.

``support``: what is still unsupported is removed, each with the rule that removed it — a figure no cited
quote holds, under ``min_answer_support`` of its content words in the quotes, a marker with no quote
behind it, a bare pointer ("See [3]."), a sentence that asks a question back, an opinion or a Justice named
that its quotes are not from, a separate opinion's words stated as the holding
(:mod:`lclfqa.graph.answer.attribution`), a sentence resting only on a document whose quotes concern none of
the provisions the question cites while another document's do (:func:`elsewhere`). A later listed clause
holding the miss is cut first where that saves the sentence (:func:`~lclfqa.graph.answer.check.keep_supported`);
a repeat is said once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lclfqa.graph.answer.attribution import QUOTED, misnamed, unattributed
from lclfqa.graph.answer.check import (
    SentenceCheck,
    check_answer,
    is_pointer,
    keep_supported,
    needs_citing,
    resting_on,
    with_recitations,
)
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.index.provisions import cited_sections, mentions
from lclfqa.llm import parsing


def asks_back(sentence: str) -> bool:
    """Whether ``sentence`` is a question (it ends in "?" before its markers): an answer that restates what
    is asked ("When is the election due [2]?") states nothing."""
    text = QUOTED.sub(" “…”", parsing.CITATION_RE.sub(" ", sentence))  # a question it quotes asks nothing
    return text.rstrip(" .").endswith("?")


def cite(draft: Draft, reading: Reading) -> None:
    """The ``cite`` stage (see the module docstring)."""
    checks = check_answer(draft.answer, reading.texts, reading.question, reading.floor)
    if any(needs_citing(c) for c in checks):
        draft.answer, n = with_recitations(checks, reading.texts, reading.question)
        draft.notes["recited"] = draft.notes.get("recited", 0) + n


def why_unsupported(check: SentenceCheck | None) -> str:
    """The rule that removed a sentence in the support stage (for ``steps.read.removed_by``)."""
    if check is None:
        return "support"
    if check.missing:
        return "support: figures or quotations no cited quote holds"
    if check.unknown:
        return "support: a marker with no quote behind it"
    if check.unfounded:
        return "support: under the share of words found in the quotes"
    if is_pointer(check.text):
        return "support: a pointer to the sources"
    return "support: says again what an earlier sentence said"


_REGULATION = re.compile(r"\b\d+\.(\d+[A-Z]{0,2})-\d+")


def concerns(number: str, ref: dict[str, Any]) -> bool:
    """Whether quote record ``ref`` concerns provision ``number``: its text, section path or document names
    it, a regulation under it counted ("26 CFR 1.25A-1" concerns section 25A)."""
    named = " ".join([ref.get("text", ""), " ".join(ref.get("section") or []), str(ref.get("document", ""))])
    return mentions(number, named) or mentions(number, _REGULATION.sub(r" \1 ", named))


def elsewhere(question: str, cited: list[dict[str, Any]], refs: list[dict[str, Any]]) -> bool:
    """Whether a sentence resting on ``cited`` answers about another provision than the one ``question``
    cites: other documents' quotes concern a cited provision (:func:`concerns`), and none of ``cited`` is
    from those documents (a clean-vehicle threshold from one Act, for a question on the education credits'
    phase-out that a regulation's quote states). A quote from the same document counts (an opinion
    discusses a statute it cited on another page)."""
    numbers = cited_sections(question)
    if not numbers or not cited:
        return False
    home = {r.get("document") for r in refs if any(concerns(n, r) for n in numbers)}
    return bool(home) and not any(r.get("document") in home for r in cited)


def keep(draft: Draft, reading: Reading) -> None:
    """The ``support`` stage (see the module docstring)."""
    texts, asked = reading.texts, reading.question
    checks = check_answer(draft.answer, texts, asked, reading.floor)
    draft.notes["unfounded"] = sum(c.unfounded for c in checks)
    kept, removed = keep_supported(checks, texts, asked, reading.floor)
    by_text = {c.text: c for c in checks}
    draft.removed += [(t, why_unsupported(by_text.get(t))) for t in removed]
    refs = reading.references
    faults: dict[str, Callable[[SentenceCheck, list[dict[str, Any]]], bool]] = {
        "support: asks a question back": lambda c, _: asks_back(c.text),
        "support: names an opinion its quotes are not from": lambda c, cited: misnamed(c.text, cited),
        "support: a separate opinion's words as the holding": lambda c, cited: unattributed(asked, c.text, cited),
        "support: rests on another provision than the question cites": lambda c, cited: elsewhere(asked, cited, refs),
    }
    for rule, fault in faults.items():
        # a sentence citing nothing is judged by the quote holding most of its words
        wrong = [c for c in kept if fault(c, [refs[n - 1] for n in resting_on(c, texts, asked)])]
        kept = [c for c in kept if c not in wrong]
        draft.removed += [(c.text, rule) for c in wrong]
    draft.answer = " ".join(c.text for c in kept)
