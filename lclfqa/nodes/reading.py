"""The reading conversation that ``filter``, ``extract`` and ``read`` share.

One system message and one user message hold the retrieved children as numbered reference texts and the
question; each step appends its own instruction (and the previous steps' replies) to that conversation.
llama.cpp keeps the KV cache of the longest common prefix of consecutive calls, so the references are
evaluated once per question, not once per step (prompt processing, ~90 tokens/s on 2 cores, is what a
local answer costs). The transcript after the prefix travels in the state (``transcript``) as plain
role/content dicts.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from lclfqa import prompts
from lclfqa.graph.state import QAState, question_fields
from lclfqa.nodes.refs import body, label


def references(children: list[dict[str, Any]]) -> str:
    """The children as numbered ``<reference i>`` blocks (by position, 1…n), each with where it comes from."""
    return "\n\n".join(f"<reference {i}> ({label(c)})\n{body(c)}\n</reference {i}>" for i, c in enumerate(children, 1))


def prefix(state: QAState, children: list[dict[str, Any]]) -> list[BaseMessage]:
    """System + user message with the references and the question: the part every step shares."""
    return prompts.messages("reading", references=references(children), **question_fields(state))


def conversation(state: QAState, children: list[dict[str, Any]], transcript: list[dict[str, str]]) -> list[BaseMessage]:
    """The shared prefix followed by ``transcript`` (earlier steps' instructions and replies)."""
    msgs = prefix(state, children)
    for turn in transcript:
        msgs.append(AIMessage(turn["content"]) if turn["role"] == "assistant" else HumanMessage(turn["content"]))
    return msgs


def instruction(name: str, **values: Any) -> str:
    """The user text of the step template ``name`` (``filter_cot``, ``extract``, ``read_domain`` …)."""
    return prompts.render(prompts.template(name)["user"], **values)
