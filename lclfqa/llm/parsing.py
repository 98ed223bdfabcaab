"""Defensive parsing of LLM output: small models drop closing tags, add chatter, break JSON; and where an
answer's sentences end (:func:`split_sentences`).

Every function here returns something usable for any input string; none raises.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def tagged(text: str, tag: str) -> str:
    """The content of ``<tag>…</tag>``; with a missing closing tag, everything after the opening one;
    with no tags at all, the whole text. Surrounding whitespace stripped."""
    m = re.search(rf"<{tag}>(.*?)(?:</{tag}>|$)", text, re.S | re.I)
    body = m.group(1) if m and m.group(1).strip() else text
    return re.sub(rf"</?{tag}>", "", body, flags=re.I).strip()


def json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (bare, fenced, or surrounded by prose), or ``None``. Raw line breaks
    and tabs inside strings are accepted: llama.cpp's JSON grammar lets a small model write them."""
    candidates = [text.strip()] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    for c in candidates:
        try:
            value = json.loads(c, strict=False)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder(strict=False)
    for m in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text[m.start() :])
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


_BOOL = re.compile(r"\b(true|false|yes|no)\b", re.I)


def booleans(text: str, n: int, key: str = "relevant") -> tuple[list[bool], bool]:
    """``n`` verdicts from a validation answer, and whether the output was well formed.

    Accepts ``{"relevant": [true, …]}``, a bare JSON list, or True/False words in order (the LongRAG
    format). Missing or unreadable verdicts are ``True``: a malformed answer never drops evidence.
    """
    obj = json_object(text)
    values: list[Any] | None = None
    if obj is not None and isinstance(obj.get(key), list):
        values = obj[key]
    else:
        try:
            parsed = json.loads(text.strip())
            values = parsed if isinstance(parsed, list) else None
        except ValueError:
            values = None
    if values is None:
        values = [w.lower() in ("true", "yes") for w in _BOOL.findall(text)]
    ok = len(values) == n and all(isinstance(v, bool) for v in values)
    verdicts = [_truthy(v) for v in values[:n]]
    verdicts += [True] * (n - len(verdicts))
    return verdicts, ok


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "no", "0", "")
    return True


def choice(text: str, key: str, options: tuple[str, ...]) -> str:
    """The value of ``key`` in the JSON object in ``text`` if it is one of ``options`` (case and spaces
    aside), else ``""``; without readable JSON, ``"key": "value"`` anywhere in the text."""
    obj = json_object(text)
    value = obj.get(key) if obj is not None else None
    if not isinstance(value, str):
        m = re.search(rf'"?{re.escape(key)}"?\s*[:=]\s*"?(\w+)', text, re.I)
        value = m.group(1) if m else ""
    value = value.strip().lower()
    return value if value in options else ""


def string_list(value: Any) -> list[str]:
    """Non-empty strings from a JSON value (list of strings or of ``{"question": …}`` objects, or a string)."""
    if isinstance(value, str):
        value = [line for line in value.splitlines()]
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, dict):
            item = next((v for v in item.values() if isinstance(v, str)), "")
        if isinstance(item, str):
            item = re.sub(r"^\s*(?:\d+[.)]|[-*•])\s*", "", item).strip()
            if item:
                out.append(item)
    return out


def rewrites(text: str, n: int) -> tuple[list[str], str, bool]:
    """``(rewrites, translation, well_formed)`` from the rewrite call: JSON, or numbered lines as fallback."""
    obj = json_object(text)
    if obj is not None:
        found = string_list(obj.get("rewrites"))[:n]
        translation = obj.get("translation")
        translation = translation.strip() if isinstance(translation, str) else ""
        return found, translation, bool(found) and bool(translation)
    lines = [ln for ln in string_list(text) if ln.endswith("?")]
    return lines[:n], "", False


_YEAR_CITED = r"(?:1[6-9]|20)\d\d\]\s{1,3}(?:\d+\s+)?(?:[A-Z][\w'’.]*\s+)+\d"
"""After its "[": the year of a neutral citation or a law report, then the report or court in capitalised words, then
a number ("2019] ABC 7", "1998] 2 Xy Rep 114"): part of the case's name, never a marker. No court or report is
named: any written that way holds."""
_NOT_A_YEAR = rf"(?!{_YEAR_CITED})"
CITATION = rf"\[{_NOT_A_YEAR}\d+(?:\s*[,;–-]\s*\d+)*\]"
"""An inline citation marker: ``[2]``, ``[2, 3]``, ``[4-6]`` (the pattern every check shares)."""
CITATION_RE = re.compile(CITATION)
_CITE = re.compile(rf"\[{_NOT_A_YEAR}(\d+(?:\s*[,;–-]\s*\d+)*)\]")


def with_markers(sentence: str, markers: str) -> str:
    """``sentence`` with ``markers`` (``"[2]"``) before its final full stop: ``"… year."`` → ``"… year [2]."``."""
    m = re.search(r"([.!?][\"”’']?)?\s*$", sentence)
    end = m.start() if m else len(sentence)
    return f"{sentence[:end].rstrip()} {markers}{(m.group(1) or '') if m else ''}"


def cited_numbers(answer: str) -> list[int]:
    """Source numbers cited inline as ``[1]``, ``[2, 3]``, ``[2][3]`` or ``[4-6]``, in order of first use."""
    seen: list[int] = []
    for m in _CITE.finditer(answer):
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            bounds = re.split(r"\s*[–-]\s*", part)
            nums = [int(b) for b in bounds if b.isdigit()]
            if len(nums) == 2 and 0 < nums[1] - nums[0] < 20:
                nums = list(range(nums[0], nums[1] + 1))
            for num in nums:
                if num not in seen:
                    seen.append(num)
    return seen


_STOP_TWICE = re.compile(rf"(?<=\w)([.!?])[ \t]*((?:{CITATION}[ \t]*)+)\.(?=\s|$)")


def clean_answer(text: str) -> str:
    """The reader's answer without ``<answer>`` tags, a leading ``Answer:``, trailing chatter markers or
    citation placeholders (:func:`strip_placeholders`), its citations after the sentences they support
    (:func:`citations_last`), and a marker set between two full stops inside the sentence ("… by mail.
    [2]." → "… by mail [2].")."""
    body = tagged(text, "answer")
    body = re.sub(r"^\s*(?:\*\*)?answer\s*:\s*(?:\*\*)?\s*", "", body, flags=re.I)
    body = _STOP_TWICE.sub(lambda m: f" {m.group(2).strip()}{m.group(1)}", body)
    return citations_last(strip_placeholders(body).strip())


_MARKER_OPENING = re.compile(rf"{CITATION}(?:\s*{CITATION})*[ \t]+(?=[A-Z“\"(§$]|\[{_YEAR_CITED})")


def citations_last(answer: str) -> str:
    """An answer written with each citation *before* its sentence ("[1] The credit … [2] Annual returns …")
    rewritten with each after it ("The credit … [1]. Annual returns … [2]."), the way the answer check
    reads them (a marker after a full stop belongs to the sentence before it). Answers that do not open
    with a marker are returned as they are."""
    if not _MARKER_OPENING.match(answer):
        return answer
    starts = [
        m
        for m in _MARKER_OPENING.finditer(answer)
        if m.start() == 0 or re.search(r"[.!?][\"”’']?\s+$", answer[: m.start()])
    ]
    out = []
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(answer)
        sentence = answer[m.end() : end].strip()
        trailing = re.search(rf"(?:\s*{CITATION})+\s*$", sentence)  # "… methods. [4] [5]"
        marker = " ".join(m.group(0).split())
        if trailing:
            marker = f"{marker} {' '.join(trailing.group(0).split())}"
            sentence = sentence[: trailing.start()].rstrip()
        out.append(with_markers(sentence, marker))
    return " ".join(out)


# The reader prompt asks to cite "as [n]"; a small model copies the placeholder itself ("[n] No, a married
# couple…"). Placeholders are letters or words in brackets, never a source number, so they cite nothing.
_PLACEHOLDER = r"\[\s*(?:n|m|k|x|#|n\s*,\s*m|number|source(?:\s+number)?)\s*\]"
_LEADING_PLACEHOLDER = re.compile(rf"(?m)^([ \t]*(?:[-*•]\s+)?)(?:{_PLACEHOLDER}[ \t]*)+", re.I)
_INLINE_PLACEHOLDER = re.compile(rf"[ \t]*(?:{_PLACEHOLDER})+", re.I)


_ANGLE_PLACEHOLDER = re.compile(r"[ \t]*<(?:the |a |an )?[a-z][a-z ]{0,30}>(?=[\s.,;:\[]|$)")


def strip_placeholders(answer: str) -> str:
    """``answer`` without literal placeholders copied from the prompt — citation ones (``[n]``, ``[source]``)
    and angle-bracket ones (``<the rule>``); real citations (``[2]``) and bracketed words of the text
    (``[sic]``, ``[the taxpayer]``) stay."""
    answer = _ANGLE_PLACEHOLDER.sub("", answer)
    answer = _LEADING_PLACEHOLDER.sub(r"\1", answer)
    return _INLINE_PLACEHOLDER.sub("", answer)


# A line that introduces a list of sources ("Sources:", "**References**", "This information can be found
# in the following sources:"), then list lines "[1] (…)", "- [2] …", "1. …" to the end of the answer.
_SOURCE_HEADING = re.compile(r"^[^\n]*\b(?:sources?|references?|citations?)\b[^\n]*:?\s*(?:\*\*)?\s*$", re.I)
_LIST_LINE = re.compile(rf"^\s*(?:[-*•]\s*)?(?:{CITATION}|\d+[.)])")


def strip_source_list(answer: str) -> str:
    """``answer`` without a list of sources the model wrote at its end (the graph prints the real ones,
    from the cited numbers; a small model's own list can name documents that do not exist)."""
    lines = answer.rstrip().split("\n")
    end = len(lines)
    while end > 0 and (_LIST_LINE.match(lines[end - 1]) or not lines[end - 1].strip()):
        end -= 1
    if end == len(lines) or end == 0 or not _SOURCE_HEADING.match(lines[end - 1]):
        return answer.strip()
    listed = [ln for ln in lines[end:] if ln.strip()]
    if not listed:
        return answer.strip()
    return "\n".join(lines[: end - 1]).strip() or answer.strip()


RUNAWAY = r"(?:\[\d+\][\s,;]*){6,}$"
"""Six citation markers in a row at the end of the text: a runaway list ("[1] [2][3] … [140]")."""
_CITATION_RUN = re.compile(RUNAWAY)
_LONG_RUN = re.compile(rf"((?:{CITATION}[\s,;]*){{3}})(?:{CITATION}[\s,;]*)+")


def runaway(text: str) -> bool:
    """Whether a streaming answer has started a runaway list of citation markers ("[1] [2][3] [4] … [140]",
    as the 1.5B default did): six in a row end it."""
    return bool(_CITATION_RUN.search(text.rstrip()))


_MARKERS_LINE = re.compile(rf"[ \t]*\n\s*((?:{CITATION}[ \t,;]*)+)[ \t]*(?=\n|$)")


MARKER_RUN = re.compile(rf"{CITATION}(?:\s*(?:[-–,;]|and)?\s*{CITATION})*")
"""Markers in a row, with what joins them ("[2] [3]", "[1]-[4]", "[2] and [3]")."""


def _once(run: re.Match[str]) -> str:
    """A run of markers with each marker once, in the order first given ("[4] [8] [4]" → "[4] [8]"); a run
    without a repeat as written."""
    markers = [" ".join(m.split()) for m in re.findall(CITATION, run.group(0))]
    once = list(dict.fromkeys(markers))
    return run.group(0) if len(once) == len(markers) else " ".join(once)


def collapse_citation_runs(text: str) -> str:
    """A marker repeated within a run said once ("[7] [8] [8]" → "[7] [8]"); more than three citation markers
    in a row cut to the first three; markers on a line of their own cite the sentence before them, so they move
    to its end ("… deduct it.\n\n[2] [3]" → "… deduct it. [2] [3]")."""
    text = _MARKERS_LINE.sub(lambda m: " " + m.group(1).strip(" \t,;"), text)
    return _LONG_RUN.sub(_first_three, MARKER_RUN.sub(_once, text)).strip()


def _first_three(run: re.Match[str]) -> str:
    """A long run of markers cut to its first three, with no separator left hanging before the punctuation that
    follows ("… [1] [2] [3]." rather than "… [1] [2] [3] .")."""
    after = run.string[run.end() : run.end() + 1]
    return run.group(1).rstrip(" \t\n,;") + ("" if not after or after in '.,;:!?)”"' else " ")


# Where an answer's sentences end (also the source spans' ends in lclfqa.graph.evidence.sentences, and the
# expert replay's markers): at . ! ? (after any closing quote and citation markers) before a capital, a quote
# or a bracket; abbreviations common in legal text do not end one.
_ABBREVIATIONS = (
    r"e\.g|i\.e|etc|cf|Cf|viz|v|vs|Sec|Secs|Reg|Regs|Treas|Rev|Proc|Rul|Pub|Stat|U\.S|U\.S\.C|C\.F\.R|I\.R\.C"
    r"|Fed|Memo|T\.C"  # "88 Fed. Reg. 1234", "T.C. Memo. 2004-45"
    r"|Inc|Co|Corp|Ltd|Mr|Mrs|Ms|Dr|J|JJ|Art|para|paras|p|pp|ch|cl|s|ss|n|nn|Nos|Id|id|al|Jan|Feb|Mar|Apr"
    r"|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
    # reporters as US opinions print them, with spaces: "505 U. S. 833", "142 S. Ct. 2228", "L. Ed. 2d"
    r"|U|U\.\s?S|S\.\s?Ct|Ct|L\.\s?Ed"
    # the states as citations abbreviate them (the Bluebook's table T10, one word; not "Me." or "Or."):
    # "see Miss. Code Ann. §41–41–191", "31 Ala. 45", "(SD Miss. 2019)"
    r"|Ala|Ariz|Ark|Cal|Colo|Conn|Del|Fla|Ga|Haw|Ill|Ind|Kan|Ky|La|Md|Mass|Mich|Minn|Miss|Mo|Mont|Neb|Nev|Okla|Pa"
    r"|Tenn|Tex|Vt|Va|Wash|Wis|Wyo"
)
SENTENCE_END = re.compile(rf"(?<=[.!?])([\"”’']?(?:\s*{CITATION})*)\s+(?=[A-Z\"“(]|\[[^\]]*\]\s*[^\s\[])")
ABBREVIATED = re.compile(rf"(?:^|[\s(])(?:{_ABBREVIATIONS})\.$")
# "S." before "Ct.", "L." before "Ed." and "C." before "J." ("Marshall, C. J.", a Chief Justice) end no sentence,
# nor "L." before "No. 117" ("Pub. L. No. 117-169"), nor an initial before another, as reporters and states are
# cited with spaces: "53 N. E. 2d 4", "83 N. C. 630", "67 N. Y. U. L. Rev."
_REPORTER_NEXT = re.compile(r"(?:Ct|Ed|J)\.|No\.\s?\d")
_INITIAL = re.compile(r"(?:^|[\s(])[A-Z]\.$")
_NEXT_INITIAL = re.compile(r"[A-Z]\.[\s,]")
# a court or an editor cited with an initial in brackets ends no sentence, nor "F." before "Supp.":
# "(D. Me. 2020)", "(L. Downer ed. 1972)", "12 F. Supp. 3d 45"
_CITED_INITIAL = re.compile(r"\([A-Z]\.$")
_SUPPLEMENT = re.compile(r"Supp\.")


def abbreviated(text: str, start: int, period_end: int, next_start: int) -> bool:
    """Whether the full stop ending at ``period_end`` closes an abbreviation, not a sentence (in an answer and in
    the source spans alike)."""
    tail = text[max(start, period_end - 3) : period_end]
    return (
        bool(ABBREVIATED.search(text[max(start, period_end - 8) : period_end]))
        or bool(_REPORTER_NEXT.match(text, next_start))
        or (bool(_INITIAL.search(tail)) and bool(_NEXT_INITIAL.match(text, next_start)))
        or bool(_CITED_INITIAL.search(tail))
        or (tail.endswith(" F.") and bool(_SUPPLEMENT.match(text, next_start)))
    )


def split_sentences(answer: str) -> list[str]:
    """``answer`` split into sentences, each keeping its citation markers (``… year. [1]`` included)."""
    parts: list[str] = []
    start = 0
    for m in SENTENCE_END.finditer(answer):
        if abbreviated(answer, start, m.start(), m.end()):
            continue
        cut = m.end(1)
        parts.append(answer[start:cut].strip())
        start = m.end()
    parts.append(answer[start:].strip())
    return [p for p in parts if p]
