"""Canonical text for comparing what an answer states with what a source or a grading key says.

:func:`normalize` maps both sides to the same space-separated tokens: case, quotes, dashes and a typeset
fraction's slash (``2⁄3`` = ``2/3``); ``§`` =
"section"; ``%`` = "percent"; thousands separators; dollar amounts with a scale word ("$24 million" =
"$24,000,000"); number words ("ninety" = "90", "fifteenth" = "15th", "one-twelfth" = "1/12"); ordinal
suffixes ("15th" = "15"); ranges ("1st through 7th" = "1-7"). :func:`form_pattern` compiles a surface form
with two wildcards: ``*`` lets a word run on (``remarr*``), `` ~ `` allows up to three words between its
sides. Used by the eval's key-fact score and by the reader's check of its own answer.
"""

from __future__ import annotations

import re
from functools import cache

QUOTE_MAP = str.maketrans({"‘": "'", "’": "'", "‛": "'", "`": "'", "“": '"', "”": '"', "„": '"'})
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_SLASHES = str.maketrans({"\u2044": "/", "\u2215": "/"})  # a typeset fraction's slash: "2⁄3" = "2/3"
_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70, "eightieth": 80,
    "ninetieth": 90, "hundredth": 100,
}  # fmt: skip
_DENOMINATORS = {"half": 2, "halves": 2, "quarter": 4, "quarters": 4} | {
    **{k: v for k, v in _ORDINALS.items() if v > 2},
    **{k + "s": v for k, v in _ORDINALS.items() if v > 2},
}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000, "trillion": 1_000_000_000_000}

_CARDINAL = "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True))
_ORDINAL = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_TEN_WORDS = "|".join(_TENS)
_ONE_TO_NINE = "|".join(k for k, v in _UNITS.items() if 0 < v < 10)
CARDINAL_WORD = rf"(?:(?:{_TEN_WORDS})[- ](?:{_ONE_TO_NINE})|{_CARDINAL})"
"""A cardinal written in words that :func:`normalize` reads as digits: "seven", "twenty-one", "ninety"."""
_DENOM = "|".join(sorted(_DENOMINATORS, key=len, reverse=True))
# "twenty-one", "twenty one" → 21; "twenty-first" → 21st
_COMPOUND = re.compile(rf"\b({_TEN_WORDS})[- ]({_ONE_TO_NINE})\b")
_COMPOUND_ORD = re.compile(rf"\b({_TEN_WORDS})[- ]({'|'.join(k for k, v in _ORDINALS.items() if v < 10)})\b")
_FRACTION = re.compile(rf"\b({_CARDINAL}|\d+)[- ]({_DENOM})\b")
_ORDINAL_WORD = re.compile(rf"\b({_ORDINAL})\b")
_CARDINAL_WORD = re.compile(rf"\b({_CARDINAL})\b")
_ORDINAL_SUFFIX = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b")
_THOUSANDS = re.compile(r"(?<![\d.])(\d{1,3}(?:,\d{3})+)(?!\d|,\d)")
_SCALED = re.compile(r"(\$\s?)?(\d+(?:\.\d+)?)\s*(thousand|million|billion|trillion)\b")
_PERCENT = re.compile(r"(\d)\s*(?:%|per\s*cent\b|percentum\b)")
_RANGE = re.compile(r"(\d)\s*(?:-|\bthrough\b|\bthru\b|\bto\b)\s*(?=\d)")
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z0-9]+(?:'[a-z]+)?|[$()/-]")


def _number(word: str) -> int:
    return _UNITS.get(word, _TENS.get(word, 0))


def normalize(text: str) -> str:
    """``text`` as space-separated tokens in the canonical forms the module docstring lists."""
    t = _DASHES.sub("-", text.translate(QUOTE_MAP).lower()).translate(_SLASHES)
    t = t.replace("§", " section ").replace("sections", "section")
    t = _COMPOUND_ORD.sub(lambda m: f"{_TENS[m.group(1)] + _ORDINALS[m.group(2)]}th", t)
    t = _COMPOUND.sub(lambda m: str(_TENS[m.group(1)] + _UNITS[m.group(2)]), t)
    t = _FRACTION.sub(
        lambda m: f"{m.group(1) if m.group(1).isdigit() else _number(m.group(1))}/{_DENOMINATORS[m.group(2)]}", t
    )
    t = _ORDINAL_WORD.sub(lambda m: f"{_ORDINALS[m.group(1)]}th", t)
    t = _CARDINAL_WORD.sub(lambda m: str(_number(m.group(1))), t)
    t = _THOUSANDS.sub(lambda m: m.group(1).replace(",", ""), t)
    t = _SCALED.sub(lambda m: f"{'$' if m.group(1) else ''}{_scaled(m.group(2), m.group(3))}", t)
    t = _ORDINAL_SUFFIX.sub(r"\1", t)
    t = _PERCENT.sub(r"\1 percent", t)
    t = _RANGE.sub(r"\1 - ", t)
    tokens = _TOKEN.findall(t)
    # a hyphen joins words ("one-time" = "one time"); between two numbers it is a range and stays
    out = [
        tok
        for i, tok in enumerate(tokens)
        if tok != "-" or (0 < i < len(tokens) - 1 and tokens[i - 1][0].isdigit() and tokens[i + 1][0].isdigit())
    ]
    return " ".join(out)


def _scaled(number: str, scale: str) -> str:
    value = float(number) * _SCALES[scale]
    return str(int(value)) if value == int(value) else str(value)


@cache
def form_pattern(form: str) -> re.Pattern[str]:
    """The regex a surface form compiles to, over normalised text (wildcards ``*`` and `` ~ ``)."""
    sides = [side for side in re.split(r"\s+~\s+", form.strip()) if side.strip()]
    parts = []
    for side in sides:
        words = []
        for tok in normalize(side.replace("*", " STAR ")).split():
            if tok == "star":
                if words:
                    words[-1] += r"\S*"
                continue
            words.append(re.escape(tok))
        parts.append(" ".join(words))
    gap = r"(?: \S+){0,3} "
    return re.compile(r"(?:^| )" + gap.join(parts) + r"(?= |$)")


def matches(form: str, normalized_answer: str) -> bool:
    """Whether ``form`` occurs in an answer already passed through :func:`normalize`."""
    if not form.strip():
        return False
    return bool(form_pattern(form).search(normalized_answer))


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` moved inwards past the whitespace at either side of ``text[start:end]``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
