"""A LangChain chat model over llama-cpp-python: the offline default, with token usage and timeouts.

Why our own class rather than langchain-community's ``ChatLlamaCpp``: nodes need JSON-schema constrained
decoding per call (``response_format``), token counts per call (``usage_metadata``), a wall-clock timeout,
and one shared, locked ``Llama`` per model file (llama.cpp contexts are not thread-safe, and the parallel
``filter``/``extract`` nodes share the model). Generation always streams internally, so the timeout is
checked between tokens and LangGraph's ``stream_mode="messages"`` sees every token.

llama.cpp keeps the previous prompt's KV cache and reuses the longest common prefix, which is why the
prompts put shared material first.

On a CPU that advertises Intel AMX, models load without llama.cpp's "extra buffer types" (its AMX and
weight-repacking kernels): llama-cpp-python compiles with ``-march=native``, which turns the AMX kernels
on, and on these sandboxed machines (Xeon with ``amx_tile`` in /proc/cpuinfo) they crash the process in
``ggml_backend_amx_mul_mat`` at the first token, for both bundled models. Without them it runs.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field


class LLMTimeout(TimeoutError):
    """A local generation ran past its time limit."""


_models: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}
_models_lock = threading.Lock()


def cpu_has_amx(cpuinfo: str | Path = "/proc/cpuinfo") -> bool:
    """Whether the CPU advertises Intel AMX tiles (``amx_tile`` among its flags); False where unreadable."""
    try:
        text = Path(cpuinfo).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and "amx_tile" in line.split() for line in text.splitlines())


@contextmanager
def safe_model_params() -> Iterator[None]:
    """Inside this block llama.cpp loads models without its extra buffer types (AMX, repacking) where the
    CPU has AMX (module doc); elsewhere it changes nothing. Also wraps ``python -m llama_cpp.server``
    (docs/serving.md). Not thread-safe: callers serialise loads."""
    if not cpu_has_amx():
        yield
        return
    import llama_cpp.llama_cpp as native

    # ``Llama`` takes no switch for it: it reads ``llama_model_default_params()`` while loading the model.
    defaults = native.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = defaults()
        params.use_extra_bufts = False
        return params

    native.llama_model_default_params = without_extra_buffers
    try:
        yield
    finally:
        native.llama_model_default_params = defaults


def _llama(path: str, n_ctx: int, n_threads: int, n_batch: int = 512) -> Any:
    """A ``Llama``; without llama.cpp's extra buffer types (AMX, repacking) where the CPU has AMX (module doc)."""
    from llama_cpp import Llama

    with safe_model_params():
        return Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_batch=n_batch, verbose=False, seed=0)


def _load(path: str, n_ctx: int, n_threads: int, n_batch: int = 512) -> tuple[Any, threading.Lock]:
    key = (path, n_ctx, n_threads, n_batch)
    with _models_lock:  # also serialises the patch in ``_llama``
        if key not in _models:
            _models[key] = (_llama(path, n_ctx, n_threads, n_batch), threading.Lock())
        return _models[key]


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system"}.get(message.type, "user")


class ChatLlama(BaseChatModel):
    """Chat model over a GGUF file with llama-cpp-python (greedy by default, so runs are repeatable)."""

    model_path: str
    model_name: str = "local"
    n_ctx: int = 8192
    n_threads: int | None = None
    n_batch: int = 512
    temperature: float = 0.0
    max_tokens: int = 512
    timeout: float | None = Field(default=300.0, description="seconds per call; None for no limit")
    repeat_penalty: float = 1.05

    supports_stop_pattern: bool = True
    """Nodes may pass ``stop_pattern`` (a regex): generation stops once the text so far ends in a match."""
    supports_json_schema: bool = True
    """Nodes pass ``response_format={"type": "json_object", "schema": ...}``; llama.cpp turns it into a grammar."""

    @property
    def _llm_type(self) -> str:
        return "lclfqa-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name, "model_file": Path(self.model_path).name, "n_ctx": self.n_ctx}

    def _llama(self) -> tuple[Any, threading.Lock]:
        threads = self.n_threads or max(1, os.cpu_count() or 1)
        return _load(self.model_path, self.n_ctx, threads, self.n_batch)

    def forget_prompt(self) -> None:
        """Drop the KV cache of the previous prompt, so the next call evaluates its prompt from the start (as
        in a fresh process): the eval runner calls it before each row, so that no row depends on the row
        before it. Loads nothing when the model is not loaded yet."""
        threads = self.n_threads or max(1, os.cpu_count() or 1)
        entry = _models.get((self.model_path, self.n_ctx, threads, self.n_batch))
        if entry is not None:
            llama, lock = entry
            with lock:
                llama.reset()

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        llama, lock = self._llama()
        payload = [{"role": _role(m), "content": m.text if hasattr(m, "text") else str(m.content)} for m in messages]
        limit = kwargs.pop("timeout", self.timeout)
        params: dict[str, Any] = {
            "temperature": kwargs.pop("temperature", self.temperature),
            "max_tokens": kwargs.pop("max_tokens", None) or self.max_tokens,
            "repeat_penalty": self.repeat_penalty,
            "stop": stop,
        }
        if kwargs.get("response_format"):
            params["response_format"] = kwargs.pop("response_format")
        stop_at = re.compile(kwargs.pop("stop_pattern")) if kwargs.get("stop_pattern") else None
        text = ""
        with lock:
            started = time.perf_counter()
            before = llama._input_ids.tolist()  # what the KV cache holds: a shared prefix is not evaluated again
            produced = 0
            finish = None
            for part in llama.create_chat_completion(messages=payload, stream=True, **params):
                choice = part["choices"][0]
                finish = choice.get("finish_reason") or finish
                token = choice.get("delta", {}).get("content") or ""
                if token:
                    produced += 1
                    text += token
                    chunk = ChatGenerationChunk(message=AIMessageChunk(content=token))
                    if run_manager:
                        run_manager.on_llm_new_token(token, chunk=chunk)
                    yield chunk
                if stop_at is not None and token and stop_at.search(text):
                    finish = "stop_pattern"
                    break
                if limit is not None and time.perf_counter() - started > limit:
                    raise LLMTimeout(
                        f"the local model {self.model_name!r} ran past its {limit:.0f} s limit "
                        f"({produced} tokens); raise llm_timeout or shorten the context (top_k, context_chars)"
                    )
            prompt_tokens = max(0, int(llama.n_tokens) - produced)
            reused = llama.longest_token_prefix(before, llama._input_ids[:prompt_tokens].tolist())
        usage = {
            "input_tokens": prompt_tokens,
            "output_tokens": produced,
            "total_tokens": prompt_tokens + produced,
            # prompt tokens found in the KV cache (the previous call's prefix): llama.cpp did not evaluate them
            "input_token_details": {"cache_read": min(reused, max(0, prompt_tokens - 1))},
        }
        yield ChatGenerationChunk(
            message=AIMessageChunk(content="", usage_metadata=usage, response_metadata={"finish_reason": finish}),
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text, usage, meta = [], None, {}
        for chunk in self._stream(messages, stop, run_manager, **kwargs):
            msg = chunk.message
            text.append(msg.content if isinstance(msg.content, str) else "")
            usage = msg.usage_metadata or usage
            meta = msg.response_metadata or meta
        message = AIMessage(content="".join(text), usage_metadata=usage, response_metadata=meta)
        return ChatResult(generations=[ChatGeneration(message=message)])


if __name__ == "__main__":
    # ``python -m lclfqa.llm.llama --model FILE.gguf --model_alias NAME --port P``: llama-cpp-python's
    # OpenAI-compatible server (same flags as ``python -m llama_cpp.server``), loading models the way
    # ChatLlama does, so that it also runs on CPUs with AMX (module doc).
    import runpy

    with safe_model_params():
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
