"""``read`` — the domain reader (LCLF-QA §3.6): the answer, with inline [n] citations, or a plain refusal.

Reads ``standalone_question``, ``translation``, ``history``, ``information``, ``filtered``, ``sources``;
writes ``answer``, ``citations``, ``refused``, ``unsupported`` (figures and quotations of the answer
that no source contains, :mod:`lclfqa.nodes.grounding`) and appends this turn to ``history``. The context is the
extractor's information followed by the filtered children, each under the number of its source. The
domain reader also gets the key legal phrases (levels of comfort, characterization terms); the basic
reader (baselines) does not. With nothing retrieved it refuses without calling the LLM, and so it does
when the question cites provisions (``section 280A``) that none of its sources mentions (see
:mod:`lclfqa.nodes.refusal`). When the CoT filter judged some children relevant (well-formed verdicts,
not "none") and did not find that they leave the question unanswered, the reader is told to answer from
them rather than invited to refuse: small local models otherwise refuse even with the answer in front of
them.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.state import QAState, question_fields
from lclfqa.nodes import parsing
from lclfqa.nodes.calls import Meter, chat
from lclfqa.nodes.grounding import unsupported
from lclfqa.nodes.refs import body, citation, label
from lclfqa.nodes.refusal import nothing_cited_is_found, provision, refusal_reason

_REFUSAL = re.compile(
    r"(do(?:es)?|did) not (?:answer|address|contain|discuss|cover|mention)|no information (?:about|on|regarding)"
    r"|not (?:addressed|answered|covered|discussed) (?:in|by) the",
    re.I,
)


def is_refusal(answer: str) -> bool:
    """Whether ``answer`` says the documents do not answer the question (checked on its first sentences)."""
    head = answer.strip()[:300]
    return not head or head.startswith(prompts.refusal()[:30]) or bool(_REFUSAL.search(head))


def build_context(information: str, children: list[dict[str, Any]]) -> str:
    """Extracted information, then every kept child under ``[n]`` (its source's number)."""
    parts = []
    if information.strip():
        parts.append(f"Extracted information (numbers refer to the sources below):\n{information.strip()}")
    for c in children:
        parts.append(f"[{c['source']}] ({label(c)})\n{body(c)}")
    return "\n\n".join(parts)


def cite(answer: str, sources: list[dict[str, Any]], children: list[dict[str, Any]]) -> list[dict[str, Any]]:
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
        "history": [*turn, {"role": "assistant", "content": answer}],
    }


def read(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    ctx = runtime.context
    meter = Meter("read")
    children = state.get("filtered", [])
    sources = state.get("sources", [])
    information = state.get("information", "")
    turn = [{"role": "user", "content": state["question"]}]
    missing = state.get("missing_sections") or []
    if nothing_cited_is_found(state):
        # routed here from expand: filter and extract did not run this turn, so clear what they left in a
        # chat thread's state from the previous turn
        cleared = {"thought": "", "filtered": [], "dropped": [], "answered": "", "information": ""}
        answer = f"{prompts.refusal()} {refusal_reason(missing)}"
        return _refused(turn, answer) | cleared | meter.record(skipped=True, missing_sections=missing)
    if not children and not information.strip():
        return _refused(turn, prompts.refusal()) | meter.record(skipped=True)
    fields = question_fields(state)
    reader = ctx.plan.reader
    judged = (state.get("steps") or {}).get("filter", {})
    relevant = (
        ctx.plan.filter
        and bool(judged.get("well_formed"))
        and not judged.get("none_relevant_kept_all")
        and state.get("answered") != "no"
    )
    rule = prompts.reader_rule(relevant, missing=[provision(n) for n in missing])
    msgs = prompts.messages(
        "read_domain" if reader == "domain" else "read_basic",
        vocabulary=prompts.vocabulary(),
        context=build_context(information, children),
        history=prompts.format_history(state.get("history") or []) or "(none)",
        examples=prompts.answer_examples(),
        **fields,
        refusal=prompts.refusal(),
        refusal_rule=rule,
    )
    written = parsing.clean_answer(chat(ctx.resources.llm, msgs, meter, max_tokens=ctx.settings.max_answer_tokens))
    answer = parsing.strip_source_list(written)  # the numbers it lists still count as cited
    refused = is_refusal(answer)
    citations = [] if refused else cite(written, sources, children)
    documents = [*(body(s) for s in sources), *(c.get("text", "") for c in children)]  # footnotes too
    return {
        "answer": answer,
        "citations": citations,
        "refused": refused,
        "unsupported": [] if refused else unsupported(answer, documents),
        "history": [*turn, {"role": "assistant", "content": answer}],
    } | meter.record(
        reader=reader,
        filter_judged_relevant=relevant,
        missing_sections=missing,
        context_chars=sum(len(m.content) for m in msgs),
    )
