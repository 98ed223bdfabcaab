"""unstructured, offline: its spaCy pipeline replaced by one that needs no download (:func:`configure`).

unstructured 0.27 downloads ``en_core_web_sm`` from GitHub on first use (offline that raises for
Word/HTML/Markdown and silently yields nothing for PDF). :func:`configure` replaces its model loader,
``unstructured.nlp.tokenize._get_nlp``, by a blank English pipeline with a sentencizer and verb rules, and
turns telemetry off first (:func:`lclfqa.environment.configure`). It is explicit and idempotent;
:func:`lclfqa.ingest.unstructured_formats.parse_with_unstructured` calls it before unstructured first
runs, and a test or script that calls unstructured itself calls it first.
"""

from __future__ import annotations

from typing import Any

from lclfqa import environment

_MODALS = ["shall", "will", "may", "must", "can", "should", "would", "could", "might", "cannot"]
_AUX = ["is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did"]
_NOT_VERB_AFTER_TO = [
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "our",
    "your",
    "their",
    "its",
    "his",
    "her",
    "my",
    "any",
    "all",
    "such",
    "each",
    "us",
    "you",
    "them",
    "him",
    "me",
    "it",
    "which",
    "whom",
    "what",
    "date",
]
_COMMON_VERBS = (
    "accept access acknowledge act add agree allow apply approve arise ask assign assist assume authorize "
    "become begin believe bind bring build buy calculate call cause change charge check choose claim collect "
    "combine come communicate complete comply conduct confirm connect consent consider constitute contain "
    "continue contribute control cover create deduct define delete deliver depend describe design determine "
    "develop disclose display distribute do elect eliminate enable encrypt end enforce ensure enter entitle "
    "establish exceed exclude execute exercise exist expect expire explain extend fail file find follow "
    "gather get give govern grant have help hold identify impose include increase indemnify inform "
    "intend involve issue keep know lead learn let limit link maintain make manage mean meet modify monitor "
    "move need notify obtain occur offer operate own participate pay perform permit place post prepare "
    "prevent process produce prohibit protect provide publish purchase qualify receive reduce refer register "
    "relate release rely remain remove report represent request require reserve respond restrict result "
    "retain return review run satisfy say see seek sell send serve set share show sign start state store "
    "submit supply support survive take tell terminate transfer treat try understand update use verify "
    "view want warrant withdraw work"
).split()


def _third_person(verb: str) -> str:
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


_COMMON_VERBS_Z = sorted({_third_person(v) for v in _COMMON_VERBS} | {"is", "has", "does"})


def _offline_nlp() -> Any:
    """A spaCy pipeline that needs no download: blank English, sentence splitter, verb rules.

    unstructured asks spaCy for sentences (titles are one sentence) and for verb tags (narrative
    text has a verb). The sentencizer gives the first; rules mark auxiliaries, words after a modal
    or a pronoun, ``-ed``/``-ing`` words and common third-person verbs as verbs, so a one-sentence
    paragraph ("The taxpayer may claim the credit.") stays NarrativeText instead of turning Title.
    """
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": {"IN": _AUX}}]], {"TAG": "VBZ"})
    ruler.add([[{"LOWER": {"IN": _COMMON_VERBS_Z}, "IS_LOWER": True}]], {"TAG": "VBZ"})
    ruler.add([[{"IS_SENT_START": True, "LOWER": {"IN": _COMMON_VERBS}}]], {"TAG": "VB"})  # imperatives
    ruler.add([[{"LOWER": {"REGEX": r"^[a-z]{3,}ed$"}, "IS_LOWER": True}]], {"TAG": "VBD"})
    ruler.add([[{"LOWER": {"REGEX": r"^[a-z]{3,}ing$"}, "IS_LOWER": True}]], {"TAG": "VBG"})
    ruler.add(
        [
            [
                {"LOWER": {"IN": _MODALS}},
                {"LOWER": {"IN": ["not", "also", "only", "then"]}, "OP": "?"},
                {"IS_ALPHA": True, "IS_LOWER": True},
            ]
        ],
        {"TAG": "VB"},
        index=-1,
    )
    ruler.add(
        [[{"LOWER": "to"}, {"IS_ALPHA": True, "IS_LOWER": True, "LOWER": {"NOT_IN": _NOT_VERB_AFTER_TO}}]],
        {"TAG": "VB"},
        index=1,
    )
    ruler.add(
        [[{"LOWER": {"IN": ["i", "we", "you", "they"]}}, {"IS_ALPHA": True, "IS_LOWER": True}]], {"TAG": "VBP"}, index=1
    )
    return nlp


_UNSTRUCTURED_READY = False


def configure() -> None:
    """Make unstructured safe offline: no telemetry, no notice, no spaCy model download (module doc).
    Imports unstructured (seconds), once per process."""
    global _UNSTRUCTURED_READY
    if _UNSTRUCTURED_READY:
        return
    environment.configure()  # before unstructured is imported
    import unstructured.nlp.tokenize as tokenize

    nlp = _offline_nlp()
    tokenize._get_nlp = lambda: nlp
    for cached in ("_process_cached", "word_tokenize", "pos_tag", "_tokenize_for_cache"):
        fn = getattr(tokenize, cached, None)
        if fn is not None and hasattr(fn, "cache_clear"):
            fn.cache_clear()
    _UNSTRUCTURED_READY = True
