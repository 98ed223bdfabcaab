"""The reading conversation that ``filter``, ``extract`` and ``read`` share.

One system message and one user message hold the retrieved children as numbered reference texts and the
question; each step appends its own instruction (and the previous steps' replies) to that conversation.
llama.cpp keeps the KV cache of the longest common prefix of consecutive calls, so the references are
evaluated once per question, not once per step (prompt processing, ~90 tokens/s on 2 cores, is what a
local answer costs). The transcript after the prefix travels in the state (``transcript``) as plain
role/content dicts.

With ``numbered`` (the pipelines with an extractor) every sentence of a reference is prefixed with its
number, ``[2.3]`` (reference 2, sentence 3; :mod:`lclfqa.graph.evidence.sentences`), so the extractor quotes by
naming numbers (:func:`passages` maps them back to the source's text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from lclfqa import prompts
from lclfqa.graph.evidence.refs import body, label
from lclfqa.graph.evidence.sentences import spans
from lclfqa.graph.state import QAState, question_fields


@dataclass(frozen=True)
class Passage:
    """One numbered sentence of a reference text: ``id`` ``"2.3"``, the reference's position, its span."""

    id: str
    ref: int
    start: int
    end: int


def passages(children: list[dict[str, Any]]) -> dict[str, Passage]:
    """Every sentence of every child by its number (``"i.j"``: child ``i``, 1-based, sentence ``j``)."""
    out: dict[str, Passage] = {}
    for i, c in enumerate(children, 1):
        for j, (a, b) in enumerate(spans(c["text"], c.get("section", ())), 1):
            out[f"{i}.{j}"] = Passage(f"{i}.{j}", i, a, b)
    return out


def _numbered_text(i: int, child: dict[str, Any]) -> str:
    """The child's text as one line per sentence, each opening with its number ``[i.j]``."""
    text = child["text"]
    numbered = enumerate(spans(text, child.get("section", ())), 1)
    return "\n".join(f"[{i}.{j}] {' '.join(text[a:b].split())}" for j, (a, b) in numbered)


def references(children: list[dict[str, Any]], numbered: bool = False) -> str:
    """The children as numbered ``<reference i>`` blocks (by position, 1…n), each with where it comes from;
    with ``numbered``, one line per sentence opening with its number."""
    blocks = []
    for i, c in enumerate(children, 1):
        text = _numbered_text(i, c) if numbered else body(c)
        blocks.append(f"<reference {i}> ({label(c)})\n{text}\n</reference {i}>")
    return "\n\n".join(blocks)


def prefix(state: QAState, children: list[dict[str, Any]], numbered: bool = False) -> list[BaseMessage]:
    """System + user message with the references and the question: the part every step shares."""
    return prompts.messages("reading", references=references(children, numbered), **question_fields(state))


def conversation(state: QAState, children: list[dict[str, Any]], transcript: list[dict[str, str]]) -> list[BaseMessage]:
    """The shared prefix, its sentences numbered, followed by ``transcript`` (earlier steps' instructions and
    replies): the extractor's conversation."""
    msgs = prefix(state, children, numbered=True)
    for turn in transcript:
        msgs.append(AIMessage(turn["content"]) if turn["role"] == "assistant" else HumanMessage(turn["content"]))
    return msgs


def instruction(name: str, **values: Any) -> str:
    """The user text of the step template ``name`` (``filter_cot``, ``extract``, ``read_domain`` …)."""
    return prompts.render(prompts.template(name)["user"], **values)
