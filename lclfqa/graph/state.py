"""What flows through the graph: one ``QAState`` per question (per turn of a chat thread).

Values are plain JSON types (str, list, dict) so a SQLite checkpointer can store a chat thread and a
notebook can print any of them. Chunks travel as :class:`ChunkRef`-shaped dicts::

    {"id", "kind", "document", "pages": [int], "section": [str], "text", "score"?, "source"?}

``sources`` are what the reader may cite, numbered from 1: the parents after footnote expansion (and
children whose parent did not fit the context budget); every child carries the number of its source.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from lclfqa import prompts


def merge_steps(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer for ``steps``: node name → its record; parallel nodes (filter, extract) both write."""
    return {**(old or {}), **(new or {})}


class QAInput(TypedDict, total=False):
    """What a caller passes: the question, optionally earlier turns (without a checkpointer)."""

    question: str
    history: list[dict[str, str]]


class QAState(TypedDict, total=False):
    # --- input
    question: str
    history: Annotated[list[dict[str, str]], operator.add]
    """Earlier turns, ``{"role": "user" | "assistant", "content"}``; the reader appends this turn."""
    # --- rewrite
    standalone_question: str
    """The question made stand-alone from the chat history, acronyms expanded."""
    passage: str
    """query2doc: the LLM's own passage answering the question (feeds retrieval only)."""
    rewrites: list[str]
    translation: str
    """The question in layman terms (``translated_question`` in the prompts)."""
    # --- retrieve / expand
    scope: list[str]
    """The documents the question names (retrieval searched only these); empty: the whole index."""
    retrieved: list[dict[str, Any]]
    """Top-k children after RRF, best first, with ``score``."""
    sources: list[dict[str, Any]]
    """Numbered context units after expansion: parents (footnotes injected) and orphan children."""
    cited_sections: list[str]
    """Provision numbers the question cites (``199A``, ``1.25A-1``)."""
    missing_sections: list[str]
    """Of those, the ones no source or retrieved child mentions."""
    missing_terms: list[str]
    """Terms the question defines by their initials (``work opportunity tax credit (WOTC)``) that no source names,
    and the count every part of it asks for that no source states (``a number of hours``)."""
    # --- filter / extract (run in parallel)
    thought: str
    filtered: list[dict[str, Any]]
    """The children the CoT filter kept, each with ``source`` (its number in ``sources``)."""
    dropped: list[str]
    """Ids of the children the filter dropped."""
    answered: str
    """The filter's verdict whether the kept children state the answer: ``yes``, ``partly``, ``no``, or
    ``""`` (not judged, or unreadable)."""
    transcript: list[dict[str, str]]
    """The reading conversation after its shared prefix (:mod:`lclfqa.graph.evidence.reading`): each step's instruction
    and reply as ``{"role", "content"}``, so the next step continues it and llama.cpp reuses the prefix."""
    quotes: list[dict[str, Any]]
    """The extractor's quotes that were found in the references, numbered in order from 1 as the reader cites
    them: ``{"text", "ref", "child", "source", "document", "pages", "section", "kind", "how"}``, the text
    being the source's own words (:mod:`lclfqa.graph.evidence.quotes`)."""
    information: str
    """The verified quotes as the reader got them (``[k] “…” (where)`` lines), for display."""
    # --- read
    verdict: str
    """For a yes/no question, the verdict decided over the final quotes (:mod:`lclfqa.graph.answer.verdict`):
    ``yes``, ``no`` (the answer opens with it), ``open`` (a statement the quotes show neither true nor false:
    the answer opens with no verdict and says so), or ``""`` (not a yes/no question, or not given)."""
    answer: str
    citations: list[dict[str, Any]]
    """``{"n", "document", "pages", "section", "inferred"}`` for each source the answer cites."""
    refused: bool
    """True when the answer says the documents do not answer the question."""
    unsupported: list[str]
    """Percentages, dollar amounts and quotations of the answer that no source contains (a warning)."""
    removed: list[str]
    """Sentences of the reader's answer removed because they stated what no cited quote contains
    (:mod:`lclfqa.graph.answer.check`)."""
    added: list[str]
    """The source's words code added to the answer after the check, in order (each part's nearest
    quote, :mod:`lclfqa.graph.answer.sources`): the rest of the answer is the model's own."""
    steps: Annotated[dict[str, Any], merge_steps]
    """Per node: ``{"seconds", "llm_calls", "prompt_tokens", "completion_tokens", ...notes}``."""


def question_fields(state: QAState) -> dict[str, str]:
    """``question`` (stand-alone, acronyms expanded in the sense the retrieved texts use),
    ``translated_question`` and the ``plain_terms`` line
    (empty when the translation is missing or repeats the question) for a prompt template."""
    question = state.get("standalone_question") or state.get("question", "")
    retrieved = state.get("retrieved") or []
    if retrieved:  # an acronym of several senses glossed in the sense the retrieved texts use (or not at all)
        question = prompts.expand_acronyms(prompts.unexpand(question), " ".join(c.get("text", "") for c in retrieved))
    translation = state.get("translation") or ""
    return {
        "question": question,
        "translated_question": translation or question,
        "plain_terms": prompts.plain_terms(question, translation),
    }
