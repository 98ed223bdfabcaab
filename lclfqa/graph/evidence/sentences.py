"""Where a source text's sentences end, as spans (an answer's are split by
:func:`lclfqa.llm.parsing.split_sentences`, on the same sentence ends and abbreviations).

The extractor quotes by pointing: every reference text is shown with its sentences numbered ``[2.3]``
(reference 2, sentence 3), the model names sentence numbers, and the quote is that span of the source,
copied by code — so every quote is verbatim by construction. Source spans end where a sentence or a
paragraph (a blank line) ends; a line that opens an enumerated paragraph ("(a)", "(1)", "(iii)")
starts a new one; a span longer than :data:`MAX_WORDS` is cut after a semicolon; a fragment shorter
than :data:`MIN_WORDS` (a bare "(b) Limitation.") and a heading or lead-in ("§ 1.21-4 Payments to
certain related individuals.", "… to an individual—", a span that is one of the section's own titles:
"(3) Period during which tax is considered as collected.") join the span after it, so a quote is never a
heading without its rule. A citation sentence ("Treas. Reg. § 1.25A-1(b)(1).", "Roe, 410 U. S., at 153.",
"See id., at 5.") joins the span *before* it: in legal writing it names the authority for the sentence it
follows, so a quote of that sentence carries its authority, and no quote opens with another sentence's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lclfqa.llm.parsing import SENTENCE_END, abbreviated
from lclfqa.textnorm import strip_span

_ENUMERATED = re.compile(r"\n[ \t]*(?=\((?:[a-z]{1,2}|\d{1,3}|[ivxlc]{1,6}|[A-Z])\)\s)")
_SEMICOLON = re.compile(r";\s+")
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")

MAX_WORDS = 80
"""A source span longer than this is cut after its semicolons (long enumerations in statutes)."""
MIN_WORDS = 4
"""A shorter source fragment is joined to the span after it."""


def _cuts(text: str) -> list[int]:
    """Offsets where a source sentence starts (sentence ends and enumerated paragraph lines)."""
    cuts = {m.end() for m in _ENUMERATED.finditer(text)} | {m.end() for m in _PARAGRAPH.finditer(text)}
    for m in SENTENCE_END.finditer(text):
        if not abbreviated(text, 0, m.start(), m.end()):
            cuts.add(m.end())
    return sorted(c for c in cuts if 0 < c < len(text))


def _shorten(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A long span cut after semicolons into pieces of at most about :data:`MAX_WORDS` words."""
    if len(text[start:end].split()) <= MAX_WORDS:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    piece = start
    for m in _SEMICOLON.finditer(text, start, end):
        if len(text[piece : m.start()].split()) >= MAX_WORDS // 2:
            out.append((piece, m.start() + 1))
            piece = m.end()
    out.append((piece, end))
    return out


_LEAD_IN_END = re.compile(r"[—–:-]\s*$")
_SECTION_HEADING = re.compile(r"^(?:§|Sec\.|Section\s+\d)")
_ENUMERATED_HEADING = re.compile(r"^\(?[A-Za-z0-9]{1,4}[.)]\s+[A-Z]")
HEADING_WORDS = 7
"""An enumerated span this short ("(b) Taxpayers treated as not married.") is a heading."""


_AUTHORITY = re.compile(
    r"§|\b(?:I\.R\.C|U\.S\.C|C\.F\.R|Stat|Rul|Proc|Id|id|Ibid|ibid)\.|\bIRC\b|\bTreas\.\s?Regs?\."
    r"|\b\d+\s+(?:U\.\s?S\.|S\.\s?Ct\.|L\.\s?Ed\.|F\.\s?(?:\dd|\dth|Supp))"  # "410 U. S.", "303 F.3d"
    r"|\b\d+\s+(?:[A-Z]{2,}[A-Za-z]*|[A-Z][a-z]{1,5}\.)[ \t]?\d+"  # a reporter's volume and page: "170 CLR 1"
    r"|\[\d{4}\]\s?[A-Z]{2,}"
)
_CITING_WORDS = frozenset(
    "see also generally but compare with accord contra and at quoting citing cited supra infra note notes "
    "opinion plurality concurring dissenting majority part judgment curiam per emphasis added omitted internal "
    "quotation marks citation citations alteration alterations original footnote para paras sec secs section "
    "sections reg regs stat pub rev rul proc ibid".split()
)


def citing(piece: str) -> bool:
    """Whether a source span is a citation sentence: it names an authority (a section sign, a code or
    reporter, "Id.") and holds no ordinary word (a lower-case word of three letters or more) beyond the
    words citations use ("see also", "at", "quoting", "plurality opinion"); a heading is none."""
    if not _AUTHORITY.search(piece) or not piece.rstrip().endswith((".", ".)", ")")):
        return False
    words = re.findall(r"[A-Za-z]{3,}", re.sub(r"\([a-z]{1,4}\)", " ", piece))
    if re.match(r"\(\w{1,5}\)\s", piece) or (_SECTION_HEADING.match(piece) and words):
        return False  # a heading ("§ 4.954-2 Foreign Personal Holding Company Income."), not a citation
    return not any(w.islower() and w not in _CITING_WORDS for w in words)


def _flat(text: str) -> str:
    return " ".join(text.split()).rstrip(" .—–-:").lower()


def _leads_in(piece: str, titles: frozenset[str] = frozenset()) -> bool:
    """Whether a span only introduces what follows: it ends in a dash or colon ("… to an individual—"),
    is a section heading ("§ 1.21-4 Payments to certain related individuals."), a short enumerated
    heading (capitalised: "(b) Taxpayers treated as not married.", not "(2) the spouse died."), or one of
    ``titles`` (the section path's headings, as the parser found them)."""
    words = len(piece.split())
    return bool(
        _LEAD_IN_END.search(piece)
        or (_SECTION_HEADING.match(piece) and words <= 12)
        or (_ENUMERATED_HEADING.match(piece) and words <= HEADING_WORDS)
        or (titles and _flat(piece) in titles)
    )


def _join_lead_ins(text: str, found: list[tuple[int, int]], titles: frozenset[str]) -> list[tuple[int, int]]:
    """Spans with each heading or lead-in joined to the span after it, so that a quote never is a heading
    alone and a lead-in travels with its first item."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, (a, b) in enumerate(found):
        nxt = found[i + 1] if i + 1 < len(found) else None
        first = a if start is None else start
        if nxt and _leads_in(text[a:b], titles):
            start = first
            continue
        start = None
        out.append((first, b))
    return out


def spans(text: str, titles: Iterable[str] = ()) -> list[tuple[int, int]]:
    """The sentences of a source ``text`` as ``(start, end)`` character spans, in order (module docstring);
    ``titles`` are the headings of the text's section path (a span that is one of them is a heading)."""
    heads = frozenset(_flat(t) for t in titles if t.strip())
    bounds = [0, *_cuts(text), len(text)]
    raw = [strip_span(text, a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    raw = [(a, b) for a, b in raw if b > a]
    merged: list[tuple[int, int]] = []
    carry: int | None = None
    for i, (a, b) in enumerate(raw):
        if carry is None and merged and citing(text[a:b]):
            merged[-1] = (merged[-1][0], b)  # the authority for the sentence before it
            continue
        a = a if carry is None else carry
        if len(text[a:b].split()) < MIN_WORDS and i < len(raw) - 1:
            carry = a  # a heading-like fragment joins the span after it
            continue
        carry = None
        merged.append((a, b))
    if len(merged) > 1 and len(text[merged[-1][0] : merged[-1][1]].split()) < MIN_WORDS:
        merged[-2:] = [(merged[-2][0], merged[-1][1])]  # and a short tail the span before it
    merged = _join_lead_ins(text, merged, heads)
    return [piece for a, b in merged for piece in _shorten(text, a, b)]
