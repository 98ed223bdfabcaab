"""Document scope: which indexed documents a question names, and the question without its naming clause.

A lawyer scopes a question the way a colleague would: "In *Dobbs*, what did the majority say about
'stare decisis'?", "Under the Inflation Reduction Act, …", "Consider "Fiverr"'s privacy policy; who can see
the jobs I post?". Retrieval should then search that document only and rank its passages by what is
asked. A leading clause that only names the document is dropped from the ranking query: inside the
document it says nothing, and its words ("privacy policy") pull towards the wrong passages. A name
inside the sentence stays (cutting it out leaves a broken sentence).
Measured on PrivacyQA (``benchmarks/README.md``): ranked inside the gold document, MiniLM with the whole
question reaches character recall@8 0.434; with the naming clause removed, 0.562.

:func:`find_scope` matches the question against aliases made from the index's document *names*:

- phrases: each part of the file name (``"TickTick - To Do List…"`` → ``TickTick``, ``To Do List…``;
  ``inflation-reduction-act-2022`` → ``inflation reduction act``), trailing years and document-type words
  trimmed; matched case-insensitively as whole words;
- a distinctive first word (``Dobbs``, ``Viber``, ``Fiverr``): matched only where the question writes it
  capitalised or in quotes, and not as its first word unless quoted ("Keep records…" is no scope, but
  "Consider "Keep"'s privacy policy" is);
- an acronym of a 3- or 4-word phrase (``IRA`` for Inflation Reduction Act), matched in capitals only, and
  not where the question uses it in another sense ("her Roth IRA", ``glossary.toml``'s other-sense words);
- the provision a name cites (``26 CFR 1.25A-1``): cited in the question the way lawyers cite it ("Treas.
  Reg. § 1.25A-1(c)", "§§ 1.25A-1 and 1.25A-2", "Reg. § 1.25A–1"; :mod:`lclfqa.index.provisions`).

An alias that fits more than :data:`MAX_SCOPE` documents narrows nothing and is ignored. The scope is a
filter the user sees (``--show-steps``, ``result["steps"]``) and can switch off (``document_scope``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath
from urllib.parse import unquote

from lclfqa import prompts
from lclfqa.index.provisions import citations

__all__ = ["MAX_SCOPE", "DocumentScope", "find_scope", "name_aliases", "scope_names", "strip_naming_clause"]

MAX_SCOPE = 3
"""An alias naming more documents than this does not scope a question."""

_FUNCTION_WORDS = frozenset(
    "a an and as at by for from in into of on or per the to under v vs with within about according "
    "regarding consider see look read using based s".split()
)
_DOCUMENT_WORDS = frozenset(
    "act acts agreement agreements amendment bill case code contract contracts decision document documents "
    "law laws letter memo memorandum nda notice opinion opinions policy policies privacy regulation "
    "regulations rule rules slip statute statutes template terms text cfr usc irc section sections "
    "inc corp corporation co company companies ltd llc plc group holdings capital management "
    "data new use".split()  # common first words of names ("Data Use Agreement New York City")
)
_GENERIC = _FUNCTION_WORDS | _DOCUMENT_WORDS
_SCOPE_CLAUSE_WORDS = _FUNCTION_WORDS | _DOCUMENT_WORDS | frozenset({"majority", "court", "treas", "reg", "regs"})
_SEP = r"[\s\-_.,'’&]*"
_WORD = re.compile(r"[\w’'.&-]+", re.UNICODE)


@dataclass(frozen=True)
class _Alias:
    pattern: re.Pattern[str]
    kind: str  # "phrase" | "word" | "acronym"
    text: str


@dataclass(frozen=True)
class DocumentScope:
    """The documents a question names (empty: the whole index) and how it named them."""

    documents: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()
    query: str = ""  # the question without its naming clause (what retrieval ranks by)

    def __bool__(self) -> bool:
        return bool(self.documents)

    def ranking_query(self, text: str) -> str:
        """``text`` (a question, rewrite or passage) without a leading clause naming this scope's
        documents (:func:`strip_naming_clause`); unchanged when unscoped."""
        return strip_naming_clause(text, self.mentions) if self.mentions else text


def _words(text: str) -> list[str]:
    return [w.strip(".’'-&").lower() for w in _WORD.findall(text) if w.strip(".’'-&")]


def _name_segments(name: str) -> list[str]:
    """The parts of a document name that people use to call it."""
    stem = unquote(PurePosixPath(name).name)
    parts = []
    for piece in stem.split("||"):
        piece = re.sub(r"\.[A-Za-z][A-Za-z0-9]{1,4}$", "", piece.strip())  # file suffix
        piece = re.sub(r"\s*\([^()]*\s[^()]*\)\s*$", "", piece)  # "(up to date as of 6-26-2026)"
        if " " not in piece:  # slug: separators are spaces
            parts.append(re.sub(r"(?<=[^\W_])-(?=[^\W_])", " ", piece.replace("_", " ")))
        else:
            parts += [p for p in re.split(r"\s+-\s+|_|,\s+|:\s+", piece) if p.strip()]
    return [p.strip(" .") for p in parts if p.strip(" .")]


_TRAILING = frozenset("slip opinion opinions template rev draft final version effective".split())


def _trim(words: list[str]) -> list[str]:
    """Drop trailing years, numbers and descriptive words ("… act 2022 slip opinion" → "… act")."""
    while words and (words[-1].isdigit() or words[-1].lower() in _TRAILING):
        words = words[:-1]
    return words


def _distinctive(word: str) -> bool:
    letters = sum(ch.isalpha() for ch in word)
    return letters >= 3 and word.lower() not in _GENERIC and (len(word) >= 4 or word.isupper())


def name_aliases(name: str) -> list[tuple[str, str]]:
    """``(kind, text)`` aliases of one document name (see the module doc)."""
    out: list[tuple[str, str]] = []
    for n, seg in enumerate(_name_segments(name)):
        words = _trim([w.strip(".,") for w in re.split(r"\s+", seg) if w.strip(".,")])
        content = [w for w in words if w.lower() not in _FUNCTION_WORDS]
        if len(words) >= 2 and any(w.lower() not in _GENERIC for w in words):
            out.append(("phrase", " ".join(words)))
            initials = "".join(w[0] for w in content if w[0].isalpha()).upper()
            if 3 <= len(content) <= 4 and len(initials) == len(content):
                out.append(("acronym", initials))
        lowered = [w.lower() for w in words]
        if "v" in lowered[1:-1] or "vs" in lowered[1:-1]:  # a case name: "dobbs v jackson" → Dobbs, Jackson
            i = lowered.index("v") if "v" in lowered else lowered.index("vs")
            out += [("word", w) for w in (words[i - 1], words[i + 1]) if _distinctive(w)]
        elif n == 0 and words and not words[0].islower() and _distinctive(words[0]):
            out.append(("word", words[0]))  # the primary name, written as a name ("Fiverr", "TickTick")
    return list(dict.fromkeys(out))


def _compile(kind: str, text: str) -> re.Pattern[str]:
    if kind == "acronym":
        return re.compile(rf"(?<![\w]){re.escape(text)}(?![\w])")
    tokens = [re.escape(t) for t in re.split(r"[\s\-_]+", text) if t]
    return re.compile(rf"(?<![\w]){_SEP.join(tokens)}(?![\w])", re.IGNORECASE)


@lru_cache(maxsize=16)
def _aliases(names: tuple[str, ...]) -> tuple[tuple[_Alias, tuple[str, ...]], ...]:
    by_key: dict[tuple[str, str], tuple[str, list[str]]] = {}  # (kind, folded text) -> (text as written, docs)
    for name in names:
        for kind, text in name_aliases(name):
            key = (kind, text.lower() if kind != "acronym" else text)
            by_key.setdefault(key, (text, []))[1].append(name)
    return tuple(
        (_Alias(_compile(kind, text), kind, text), tuple(dict.fromkeys(docs)))
        for (kind, _), (text, docs) in by_key.items()
        if len(set(docs)) <= MAX_SCOPE
    )


def scope_names(document_names: Iterable[str]) -> dict[str, list[str]]:
    """For each document, the names that scope a question to it (``lclfqa info`` prints them): aliases
    of more than :data:`MAX_SCOPE` documents left out, one-word names marked as needing a capital."""
    out: dict[str, list[str]] = {name: [] for name in document_names}
    for alias, docs in _aliases(tuple(sorted(out))):
        shown = f"{alias.text[:1].upper()}{alias.text[1:]} (capitalised)" if alias.kind == "word" else alias.text
        for doc in docs:
            out[doc].append(shown)
    for number, docs in _provisions(tuple(sorted(out))).items():
        for doc in docs:
            out[doc].append(f"§ {number}")
    return out


def _acronym_ok(question: str, acronym: str) -> bool:
    """Whether ``acronym`` names its document in ``question``: not where the question uses a word of another of
    its senses (:func:`lclfqa.prompts.other_sense_words`: "her Roth IRA", "IRA distributions" are accounts),
    outside parentheses (the rewrite's gloss names every sense: "IRA (Inflation Reduction Act (or …))")."""
    text = _without_parentheses(question)
    for word in prompts.other_sense_words(acronym):
        flags = re.I if word.islower() else 0
        if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, flags):
            return False
    return True


@lru_cache(maxsize=16)
def _name_words(names: tuple[str, ...]) -> frozenset[str]:
    """Every word of every document name, lower-cased."""
    return frozenset(w for name in names for seg in _name_segments(name) for w in _words(seg))


def _word_ok(question: str, m: re.Match[str], name_words: frozenset[str] = frozenset()) -> bool:
    """A one-word name counts where it is written as a name: quoted, or capitalised and not the first word —
    and not as a word of another name beside it ("the Fair Employment and Housing Act", "Jackson v.
    Birmingham Bd."): a capitalised word next to it (across "v.", "and" or "of") that no indexed document's
    name holds (``name_words``) makes it someone else's ("Viber and Fiverr" are both names)."""
    before, after = question[: m.start()].rstrip(), question[m.end() :]
    quoted = before.endswith(('"', "“", "'", "‘")) and after[:1] in ('"', "”", "'", "’")
    if quoted:
        return True
    if not (m.group(0)[:1].isupper() and _words(before)):
        return False
    previous = re.search(r"([A-Z][\w’'&-]*)\s+(?:(?:v|vs)\.\s+|and\s+|of\s+)?$", before)
    following = re.match(r"\s+(?:(?:v|vs)\.\s+|and\s+|of\s+)?([A-Z][\w’'&-]*)", after)
    beside = [g.group(1) for g in (previous, following) if g and g.group(1).lower() not in _FUNCTION_WORDS]
    first = previous is not None and not _words(before[: previous.start()])  # "In Dobbs": "In" opens the question
    return not [w for w in beside if w.lower() not in name_words and not (first and w == previous.group(1))]


@lru_cache(maxsize=16)
def _provisions(names: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Provision number → the documents whose name cites it (``26 CFR 1.25A-1 (…).pdf``: ``1.25A-1``)."""
    out: dict[str, list[str]] = {}
    for name in names:
        for _, numbers in citations(unquote(PurePosixPath(name).name)):
            for number in numbers:
                out.setdefault(number, []).append(name)
    return {n: tuple(docs) for n, docs in out.items() if len(set(docs)) <= MAX_SCOPE}


def find_scope(question: str, document_names: Iterable[str]) -> DocumentScope:
    """The documents ``question`` names among ``document_names`` (an index's documents), or an empty scope."""
    documents: list[str] = []
    mentions: list[str] = []
    names = tuple(sorted(document_names))
    plain = prompts.unexpand(question)  # the names the user wrote, not the rewrite's glosses of acronyms
    for alias, docs in _aliases(names):
        for m in alias.pattern.finditer(plain):
            if (alias.kind == "word" and not _word_ok(plain, m, _name_words(names))) or (
                alias.kind == "acronym" and not _acronym_ok(plain, m.group(0))
            ):
                continue
            documents += docs
            mentions.append(m.group(0))
    if documents:  # the gloss may name them in full: a clause naming them in those words goes from the queries too
        named = set(documents)
        mentions += [
            m.group(0)
            for alias, docs in _aliases(names)
            if alias.kind == "phrase" and named & set(docs)
            for m in alias.pattern.finditer(question)
        ]
    provisions = _provisions(names)
    for written, numbers in citations(plain):
        named = [doc for n in numbers for doc in provisions.get(n, ())]
        if named:
            documents += named
            mentions.append(written)
    if not documents:
        return DocumentScope()
    mentions = sorted(dict.fromkeys(mentions), key=len, reverse=True)
    return DocumentScope(tuple(dict.fromkeys(documents)), tuple(mentions), strip_naming_clause(question, mentions))


def _without_parentheses(text: str) -> str:
    """``text`` with every (nested) parenthesised group blanked out, lengths kept."""
    while True:
        blanked = re.sub(r"\([^()]*\)", lambda m: " " * len(m.group(0)), text)
        if blanked == text:
            return text
        text = blanked


_CLAUSE_END = re.compile(r"[;:,]|\s[—–-]\s|—")


def strip_naming_clause(text: str, mentions: Iterable[str]) -> str:
    """``text`` without a leading clause that only names the document ("Consider "X"'s privacy policy;",
    "In Dobbs,", "Under the IRA:"). A name inside the sentence stays: cutting it out leaves a broken
    sentence ("what data does Fiverr collect…" → "what data does collect…"), which ranked worse on the
    tax dev set, and the document filter already does its work. Returns ``text`` when nothing would be left."""
    mentions = [m for m in mentions if m]
    if not mentions:
        return text
    mention_re = re.compile(
        r"[\"“'‘]?(?:" + "|".join(re.escape(m) for m in mentions) + r")[\"”'’]?(?:['’]s\b)?",
        re.IGNORECASE,
    )
    end = _CLAUSE_END.search(_without_parentheses(text))
    if end and mention_re.search(text[: end.start()]):
        # a parenthesis in a naming clause glosses the name ("the IRA (Inflation Reduction Act (or …))")
        rest = set(_words(_without_parentheses(mention_re.sub(" ", text[: end.start()]))))
        if {w for w in rest if not w.isdigit()} <= _SCOPE_CLAUSE_WORDS:  # a year too: "… Act of 2022,"
            stripped = text[end.end() :].strip()
            return stripped if _words(stripped) else text
    return text
