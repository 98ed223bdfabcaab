"""``read`` — the domain reader (LCLF-QA §3.6): an answer that rests on verified quotes, or a refusal.

Reads the question fields, ``history``, ``quotes``, ``filtered``, ``retrieved``, ``sources``; writes
``answer``, ``verdict``, ``citations``, ``refused``, ``unsupported``, ``removed`` and appends this turn to ``history``.

- **Evidence.** With the extractor (``lclf``, ``longrag``) the reader gets a short conversation of its own
  (:mod:`lclfqa.graph.nodes.reading`) whose reference texts are the verified quotes, numbered [1]…[k]; it must
  cite them per sentence (continuing the extractor's conversation, the 1.5B default echoed its
  instruction as the answer). With no verified quote it
  gets the filtered children's sentences closest to the question instead (counted as ``fallback``). The
  ``rag`` baseline reads the retrieved children themselves, numbered as its sources.
- **Order and parts.** The quotes are shown nearest the question (any of its parts) first, the Court's before separate
  opinions' for a question about the holding (:func:`lclfqa.graph.nodes.attribution.reading_order`); a question
  asking several things has them listed, to be answered in turn (:func:`lclfqa.prompts.question_parts`).
- **Verdict first.** A yes/no question (:func:`lclfqa.prompts.is_yes_no`) is answered "Yes"/"No" first: one
  call over the quotes decides it (:mod:`lclfqa.graph.nodes.verdict`), and the answer opens with it.
- **Checked, not trusted.** Every figure, section number and quoted phrase of every sentence must occur in
  the quotes that sentence cites (:mod:`lclfqa.graph.nodes.answer_check`). On a miss: one repair call naming
  the sentences; an aside holding the miss is cut, a sentence that still fails is removed with its
  verdict (``removed``); so is a sentence that names an opinion or a Justice its quotes are not from
  (:func:`lclfqa.graph.nodes.attribution.misnamed`), one that states a separate opinion's words in an
  answer about the holding without saying whose (:func:`lclfqa.graph.nodes.attribution.unattributed`; a
  sentence citing nothing is judged by the quote holding most of its words), one that copies the
  instruction ("No list of sources at the end [3].") or cites a marker with no quote behind it (no repair
  call for these), and a last sentence that the token limit cut off is dropped; a sentence repeating
  an earlier one is said once, and a sentence that asks ("When is the election due [2]?") is removed. If nothing
  (or a bare verdict) survives, the answer is the first quotes in reading order (``rag``: the references
  closest to the question). So the answer shown holds no figure that its evidence does not.
- **The source's words for each part.** Each thing the question asks gets the quote nearest it, verbatim,
  unless the answer cites or already gives it (:mod:`lclfqa.graph.nodes.rule_quotes`).
- **Refusals decided, not generated**, where possible: nothing retrieved, or a question citing provisions
  no source mentions (:mod:`lclfqa.graph.nodes.refusal`), refuses without an LLM call. When the CoT filter
  judged some children relevant and did not find that they leave the question unanswered, the reader is
  told to answer from them (small local models otherwise refuse with the answer in front of them).
- **Citations** name, per cited number, the document, pages and section path, and the quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.nodes.answer_check import (
    SentenceCheck,
    check_answer,
    echoes,
    keep_supported,
    problems_text,
    recited,
    resting_on,
    stated,
    with_recitations,
)
from lclfqa.graph.nodes.attribution import (
    asks_holding,
    holding_caveat,
    in_view_of,
    misnamed,
    of_the_court,
    opinion_of,
    reading_order,
    separate_opinion,
    unattributed,
)
from lclfqa.graph.nodes.extract import information_text
from lclfqa.graph.nodes.grounding import unsupported
from lclfqa.graph.nodes.nearest import index_embeddings, nearest_quotes, rank_by_question
from lclfqa.graph.nodes.reading import instruction, passages, prefix
from lclfqa.graph.nodes.refs import body, citation
from lclfqa.graph.nodes.refusal import provision, refusal_reason, subject_not_found
from lclfqa.graph.nodes.rule_quotes import stating, with_part_quotes, with_variants
from lclfqa.graph.nodes.sentences import split as sentences
from lclfqa.graph.nodes.verdict import decide
from lclfqa.graph.state import QAState, question_fields
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat

_REFUSAL = re.compile(
    r"(do(?:es)?|did) not (?:answer|address|contain|discuss|cover|mention)|no information (?:about|on|regarding)"
    r"|not (?:addressed|answered|covered|discussed) (?:in|by) the",
    re.I,
)
FALLBACK_QUOTES = 3
ADDITION_SENTENCES = 8
"""Without the extractor (``rag+``), the retrieved sentences nearest the question that the part quotes choose from."""


def is_refusal(answer: str) -> bool:
    """Whether ``answer`` says the documents do not answer the question (checked on its first sentences)."""
    head = answer.strip()[:300]
    return not head or head.startswith(prompts.refusal()[:30]) or bool(_REFUSAL.search(head))


def fallback_quotes(
    children: list[dict[str, Any]],
    question: str,
    embeddings: Embeddings | None = None,
    k: int = FALLBACK_QUOTES,
) -> list[dict[str, Any]]:
    """The ``k`` sentences of ``children`` closest to ``question``, as quotes (``how="fallback"``): the
    evidence when the extractor verified none (:func:`lclfqa.graph.nodes.nearest.nearest_quotes`)."""
    return nearest_quotes(question, passages(children), children, [], k, embeddings, how="fallback")


_VERDICT_ONLY = re.compile(r"(?:\W*(?:generally,?\s+)?(?:yes|no)\W*(?:\[\d+\]\W*)*)+", re.I)


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


def _cite_uncited(answer_checks: list[SentenceCheck], quotes: list[str]) -> str:
    """Sentences that state figures but cite nothing get the quote (or two) holding them all."""
    return " ".join(
        (recited(c, quotes) or c.text) if c.ok and not c.cites and stated(c.text) else c.text for c in answer_checks
    )


QUOTED_ANSWER_CHARS = 700


def closest_quotes(
    question: str,
    texts: list[str],
    embeddings: Embeddings | None = None,
    in_order: bool = False,
    leading: Sequence[int] = (),
    whose: Sequence[str] = (),
) -> str:
    """The answer when nothing the reader wrote survives the check: the ``leading`` quotes (the best passages
    of the opinions the question names), then the quotes closest to the question (or, ``in_order``, the
    first quotes: those already in :func:`~lclfqa.graph.nodes.attribution.reading_order`), as many as fit in
    :data:`QUOTED_ANSWER_CHARS` (at least one), each cited, and each led by ``whose`` words it is where that
    is given (a dissent's or a concurrence's heading: "JUSTICE LEE, concurring: “…” [2]")."""
    picked: list[int] = []
    size = 0
    rest = range(len(texts)) if in_order else rank_by_question(question, texts, embeddings)
    for i in dict.fromkeys([*leading, *rest]):
        n = len(texts[i].strip())
        if picked and size + n > QUOTED_ANSWER_CHARS:
            break
        picked.append(i)
        size += n

    def shown(i: int) -> str:
        label = whose[i] if i < len(whose) else ""
        return f"{label + ': ' if label else ''}“{' '.join(texts[i].split())}” [{i + 1}]"

    return prompts.phrase("quoted_answer", quotes="; and ".join(shown(i) for i in picked))


_QUOTATION = re.compile(r"[“\"][^“”\"]*[”\"]")


def asks_back(sentence: str) -> bool:
    """Whether ``sentence`` is a question (it ends in "?" before its markers): an answer that restates what
    is asked ("When is the election due [2]?") states nothing."""
    text = _QUOTATION.sub(" “…”", parsing.CITATION_RE.sub(" ", sentence))  # a question it quotes asks nothing
    return text.rstrip(" .").endswith("?")


def written_answer(ctx: QAContext, msgs: list[Any], meter: Meter, limit: int) -> tuple[str, str]:
    """``(written, answer)`` of the reader's call: the model's text (citation runs collapsed), and that text
    without a source list at its end and, where the token limit cut it off, without its unfinished last
    sentence."""
    before = meter.completion_tokens
    written = parsing.clean_answer(chat(ctx.resources.llm, msgs, meter, max_tokens=limit, stop_pattern=parsing.RUNAWAY))
    written = parsing.collapse_citation_runs(written)
    answer = parsing.strip_source_list(written)  # the numbers it lists still count as cited
    if meter.completion_tokens - before >= limit:  # the token limit cut it off
        answer = finished(answer)
    return written, answer


REPAIR_CHARS = 400


def strings_schema(key: str, n: int, max_length: int) -> dict[str, Any]:
    """JSON schema of ``{key: [exactly n strings of at most max_length characters]}``."""
    item = {"type": "string", "maxLength": max_length}
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": item, "minItems": n, "maxItems": n}},
        "required": [key],
    }


def repaired(
    ctx: QAContext, msgs: list[Any], written: str, checks: list[SentenceCheck], units: str, meter: Meter
) -> str:
    """The answer with its failing sentences rewritten by one call that names them (only those sentences
    are generated again, not the whole answer); a sentence the reply does not give back stays as it was."""
    failing = [c for c in checks if not c.ok]
    fix = instruction("repair", problems=problems_text(checks), unit_plural=units, n=len(failing))
    raw = chat(
        ctx.resources.llm,
        [*msgs, AIMessage(written), HumanMessage(fix)],
        meter,
        max_tokens=len(failing) * REPAIR_CHARS // 4 + 20,
        schema=strings_schema("sentences", len(failing), REPAIR_CHARS),
        stream=False,
    )
    obj = parsing.json_object(raw) or {}
    again = [t for t in obj.get("sentences") or [] if isinstance(t, str)]
    kept = {_key(c.text) for c in checks if c.ok}
    out, k = [], 0
    for c in checks:
        if c.ok:
            out.append(c.text)
            continue
        text = parsing.clean_answer(again[k]) if k < len(again) else ""
        k += 1
        # a small model pastes the whole answer back, or runs into the length limit mid-sentence: keep only
        # the new, finished sentences of the rewrite
        new = [t for t in sentences(text) if _key(t) not in kept and _FINISHED.search(t)]
        out.append(" ".join(new) if new else c.text)
        kept.update(_key(t) for t in new)
    return " ".join(t for t in out if t)


_FINISHED = re.compile(rf"[.!?][\"”’']?(?:\s*{parsing.CITATION})*\s*$|\]\s*$")


def finished(answer: str) -> str:
    """``answer`` (which the token limit cut off) without its unfinished last sentence ("These decisions
    are"), when a finished sentence comes before it."""
    said = sentences(answer)
    if len(said) < 2 or _FINISHED.search(said[-1]):
        return answer
    cut = answer.rfind(said[-1])
    return answer[:cut].rstrip() if cut > 0 else " ".join(said[:-1])


def _key(sentence: str) -> str:
    """A sentence compared without its citation markers, case and spacing."""
    return " ".join(parsing.CITATION_RE.sub(" ", sentence).lower().split()).rstrip(" .")


_OPENING = re.compile(r"^\W*(?:generally,?\s+)?(yes|no)\b[,.;:]?\s*", re.I)


def opening_verdict(answer: str, verdict: str) -> tuple[str, bool]:
    """``(answer, changed)``: ``answer`` opening with ``verdict`` (``yes``/``no``, decided over the quotes
    under a grammar, :mod:`lclfqa.graph.nodes.verdict`): an opening "Yes"/"No" that contradicts it is
    replaced, a missing one is added. Only the opening word changes; the rest was checked against the quotes."""
    word = verdict.capitalize()
    m = _OPENING.match(answer)
    if m and m.group(1).lower() == verdict:
        return answer, False
    rest = answer[m.end() :] if m else answer
    rest = rest[:1].upper() + rest[1:] if rest else rest
    return (f"{word}. {rest}" if rest else f"{word}."), True


def _why_unsupported(check: SentenceCheck | None) -> str:
    """The rule that removed a sentence in the support stage (for ``steps.read.removed_by``)."""
    if check is None:
        return "support"
    if check.missing:
        return "support: figures or quotations no cited quote holds"
    if check.unknown:
        return "support: a marker with no quote behind it"
    if check.unfounded:
        return "support: under the share of words found in the quotes"
    return "support: a pointer to the sources"


def _appended(before: str, after: str) -> str:
    """What ``after`` adds to the end of ``before`` (``""`` when it adds nothing)."""
    head = before.rstrip()
    return after[len(head) :].strip() if after.startswith(head) else ""


def _with_additions(
    ctx: QAContext,
    answer: str,
    question: str,
    quotes: list[dict[str, Any]],
    retrieved: list[dict[str, Any]],
    written: str,
    rule: int | None,
    notes: dict[str, Any],
) -> tuple[str, list[dict[str, Any]], list[str]]:
    """``(answer, quotes, added)``: the checked ``answer`` followed by the source's words code adds — each
    part's nearest quote (:func:`~lclfqa.graph.nodes.rule_quotes.with_part_quotes`), a cited example's
    variants (:func:`~lclfqa.graph.nodes.rule_quotes.with_variants`), the note that only a separate opinion
    says it (:func:`~lclfqa.graph.nodes.attribution.holding_caveat`) — and each piece added, in order.

    With the extractor the pieces are taken from the verified ``quotes`` and numbered as they are; without it
    (``rag+``) from the retrieved children the answer was read from: the part quotes are the children's
    sentences nearest the question, numbered as their child, so a baseline gets the same additions."""
    off, added = ctx.plan.off, []
    embeddings = index_embeddings(ctx)
    if ctx.plan.extract:
        numbers, pool, cited_pool = None, quotes, quotes
    else:
        pool = nearest_quotes(question, passages(retrieved), retrieved, [], ADDITION_SENTENCES, embeddings)
        position = {c["id"]: i for i, c in enumerate(retrieved, 1)}
        numbers = [position[q["child"]] for q in pool]
        rule = None
        cited_pool = [dict(c, child=c["id"]) for c in retrieved]
    if "part-quotes" not in off:
        before = answer
        answer, n = with_part_quotes(answer, question, pool, rule, embeddings, written, numbers=numbers)
        if n:
            notes["rule_quoted"] = n
            added.append(_appended(before, answer))
    if "variants" not in off:
        before = answer
        answer, cited_pool, n = with_variants(answer, cited_pool, retrieved)
        if n:
            notes["example_variants"] = n
            added.append(_appended(before, answer))
    if "caveat" not in off:
        caveat = holding_caveat(question, answer, cited_pool)
        if caveat:
            answer = f"{answer} {caveat}"
            notes["separate_opinion_only"] = True
            added.append(caveat)
    return answer, (cited_pool if ctx.plan.extract else quotes), [a for a in added if a]


def read(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("read")
    children = state.get("filtered", [])
    retrieved = state.get("retrieved", [])
    sources = state.get("sources", [])
    turn = [{"role": "user", "content": state["question"]}]
    missing = state.get("missing_sections") or []
    if subject_not_found(state):
        # routed here from expand: filter and extract did not run this turn, so clear what they left in a
        # chat thread's state from the previous turn
        cleared = {
            "thought": "",
            "filtered": [],
            "dropped": [],
            "answered": "",
            "information": "",
            "quotes": [],
            "transcript": [],
        }
        all_missing = missing if len(missing) == len(state.get("cited_sections") or []) else []
        terms = state.get("missing_terms") or []
        answer = f"{prompts.refusal()} {refusal_reason(all_missing, terms)}"
        return (
            _refused(turn, answer) | cleared | meter.record(skipped=True, missing_sections=missing, missing_terms=terms)
        )
    if not children and not retrieved:
        return _refused(turn, prompts.refusal()) | meter.record(skipped=True)
    fields = question_fields(state)
    judged = (state.get("steps") or {}).get("filter", {})
    # a pipeline without the filter (rag, rag+) is told what lclf is told when its filter finds the sources
    # relevant: the same instruction, so the baselines differ from lclf only in the steps they skip
    relevant = not ctx.plan.filter or (
        bool(judged.get("well_formed")) and not judged.get("none_relevant_kept_all") and state.get("answered") != "no"
    )
    rule = prompts.reader_rule(relevant, missing=[provision(n) for n in missing])
    quotes: list[dict[str, Any]] = list(state.get("quotes") or [])
    notes: dict[str, Any] = {}
    if ctx.plan.extract:
        if not quotes:
            quotes = fallback_quotes(children or retrieved, fields["question"], index_embeddings(ctx))
            notes["fallback_quotes"] = len(quotes)
        if not quotes:
            return _refused(turn, prompts.refusal()) | {"quotes": []} | meter.record(no_evidence=True)
        quotes = [quotes[i] for i in reading_order(fields["question"], quotes, index_embeddings(ctx))]
        # a fresh, short conversation whose reference texts are the verified quotes: continuing the
        # filter/extract conversation, the 1.5B default echoed the extractor's instruction as its answer
        unit, units = prompts.load("templates")["units"]["quotes"]
        evidence = prompts.phrase("evidence_quotes")
        texts = [q["text"] for q in quotes]
        references = quotes
    else:  # rag: the references are the evidence, numbered as the sources
        unit, units = prompts.load("templates")["units"]["references"]
        evidence = prompts.phrase("evidence_references", n=len(retrieved))
        texts = [body(c) for c in retrieved]
        references = retrieved
    shared = prefix(state, references)
    verdict, decided_rule = "", None
    off = ctx.plan.off
    if ctx.plan.extract and "verdict" not in off and prompts.is_yes_no(fields["question"]):
        verdict, decided_rule = decide(ctx.resources.llm, shared, fields["question"], texts, meter)
        notes["verdict"] = verdict
        if decided_rule is not None:
            notes["rule"] = decided_rule
    asked = fields["question"]
    template = "read_domain" if ctx.plan.reader == "domain" else "read_basic"
    rules = dict(
        vocabulary=prompts.vocabulary(fields["question"]),
        unit=unit,
        unit_plural=units,
        refusal_rule=rule,
        verdict_rule=prompts.verdict_rule(fields["question"], verdict),
        parts_rule=prompts.parts_rule(fields["question"]),
        # rules that cannot apply are not given (each ~30 prompt tokens, ~0.3 s on 2 cores)
        comfort_rule=prompts.phrase("comfort_rule", unit_plural=units) if prompts.asks_for_comfort(asked) else "",
        opinion_rule=prompts.phrase("opinion_rule", unit=unit) if any(opinion_of(r) for r in references) else "",
    )
    history = prompts.format_history(state.get("history") or []) or "(none)"
    ask = instruction(template, evidence=evidence, history=history, **rules, **fields)
    # what the reader was told to do, without the evidence, history or question and its parts (an answer
    # may restate those)
    told = instruction(template, evidence="", history="", **(rules | {"parts_rule": ""}), **dict.fromkeys(fields, ""))
    msgs = [*shared, HumanMessage(ask)]
    written, answer = written_answer(ctx, msgs, meter, ctx.settings.max_answer_tokens)
    refused = is_refusal(answer)
    removed: list[str] = []
    added: list[str] = []  # the source's words code adds (the model's own words are the rest of the answer)
    if not refused:
        floor = ctx.settings.min_answer_support
        checks = check_answer(answer, texts, asked, floor)

        def recite(answer: str, checks: list[SentenceCheck]) -> tuple[str, list[SentenceCheck]]:
            """Each sentence cited to the quote that holds it (counted in ``recited``), checked again."""
            answer, count = with_recitations(checks, texts, asked)
            notes["recited"] = notes.get("recited", 0) + count
            return answer, check_answer(answer, texts, asked, floor)

        if "recite" not in off and not all(c.ok and not c.misattributed for c in checks):
            answer, checks = recite(answer, checks)
        # a figure no quote holds is worth one repair call (the sentence carries a fact); a sentence that
        # only says what no quote says is removed below without one (it has no figure to save; a call is ~10 s)
        if "repair" not in off and any(c.missing for c in checks):
            notes["repaired"] = sum(not c.ok for c in checks)
            try:
                answer = repaired(ctx, msgs, written, checks, units, meter)
            except Exception as exc:  # the removal below still guarantees a checked answer
                notes["repair_error"] = str(exc)
            refused = is_refusal(answer)
            checks = check_answer(answer, texts, asked, floor)
            if "recite" not in off and not refused and any(c.misattributed for c in checks):  # it cites anew
                answer, checks = recite(answer, checks)
        if not refused:
            # a removed sentence takes its verdict with it: kept alone, the 1.5B default's verdicts from
            # failing sentences were wrong 2 times of 2 ("Yes. The sources state: “No credit is allowed …”")
            notes["unfounded"] = sum(c.unfounded for c in checks)
            if "support" in off:
                kept, removed = list(checks), []
            else:
                kept, removed = keep_supported(checks, texts, asked, floor)
            by_text = {c.text: c for c in checks}
            why = [(t, _why_unsupported(by_text.get(t))) for t in removed]
            # a separate opinion's words about the majority: say whose view they are
            if "attribution" not in off and not asks_holding(asked):
                for i, c in enumerate(kept):  # only a sentence that cites: the rewrite keeps its markers
                    cited = [references[n - 1] for n in c.cites]
                    if c.cites and of_the_court(c.text, cited):
                        kept[i] = replace(c, text=in_view_of(c.text, cited))
                        notes["opinion_view"] = notes.get("opinion_view", 0) + 1
            # a sentence naming one opinion while its quotes are another's: the words are not that Justice's
            # or, in an answer about the holding, a separate opinion's words stated without saying whose
            # or that copies its instruction
            faults = {
                "misnamed_opinion": lambda c, cited: misnamed(c.text, cited),
                "unattributed_opinion": lambda c, cited: unattributed(asked, c.text, cited),
                "echoed_instruction": lambda c, _: echoes(c.text, told, texts),
                "asked_back": lambda c, _: asks_back(c.text),
            }
            stage_of = {"misnamed_opinion": "attribution", "unattributed_opinion": "attribution"}
            stage_of |= {"echoed_instruction": "echo", "asked_back": "asks-back"}
            for name, fault in faults.items():
                if stage_of[name] in off:
                    continue
                # a sentence citing nothing is judged by the quote holding most of its words
                wrong = [c for c in kept if fault(c, [references[n - 1] for n in resting_on(c, texts, asked)])]
                if wrong:
                    kept = [c for c in kept if c not in wrong]
                    removed += [c.text for c in wrong]
                    why += [(c.text, name) for c in wrong]
                    notes[name] = len(wrong)
            notes["removed_by"] = [{"sentence": t, "by": by} for t, by in why]
            answer = " ".join(c.text for c in kept) if "cite-uncited" in off else _cite_uncited(kept, texts)
            if "fallback" not in off and (not answer.strip() or _VERDICT_ONLY.fullmatch(answer.strip())):
                # nothing but (at most) a bare verdict survived: state the quotes closest to the question
                picks = {c["id"] for c in retrieved if c.get("opinion_pick")}
                leading = [i for i, q in enumerate(references) if q.get("child") in picks]
                whose = [separate_opinion(q).strip().rstrip(".") for q in references] if ctx.plan.extract else []
                answer = closest_quotes(
                    fields["question"], texts, index_embeddings(ctx), ctx.plan.extract, leading, whose
                )
                notes["answer_from_quote"] = True
                added.append(answer)
    if not refused and verdict in ("yes", "no"):
        answer, notes["verdict_enforced"] = opening_verdict(answer, verdict)
    if not refused and ctx.plan.additions and not notes.get("answer_from_quote"):
        answer, quotes, pieces = _with_additions(
            ctx, answer, fields["question"], quotes, retrieved, written, stating(decided_rule, texts), notes
        )
        added += pieces
    # a source list the model wrote at the end is not shown, but its numbers count as cited
    cited = answer if parsing.cited_numbers(answer) else written
    if refused:
        citations: list[dict[str, Any]] = []
    elif ctx.plan.extract:
        citations = quote_citations(cited, quotes)
    else:
        citations = source_citations(cited, sources, retrieved)
    documents = [*(body(s) for s in sources), *(c.get("text", "") for c in retrieved)]  # footnotes too
    return {
        "answer": answer,
        "verdict": verdict,
        "citations": citations,
        "refused": refused,
        "quotes": quotes,
        "information": information_text(quotes) if ctx.plan.extract else "",
        "unsupported": [] if refused else unsupported(answer, documents),
        "removed": removed,
        "added": added,
        "history": [*turn, {"role": "assistant", "content": answer}],
    } | meter.record(
        reader=ctx.plan.reader,
        filter_judged_relevant=relevant,
        missing_sections=missing,
        removed=len(removed),
        context_chars=sum(len(m.content) for m in msgs if isinstance(m.content, str)),
        **notes,
    )
