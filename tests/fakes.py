"""A fake chat model that answers by what a prompt asks for, so parallel nodes get the right reply."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from typing import Any

from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr

Reply = str | Callable[[list[BaseMessage]], str] | Exception

# what each node's prompt (its last message) contains → the key of the scripted reply
ROOTLESS: list[str] = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] if os.geteuid() == 0 else []
"""A command prefix under which folder modes apply: root reads anything, so as root a command runs without the
two capabilities that let it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH)."""
MODES_UNTESTABLE = os.geteuid() == 0 and not shutil.which("setpriv")
"""Root without ``setpriv`` reads a folder of any mode: permission tests skip."""


class CountingEmbeddings(DeterministicFakeEmbedding):
    """Deterministic vectors that count the documents embedded (``calls``)."""

    calls: int = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls += len(texts)
        return super().embed_documents(texts)


ROUTES = [
    # the answer metrics' judge prompts (lclfqa/prompts/eval.toml)
    ("Candidate Answer:", "triples"),
    ("Check each claim", "labels"),
    ("final decision as a JSON object", "decision"),
    ("RESPONSE:", "coverage"),
    # the graph's nodes (lclfqa/prompts/templates.toml)
    ("Follow-up question:", "condense"),
    ("Passage:", "passage"),
    ("rewrite this query", "rewrites"),
    ("booleans", "verdicts"),
    ("choose the sentences that answer", "quotes"),
    ("Decide this yes/no question", "yes_no"),
    ("Decide whether this statement is true", "yes_no"),
    ("Write the answer for a tax lawyer", "answer"),
    ("Answer the question from the", "answer"),
    ("Summarize", "summary"),
    ("Document file name:", "summary"),  # the SAC document summary (lclfqa/ingest/summaries.py)
]


def route(messages: list[BaseMessage]) -> str:
    last = messages[-1].content if isinstance(messages[-1].content, str) else str(messages[-1].content)
    for needle, key in ROUTES:
        if needle in last:
            return key
    return "other"


class ScriptedChat(BaseChatModel):
    """Replies from ``script[route]`` (a string, a function of the messages, or an exception to raise).

    Records every call as ``(route, messages, kwargs)`` in ``calls`` (thread-safe).
    """

    script: dict[str, Reply] = Field(default_factory=dict)
    calls: list[tuple[str, list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "scripted-fake"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        key = route(messages)
        with self._lock:
            self.calls.append((key, list(messages), dict(kwargs)))
        reply = self.script.get(key, "")
        if isinstance(reply, Exception):
            raise reply
        text = reply(messages) if callable(reply) else reply
        usage = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text, usage_metadata=usage))])

    def routes(self) -> list[str]:
        return [c[0] for c in self.calls]
