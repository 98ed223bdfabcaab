"""How nodes talk to the chat model: one metered call, plain or JSON-schema constrained.

Constrained decoding is asked for in the way each backend understands (llama.cpp builds a grammar from the
JSON schema; OpenAI-compatible servers take ``response_format`` ``json_schema``); any other model (a test's
fake) gets the plain prompt. Callers parse the text defensively either way (:mod:`lclfqa.llm.parsing`).

Not every OpenAI-compatible server takes ``json_schema``: llama-cpp-python's (``python -m llama_cpp.server``,
0.3.36) answers it with an error and wants ``{"type": "json_object", "schema": ...}``. A schema call that an
endpoint rejects that way is asked again in that form, and the endpoint is remembered for the process. Before
this, every schema call through that server failed and the nodes quietly degraded (no rewrites, the filter
keeping everything).

The answer's length limit has the same trouble: langchain-openai sends ``max_tokens`` as
``max_completion_tokens``, which that server ignores, so a call generated until the context was full (minutes
on a CPU). To an endpoint other than OpenAI's, the limit also goes as ``max_tokens`` (vLLM, Ollama and
llama.cpp's own server read either).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig

NO_STREAM_TAG = "nostream"
"""LangGraph's tag (``langgraph.constants.TAG_NOSTREAM``) for a call whose tokens ``stream_mode="messages"``
does not emit."""


def llm_call_config(node: str, call: int, stream: bool = True) -> RunnableConfig:
    """The config of a node's ``call``-th LLM call (from 1): its run name, tags and metadata; a call that
    is not streamed (``stream=False``) is tagged :data:`NO_STREAM_TAG`."""
    return {
        "run_name": f"{node}.llm",
        "tags": [f"node:{node}"] + ([] if stream else [NO_STREAM_TAG]),
        "metadata": {"lclfqa_node": node, "lclfqa_call": call},
    }


class Meter:
    """Wall time, LLM calls and tokens of one node run; ``record()`` is the node's ``steps`` entry."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.started = time.perf_counter()
        self.llm_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.reused_tokens = 0
        self.notes: dict[str, Any] = {}

    def count(self, message: BaseMessage) -> None:
        self.llm_calls += 1
        usage = getattr(message, "usage_metadata", None) or {}
        self.prompt_tokens += int(usage.get("input_tokens", 0) or 0)
        self.completion_tokens += int(usage.get("output_tokens", 0) or 0)
        self.reused_tokens += int((usage.get("input_token_details") or {}).get("cache_read", 0) or 0)

    def record(self, **notes: Any) -> dict[str, Any]:
        """``{"steps": {node: {...}}}`` — merge it into the node's return value."""
        entry = {
            "seconds": round(time.perf_counter() - self.started, 3),
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reused_tokens": self.reused_tokens,
            **self.notes,
            **notes,
        }
        return {"steps": {self.node: entry}}


def json_schema_kwargs(llm: BaseChatModel, schema: dict[str, Any]) -> dict[str, Any]:
    """Invocation kwargs that constrain ``llm``'s output to ``schema``, where the backend can."""
    if getattr(llm, "supports_json_schema", False):  # lclfqa.llm.llama.ChatLlama: grammar from the schema
        return {"response_format": {"type": "json_object", "schema": schema}}
    if _is_chat_openai(llm):
        if _endpoint(llm) in _JSON_OBJECT_ENDPOINTS:
            return {"response_format": {"type": "json_object", "schema": schema}}
        return {"response_format": {"type": "json_schema", "json_schema": {"name": "output", "schema": schema}}}
    return {}


def token_limit_kwargs(llm: BaseChatModel, max_tokens: int) -> dict[str, Any]:
    """Invocation kwargs that cap the completion at ``max_tokens``, in the field the backend reads (module doc)."""
    base_url = str(getattr(llm, "openai_api_base", None) or "")
    if base_url and "api.openai.com" not in base_url and _is_chat_openai(llm):
        extra = {**(getattr(llm, "extra_body", None) or {}), "max_tokens": max_tokens}
        return {"max_tokens": max_tokens, "extra_body": extra}
    return {"max_tokens": max_tokens}


def _is_chat_openai(llm: BaseChatModel) -> bool:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError:  # pragma: no cover - a declared dependency
        return False
    return isinstance(llm, ChatOpenAI)


#: ``(base URL, model)`` of OpenAI-compatible endpoints that rejected ``json_schema`` (module doc).
_JSON_OBJECT_ENDPOINTS: set[tuple[str, str]] = set()


def _endpoint(llm: BaseChatModel) -> tuple[str, str]:
    return (str(getattr(llm, "openai_api_base", None) or ""), str(getattr(llm, "model_name", "")))


def _rejects_json_schema(llm: BaseChatModel, error: Exception) -> bool:
    """Whether ``error`` is an OpenAI-compatible server refusing ``response_format`` ``json_schema``."""
    text = str(error)
    return (
        _is_chat_openai(llm)
        and "json_schema" in text
        and "response_format" in text
        and _endpoint(llm) not in _JSON_OBJECT_ENDPOINTS
    )


def invoke(
    llm: BaseChatModel,
    messages: Sequence[BaseMessage],
    meter: Meter,
    *,
    max_tokens: int | None = None,
    schema: dict[str, Any] | None = None,
    stop_pattern: str | None = None,
    stream: bool = True,
    **options: Any,
) -> BaseMessage:
    """The metered call: one LLM call, counted on ``meter``, returning the model's message. ``schema`` asks
        for constrained JSON; ``stop_pattern`` (a regex) stops a local llama.cpp generation as soon as the text
        so far ends in a match (a small model that starts a runaway list of citations is cut off instead of
        running to ``max_tokens``); other backends ignore it. It is a string, so the response cache still
        applies. ``stream=False`` keeps the call's tokens out of the graph's token stream (a JSON step of the
    node that streams the answer). ``options`` (``stop``, …) go to the model as they are.

        The call is traced as ``<node>.llm`` under the node's run (:func:`llm_call_config`,
        :mod:`lclfqa.graph.tracing`). Most callers want the text: :func:`chat`."""
    kwargs: dict[str, Any] = dict(options)
    if max_tokens is not None:
        kwargs.update(token_limit_kwargs(llm, max_tokens))
    if schema is not None:
        kwargs.update(json_schema_kwargs(llm, schema))
    if stop_pattern is not None and getattr(llm, "supports_stop_pattern", False):
        kwargs["stop_pattern"] = stop_pattern
    runnable = llm.bind(**kwargs) if kwargs else llm
    config = llm_call_config(meter.node, meter.llm_calls + 1, stream)
    try:
        message = runnable.invoke(list(messages), config)
    except Exception as exc:
        if schema is None or not _rejects_json_schema(llm, exc):
            raise
        _JSON_OBJECT_ENDPOINTS.add(_endpoint(llm))
        kwargs.update(json_schema_kwargs(llm, schema))
        message = llm.bind(**kwargs).invoke(list(messages), config)
    meter.count(message)
    return message


def chat(llm: BaseChatModel, messages: Sequence[BaseMessage], meter: Meter, **options: Any) -> str:
    """The text of one metered call: :func:`invoke`, whose keywords ``options`` are (``max_tokens``,
    ``schema``, ``stop_pattern``, ``stream``)."""
    return text_of(invoke(llm, messages, meter, **options))


def text_of(message: BaseMessage) -> str:
    """The text of a chat message (content blocks joined)."""
    content = message.content
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def model_failure(exc: BaseException) -> str | None:
    """The one-line message for ``exc`` when it is the chat model failing — its endpoint unreachable or
    answering with an error, a time-out, missing or broken weights — and ``None`` for anything else (a bug,
    which keeps its traceback). ``ask`` exits 1 with it; ``chat`` says it and goes on."""
    from langchain_core.exceptions import ModelError

    from lclfqa.llm.llama import LLMTimeout
    from lclfqa.llm.weights import WeightsError

    if isinstance(exc, LLMTimeout | WeightsError | TimeoutError):
        return str(exc)
    try:
        from openai import OpenAIError
    except ImportError:  # pragma: no cover - langchain-openai is a dependency
        OpenAIError = ModelError  # noqa: N806
    if isinstance(exc, ModelError | OpenAIError):
        return f"the chat model failed: {exc} ({type(exc).__name__})"
    return None
