"""The verdict of a yes/no question, decided over the final quotes before the answer is written.

The reader's conversation (:func:`lclfqa.graph.nodes.reading.prefix` over the verified quotes) is asked,
under a JSON schema, first for the rule that decides the question in the quotes' words (at most
:data:`RULE_CHARS` characters: a short chain of thought), then for ``yes``/``no``/``depends``. It is
asked here rather than by the extractor because the quotes are then complete: the sentences nearest the
question (:mod:`lclfqa.graph.nodes.nearest`) are among them, and the extractor's model, deciding over all
the references at once, answered from the passage it had chosen first. The answer call continues the
same prefix, so llama.cpp evaluates the quotes once for both calls.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage

from lclfqa import prompts
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat

log = logging.getLogger(__name__)

VERDICTS = ("yes", "no")
RULE_CHARS = 240

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rule": {"type": "string", "maxLength": RULE_CHARS},
        "verdict": {"type": "string", "enum": list(VERDICTS)},
    },
    "required": ["rule", "verdict"],
}


def decide(llm: BaseChatModel, shared: list[BaseMessage], question: str, meter: Meter) -> tuple[str, str | None]:
    """``(verdict, rule)`` for the yes/no question in ``question``, asked after the ``shared`` messages
    (the reader's prefix over the quotes); ``("", None)`` when the call fails or its reply has no verdict
    (the reader then writes its own)."""
    ask = prompts.render(prompts.load("templates")["decide_verdict"], asked=prompts.yes_no_question(question))
    try:
        raw = chat(
            llm,
            [*shared, HumanMessage(ask)],
            meter,
            max_tokens=RULE_CHARS // 3 + 24,
            schema=VERDICT_SCHEMA,
            stream=False,
        )
    except Exception as exc:  # the answer is still written, opening with the reader's own verdict
        log.warning("the verdict call failed; the reader decides: %s", exc)
        return "", None
    rule = (parsing.json_object(raw) or {}).get("rule")
    return parsing.choice(raw, "verdict", VERDICTS), rule[:RULE_CHARS] if isinstance(rule, str) else None
