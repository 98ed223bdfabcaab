"""The source's words for each part of the question, added to an answer that does not give them.

The 1.5B default answers from the first quotes it is shown and often stops after the first thing a question asks;
asked once more for a part it left open, it contradicted its own verdict ("No, … Yes, …"). So once the answer is
checked, each part of the question (:func:`lclfqa.prompts.question_parts`) gets the quote nearest it
(:func:`lclfqa.graph.evidence.nearest.closeness_by_part`) in the source's words, shortened to
:data:`RULE_QUOTE_CHARS` — unless the answer cites that quote (in a sentence saying more than the question) or
already gives it (at least :data:`STATED_SHARE` of its content words). For a yes/no question the first part's
quote is the one stating the rule the verdict call decided (:func:`stating`). An added quote is the source's own
text, so it needs no check; a heading alone (no lower-case letter) or a block of headings (:func:`heading_block`) is
never one, nor a Part's numeral on the first line (:func:`words_of`). A dissent's or a concurrence's words are added
only to an answer whose question names a separate opinion or a Justice, and then say whose they are; at most
:data:`MAX_PART_QUOTES` quotes and :data:`MAX_ADDED_CHARS` characters are added.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.embeddings import Embeddings

from lclfqa import prompts
from lclfqa.graph.answer.attribution import asks_holding, separate_opinion
from lclfqa.graph.answer.check import echoes, support
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.graph.answer.tidy import says_nothing
from lclfqa.graph.answer.verdict import VERDICTS
from lclfqa.graph.evidence.nearest import closeness_by_part, nearest_quotes
from lclfqa.graph.evidence.reading import passages
from lclfqa.index.tokens import tokenize
from lclfqa.llm import parsing
from lclfqa.llm.parsing import split_sentences as sentences

RULE_QUOTE_CHARS = 320
MAX_PART_QUOTES = 3
MAX_ADDED_CHARS = 700
"""At most this many characters of quotes are added (the first always): the source's words, not a dump."""
STATED_SHARE = 0.5
"""An answer holding this share of a quote's content words (stemmed) already gives it."""
_NAMES_OPINION = re.compile(r"\b(?:dissent\w*|concurr\w*|justice|separate opinions?)\b", re.I)


def shortened(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``limit`` characters (with "…")."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(",;:—–-") + " …"


_ENUMERATOR_LINE = re.compile(r"^\s*((?:[IVXLC]{1,6}|[A-Z]|\d{1,3})\.?)[ \t]*\n")


def words_of(quote: dict[str, Any]) -> str:
    """``quote``'s text as the source's words: without a first line that is only an enumerator and one of its
    own section path's headings (an opinion's Part "I" or "B" glued to its first sentence)."""
    text = str(quote.get("text", ""))
    m = _ENUMERATOR_LINE.match(text)
    headings = {" ".join(h.split()) for h in quote.get("section") or []}
    return text[m.end() :] if m and m.group(1) in headings else text


def stating(rule: str | None, texts: list[str]) -> int | None:
    """The quote (0-based) that states the decided ``rule`` — the one sharing most of its words — or None
    when no rule was decided or no quote shares a word with it."""
    words = set(tokenize(rule or ""))
    if not words or not texts:
        return None
    shared = [len(words & set(tokenize(t))) for t in texts]
    best = max(range(len(texts)), key=lambda i: (shared[i], -i))
    return best if shared[best] else None


def heading_only(text: str) -> bool:
    """Whether ``text`` has letters and none in lower case: a heading ("PART 3—CLEAN ENERGY … SEC. 13301.
    EXTENSION, INCREASE …"), which names a provision and states nothing, so it is never added as the source's
    words."""
    return any(c.isalpha() for c in text) and not any(c.islower() for c in text)


_AUTHORITY_NOTE = re.compile(r"^(?:Authority|Source)\s*:", re.I)


def heading_block(quote: dict[str, Any]) -> bool:
    """Whether ``quote`` is a print's block of headings: two lines or more, each one of its own section path's
    headings or an authority note ("Title 26 —Internal Revenue / Chapter I —… / Authority: 95 Stat. 1662 …");
    like a heading alone, it states nothing. One line is not enough: a statute's item is its own path's last
    entry ("(B) The certificate credit rate with respect to such certificate.")."""
    path = {" ".join(h.split()) for h in quote.get("section") or []}
    lines = [" ".join(line.split()) for line in str(quote.get("text", "")).splitlines() if line.strip()]
    return len(lines) > 1 and all(line in path or _AUTHORITY_NOTE.match(line) for line in lines)


_FUNCTION_WORDS = frozenset(
    tokenize("may must shall under upon within whether also any all each than from after before about")
)
"""Words a question asks with that say nothing of what it asks (BM25's stop words keep them)."""


def asked_words(part: str) -> set[str]:
    """The content words (stemmed) of ``part`` that say what it asks: those it writes in lower case (its first word
    too), not a bracketed year ("[2024]"), a word of two letters or one of :data:`_FUNCTION_WORDS`. Words with a
    capital name something — a case's parties, a court, an Act's title, an acronym — and a quote sharing only them
    with the part (a caption, a long title, a bench) repeats what the question names, not what it asks."""
    words = part.split()
    plain = [w for i, w in enumerate(words) if (i == 0 or w == w.lower()) and not w.startswith("[")]
    return {t for t in tokenize(" ".join(plain)) if len(t) > 2 and t not in _FUNCTION_WORDS}


def given(text: str, answer: str) -> bool:
    """Whether ``answer`` already gives ``text``: :data:`STATED_SHARE` of its content words (stemmed)."""
    return support(text, set(tokenize(answer))) >= STATED_SHARE


def part_quotes(
    question: str,
    quotes: list[dict[str, Any]],
    answer: str,
    rule: int | None = None,
    embeddings: Embeddings | None = None,
    numbers: list[int] | None = None,
) -> list[int]:
    """The quotes (0-based, in the order of the parts they answer) to add to ``answer``: for each part of
    ``question``, the quote nearest it among those sharing a word (in its text or its section path's headings) with
    what it asks (:func:`asked_words`; ``rule`` for the first part, when given) that the answer neither
    cites nor gives (:func:`given`) — cited by a sentence that is neither a bare verdict nor says the question back
    (:func:`~lclfqa.graph.answer.check.echoes`: it shows none of the quote's words); each quote once, at most
    :data:`MAX_PART_QUOTES` and :data:`MAX_ADDED_CHARS`; a separate opinion's only when the question names one
    (not the holding). ``numbers`` are the quotes' reference numbers where they are not 1…n (quotes of the
    retrieved children)."""
    texts = [q["text"] for q in quotes]
    if not texts:
        return []
    parts = prompts.question_parts(question)
    scores = closeness_by_part(parts, texts, embeddings)
    separate_ok = not asks_holding(question) and bool(_NAMES_OPINION.search(question))
    allowed = [
        i
        for i, q in enumerate(quotes)
        if (separate_ok or not separate_opinion(q)) and not heading_only(q["text"]) and not heading_block(q)
    ]
    marks = numbers or list(range(1, len(quotes) + 1))
    said = {
        n for s in sentences(answer) if not (says_nothing(s) or echoes(s, question)) for n in parsing.cited_numbers(s)
    }
    cited = {i for i, n in enumerate(marks) if n in said}
    picked: list[int] = []
    size = 0
    words = [set(tokenize(" ".join([q["text"], *(q.get("section") or [])]))) for q in quotes]  # its headings too
    for j, part in enumerate(parts):
        if len(picked) == MAX_PART_QUOTES:
            break
        asked = asked_words(part)
        # a quote sharing only the part's names says nothing of it; a part asking only names is asked by them
        speaking = [k for k in allowed if words[k] & asked] if asked else allowed
        if j == 0 and rule is not None and rule in allowed:
            i = rule
        elif speaking:
            i = max(speaking, key=lambda k: (scores[k][j], -k))
        else:
            continue
        text = shortened(words_of(quotes[i]), RULE_QUOTE_CHARS)
        if i in picked or i in cited or given(text, answer):
            continue
        if picked and size + len(text) > MAX_ADDED_CHARS:
            break
        picked.append(i)
        size += len(text)
    return picked


def with_part_quotes(
    answer: str,
    question: str,
    quotes: list[dict[str, Any]],
    rule: int | None = None,
    embeddings: Embeddings | None = None,
    numbers: list[int] | None = None,
) -> tuple[str, int]:
    """``(answer, added)``: ``answer`` followed by :func:`part_quotes`, each as "The source reads: “…” [n]"
    (a separate opinion's as "JUSTICE …, concurring, reads: “…” [n]")."""
    picked = part_quotes(question, quotes, answer, rule, embeddings, numbers)
    marks = numbers or list(range(1, len(quotes) + 1))
    added = []
    for i in picked:
        text, opinion = shortened(words_of(quotes[i]), RULE_QUOTE_CHARS), separate_opinion(quotes[i]).rstrip(" .")
        if opinion:
            added.append(prompts.phrase("opinion_quote", whose=opinion, quote=text, n=marks[i]))
        else:
            added.append(prompts.phrase("rule_quote", quote=text, n=marks[i]))
    return " ".join([answer.rstrip(), *added]).strip(), len(added)


ADDITION_SENTENCES = 8
"""Without the extractor (``rag+``), the retrieved sentences nearest the question that the part quotes choose from."""


def add(draft: Draft, reading: Reading) -> None:
    """The ``sources`` stage, for the pipelines with additions (``lclf``, ``longrag``, ``rag+``): the checked answer
    followed by each part's nearest quote (:func:`with_part_quotes`), recorded in ``added``. With the
    extractor the pieces are the verified quotes, numbered as they are; without it (``rag+``) the retrieved
    children's sentences nearest the question, numbered as their child, so a baseline gets additions of
    the same kind. The source's words add to an answer, never stand in for one: where nothing the model
    wrote survives the checks but a verdict, they are added only under a verdict the verdict call decided
    (``lclf``; ``rag+`` has no verdict call, nor ``lclf`` with the ``verdict`` stage off); otherwise
    ``refuse`` makes the answer the refusal (the model, shown the quotes, stated nothing they hold)."""
    ctx = reading.ctx
    if not ctx.plan.additions:
        return
    said = [s for s in sentences(draft.answer) if not says_nothing(s)]
    if not said and reading.verdict not in VERDICTS:
        return
    rule, numbers = reading.rule, None
    pool = reading.references
    if not ctx.plan.extract:
        retrieved = reading.retrieved
        pool = nearest_quotes(
            reading.question, passages(retrieved), retrieved, [], ADDITION_SENTENCES, reading.embeddings
        )
        position = {c["id"]: i for i, c in enumerate(retrieved, 1)}
        numbers, rule = [position[q["child"]] for q in pool], None
    base = draft.answer if said else ""  # a bare verdict's markers do not make a quote given
    answer, n = with_part_quotes(base, reading.question, pool, rule, reading.embeddings, numbers=numbers)
    if n:
        piece = answer[len(base.rstrip()) :].strip()
        draft.notes["rule_quoted"] = n
        draft.added.append(piece)
        draft.answer = f"{draft.answer.rstrip()} {piece}".strip()
