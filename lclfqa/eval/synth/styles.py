"""The question generator's prompts: one per question style of Appendix A, and their output format.

The words are in ``lclfqa/prompts/synth.toml``; this module picks the table and fills it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from lclfqa import prompts
from lclfqa.eval.synth.config import PAIRS_PER_CALL, STYLES
from lclfqa.llm.schemas import object_schema

QA_SCHEMA: dict[str, Any] = object_schema(
    pairs={
        "type": "array",
        "items": object_schema(question={"type": "string"}, answer={"type": "string"}),
        "minItems": 1,
        "maxItems": PAIRS_PER_CALL,
    }
)
"""The generator's answer where the backend constrains decoding: up to :data:`PAIRS_PER_CALL` QA pairs."""


def synth_messages(name: str, **values: Any) -> list[BaseMessage]:
    """System and user message of the synthetic-QA prompt ``name`` (``"summary"`` or a style of
    :data:`STYLES`), filled with ``values`` (``text``; for styles also ``combine`` and ``output_format``)."""
    if name == "summary":
        return prompts.messages_from("synth", "summary", **values)
    if name in prompts.load("synth")["styles"]:
        return prompts.messages_from("synth", f"styles.{name}", **values)
    raise KeyError(f"no synthetic-QA prompt {name!r} in lclfqa/prompts/synth.toml; known: summary, {', '.join(STYLES)}")


def output_format(json_output: bool) -> str:
    """The output-format rule of the generator prompts: JSON pairs, or the paper's bullet points."""
    return prompts.render(prompts.load("synth")["format"]["json" if json_output else "bullets"])


def style_rounds(styles: Sequence[str], rng: random.Random) -> Iterator[str]:
    """Styles in shuffled rounds: each style once per round, the order of each round random."""
    while True:
        order = list(styles)
        rng.shuffle(order)
        yield from order


def combine(n: int) -> str:
    """The ``{combine}`` of a generator prompt: which of the ``n`` chunks a question must draw on."""
    return prompts.load("synth")["format"]["combine_many" if n >= 2 else "combine_one"]
