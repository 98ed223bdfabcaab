"""BM25 tokens: one function for chunks and queries, on every backend.

The Milvus backend feeds these tokens to Milvus's BM25 function (a whitespace analyzer over the joined
tokens), so both backends score the same terms; see :mod:`lclfqa.index.milvus`.
"""

from __future__ import annotations

import re
import threading
import unicodedata

__all__ = ["STOPWORDS", "TOKENIZER_VERSION", "tokenize"]

#: Stored with an index: BM25 arrays are only valid for the tokenizer that built them. An index from
#: another tokenizer has its BM25 rebuilt in memory on load (with a warning) until the next ingest stores it.
#: (2: plain words Snowball-stemmed, English: PrivacyQA BM25 char recall@8 0.310 → 0.330, @32 0.559 → 0.620.)
TOKENIZER_VERSION = "lclfqa-legal-2"

# Lucene's English stop set plus pronouns, auxiliaries and question words: questions ("What does my
# ... ?") would otherwise match on words that legal text rarely uses, which gives them a high IDF.
# Words that carry legal meaning ("shall", "may", "must", "before", "after", "under") are kept.
STOPWORDS = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the their then there these
    they this to was will with
    i me my mine we us our ours you your yours he him his she her hers its them theirs itself
    am been being were has have had having do does did doing can could would should
    what which who whom whose when where why how
    s t d ll m re ve
    """.split()
)

_WORD = r"[^\W_]+"
_PAREN = r"\([^\W_]{1,4}\)"
# A compound: words joined by . - / (a citation "1.25a-1", "1098-t", "u.s.c"), optionally followed by
# enumerator parentheses "(b)(4)"; or a free-standing run of enumerators.
_COMPOUND_RE = re.compile(rf"{_WORD}(?:[./-]{_WORD})*(?:{_PAREN})*|(?:{_PAREN})+")
_PAREN_RE = re.compile(_PAREN)
_SEPARATOR_RE = re.compile(r"[./-]")
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2212"), "-")
_APOSTROPHE_S_RE = re.compile(r"['\u2019]s\b")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}\b)")
_SECTION_SIGN_RE = re.compile(r"§§|§")


def _fold(text: str) -> str:
    """Lower-case, strip accents ("Ünïcode" -> "unicode"), unify dashes, spell out §, drop possessive 's
    and 1,000 commas."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch)).translate(_DASHES)
        # "§ 25A" is what the text prints and "section 25A" what people type.
        text = _SECTION_SIGN_RE.sub(lambda m: " sections " if len(m.group()) == 2 else " section ", text)
    text = _APOSTROPHE_S_RE.sub("", text.lower())
    return _THOUSANDS_RE.sub("", text) if "," in text else text


def _expand(compound: str) -> list[str]:
    """The tokens one compound contributes, each once.

    ``1.25a-1(b)(4)`` gives ``1.25a-1(b)(4)``, ``1.25a-1(b)``, ``1.25a-1``, ``25a``, ``(b)(4)``,
    ``(b)``, ``(4)``: a query for the full cite, the regulation, the Code section (25A) or the
    paragraph matches. Word parts of one character ("1" in "1.25a-1") are dropped as noise;
    parenthesised words ("(aotc)") also give the bare word.
    """
    first_paren = compound.find("(")
    base = compound if first_paren < 0 else compound[:first_paren]
    parens = _PAREN_RE.findall(compound[len(base) :])
    out: list[str] = [compound]
    if base:
        out.extend(base + "".join(parens[:i]) for i in range(len(parens) - 1, -1, -1))
        parts = _SEPARATOR_RE.split(base)
        if len(parts) > 1:
            out.extend(p for p in parts if len(p) > 1)
    if parens:
        if base and len(parens) > 1:
            out.append("".join(parens))
        if len(parens) > 1 or base:
            out.extend(parens)
        out.extend(p[1:-1] for p in parens if len(p) > 3)
    return list(dict.fromkeys(out))


_STEMMERS = threading.local()


def _stem(word: str) -> str:
    """Snowball English stem of a lower-case alphabetic word (PyStemmer: C, one stemmer per thread, as its
    stemmers are not thread-safe); anything with a digit ("25a", "1.25a-1") is left as it is."""
    if not word.isalpha():
        return word
    stemmer = getattr(_STEMMERS, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _STEMMERS.stemmer = Stemmer.Stemmer("english")
    return stemmer.stemWord(word)


def tokenize(text: str) -> list[str]:
    """BM25 tokens for a chunk or a query (both must go through this same function).

    Lower-cased and accent-folded, English stopwords removed, words stemmed ("credits", "credited" →
    "credit"), and legal citations kept whole *and* split (see ``_expand``), so "§ 1.25A-1(b)(4)" is
    found by "1.25A-1", "section 25A" or "(b)(4)". Repeated words stay repeated: term frequency counts,
    and query2doc repeats the query on purpose.
    """
    tokens: list[str] = []
    for compound in _COMPOUND_RE.findall(_fold(text)):
        if compound.isalnum():  # a plain word: the common case, kept fast
            if compound not in STOPWORDS:
                tokens.append(_stem(compound))
        else:
            tokens.extend(_stem(t) for t in _expand(compound) if t not in STOPWORDS)
    return tokens
