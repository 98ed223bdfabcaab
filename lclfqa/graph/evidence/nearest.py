"""Sentences nearest the question: the deterministic half of choosing evidence.

The extractor's model points at the sentences it thinks answer; a 1.5B model often points at a citation
fragment and passes over the sentence that states the rule. Ranking every sentence of the references by
cosine with the question — its best cosine with any part the question asks — (the index's own embedder;
shared content words where it cannot be loaded) is
cheap (one embedding batch, well under a second on 2 cores) and catches what the model passed over:
:func:`nearest_quotes` adds the nearest few beside the model's picks, and the reader falls back on
:func:`rank_by_question` when nothing else survives.
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings

from lclfqa import prompts
from lclfqa.graph.context import QAContext
from lclfqa.graph.evidence.quotes import quote_record
from lclfqa.graph.evidence.reading import Passage
from lclfqa.index.tokens import tokenize
from lclfqa.llm.models import embed_array

MIN_WORDS = 5
"""Shorter sentences (headings, citation fragments such as "Keown 7 (discussing R. v.") are not ranked."""


def rank_by_question(question: str, texts: list[str], embeddings: Embeddings | None = None) -> list[int]:
    """Indices of ``texts``, closest to ``question`` first: a text's closeness is its best cosine with any of
    the things the question asks (:func:`lclfqa.prompts.question_parts`; the whole question when it asks
    one), with the index's embedder where given, else shared (stemmed) content words. By the part, not the
    whole: the rule answering the second of three questions is otherwise outranked by sentences that touch
    all three. A part that opens by setting the scene ("Under the installment method, when is gain on a sale
    reported?") counts twice: as asked and without the scene (:func:`lclfqa.prompts.without_lead`), so an
    overview that only repeats the scene does not outrank the sentence that answers."""
    scores = closeness_by_part(prompts.question_parts(question), texts, embeddings)
    best = [max(row) for row in scores]
    return sorted(range(len(texts)), key=lambda i: (-best[i], i))


def closeness_by_part(parts: list[str], texts: list[str], embeddings: Embeddings | None) -> list[list[float]]:
    """``scores[i][j]``: text ``i``'s closeness to part ``j`` — as asked, plus without the scene it sets where
    it sets one — by cosine with the embedder, else by shared content words."""
    if not parts or not texts:
        return [[] for _ in texts]
    asks = [prompts.without_lead(p) for p in parts]
    if embeddings is not None:
        vectors = embed_array(embeddings, [*parts, *asks, *texts])
        n = len(parts)
        parts_v, asks_v, texts_v = vectors[:n], vectors[n : 2 * n], vectors[2 * n :]
        sims = texts_v @ parts_v.T + texts_v @ asks_v.T
        return [[float(x) for x in row] for row in sims]
    words = [set(tokenize(t)) for t in texts]

    def near(asked: str, w: set[str]) -> float:
        return len(set(tokenize(asked)) & w) / (1 + len(w)) ** 0.5

    return [[near(p, w) + near(a, w) for p, a in zip(parts, asks, strict=True)] for w in words]


def index_embeddings(ctx: QAContext) -> Embeddings | None:
    """The index's embedder, or None where it cannot be loaded (ranking then falls back on words)."""
    try:
        return ctx.resources.embeddings
    except Exception:  # an index without a loadable embedder still answers
        return None


def nearest_quotes(
    question: str,
    numbered: dict[str, Passage],
    children: list[dict[str, Any]],
    taken: list[dict[str, Any]],
    k: int,
    embeddings: Embeddings | None = None,
    how: str = "nearest",
) -> list[dict[str, Any]]:
    """Up to ``k`` sentences of ``children`` (of :data:`MIN_WORDS` words or more; ``numbered`` is
    :func:`~lclfqa.graph.evidence.reading.passages` of them) nearest ``question`` that ``taken`` does not
    already hold, as quote records (``how``), nearest first; the same sentence in two children once."""
    if k <= 0:
        return []
    seen = {(q["child"], " ".join(q["text"].split())) for q in taken}
    found = [
        (p, text)
        for p in numbered.values()
        if len((text := children[p.ref - 1]["text"][p.start : p.end]).split()) >= MIN_WORDS
        and (children[p.ref - 1]["id"], " ".join(text.split())) not in seen
    ]
    out: list[dict[str, Any]] = []
    texts: set[str] = set()
    for i in rank_by_question(question, [t for _, t in found], embeddings):
        p, text = found[i][0], " ".join(found[i][1].split())
        if text not in texts:  # a footnote repeated, an overlap
            texts.add(text)
            out.append(quote_record(children[p.ref - 1], p.ref, p.start, p.end, how))
        if len(out) == k:
            break
    return out
