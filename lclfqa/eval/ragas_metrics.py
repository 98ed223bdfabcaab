"""Optional ragas metrics (faithfulness, context recall, factual correctness) through its LangChain
wrapper, offline (``pip install -e ".[ragas]"``; telemetry off: ``RAGAS_DO_NOT_TRACK=true`` is set here).

ragas asks for JSON in every prompt ("…complies with the following schema as specified in JSON Schema:
{…}"). :class:`SchemaFromPrompt` reads that schema out of the prompt and hands it to the chat model as a
constrained-decoding request (llama.cpp grammar, OpenAI ``json_schema``), so a small local model returns
parseable JSON instead of the NaN scores ragas otherwise gives it. A metric that still fails is ``None``
with the reason, never an exception.
"""

from __future__ import annotations

import json
import math
import os
import re
import warnings
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from lclfqa.llm.calls import Meter, invoke

RAGAS_METRICS: tuple[str, ...] = ("faithfulness", "context_recall", "factual_correctness")
_SCHEMA = re.compile(r"specified in JSON Schema:\s*")


class RagasMissing(RuntimeError):
    """ragas is not installed."""


def prompt_schema(text: str) -> dict[str, Any] | None:
    """The JSON schema a ragas prompt asks for, or ``None``."""
    m = _SCHEMA.search(text)
    if not m:
        return None
    try:
        schema, _ = json.JSONDecoder().raw_decode(text[m.end() :])  # the schema runs on into prose
    except ValueError:
        return None
    return schema if isinstance(schema, dict) else None


class SchemaFromPrompt(BaseChatModel):
    """Wraps a chat model; when the last message carries a ragas JSON schema, decoding is constrained to it.
    Every call goes through the metered call and is counted on ``meter``."""

    inner: BaseChatModel
    meter: Meter = Field(default_factory=lambda: Meter("ragas"))

    @property
    def _llm_type(self) -> str:
        return f"schema-from-prompt({self.inner._llm_type})"

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        last = messages[-1].content if isinstance(messages[-1].content, str) else str(messages[-1].content)
        kwargs.pop("n", None)
        kwargs.pop("temperature", None)
        message = invoke(self.inner, messages, self.meter, schema=prompt_schema(last), stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=message)])


def ragas_available() -> bool:
    """Whether ragas can be imported."""
    import importlib.util

    return importlib.util.find_spec("ragas") is not None


def _metric_objects(names: Sequence[str], llm: Any) -> dict[str, Any]:
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from ragas.metrics import FactualCorrectness, Faithfulness, LLMContextRecall
    except ImportError as e:
        raise RagasMissing('ragas metrics need the extra: pip install -e ".[ragas]"') from e
    make = {
        "faithfulness": lambda: Faithfulness(llm=llm),
        "context_recall": lambda: LLMContextRecall(llm=llm),
        "factual_correctness": lambda: FactualCorrectness(llm=llm),
    }
    unknown = [n for n in names if n not in make]
    if unknown:
        raise ValueError(f"unknown ragas metric(s) {', '.join(unknown)}; known: {', '.join(make)}")
    return {n: make[n]() for n in names}


def ragas_scores(
    question: str,
    answer: str,
    contexts: Sequence[str],
    reference: str,
    llm: BaseChatModel,
    metrics: Sequence[str] = RAGAS_METRICS,
    meter: Meter | None = None,
) -> dict[str, Any]:
    """``{metric: score or None}`` plus ``errors`` (metric → reason) for one answered question; the judge's
    calls are counted on ``meter``."""
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    try:
        from ragas import SingleTurnSample
        from ragas.llms import LangchainLLMWrapper
    except ImportError as e:
        raise RagasMissing('ragas metrics need the extra: pip install -e ".[ragas]"') from e
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        wrapped = LangchainLLMWrapper(SchemaFromPrompt(inner=llm, meter=meter or Meter("ragas")))
    objects = _metric_objects(metrics, wrapped)
    sample = SingleTurnSample(
        user_input=question, response=answer, retrieved_contexts=list(contexts) or [""], reference=reference
    )
    out: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, metric in objects.items():
        try:
            score = float(metric.single_turn_score(sample))
        except Exception as exc:  # ragas raises its own parser errors; record and go on
            out[name] = None
            errors[name] = f"{type(exc).__name__}: {exc}"[:300]
            continue
        if math.isnan(score):
            out[name] = None
            errors[name] = "nan (the judge's output could not be used)"
        else:
            out[name] = score
    out["errors"] = errors
    return out
