"""Does every sentence of an answer rest on the quotes it cites? A deterministic check, no LLM.

A sentence *states* figures (amounts, rates, counts, years, days), section and paragraph numbers, and quoted
phrases. Each must occur in the quotes the sentence cites by number — in any one quote when it cites none, so that
re-citing can name it — compared after :func:`lclfqa.textnorm.normalize` (so "$1.5 million" = "$1,500,000", "20%"
= "20 percent", "§ 25A" = "section 25A"). A sentence must also rest on the quotes in its words: at least
``min_support`` (setting ``min_answer_support``, default :data:`MIN_SUPPORT`) of its content words (stemmed, stop
words out, :func:`lclfqa.index.tokens.tokenize`) occur in the quotes or the question; sentences of fewer than
:data:`MIN_CONTENT_WORDS` content words, such as a bare verdict, are exempt (the threshold's measurement:
docs/reading.md). A sentence that claims a rule holds without exception ("This applies regardless of whether the
employee …", :data:`ABSOLUTES`) is unfounded unless a quote says so too: the 1.5B default wrote such sentences
over quotes stating the exceptions. The reader acts on the result (re-citing what another quote holds, then
removing what still fails), so no unsupported figure or unfounded sentence reaches the user.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass, field, replace
from functools import lru_cache

from lclfqa import prompts
from lclfqa.index.tokens import tokenize
from lclfqa.llm.parsing import CITATION_RE, MARKER_RUN, cited_numbers, with_markers
from lclfqa.llm.parsing import split_sentences as split
from lclfqa.textnorm import CARDINAL_WORD, normalize

# what a sentence states that must be found: numbers with what is glued to them (1.25A-1(g), 7703(b), 80,000,
# $1.5, 20%); a lone small number word is not a figure ("one of the conditions")
_QUALIFIER = r"(?:business|calendar|consecutive|full)"
"""A word between a count and its unit of time ("six business days")."""
_FIGURE = re.compile(
    r"\$?\d[\d,]*(?:\.\d+)?[A-Za-z]{0,3}(?:[.\-–]\d(?:\d|,(?=\d{3}))*[A-Za-z]{0,3})*(?:\([A-Za-z0-9]{1,4}\))*"
    r"(?:\s?%|\s(?:percent|per cent)\b|\s(?:thousand|million|billion|trillion)\b)?"
)
_COUNT = re.compile(
    rf"\b{CARDINAL_WORD}(?:[- ]{_QUALIFIER})?[- ]"
    r"(?:days?|weeks?|months?|years?|hours?|minutes?|percent|per cent)\b",
    re.I,
)
"""A count of days, months, years or per cent written in words ("seven years", "thirty days", "a three-year period",
"fifteen per cent"): a figure as much as "7 years" (:func:`lclfqa.textnorm.normalize` reads both the same). An
ordinal ("the first month after the quarter") names a position, is paraphrased, and is not taken."""
_QUOTED = re.compile(r"[\"“]([^\"“”]{3,}?)[\"”]")
_ENUMERATOR = re.compile(r"(?:(?<=^)|(?<=[\s:;,]))\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)(?=\s)")
"""A list item's number ("…: (1) someone …; (2) the child …"): it counts items, it states no figure."""
MIN_SUPPORT = 0.5
MIN_CONTENT_WORDS = 4
REPEAT_SHARE = 0.85
"""A sentence with this share of its content words in an earlier sentence of the answer repeats it."""
ABSOLUTES = re.compile(
    r"\b(?:regardless|irrespective|in (?:all|every|any) cases?|without (?:any )?exceptions?|no exceptions?"
    r"|(?:not|never)\s+(?:\w+\s+){0,3}?any\s+(?:\w+\s+)?exceptions?"  # "does not have any exceptions"
    r"|always|under no circumstances?|in no event)\b",
    re.I,
)
"""Words that claim a rule holds without exception: a sentence using one that no quote uses is unfounded."""


def overstated(sentence: str, quotes_text: str) -> list[str]:
    """The :data:`ABSOLUTES` ``sentence`` uses that ``quotes_text`` (normalised quotes) does not."""
    found = [m.group(0) for m in ABSOLUTES.finditer(CITATION_RE.sub(" ", sentence))]
    return [w for w in found if f" {normalize(w)} " not in f" {quotes_text} "]


_UNIT = re.compile(rf"[\s-](?:{_QUALIFIER}[\s-])?(days?|weeks?|months?|years?|hours?|minutes?)\b", re.I)
"""A unit of time right after a figure: the figure is a count of it ("3 years", "a 30-day period")."""
_COUNTED = re.compile(r"^(\d[\d,]*(?:\.\d+)?(?: - \d[\d,]*(?:\.\d+)?)?) (day|week|month|year|hour|minute)s?$")
"""A count of time as :func:`figures` writes it: a number or a range ("10 - 14") and its unit."""


def _with_unit(m: re.Match[str], text: str) -> str:
    """The figure ``m`` found in ``text``, as "N unit(s)" where a unit of time follows it (:data:`_UNIT`)."""
    figure = m.group(0).rstrip(".,")
    unit = _UNIT.match(text, m.end()) if figure == m.group(0) and figure[-1].isdigit() else None
    return f"{figure} {unit.group(1).lower()}" if unit else figure


def stated(sentence: str) -> list[str]:
    """The figures (in digits, with their unit of time where one follows: "3 years"; or a count in words:
    :data:`_COUNT`), section numbers and quoted phrases (≥ 3 words) ``sentence`` states, as written."""
    text = _ENUMERATOR.sub(" ", CITATION_RE.sub(" ", sentence))
    found = [_with_unit(m, text) for m in _FIGURE.finditer(text)]
    found += [m.group(0) for m in _COUNT.finditer(text)]
    found += [q.strip() for q in _QUOTED.findall(text) if len(q.split()) >= 3]
    return list(dict.fromkeys(f for f in found if f))


_DAY_SPAN = re.compile(
    r"\b(\d+)(?:st|nd|rd|th)?\s+day\s+(?:through|to)\s+(?:the\s+)?(\d+)(?:st|nd|rd|th)?\s+day\b", re.I
)
_BARE_DECIMAL = re.compile(r"(?<![\d.])\.(\d)")
_DOUBLED = re.compile(rf"\b({CARDINAL_WORD})\s*\(\s*(\d+)\s*\)", re.I)
"""A figure the drafter wrote twice, in words and then in digits in brackets: "six (6) months" (not a provision's
paragraph, "2(2)")."""
_TRAILING_ZEROS = re.compile(r"\b(\d+)\.(\d*?)0+\b")


def figures(text: str) -> str:
    """``text`` normalised (:func:`lclfqa.textnorm.normalize`) with the figures of the same value in one
    form, for the check only: "the 1st day through the 15th day" = "1-15", ".2" = "0.2", "8.00%" = "8%", "six (6)
    months" = "6 months"."""
    text = _DOUBLED.sub(lambda m: m.group(1) if normalize(m.group(1)) == m.group(2) else m.group(0), text)
    text = _BARE_DECIMAL.sub(r"0.\1", _DAY_SPAN.sub(r"\1-\2", text))
    return _TRAILING_ZEROS.sub(lambda m: f"{m.group(1)}.{m.group(2)}" if m.group(2) else m.group(1), normalize(text))


_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")


def _tight(text: str) -> str:
    """``text`` with no space left before punctuation where markers or words were taken out of it."""
    return _SPACE_BEFORE_STOP.sub(r"\1", text)


_PARAGRAPH = r"\([A-Za-z0-9]{1,4}\)"
_PROVISION = re.compile(rf"(\d+[A-Za-z]{{0,2}}(?:\.\d+[A-Za-z]{{0,2}})?(?:-\d+[A-Za-z]?)?)((?:{_PARAGRAPH})+)")


def occurs(item: str, haystack: str) -> bool:
    """Whether figure or phrase ``item`` is in ``haystack`` (text in :func:`figures`' form), as whole words. A
    provision with its paragraphs ("54(3)") is there where its number is and each paragraph is: the quote of
    subsection "(3) Where the insured proves …" printed under section 54, or a question citing "s 54"."""
    needle = figures(item).replace("$ ", "")  # "$80,000" is found in "80,000 dollars" too
    if not needle:
        return True
    if f" {needle} " in f" {haystack} ":
        return True
    counted = _COUNTED.match(needle)
    if counted:  # a count of time: its number with its unit, singular or plural ("a 3-year period", "6 business days")
        number, unit = counted.groups()
        qualified = rf"(?<!\S){re.escape(number)} (?:{_QUALIFIER} )?{unit}s?(?!\S)"
        return re.search(qualified, haystack) is not None
    cited = _PROVISION.fullmatch(item.strip())
    if not cited:
        return False
    paragraphs = re.findall(_PARAGRAPH, cited.group(2))
    return all(f" {figures(part)} " in f" {haystack} " for part in [cited.group(1), *paragraphs])


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
DERIVED_MIN = 100
"""Only a figure of at least this value may be derived (:func:`_derived`): small numbers match by chance."""


def _numbers(text: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(text)]


def _derived(item: str, sentence: str, haystack: str) -> bool:
    """Whether ``item`` (a figure of at least :data:`DERIVED_MIN`) is the product, sum or difference of a
    number the ``sentence`` itself states and a number it or ``haystack`` (normalised quotes) holds: a
    figure the sentence computes and shows how ("1.5 times the unpaid amount, or $30 million" over a quote's
    "$20 million")."""
    values = _numbers(normalize(item))
    if len(values) != 1 or values[0] < DERIVED_MIN:
        return False
    target = values[0]
    text = re.sub(r"\(\w{1,4}\)", " ", CITATION_RE.sub(" ", sentence).replace(item, " "))  # not "(2)" of a section
    own = [v for v in _numbers(normalize(text)) if v > 1]
    pool = own + _numbers(haystack)

    def close(x: float) -> bool:
        return abs(x - target) <= 0.005 * target

    products = any(close(a * b) for a in own for b in pool)
    return products or any(close(a + b) or close(abs(a - b)) for a in own if a >= DERIVED_MIN for b in pool)


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence: what it cites, and what it states that its quotes do not contain."""

    text: str
    cites: list[int]
    missing: list[str] = field(default_factory=list)
    support: float = 1.0
    """Share of its content words found in the quotes or the question (1.0 for a short sentence)."""
    unfounded: bool = False
    """Its support is below the threshold: it says what no quote says."""
    misattributed: bool = False
    """It rests on the quotes, but not on those it cites: their words hold under the threshold of its own, counting
    the question's, or of those it has beyond the question's (:data:`MIN_CONTENT_WORDS` or more)."""
    unknown: list[str] = field(default_factory=list)
    """Citation markers with no quote behind them ("[539]": a page number the model made a marker of)."""

    @property
    def ok(self) -> bool:
        return not self.missing and not self.unfounded and not self.unknown


def content_words(sentence: str) -> set[str]:
    """The content words of ``sentence`` (stemmed, stop words and citation markers out)."""
    return set(tokenize(CITATION_RE.sub(" ", sentence)))


def support(sentence: str, known: set[str]) -> float:
    """Share of the content words of ``sentence`` (citation markers aside) in ``known``; 1.0 for a sentence
    of fewer than :data:`MIN_CONTENT_WORDS` content words."""
    words = content_words(sentence)
    return 1.0 if len(words) < MIN_CONTENT_WORDS else len(words & known) / len(words)


def echoes(sentence: str, question: str) -> bool:
    """Whether ``sentence`` (of at least :data:`MIN_CONTENT_WORDS` content words) only says ``question``
    back: all its content words but one, or :data:`REPEAT_SHARE` of them, are the question's ("The court said
    the clause was a penalty" for "What did the court say about whether the clause was a penalty?") and it
    states no figure the question lacks. Such a sentence asserts what was asked, so the question's words and
    figures cannot vouch for it. The answer to a yes/no question, or to one asking which of two things holds
    ("Is the loss capital or ordinary?"), is exempt (:func:`check_answer`): it names what was asked."""
    words = content_words(sentence)
    new = len(words - set(tokenize(question)))
    if len(words) < MIN_CONTENT_WORDS or new > max(1, (1 - REPEAT_SHARE) * len(words)):
        return False
    asked = figures(question)
    return all(occurs(item, asked) for item in stated(sentence))  # a figure of its own is no echo


def vouching(sentence: str, question: str) -> str:
    """The question's text where it may vouch for ``sentence`` (an answer restates what was asked), ``""``
    where the sentence only says it back (:func:`echoes`) and the question is neither a yes/no one nor one
    asking which of two things holds."""
    if _names_what_is_asked(question) or not echoes(sentence, question):
        return question
    return ""


@lru_cache(maxsize=256)
def _names_what_is_asked(question: str) -> bool:
    """A yes/no question's answer or a choice's names what was asked (read once per question, not per
    sentence)."""
    return prompts.is_yes_no(question) or prompts.asks_choice(question)


def held(item: str, sentence: str, pool: str) -> bool:
    """Whether figure or phrase ``item`` of ``sentence`` is in ``pool`` (normalised text) or derived from it."""
    return occurs(item, pool) or _derived(item, sentence, pool)


def check_answer(
    answer: str, quotes: Sequence[str], question: str = "", min_support: float = MIN_SUPPORT
) -> list[SentenceCheck]:
    """Every sentence of ``answer`` against the numbered ``quotes`` (``[1]`` is ``quotes[0]``); words of the
    ``question`` count as supported (an answer restates what was asked); a sentence whose support is below
    ``min_support`` is unfounded (0: the words are not checked)."""
    normalized = [figures(q) for q in quotes]
    everything = " ".join(normalized)
    words = [set(tokenize(q)) for q in quotes]
    question_words = set(tokenize(question))
    out = []
    for s in split(answer):
        numbers = cited_numbers(s)
        cites = [n for n in numbers if 1 <= n <= len(quotes)]
        # what the user said in the question is held too: restating the facts given is not unsupported; but a
        # sentence that only says the question back (not a yes/no one's verdict) must rest on the quotes alone
        said = vouching(s, question)
        given, asked = figures(said), set(tokenize(said))
        # a sentence citing nothing holds a figure only where one quote does, as ``recited`` would cite it
        pools = [" ".join(normalized[n - 1] for n in cites)] if cites else normalized
        missing = [item for item in stated(s) if not any(held(item, s, f"{p} {given}") for p in pools or [""])]
        unknown = [f"[{n}]" for n in numbers if n not in cites]
        share = support(s, asked.union(*words))
        held_by_cited = asked.union(*(words[n - 1] for n in cites))
        # the question's words vouch for what a sentence says, not for which quote it rests on
        own = content_words(s) - question_words
        own_elsewhere = len(own) >= MIN_CONTENT_WORDS and len(own & held_by_cited) < min_support * len(own)
        elsewhere = bool(cites) and (support(s, held_by_cited) < min_support or own_elsewhere)
        unfounded = share < min_support or (min_support > 0 and bool(overstated(s, everything)))
        misattributed = elsewhere and share >= min_support
        out.append(SentenceCheck(s, cites, missing, share, unfounded, misattributed, unknown))
    return out


_NEGATION = re.compile(r"\b(?:not|nor|no|never|neither|none|cannot)\b|n['’]t\b", re.I)
_CLAUSE_BREAK = re.compile(r"(;\s+|,\s+(?:and|or)\s+)")
_EXCEPTING = re.compile(
    r"\b(?:but|unless|except|excepting|however|provided|notwithstanding|subject to|other than)\b", re.I
)


def clause_trimmed(
    check: SentenceCheck, quotes: Sequence[str], question: str = "", min_support: float = MIN_SUPPORT
) -> str:
    """The sentence without the coordinated clauses (after "; ", ", and ", ", or ") that hold the figures it
    fails on, if that makes it pass (cited to the quote that holds its words where it cited another); else
    ``""``. "Exceptions apply where the stock is contributed to an employee stock ownership plan, or where
    the repurchases do not exceed $1,000,000 [7]." keeps its first clause when no quote holds the figure.
    Only a later item of a list goes: a first clause holding the figure, or a dropped clause that states an
    exception or a limit ("; unless …", ", and except …", "; but …": its loss would turn the exception into
    the rule), leaves the sentence to fail. The kept clauses keep their own markers (the sentence's last ones
    when they have none)."""
    if not check.missing or check.unknown:
        return ""
    body = check.text.strip()
    pieces = _CLAUSE_BREAK.split(body[:-1] if body.endswith(".") else body)
    clauses, breaks = pieces[::2], ["", *pieces[1::2]]
    holds = [any(occurs(item, figures(CITATION_RE.sub(" ", c))) for item in check.missing) for c in clauses]
    if len(clauses) < 2 or holds[0] or not any(holds):
        return ""
    if any(h and _EXCEPTING.search(b + c) for b, c, h in zip(breaks, clauses, holds, strict=True)):
        return ""
    kept = "".join(b + c for b, c, h in zip(breaks, clauses, holds, strict=True) if not h)
    own = [m.group(0) for m in CITATION_RE.finditer(kept)] or [m.group(0) for m in CITATION_RE.finditer(clauses[-1])]
    bare = _tight(" ".join(CITATION_RE.sub(" ", kept).split())).strip()
    if len(bare.split()) < 4:
        return ""
    text = with_markers(f"{bare}.", " ".join(dict.fromkeys(own))) if own else f"{bare}."
    again = check_answer(text, quotes, question, min_support)
    if len(again) != 1 or not again[0].ok:
        return ""
    return (recited(again[0], quotes, question) or text) if again[0].misattributed else text


SALVAGE_WORDS = 6


def salvaged(check: SentenceCheck, quotes: Sequence[str]) -> str:
    """A failing sentence that quotes a quote — a phrase in double quotes of at least :data:`SALVAGE_WORDS`
    words found in quote ``k`` — reduced to that phrase, cited ``[k]`` ("The source reads: “…” [k]"); else
    ``""``. The quoted words are verified; the lead-in the model wrapped them in ("The rule is § 25A(b),
    which states: …", a section no quote names) is what failed."""
    normalized = [figures(q) for q in quotes]
    for phrase in _QUOTED.findall(check.text):
        if len(phrase.split()) < SALVAGE_WORDS:
            continue
        for k, text in enumerate(normalized):
            if occurs(phrase, text):
                return prompts.phrase("rule_quote", quote=" ".join(phrase.split()), n=k + 1)
    return ""


MAX_CITED = 3
"""A sentence is re-cited to at most this many quotes."""
_PINPOINT = re.compile(r"(?:\bat|\bparas?\.?|\bparagraphs?|¶)\s*\[(\d+)\](?:\s*(?:[-–]|and|to)\s*\[(\d+)\])?", re.I)
"""A paragraph pinpoint: "at [45]", "At [45]-[47]", "paras [12] and [13]", "in paragraph [3]", "¶ [3]"."""
_MARKER_AS_WORD = re.compile(
    rf"\b(?:of|in|with|under|by|to|from|per)\s+{MARKER_RUN.pattern}(?=\s*(?:[,;:]|(?:or|and)\s+\[|[a-z]))", re.I
)
"""A marker run standing where the sentence needs a word: after a preposition and before more of the sentence ("in force
by virtue of [3], no premium …", "in accordance with [5] or [6], as the case requires"). Taking it out cuts the
sentence."""


_POINTING = (
    r"(?:according\s+to|see|as\s+(?:stated|set\s+out|set\s+forth|provided|specified|noted|explained|described)\s+in)"
)
_POINTER_OPENING = re.compile(rf"^(\W*){_POINTING}\s+{MARKER_RUN.pattern}\s*,?\s*(\w)", re.I)
_POINTER_ENDING = re.compile(
    rf",?\s*\b{_POINTING}\s+{MARKER_RUN.pattern}(?=\s*(?:{MARKER_RUN.pattern}\s*)?[.!?]?\s*$)", re.I
)
_POINTER_INSIDE = re.compile(rf",\s*{_POINTING}\s+{MARKER_RUN.pattern}\s*,", re.I)


def without_pointers(sentence: str) -> str:
    """``sentence`` without the phrases that only point at a marker — "According to [2], …", "…, as stated in [2],
    …", "… as set out in [4]." — so that re-citing it leaves no "According to, …" behind."""
    text = _POINTER_OPENING.sub(lambda m: m.group(1) + m.group(2).upper(), sentence)
    return _POINTER_ENDING.sub("", _POINTER_INSIDE.sub(",", text))


def recited(check: SentenceCheck, quotes: Sequence[str], question: str = "", avoid: Set[int] = frozenset()) -> str:
    """``check``'s sentence cited to the quotes that hold it, or ``""`` when they are the ones it cites (and it cites no
    number without a quote), when a marker stands for one of its words (:data:`_MARKER_AS_WORD`: re-citing would cut the
    sentence), or when no :data:`MAX_CITED` quotes hold every figure and quoted phrase it states. The quote
    holding most of its content words comes first — on a tie, one not in ``avoid`` (0-based: quotes the sentence may
    not rest on), then the one holding more of them by itself (a sentence saying the question back ties on every
    quote, as the question holds all its words), then the one it cites; then,
    for each figure or phrase not yet held, the first quote holding it (those it cites first). A figure the question
    gives needs no quote, as in :func:`check_answer` ("Under § 1031, the replacement property must be identified within
    45 days" is cited to the quote on identification when no quote prints the section the user named). The model cited
    the wrong number, split one statement over two quotes, or cited nothing: the evidence is there, and re-citing costs
    nothing and loses nothing."""
    bare = _tight(MARKER_RUN.sub("", without_pointers(check.text))).strip()
    if not quotes or len(bare.split()) < 4 or len(set(tokenize(bare))) < 2:
        return ""
    if {f"[{n}]" for m in _PINPOINT.finditer(check.text) for n in m.groups() if n} & set(check.unknown):
        return ""  # a paragraph pinpoint with no quote ("at [45]"): part of the sentence, not a marker to drop
    if _MARKER_AS_WORD.search(without_pointers(check.text)):
        return ""  # its markers are words of the sentence: re-citing would cut it ("by virtue of, no premium …")
    normalized = [figures(q) for q in quotes]
    order = [n - 1 for n in check.cites] + [k for k in range(len(quotes)) if k + 1 not in check.cites]
    said = vouching(check.text, question)
    asked, given = set(tokenize(said)), figures(said)
    share = {
        k: (support(bare, asked | set(tokenize(quotes[k]))), k not in avoid, support(bare, set(tokenize(quotes[k]))))
        for k in order
    }
    best = max(order, key=lambda k: share[k])  # the first in ``order`` on a full tie
    chosen = [best]
    for item in stated(bare):
        if occurs(item, given) or any(held(item, bare, normalized[k]) for k in chosen):
            continue
        holder = next((k for k in order if occurs(item, normalized[k])), None)
        if holder is None or len(chosen) == MAX_CITED:
            return ""
        chosen.append(holder)
    numbers = [k + 1 for k in chosen]
    if numbers == check.cites and not check.unknown:  # a stray marker beside them goes
        return ""
    return with_markers(bare, " ".join(f"[{n}]" for n in numbers))


def resting_on(check: SentenceCheck, quotes: Sequence[str], question: str = "") -> list[int]:
    """The quote numbers (1-based) ``check``'s sentence rests on: those it cites; for a sentence citing none
    that says something (:data:`MIN_CONTENT_WORDS` content words or more), the quote holding most of its
    words — so that whose words it states can be checked; a shorter one copied word for word from a quote
    (two content words or more: "The majority errs." out of a dissent), that quote; else none (a bare
    verdict: "No, it is not.")."""
    if check.cites or not quotes:
        return list(check.cites)
    words = content_words(check.text)
    if len(words) < MIN_CONTENT_WORDS:
        bare = f" {normalize(CITATION_RE.sub(' ', check.text))} "
        copied = len(words) >= 2 and next((n for n, q in enumerate(quotes, 1) if bare in f" {normalize(q)} "), None)
        return [copied] if copied else []
    asked = set(tokenize(vouching(check.text, question)))
    return [max(range(len(quotes)), key=lambda i: (support(check.text, asked | set(tokenize(quotes[i]))), -i)) + 1]


def needs_citing(check: SentenceCheck) -> bool:
    """Whether re-citing may mend ``check``: a figure or marker its quotes lack, its words another quote's,
    or (a sentence that states a figure or says something) no citation at all."""
    content = len(content_words(check.text)) >= MIN_CONTENT_WORDS or bool(stated(check.text))
    return bool(check.missing or check.unknown or check.misattributed or (not check.cites and content))


def with_recitations(
    checks: Sequence[SentenceCheck], quotes: Sequence[str], question: str = "", avoid: Set[int] = frozenset()
) -> tuple[str, int]:
    """``(answer, recited)``: the sentences joined again, each that :func:`needs_citing` cited to the quotes
    that hold it (:func:`recited`, ``avoid`` last on a tie) where they do; how many were."""
    out: list[str] = []
    count = 0
    for c in checks:
        fixed = recited(c, quotes, question, avoid) if needs_citing(c) and not c.unfounded else ""
        count += bool(fixed)
        out.append(fixed or c.text)
    return " ".join(out), count


# a sentence that only says where something is stated: "This is stated in [2] and [4].", "See [3].", under any name
# the prompts give the evidence ("This is stated in reference text [5].", "… in references 2 and 3.")
_POINTER = re.compile(
    r"^(?:(?:this|that|it|these|which)\s+(?:is|are|was|were)\s+(?:also\s+)?(?:stated|set out|set forth|provided|"
    r"explained|found|mentioned|noted|described)\s+(?:in|by|at)|see(?:\s+also)?|as\s+(?:stated|noted)\s+in)"
    rf"(?:\s*(?:(?:the\s+)?{prompts.EVIDENCE}(?:\s+\d+(?:\s*(?:,|and)\s*\d+)*)?|and|,|"
    + CITATION_RE.pattern
    + r"))*\s*[.!]?$",
    re.I,
)


def is_pointer(sentence: str) -> bool:
    """Whether ``sentence`` says nothing but where something is stated ("This is stated in [2] and [4].")."""
    return bool(_POINTER.match(sentence.strip()))


def _fails(check: SentenceCheck) -> bool:
    return is_pointer(check.text) or not check.ok


def _unpaired(check: SentenceCheck, checks: Sequence[SentenceCheck], k: int, odd: list[int]) -> SentenceCheck:
    """``check`` (``checks[k]``, kept) without a straight double quote whose other end is in a sentence that fails:
    the nearest before it (for its first mark) or after it (for its last) of those with an odd number of them
    (``odd``) (``… still uses the Hope name [8]."`` after the sentence that opened the quotation went)."""
    text = check.text
    if k not in odd:
        return check
    before = [i for i in odd if i < k]
    after = [i for i in odd if i > k]
    if before and _fails(checks[before[-1]]):
        text = text.replace('"', "", 1)
    elif after and _fails(checks[after[0]]):
        cut = text.rfind('"')
        text = text[:cut] + text[cut + 1 :]
    return check if text == check.text else replace(check, text=_tight(text).strip())


def keep_supported(
    checks: Sequence[SentenceCheck], quotes: Sequence[str] = (), question: str = "", min_support: float = MIN_SUPPORT
) -> tuple[list[SentenceCheck], list[str]]:
    """``(kept, removed)``: the sentences that pass — a failing one without the later listed clause that held
    what it failed on, where that is enough (:func:`clause_trimmed`), or reduced to the quote it quotes
    (:func:`salvaged`), each once — and the text of those removed."""
    kept: list[tuple[SentenceCheck, str]] = []  # with the sentence as the model wrote it
    removed: list[str] = []
    odd = [i for i, c in enumerate(checks) if c.text.count('"') % 2]  # sentences that open or close a quotation
    for k, c in enumerate(checks):
        if is_pointer(c.text):
            removed.append(c.text)
            continue
        if c.ok:
            kept.append((_unpaired(c, checks, k, odd), c.text))
            continue
        short = (clause_trimmed(c, quotes, question, min_support) or salvaged(c, quotes)) if quotes else ""
        if short:
            kept.append((check_answer(short, quotes, question, min_support)[0], c.text))
        else:
            removed.append(c.text)
    # the same sentence twice (two failing sentences salvaged to the same quote, a model repeating itself,
    # "Thus, …" before the words of the sentence before it): the first is kept, the other recorded as removed
    unique: list[SentenceCheck] = []
    for c, written in kept:
        if any(repeats(c.text, u.text) for u in unique):
            removed.append(written)
        else:
            unique.append(c)
    return unique, removed


_VERDICT_OPENING = re.compile(r"^\W*(?:yes|no)\b[,.;:]?", re.I)


def _negations(sentence: str) -> int:
    return len(_NEGATION.findall(_VERDICT_OPENING.sub("", sentence)))


def repeats(sentence: str, earlier: str) -> bool:
    """Whether ``sentence`` says again what ``earlier`` said: the same text, or (of at least
    :data:`MIN_CONTENT_WORDS` content words) :data:`REPEAT_SHARE` of its content words in ``earlier``, no
    figure or section number that ``earlier`` lacks, and as many negations as ``earlier`` (an opening "No,"
    aside): "… is not refundable" after "… is refundable", or "If the payee is not the parent, … may be taken
    into account" after "Not if the payee is the parent: … are not taken into account", says another thing."""
    if " ".join(sentence.split()) == " ".join(earlier.split()):
        return True
    words = content_words(sentence)
    if len(words) < MIN_CONTENT_WORDS or len(words & content_words(earlier)) < REPEAT_SHARE * len(words):
        return False
    if _negations(sentence) != _negations(earlier):
        return False
    before = figures(CITATION_RE.sub(" ", earlier))
    return all(occurs(item, before) for item in stated(sentence))
