"""The reader's stages: from the model's text to the answer the user sees, in six named steps.

``read`` (:mod:`lclfqa.graph.nodes.read`) asks the model once, then walks :data:`STAGES` in order over a
:class:`Draft`. Each stage has one job and one guarantee; each can be switched off for an ablation
(setting ``stages_off``, ``lclfqa eval qa --ablations stages``) except ``tidy``, and every sentence a stage
removes is recorded with the rule that removed it (``steps.read.removed_by``). Every sentence of the answer
is recorded with the last stage that wrote it — ``model`` where it is the model's, as written
(``steps.read.sentences``; ``lclfqa ask --show-steps`` prints both).

1. ``tidy`` (:mod:`.tidy`) — the model's text as an answer: citation runs collapsed, a closing source list
   dropped, a sentence the token limit cut off finished from the quote it was copying (else dropped), a
   glossary gloss ("MFS (married filing separately)") shown as the acronym the question used. A reply that
   is the refusal sentence is a refusal.
2. ``cite`` (:mod:`.support`) — every sentence cites the quotes that hold it: one citing a quote that lacks
   its figures, or whose words are another quote's, or citing nothing, is cited to those that hold them.
3. ``support`` (:mod:`.support`, :mod:`.check`) — what stays unsupported is removed: a figure no cited
   quote holds, under half of its content words in the quotes, a marker with no quote behind it, a bare
   pointer ("See [3]."), a question asked back, an opinion or Justice named that its quotes are not from
   (:mod:`.attribution`), a sentence resting on another document than those concerning the provision the
   question cites, or naming the authority its source cites for another sentence, the reader's instructions
   said back; a listed clause holding the miss is cut first where that saves the sentence; a repeated
   sentence is said once.
4. ``verdict`` (:mod:`.verdict`) — a yes/no question's answer opens with the verdict the verdict call
   decided over the quotes (under a grammar), never with its opposite (a statement to judge is the reader's).
5. ``sources`` (:mod:`.sources`) — each part of the question the answer does not give gets its nearest
   quote, verbatim and cited (the source's words, counted apart in ``added``); they add to an answer, never
   stand in for one (with nothing the model wrote left, only under a decided verdict).
6. ``refuse`` (:mod:`.tidy`) — an answer is a refusal or an answer, never both: when nothing but a verdict
   survives, the answer is the refusal; a refusal sentence beside statements is dropped.

So the answer holds no figure that its cited evidence does not, and every sentence stating a figure or a
rule cites the quote that holds it.
"""

from __future__ import annotations

from lclfqa.graph.answer import sources, support, tidy, verdict
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.llm.parsing import split_sentences as split

__all__ = ["Draft", "Reading", "run"]

STAGES = (
    ("cite", support.cite),
    ("support", support.keep),
    ("verdict", verdict.open_with),
    ("sources", sources.add),
    ("refuse", tidy.refuse),
)


def units(text: str) -> list[str]:
    """``text``'s sentences, a quotation that runs over several kept whole ("The source reads: “…” [2]")."""
    out: list[str] = []
    for s in split(text):
        if out and out[-1].rfind("“") > out[-1].rfind("”"):  # a quotation still open
            out[-1] = f"{out[-1]} {s}"
        else:
            out.append(s)
    return out


def run(draft: Draft, reading: Reading, off: frozenset[str] = frozenset()) -> Draft:
    """``draft`` (already tidied) through every stage not in ``off``, in order, until one
    makes it a refusal. ``draft.notes["sentences"]``: each sentence of the answer with the stage that last wrote it
    (``model``: the model's words as written; ``tidy``: as ``tidy`` showed them)."""
    written = set(units(draft.written))
    by = {s: "model" if s in written else "tidy" for s in units(draft.answer)}
    for name, stage in STAGES:
        if name in off or draft.refused:
            continue
        before = draft.answer
        stage(draft, reading)
        if draft.answer != before:
            kept = set(units(before))
            by |= {s: name for s in units(draft.answer) if s not in kept}
    draft.notes["sentences"] = [{"sentence": s, "by": by.get(s, "model")} for s in units(draft.answer)]
    return draft
