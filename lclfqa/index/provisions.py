"""Provision numbers: the sections a question cites (``199A``, ``1.25A-1``) and whether a text names one.

Shared by the refusal check (:mod:`lclfqa.graph.evidence.refusal`: a question citing a provision no source
mentions is refused without reading) and the document scope (:mod:`lclfqa.index.scope`: a question citing
the provision a document is named after is scoped to it, "Treas. Reg. § 1.25A-1" to "26 CFR 1.25A-1").
"""

from __future__ import annotations

import re

__all__ = ["REGULATION", "cited_sections", "citations", "mentions", "section_of"]

# "section 199A(b)(2)", "sec. 45X", "§§ 1.25A-1 and 1.25A-2", "IRC 4501", "26 CFR 1.21-3", "Treas. Reg.
# 1.21-4", "26 U.S.C. 199A", "Miss. Code Ann. § 41–41–191": the provision numbers, without their paragraph
# parentheses. Any dash: the Federal Register prints "§ 1.1411–4" (en dash) where eCFR prints a hyphen.
_DASH = "–‐‑−-"  # the hyphen last: a literal in a character class
# "1.1(h)-1", "40.6011(a)-1": a parenthesis followed by a dash is part of the number, not a paragraph
_NUMBER = rf"\d+[A-Z]{{0,2}}(?:\.\d+[A-Z]{{0,2}})?(?:\(\w{{1,4}}\)(?=[{_DASH}]\d))?(?:[{_DASH}]\d+[A-Z]?)*"
# a regulation's number, the Code section it is under in group 1: "1.25A-1" (25A), "1.263(a)-3" (263),
# "40.6302(c)-3" (6302), "1.1411–4" (1411)
REGULATION = rf"\d+\.(\d+[A-Z]{{0,2}})(?:\(\w{{1,4}}\))*[{_DASH}]\d+[A-Z]?(?:\(\w{{1,4}}\))*"
_WHOLE_REGULATION = re.compile(REGULATION, re.I)


def section_of(number: str) -> str | None:
    """The Code section regulation ``number`` is under ("1.25A-1" → "25A"), or None for no regulation's."""
    m = _WHOLE_REGULATION.fullmatch(number)
    return m.group(1).upper() if m else None


_PARAGRAPH = re.compile(rf"\(\w{{1,4}}\)(?![{_DASH}]\d)")
# a list: "§§ 25A, 199A, and 1031", "§§ 1.25A-1 through 1.25A-5"; not a rate after a comma ("§ 25A(i), 40% …")
_NEXT = rf"\s*(?:,\s*(?:and|or)?|and|or|&|through|to)\s*(?={_NUMBER}(?![\d%]|\s*per\s*cent))"
_LIST = rf"{_NUMBER}(?:\(\w{{1,4}}\))*(?:{_NEXT}{_NUMBER}(?:\(\w{{1,4}}\))*)*"
_CITED = re.compile(
    # "section", "sec 179", "§", "IRC", "26 USC 25A"; not a bare "s 15" (a decided refusal rests on retrieval
    # finding the section it names, so a form is added only where it cannot be read another way)
    rf"(?:\bsections?|\bsecs?\b\.?|§§?|\bIRC|\bI\.R\.C\.|\bU\.?S\.?C\.?)\s*({_LIST})"
    # "Reg." and "CFR" cite regulations, always dotted ("1.21-4"): "the regulation 2023 …" cites nothing
    rf"|(?:\bCFR|\bC\.F\.R\.|\bReg(?:ulation)?s?\.?)\s*(?=\d+[A-Z]{{0,2}}\.\d)({_LIST})",
    re.I,
)


def citations(text: str) -> list[tuple[str, list[str]]]:
    """Each provision citation in ``text`` as written ("§§ 1.25A-1 and 1.25A-2") with the numbers it cites,
    upper-cased, any dash a hyphen."""
    out = []
    for m in _CITED.finditer(text):
        span = _PARAGRAPH.sub(" ", m.group(1) or m.group(2))
        numbers = [re.sub(f"[{_DASH}]", "-", n.upper()) for n in re.findall(_NUMBER, span, re.I)]
        out.append((m.group(0).strip(), list(dict.fromkeys(numbers))))
    return out


def cited_sections(question: str) -> list[str]:
    """The provision numbers ``question`` cites (``199A``, ``1.25A-1``), in order, each once."""
    return list(dict.fromkeys(n for _, numbers in citations(question) for n in numbers))


_RANGE = re.compile(r"(\d+)-(\d+)")
MAX_RANGE = 500
"""A cited "671-679" spanning at most this many numbers is also read as a range (§§ 671 to 679)."""


def mentions(number: str, text: str) -> bool:
    """Whether ``text`` names provision ``number`` (whole: "199A" is not "1199A" nor "199AB"), with any dash
    ("1.1411-4" is named by "1.1411–4"). A range of plain numbers ("§§ 671-679", "sections 3–5") is named by
    any number in it as well."""
    # "199A" is not "1199A" nor "199AB"; "1.25A-1" is not "1.25A-10". Case-insensitive: "sec. 45x".
    pattern = f"[{_DASH}]".join(re.escape(part) for part in re.split(f"[{_DASH}]", number))
    if re.search(rf"(?<![\w.{_DASH}]){pattern}(?![\w{_DASH}])", text, re.I):
        return True
    bounds = _RANGE.fullmatch(number)
    if not bounds or not 0 < int(bounds[2]) - int(bounds[1]) <= MAX_RANGE:
        return False
    return any(mentions(str(n), text) for n in range(int(bounds[1]), int(bounds[2]) + 1))
