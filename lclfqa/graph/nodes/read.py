"""``read`` — the domain reader (LCLF-QA §3.6): an answer that rests on verified quotes, or a refusal.

Reads the question fields, ``history``, ``quotes``, ``filtered``, ``retrieved``, ``sources``; writes
``answer``, ``verdict``, ``citations``, ``refused``, ``unsupported``, ``removed``, ``added`` and appends this
turn to ``history``.

- **Refusals decided, not generated**, where possible: nothing retrieved, or a question citing provisions
  or defined terms no source mentions (:mod:`lclfqa.graph.evidence.refusal`), refuses without an LLM call.
- **Evidence.** With the extractor (``lclf``, ``longrag``) the reader gets a short conversation of its own
  (:mod:`lclfqa.graph.evidence.reading`) whose reference texts are the verified quotes, numbered [1]…[k], in
  reading order (:func:`lclfqa.graph.answer.attribution.reading_order`); with no verified quote, the
  filtered children's sentences closest to the question (``how="fallback"``). The ``rag`` baselines read
  the retrieved children themselves, numbered as their sources, under the same instruction.
- **Verdict first.** A yes/no question (not a statement to judge true or false: the reader decides that) is
  decided by one call over the quotes under a grammar (:mod:`lclfqa.graph.answer.verdict`); the reader is
  told the verdict, and the stream gets it at once (``stream_mode="custom"``: ``{"verdict": "no", "word":
  "No"}``), so a display can show the answer's first word before the answer call has read its prompt
  (``lclfqa chat``).
- **One answer call, then the stages** of :mod:`lclfqa.graph.answer` (tidy, cite, support, verdict, sources,
  refuse), each with one guarantee; every removed sentence is recorded with its rule.
- **Citations** name, per cited number, the document, pages and section path, and the quote.
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph import answer as stages
from lclfqa.graph.answer.attribution import opinion_of, reading_order, the_courts
from lclfqa.graph.answer.sources import stating
from lclfqa.graph.answer.tidy import written_answer
from lclfqa.graph.answer.verdict import VERDICTS, decide
from lclfqa.graph.context import QAContext
from lclfqa.graph.evidence.grounding import unsupported
from lclfqa.graph.evidence.nearest import index_embeddings, nearest_quotes
from lclfqa.graph.evidence.reading import instruction, passages, prefix
from lclfqa.graph.evidence.refs import body, citation, information_text, with_section_labels
from lclfqa.graph.evidence.refusal import provision, refusal_reason, subject_not_found
from lclfqa.graph.state import QAState, question_fields
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter

FALLBACK_QUOTES = 3


def quote_citations(answer: str, quotes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One citation per quote number the answer uses (document, pages, section, the quote); when it uses
    none, every quote it was given, marked ``inferred``."""
    numbers = [n for n in parsing.cited_numbers(answer) if 1 <= n <= len(quotes)]
    inferred = not numbers
    if inferred:
        numbers = list(range(1, len(quotes) + 1))
    out = []
    for n in numbers:
        q = quotes[n - 1]
        out.append(citation({**q, "source": n}, inferred=inferred) | {"quote": q["text"], "source": q.get("source")})
    return out


def source_citations(
    answer: str, sources: list[dict[str, Any]], children: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Citations for the [n] the answer uses; if it uses none, the sources of the children it was given
    (marked ``inferred``). A parent spans several sections and pages, so a citation narrows to the kept
    children of that source: their pages and the first one's section path."""
    by_number = {s["source"]: s for s in sources}
    kept: dict[int, list[dict[str, Any]]] = {}
    for c in children:
        kept.setdefault(c["source"], []).append(c)
    numbers = [n for n in parsing.cited_numbers(answer) if n in by_number]
    inferred = not numbers
    if inferred:
        numbers = [n for n in kept if n in by_number]
    return [citation(by_number[n], kept.get(n, []), inferred=inferred) for n in numbers]


def _refused(turn: list[dict[str, str]], answer: str) -> dict[str, Any]:
    """The state update of a refusal decided without the reader."""
    return {
        "answer": answer,
        "citations": [],
        "refused": True,
        "unsupported": [],
        "removed": [],
        "added": [],
        "history": [*turn, {"role": "assistant", "content": answer}],
    }


def _refused_early(state: QAState, meter: Meter, turn: list[dict[str, str]]) -> dict[str, Any] | None:
    """The refusal decided before any reading — the question cites what no source mentions, or nothing was
    retrieved — or ``None``."""
    missing = state.get("missing_sections") or []
    if subject_not_found(state):
        # routed here from expand: filter and extract did not run this turn, so clear what they left in a
        # chat thread's state from the previous turn
        cleared = dict.fromkeys(("thought", "answered", "information"), "")
        cleared |= dict.fromkeys(("filtered", "dropped", "quotes", "transcript"), [])
        all_missing = missing if len(missing) == len(state.get("cited_sections") or []) else []
        terms = state.get("missing_terms") or []
        answer = f"{prompts.refusal()} {refusal_reason(all_missing, terms)}"
        return (
            _refused(turn, answer) | cleared | meter.record(skipped=True, missing_sections=missing, missing_terms=terms)
        )
    if not state.get("filtered") and not state.get("retrieved"):
        return _refused(turn, prompts.refusal()) | meter.record(skipped=True)
    return None


def _evidence(
    ctx: QAContext, state: QAState, asked: str, embeddings: Embeddings | None, notes: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], tuple[str, str, str]]:
    """``(quotes, references, (unit, units, evidence))``: what the reader is shown. With the extractor the
    verified quotes (or the fallback sentences) in reading order, which are then the references; without,
    the retrieved children. With the extractor, all empty when there is no evidence at all."""
    quotes: list[dict[str, Any]] = list(state.get("quotes") or [])
    retrieved = state.get("retrieved", [])
    if not ctx.plan.extract:  # rag: the references are the evidence, numbered as the sources
        unit, units = prompts.load("templates")["units"]["references"]
        return quotes, retrieved, (unit, units, prompts.phrase("evidence_references", n=len(retrieved)))
    if not quotes:
        # the sentences closest to the question, when the extractor verified none
        children = state.get("filtered", []) or retrieved
        quotes = nearest_quotes(asked, passages(children), children, [], FALLBACK_QUOTES, embeddings, how="fallback")
        notes["fallback_quotes"] = len(quotes)
    if not quotes:
        return [], [], ("", "", "")
    courts = the_courts(asked, quotes)  # a question about the holding: the Court's quotes only, when there are any
    if len(courts) < len(quotes):
        notes["separate_opinions_dropped"] = len(quotes) - len(courts)
    quotes = [courts[i] for i in reading_order(asked, courts, embeddings)]
    # a fresh, short conversation whose reference texts are the verified quotes: continuing the
    # filter/extract conversation, the 1.5B default echoed the extractor's instruction as its answer
    unit, units = prompts.load("templates")["units"]["quotes"]
    return quotes, quotes, (unit, units, prompts.phrase("evidence_quotes"))


def _filter_judged_relevant(ctx: QAContext, state: QAState) -> bool:
    """Whether the filter judged the sources to address the question. A pipeline without the filter (rag,
    rag+) is told what lclf is told when its filter finds them relevant: the same instruction, so the
    baselines differ from lclf only in the steps they skip."""
    judged = (state.get("steps") or {}).get("filter", {})
    return not ctx.plan.filter or (
        bool(judged.get("well_formed")) and not judged.get("none_relevant_kept_all") and state.get("answered") != "no"
    )


def _verdict(
    runtime: Runtime[QAContext], shared: list, asked: str, texts: list[str], meter: Meter, notes: dict[str, Any]
) -> tuple[str, str | None]:
    """``(verdict, rule)`` of the verdict call for a yes/no question in a pipeline with the filter or the
    extractor (not the baselines) and the ``verdict`` stage on (``("", None)`` otherwise); a decided verdict
    goes to the stream at once (``stream_mode="custom"``), before the answer call, so a display may show it.
    A statement to judge gets no verdict call: the reader decides it, as in the baselines (the call said "true"
    to every false statement; benchmarks/log/2026-12-01-statements-read-by-the-reader.md)."""
    ctx = runtime.context
    decides = prompts.is_yes_no(asked) and not prompts.is_statement(asked)
    if not (ctx.plan.extract or ctx.plan.filter) or "verdict" in ctx.plan.off or not decides:
        return "", None
    verdict, rule = decide(ctx.resources.llm, shared, asked, texts, meter)
    notes["verdict"] = verdict
    if verdict in VERDICTS:
        runtime.stream_writer({"verdict": verdict, "word": verdict.capitalize()})
    if rule is not None:
        notes["rule"] = rule
    return verdict, rule


def _instruction(
    ctx: QAContext,
    state: QAState,
    fields: dict[str, str],
    references: list[dict[str, Any]],
    wording: tuple[str, str, str],
    relevant: bool,
    verdict: str,
) -> HumanMessage:
    """The reader's instruction: the evidence named as ``wording`` gives it (unit, units, evidence line), and
    only the rules that can apply (each ~30 prompt tokens, ~0.3 s on 2 cores)."""
    unit, units, evidence = wording
    asked = fields["question"]
    missing = state.get("missing_sections") or []
    rules = dict(
        vocabulary=prompts.vocabulary(asked),
        unit=unit,
        unit_plural=units,
        refusal_rule=prompts.reader_rule(relevant, missing=[provision(n) for n in missing]),
        verdict_rule=prompts.verdict_rule(asked, verdict),
        parts_rule=prompts.parts_rule(asked),
        comfort_rule=prompts.phrase("comfort_rule", unit_plural=units) if prompts.asks_for_comfort(asked) else "",
        opinion_rule=prompts.phrase("opinion_rule", unit=unit) if any(opinion_of(r) for r in references) else "",
    )
    history = prompts.format_history(state.get("history") or []) or "(none)"
    template = "read_domain" if ctx.plan.reader == "domain" else "read_basic"
    return HumanMessage(instruction(template, evidence=evidence, history=history, **rules, **fields))


def _update(
    state: QAState, asked: str, draft: stages.Draft, quotes: list[dict[str, Any]], extract: bool
) -> dict[str, Any]:
    """The state update of an answer: citations of the numbers it uses (a source list the model wrote at the
    end is not shown, but its numbers count as cited), figures found in no source, what was removed and
    added, and this turn in ``history``."""
    answer, refused = draft.answer, draft.refused
    retrieved, sources = state.get("retrieved", []), state.get("sources", [])
    cited = answer if parsing.cited_numbers(answer) else draft.written
    if refused:
        citations: list[dict[str, Any]] = []
    elif extract:
        citations = quote_citations(cited, quotes)
    else:
        citations = source_citations(cited, sources, retrieved)
    # footnotes too; and the question: a figure the user gave is not one the answer invented
    documents = [*(body(s) for s in sources), *(c.get("text", "") for c in retrieved), state["question"], asked]
    return {
        "answer": answer,
        "citations": citations,
        "refused": refused,
        "quotes": quotes,
        "information": information_text(quotes) if extract else "",
        "unsupported": [] if refused else unsupported(answer, documents),
        "removed": [t for t, _ in draft.removed],
        "added": [] if refused else draft.added,
        "history": [{"role": "user", "content": state["question"]}, {"role": "assistant", "content": answer}],
    }


def read(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("read")
    turn = [{"role": "user", "content": state["question"]}]
    early = _refused_early(state, meter, turn)
    if early is not None:
        return early
    fields = question_fields(state)
    asked = fields["question"]
    embeddings = index_embeddings(ctx)
    notes: dict[str, Any] = {}
    quotes, references, wording = _evidence(ctx, state, asked, embeddings, notes)
    if ctx.plan.extract and not quotes:
        return _refused(turn, prompts.refusal()) | {"quotes": []} | meter.record(no_evidence=True)
    texts = [q["text"] for q in quotes] if ctx.plan.extract else [body(c) for c in references]
    shared = prefix(state, references)
    verdict, rule = _verdict(runtime, shared, asked, texts, meter, notes)
    judged_relevant = _filter_judged_relevant(ctx, state)
    # a verdict decided from one of the quotes means they answer the question, whatever the filter judged
    # over the references before the nearest sentences joined them: the reader is not told both to open
    # with the verdict and that it may refuse (told both, the 1.5B default wrote "No, the documents
    # provided do not answer this question. The rule that decides it is …", and the answer was refused)
    relevant = judged_relevant or verdict in VERDICTS
    msgs = [*shared, _instruction(ctx, state, fields, references, wording, relevant, verdict)]
    draft = written_answer(ctx.resources.llm, msgs, meter, ctx.settings.max_answer_tokens, texts)
    reading = stages.Reading(
        ctx=ctx,
        question=asked,
        # the check reads each passage with the section numbers printed above it
        texts=[with_section_labels(t, r) for t, r in zip(texts, references, strict=True)],
        references=references,
        retrieved=state.get("retrieved", []),
        verdict=verdict,
        rule=stating(rule, texts) if ctx.plan.extract else None,
        embeddings=embeddings,
    )
    stages.run(draft, reading, ctx.plan.off)
    notes["removed_by"] = [{"sentence": t, "by": by} for t, by in draft.removed]
    return (
        _update(state, asked, draft, quotes, ctx.plan.extract)
        | {"verdict": "" if draft.refused else verdict}
        | meter.record(
            reader=ctx.plan.reader,
            filter_judged_relevant=judged_relevant,
            missing_sections=state.get("missing_sections") or [],
            removed=len(draft.removed),
            context_chars=sum(len(m.content) for m in msgs if isinstance(m.content, str)),
            **(notes | draft.notes),
        )
    )
