"""The expert-answer replay: a chat model whose *answer* call returns a given text, every other call real.

``--model replay:FILE`` (FILE: JSON Lines with ``question`` and ``gold_answer``, e.g. a QA set) wraps the
local model. The reader's answer call (tagged ``node:read``, not JSON-constrained) returns the gold answer of
the question it is asked — the row whose question shares most words with the prompt's ``Question:`` line —
with a ``[k]`` marker on each sentence naming the reference text that shares most of its content words (none
where no reference shares a word). Every other call (rewrite, filter, extract, verdict) goes to the
wrapped model, and every check after the answer runs as it does for the model's own text. So the replay
measures what the chain does to a sound expert answer: which of its facts survive, and which rule removes a
sentence — the test that the chain is ready for a stronger model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from lclfqa.llm.parsing import split_sentences

READ_TAG = "node:read"
_REFERENCE = re.compile(r"<reference (\d+)>[^\n]*\n(.*?)\n</reference \1>", re.S)
_QUESTION = re.compile(r"Question:\s*(.+?)\s*$", re.S)
_END = re.compile(r"([.!?][\"”’']?)\s*$")


_WORDS = re.compile(r"[^\W_]+")
_STOP = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with what which who when where why how can may does do has have had its".split()
)


def tokenize(text: str) -> list[str]:
    """Content words of ``text``, lower-cased (the replay's marker placement; no stemming)."""
    return [w for w in _WORDS.findall(text.lower()) if w not in _STOP]


class ReplayError(ValueError):
    """The replay file is missing or holds no usable row."""


def load_answers(path: str | Path) -> list[tuple[str, str]]:
    """``(question, gold_answer)`` of each row of the JSON Lines file at ``path`` that has both."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ReplayError(f"cannot read the replay file {p}: {exc.strerror or exc}") from exc
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ReplayError(f"{p}, line {n}: not JSON ({exc})") from exc
        if isinstance(row, dict) and isinstance(row.get("question"), str) and isinstance(row.get("gold_answer"), str):
            out.append((row["question"], row["gold_answer"]))
    if not out:
        raise ReplayError(f"{p} holds no row with 'question' and 'gold_answer'")
    return out


def cited(answer: str, references: Sequence[str]) -> str:
    """``answer`` with each sentence ending in ``[k]``: the reference sharing most of its content words
    (the first on a tie); a sentence sharing none with any reference is left without a marker."""
    words = [set(tokenize(r)) for r in references]
    out = []
    for sentence in split_sentences(answer.strip()):  # "Palko v. Connecticut" is one sentence
        mine = set(tokenize(sentence))
        shared = [len(mine & w) for w in words]
        if not shared or max(shared) == 0:
            out.append(sentence)
            continue
        k = shared.index(max(shared)) + 1
        m = _END.search(sentence)
        out.append(f"{sentence[: m.start()]} [{k}]{m.group(1)}" if m else f"{sentence} [{k}]")
    return " ".join(out)


class ReplayChat(BaseChatModel):
    """Wraps ``inner``; the reader's answer call returns the gold answer (module doc), cited to the prompt's
    reference texts."""

    inner: BaseChatModel
    answers: list[tuple[str, str]]
    supports_stop_pattern: bool = True
    supports_json_schema: bool = True

    @property
    def _llm_type(self) -> str:
        return "lclfqa-replay"

    def forget_prompt(self) -> None:
        """The wrapped model's :meth:`~lclfqa.llm.llama.ChatLlama.forget_prompt`, where it has one."""
        forget = getattr(self.inner, "forget_prompt", None)
        if callable(forget):
            forget()

    def gold(self, messages: Sequence[BaseMessage]) -> str | None:
        """The cited gold answer for the question ``messages`` ask, or None when no row shares a word with it."""
        text = "\n".join(str(m.content) for m in messages)
        m = _QUESTION.search(str(messages[-1].content)) if messages else None
        asked = set(tokenize(m.group(1) if m else text[-500:]))
        scores = [len(asked & set(tokenize(q))) / max(1, len(set(tokenize(q)))) for q, _ in self.answers]
        if not scores or max(scores) == 0:
            return None
        answer = self.answers[scores.index(max(scores))][1]
        return cited(answer, [body for _, body in _REFERENCE.findall(text)])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        tags = (run_manager.tags if run_manager else None) or []
        if READ_TAG in tags and "response_format" not in kwargs:
            text = self.gold(messages)
            if text is not None:
                usage = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
                message = AIMessage(content=text, usage_metadata=usage, response_metadata={"replayed": True})
                return ChatResult(generations=[ChatGeneration(message=message)])
        message = self.inner.invoke(messages, stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=message)])
