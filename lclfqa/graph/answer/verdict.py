"""The verdict of a yes/no question, decided over the final quotes before the answer is written.

The reader's conversation (:func:`lclfqa.graph.evidence.reading.prefix` over the verified quotes) is asked,
under a JSON schema, first for the rule that decides the question — one of the quotes, copied: the schema's
only allowed values are the quotes' texts (their first :data:`RULE_WORDS` words), a short chain of thought
that cannot drift from the source — then for ``yes``/``no``. Asked for the rule in free words, the 1.5B
default copied the question back as its "rule". It is asked here rather than
by the extractor because the quotes are then complete: the sentences nearest the question
(:mod:`lclfqa.graph.evidence.nearest`) are among them, and the extractor's model, deciding over all the
references at once, answered from the passage it had chosen first. The answer call continues the same
prefix, so llama.cpp evaluates the quotes once for both calls.

Every quote is offered as the deciding rule, exceptions too: which quote decides is the call's judgement,
not a rule on how a quote opens.

The ``verdict`` stage (:func:`open_with`) makes the answer open with the decided verdict, never with its
opposite. A statement to judge ("True or false: …", :func:`lclfqa.prompts.is_statement`) gets no verdict call:
the reader decides it, as the baselines' reader does (asked, the call said "true" to every false statement of the
unseen sets; docs/reading.md).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage

from lclfqa import prompts
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.schemas import object_schema

log = logging.getLogger(__name__)

VERDICTS = ("yes", "no")
RULE_WORDS = 40


_GRAMMAR_UNSAFE = str.maketrans({'"': "'", "\\": "/"})
"""llama-cpp-python's JSON-schema grammar escapes a straight double quote inside an ``enum`` string so that
llama.cpp's grammar parser ends the literal there, and the process aborts at the first token (a judgment
quoting "damages for breach of contract" did): the choices carry single quotes and no backslash instead."""


def rule_choices(texts: list[str]) -> list[str]:
    """The rules the verdict call may copy: each quote's first :data:`RULE_WORDS` words, once each. Straight
    double quotes become single quotes and a backslash a slash (:data:`_GRAMMAR_UNSAFE`); the rule chosen is
    matched back to its quote by its words."""
    rules = [t for t in texts if t.strip()]
    return list(dict.fromkeys(" ".join(t.translate(_GRAMMAR_UNSAFE).split()[:RULE_WORDS]) for t in rules))


def verdict_schema(texts: list[str]) -> dict[str, Any]:
    """JSON schema of the verdict call: ``rule``, one of :func:`rule_choices`, then ``verdict``, ``yes`` or ``no``."""
    return object_schema(
        rule={"type": "string", "enum": rule_choices(texts)}, verdict={"type": "string", "enum": list(VERDICTS)}
    )


def decide(
    llm: BaseChatModel, shared: list[BaseMessage], question: str, texts: list[str], meter: Meter
) -> tuple[str, str | None]:
    """``(verdict, rule)`` for the yes/no question in ``question``, asked after the ``shared`` messages (the
    reader's prefix over the quotes whose texts are ``texts``); ``("", None)`` when the call fails or its
    reply has no verdict (the reader then writes its own). ``texts`` is never empty: ``read`` refuses first."""
    ask = prompts.render(prompts.load("templates")["decide_verdict"], asked=prompts.yes_no_question(question))
    try:
        raw = chat(
            llm,
            [*shared, HumanMessage(ask)],
            meter,
            max_tokens=2 * RULE_WORDS + 24,  # a copied rule of RULE_WORDS words, the JSON around it, the verdict
            schema=verdict_schema(texts),
            stream=False,
        )
    except Exception as exc:  # the answer is still written, opening with the reader's own verdict
        log.warning("the verdict call failed; the reader decides: %s", exc)
        return "", None
    rule = (parsing.json_object(raw) or {}).get("rule")
    return parsing.choice(raw, "verdict", VERDICTS) or "", rule if isinstance(rule, str) else None


_OPENING = re.compile(
    r"^\W*(?:(?:generally|in general),?\s+)?(yes|no|true|false)\b[,.;:]?\s*|^\W*generally\s+not\b[,.;:]?\s*", re.I
)
_AGREES = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}


def opening_verdict(answer: str, verdict: str) -> tuple[str, bool]:
    """``(answer, changed)``: ``answer`` opening with ``verdict`` (``yes``/``no``): an opening verdict that
    contradicts it is replaced, a missing one is added; one that agrees ("Generally not." for no) stays. Only
    the opening word changes; the rest was checked."""
    m = _OPENING.match(answer)
    said = _AGREES.get(m.group(1).lower()) if m and m.group(1) else ("no" if m else None)
    if said == verdict:
        return answer, False
    rest = answer[m.end() :] if m else answer
    rest = rest[:1].upper() + rest[1:]
    word = verdict.capitalize()
    return (f"{word}. {rest}" if rest else f"{word}."), True


def open_with(draft: Draft, reading: Reading) -> None:
    """The ``verdict`` stage: the answer opens with the decided verdict (:func:`opening_verdict`)."""
    if reading.verdict in VERDICTS:
        answer, changed = opening_verdict(draft.answer, reading.verdict)
        draft.answer, draft.notes["verdict_enforced"] = answer, changed
