"""The rules of plain text: where a line is a heading, of which style, and how headings nest.

A text is cut into units (a line, or a long line split before an inline enumerator, as EDGAR contracts
write paragraphs), each with exact offsets. :class:`Outline` classifies a unit as a heading (ARTICLE and
Section lines, decimal and bracketed enumerators, ALL-CAPS and Title Case display lines) or body text, and
keeps the path of open headings. :mod:`lclfqa.ingest.plain_text` turns the result into sections.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

_WS = " \t\u00a0\u2002\u2003\u2009\u3000"
_WS_CLASS = r"[ \t\u00a0\u2002\u2003\u2009\u3000]"

_PART_RE = re.compile(
    r"(?P<kw>ARTICLE|Article|PART|Part|CHAPTER|Chapter|SCHEDULE|Schedule|EXHIBIT|Exhibit|ANNEX|Annex"
    r"|APPENDIX|Appendix|ATTACHMENT|Attachment|ADDENDUM|Addendum)"
    + _WS_CLASS
    + r"+(?P<num>[IVXLC]{1,7}|\d{1,3}(?:\.[0-9A-Z]{1,3})*[A-Z]?|[A-Z])(?![\w])\.?"
)
_SECT_RE = re.compile(
    r"(?:(?P<kw>SECTION|Section|SEC\.|Sec\.)" + _WS_CLASS + r"*|(?P<sym>§§?)" + _WS_CLASS + r"*)"
    r"(?P<num>\d{1,4}[0-9A-Za-z]*(?:[.\-–][0-9A-Za-z]+)*(?:\([0-9A-Za-z]{1,4}\))*)\.?(?=\W|$)"
)
_DEC_RE = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,4})(?P<punct>[.)])?(?=" + _WS_CLASS + r")")
_DOT_RE = re.compile(r"(?P<num>[IVXLC]{2,7}|[A-Za-z])(?P<punct>[.)])(?=" + _WS_CLASS + r")")
_PAREN_RE = re.compile(r"\((?P<num>[A-Za-z]{1,5}|\d{1,3})\)(?=" + _WS_CLASS + r"|$)")

# Where a long line holds several paragraphs (EDGAR contracts): a run of spaces before an enumerator.
_ENUM_AHEAD = (
    r"(?:\(?(?:[a-zA-Z]{1,4}|\d{1,3})\)"
    + _WS_CLASS
    + r"|\d{1,3}(?:\.\d{1,3})+\.?"
    + _WS_CLASS
    + r"|\d{1,3}\."
    + _WS_CLASS
    + r"+[A-Z]|[IVX]{1,5}\."
    + _WS_CLASS
    + r"+[A-Z])"
)
_STRONG_AHEAD = r"(?:ARTICLE|Article|SECTION|Section|§)" + _WS_CLASS
_SOFT_SPLIT_RE = re.compile(  # only at the start of a run of spaces, so long runs cost no backtracking
    r"(?<![ \t\u00a0\u2002\u2003\u2009\u3000])(?:"
    + _WS_CLASS
    + r"{3,}+(?="
    + _ENUM_AHEAD
    + r")|"
    + _WS_CLASS
    + r"{2,}+(?="
    + _STRONG_AHEAD
    + r"))"
)

_LINE_END_RE = re.compile(r"[\n\f]")
_LIST_TAIL_RE = re.compile(r"(?:[;,]|\band/or|;?\s+(?:and|or))\s*$", re.IGNORECASE)
_TOC_TAIL_RE = re.compile(r"(?:\.{4,}|…{2,}|(?:\. ){3,})\s*\d{1,4}\s*$")
_CAPS_WORD = r"[A-Z0-9][A-Z0-9,;&'’\-]*"
_CAPS_LEAD_RE = re.compile(  # the ALL-CAPS words before the first lower-case word
    r"[A-Z][A-Z0-9,;&'’\-]*(?:" + _WS_CLASS + r"+" + _CAPS_WORD + r")*(?=" + _WS_CLASS + r"+[A-Z]?[a-z“\"(])"
)
_LABEL_RE = re.compile(r"[^\W\d_]{1,12}:\s")
_COLUMNS_RE = re.compile(r"\S" + _WS_CLASS + r"{3,}\S")
_PAGE_REF_RE = re.compile(r"[^\W\d_)]" + _WS_CLASS + r"+\d{1,3}$")  # "Definitions 2": a contents line
_PLACEHOLDER_RE = re.compile(r"_{3,}|\[[^\]]*\]|…{2,}|\.{4,}")
_CAPTION_RE = re.compile(r"(?P<cap>[^\s.;:!?][^.!?:]{0,100}?)(?P<end>[.:])(?=" + _WS_CLASS + r"+\S)")
_WORD_RE = re.compile(r"[^\W\d_][\w'’\-]*")

_SMALL_WORDS = frozenset(
    "a an and as at but by de for from in into nor of on or per the to upon vs via with within without & "
    "its their our your".split()
)
_VERBISH = frozenset(
    "is are was were be been being am shall will may must has have had does do did can should would could "
    "means mean agrees agree acknowledges represents warrants covenants includes include applies apply "
    "provides provide".split()
)
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_PART_STYLE = {"part": "part", "chapter": "chapter"}  # ARTICLE, SCHEDULE, EXHIBIT… are one style


def roman_value(s: str) -> int | None:
    """Integer value of a well-formed Roman numeral (either case), else ``None``."""
    s = s.lower()
    if not s or any(c not in _ROMAN_VALUES for c in s):
        return None
    total = 0
    for i, c in enumerate(s):
        v = _ROMAN_VALUES[c]
        total += -v if i + 1 < len(s) and _ROMAN_VALUES[s[i + 1]] > v else v
    return total if _to_roman(total) == s else None


def _to_roman(n: int) -> str:
    out = []
    for v, sym in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while n >= v:
            out.append(sym)
            n -= v
    return "".join(out)


def _is_titleish(s: str, threshold: float = 0.6) -> bool:
    words = _WORD_RE.findall(s)
    if not words or not words[0][0].isupper():
        return False
    sig = [w for w in words if w.lower() not in _SMALL_WORDS]
    if not sig:
        return False
    return sum(1 for w in sig if w[0].isupper()) / len(sig) >= threshold


def _is_caps(s: str) -> bool:
    letters = [c for c in s if c.isalpha()]
    return len(letters) >= 3 and all(c.isupper() for c in letters if c.isupper() or c.islower())


def _clean_title(s: str) -> str:
    s = _TOC_TAIL_RE.sub("", s)
    s = " ".join(s.split())
    s = s.rstrip(" .:;,-–—")
    if len(s) > 100:
        s = s[:99].rstrip() + "…"
    return s


@dataclass
class Unit:
    """A paragraph-like run of one line (or of a long line split before an inline enumerator)."""

    start: int
    end: int
    text: str
    line_start: bool
    whole_line: bool
    blank_after: bool = False
    prev_text: str | None = None  # the text of the unit before, None after a blank line
    next_text: str | None = None  # the text of the unit after, None before a blank line


@dataclass
class Heading:
    style: str  # nesting key: "caps", "title", "part", "sect", "dec2", "(a)", "(i)", "A.", ...
    tier: int  # 0: display and ARTICLE-like headings, 1: enumerated clauses under them
    title: str
    label: str
    value: str  # the enumerator (lower case), to tell (i) the letter from (i) the numeral
    only: bool  # the unit is the heading line alone (its body follows in later units)
    toc: bool = False


def text_units(text: str) -> list[Unit]:
    """Cut the text into stripped units with exact offsets; blank lines only set ``blank_after``."""
    units: list[Unit] = []
    pos = 0
    n = len(text)
    blank_run = True
    while pos <= n:
        m = _LINE_END_RE.search(text, pos) if pos < n else None
        le = m.start() if m else n
        line = text[pos:le]
        stripped = line.strip(_WS + "\ufeff\v")
        if not stripped:
            if units:
                units[-1].blank_after = True
            blank_run = True
        else:
            cuts = [pos] + [pos + s.end() for s in _SOFT_SPLIT_RE.finditer(line)] + [le]
            first = True
            for a, b in itertools.pairwise(cuts):
                piece = text[a:b]
                lead = len(piece) - len(piece.lstrip(_WS + "\ufeff\v"))
                trail = len(piece) - len(piece.rstrip(_WS + "\ufeff\v"))
                s, e = a + lead, b - trail
                if s >= e:
                    continue
                u = Unit(s, e, text[s:e], line_start=first, whole_line=(len(cuts) == 2))
                if units and not blank_run:
                    u.prev_text = units[-1].text
                    units[-1].next_text = u.text
                units.append(u)
                first = False
                blank_run = False
        if m is None:
            break
        if text[le] == "\f" and units:
            units[-1].blank_after = True
            blank_run = True
        pos = le + 1
    if units:
        units[-1].blank_after = True
    return units


class Outline:
    """Decides which units are headings and where each heading sits in the path."""

    def __init__(self, repeated: frozenset[str] = frozenset()) -> None:
        self.stack: list[Heading] = []
        self.repeated = repeated

    # -- classification ------------------------------------------------------------------------

    def _last_value(self, style: str) -> str | None:
        for h in reversed(self.stack):
            if h.style == style:
                return h.value
        return None

    def _letter_or_roman(self, raw: str, letter_style: str, roman_style: str) -> tuple[str, str]:
        """(style, value) for an enumerator that may be a letter or a Roman numeral: i, v, x, I, C…"""
        value = raw.lower()
        rv = roman_value(value)
        if rv is None:
            return letter_style, value
        if len(value) > 1:
            return roman_style, value
        last_letter = self._last_value(letter_style)
        if last_letter is not None and len(last_letter) == 1 and ord(last_letter) + 1 == ord(value):
            return letter_style, value
        last_roman = self._last_value(roman_style)
        if last_roman is not None and roman_value(last_roman) == rv - 1:
            return roman_style, value
        if value == "i":
            return roman_style, value
        return letter_style, value

    def classify(self, u: Unit) -> Heading | None:
        t = u.text
        toc = bool(_TOC_TAIL_RE.search(t))
        m = _PART_RE.match(t)
        if m:
            kw = m.group("kw").lower()
            style = _PART_STYLE.get(kw, "part")
            structural = m.group("kw").isupper()
            return self._enumerated(u, m.end(), "part:" + style, 0, m.group("num").lower(), structural, toc)
        m = _SECT_RE.match(t)
        if m and (m.group("kw") or m.group("sym")):
            return self._enumerated(u, m.end(), "sect", 1, m.group("num").lower(), True, toc)
        m = _PAREN_RE.match(t)
        if m:
            raw = m.group("num")
            if raw.isdigit():
                style, value = "(1)", raw
            elif raw.islower():
                style, value = self._letter_or_roman(raw, "(a)", "(i)")
            elif raw.isupper():
                style, value = self._letter_or_roman(raw, "(A)", "(I)")
            else:
                return None
            if len(value) > 1 and style in ("(a)", "(A)"):
                return None  # "(aa)" or a word in brackets, not an enumerator
            return self._enumerated(u, m.end(), style, 1, value, False, toc)
        m = _DEC_RE.match(t)
        if m:
            num = m.group("num")
            depth = num.count(".") + 1
            punct = m.group("punct") or ""
            if depth == 1 and not punct:
                # "1 Eligibility": a bare number is a heading only as a short title line
                rest = t[m.end() :].strip(_WS)
                if len(num) > 2 or not rest[:1].isupper() or len(rest.split()) > 10 or not u.line_start:
                    return None
            style = f"dec{depth}" + (")" if punct == ")" else "")
            return self._enumerated(u, m.end(), style, 1, num, punct != ")", toc)
        m = _DOT_RE.match(t)
        if m:
            raw, punct = m.group("num"), m.group("punct")
            if raw.isupper():
                style, value = self._letter_or_roman(raw, "A" + punct, "I" + punct)
            elif raw.islower() and len(raw) == 1:
                style, value = "a" + punct, raw
            else:
                return None
            return self._enumerated(u, m.end(), style, 1, value, style == "I.", toc)
        return self._display(u, toc)

    def _enumerated(
        self, u: Unit, label_end: int, style: str, tier: int, value: str, structural: bool, toc: bool
    ) -> Heading | None:
        label = " ".join(u.text[:label_end].split())
        rem = u.text[label_end:].strip(_WS)
        if not rem:
            return Heading(style, tier, label, label, value, only=True, toc=toc) if u.line_start else None
        words = rem.split()
        toc = toc or bool(_PAGE_REF_RE.search(rem))
        if toc:
            return Heading(style, tier, _clean_title(f"{label} {rem}"), label, value, only=True, toc=True)
        cap = _CAPTION_RE.match(rem)
        if cap:  # "1. Definitions. For purposes of …": the caption is the title, the rest is body
            caption = cap.group("cap").strip()
            cw = _WORD_RE.findall(caption)
            verb_free = not any(w.lower() in _VERBISH for w in cw)
            rest = rem[cap.end() :].strip(_WS)
            if (
                cw
                and len(caption.split()) <= 10
                and (_is_titleish(caption) or (verb_free and len(cw) <= 6 and caption[0].isupper()))
                # "(a) Partners: $450 per hour." is a list of fields, not a heading
                and not (_is_inner(style) and cap.group("end") == ":" and len(rest) < 40)
            ):
                return Heading(style, tier, _clean_title(f"{label} {caption}"), label, value, only=False)
        if style.startswith("part:"):  # "ARTICLE V. REPRESENTATIONS AND WARRANTIES OF PARENT   Parent, …"
            caps = _CAPS_LEAD_RE.match(rem)
            if caps and len(_WORD_RE.findall(caps.group(0))) >= 1:
                title = _clean_title(f"{label} {caps.group(0)}")
                return Heading(style, tier, title, label, value, only=False)
        short = len(words) <= 14 and len(rem) <= 120
        if short and not _LIST_TAIL_RE.search(rem) and not rem[0].islower():
            # a heading line ("2. INTRODUCTION", "(a) Commercial E-mails"), not a short list item
            sentence = rem.endswith(".") and any(w.lower() in _VERBISH for w in words)
            if (structural and u.line_start) or (_is_titleish(rem) and not sentence):
                return Heading(style, tier, _clean_title(f"{label} {rem}"), label, value, only=True)
        if structural and u.line_start and not rem[0].islower() and not _LIST_TAIL_RE.search(rem):
            lead = " ".join(words[:8])
            return Heading(style, tier, _clean_title(f"{label} {lead}") + "…", label, value, only=False)
        return None

    def _display(self, u: Unit, toc: bool) -> Heading | None:
        """A short ALL-CAPS line, or a short Title Case line standing alone."""
        if not u.whole_line:
            return None
        t = " ".join(u.text.split())
        words = t.split()
        if toc:
            return Heading("title", 0, _clean_title(t), "", "", only=True, toc=True)
        if len(words) > 12 or len(t) > 100 or t.endswith((",", ";")) or _PLACEHOLDER_RE.search(t):
            return None
        if not t[0].isalnum() and t[0] not in "\"“'‘(":
            return None  # bullets, signature lines, rules
        if _LABEL_RE.match(t) or _COLUMNS_RE.search(u.text):
            return None  # "Re: …", "By: …" are labelled fields; "Maria Chen      Date" is a table row
        nonspace = t.replace(" ", "")
        if sum(c.isalpha() for c in nonspace) < 0.6 * len(nonspace) or not re.search(r"[^\W\d_]{3}", t):
            return None  # "I $ 0 to $100,000 15%", dates, amounts
        if _norm_line(t) in self.repeated:
            return None  # a running header or footer ("Source: GO-PAGE CORP, 10-K, 2/21/2014")
        if _is_caps(t):
            if t.endswith((":", ":-")):
                return None  # "WHEREAS:-", "BETWEEN:" lead into a list; they head nothing
            title = _clean_title(t)
            return Heading("caps", 0, title, "", "", only=True) if len(title) >= 3 else None
        if len(words) > 10 or t.endswith(":") or not _is_titleish(t, 0.75):
            return None
        if any(w.lower() in _VERBISH for w in words):
            return None  # '“NYSE” means the New York Stock Exchange.' is a sentence
        if t.endswith(".") and len(words) > 5:
            return None
        alone_before = u.prev_text is None or u.prev_text.endswith((".", ":", "?", "!", ")", "”", '"'))
        nxt = u.next_text
        body_after = u.blank_after or (nxt is not None and len(nxt) >= max(60, 2 * len(t)))
        if alone_before and body_after:
            return Heading("title", 0, _clean_title(t), "", "", only=True)
        return None

    # -- nesting -------------------------------------------------------------------------------

    def push(self, h: Heading) -> None:
        """Put ``h`` on the path: a style already open closes back to it, a new style nests deeper.

        Display and ARTICLE-like headings (tier 0) close every clause heading (tier 1) first, so an
        ALL-CAPS line after section 9 does not become a child of section 9.
        """
        if h.tier == 0:
            self.stack = [x for x in self.stack if x.tier == 0]
        elif not _is_inner(h.style):  # "Section 3.02" after "(e)" closes "(e)"
            for i, x in enumerate(self.stack):
                if _is_inner(x.style):
                    del self.stack[i:]
                    break
        depth = _dec_depth(h.style)
        for i, x in enumerate(self.stack):
            same = x.style == h.style and x.tier == h.tier
            same_kind = x.style.endswith(")") == h.style.endswith(")")  # "1." and "1)" are different lists
            deeper_number = depth and _dec_depth(x.style) >= depth and same_kind
            if same or deeper_number:
                del self.stack[i:]
                break
        self.stack.append(h)

    def path(self) -> tuple[str, ...]:
        return tuple(h.title for h in self.stack)


def _is_inner(style: str) -> bool:
    """(a), (i), (A), (1), a., a): list-like enumerators that never hold a numbered section."""
    return style.startswith("(") or style in ("a.", "a)")


def _dec_depth(style: str) -> int:
    """3 for "dec3": decimal numbers say their own depth, so 4. closes 3.4 even after other headings.

    "Section 5" counts as depth 1: it is the same rank as "5." in documents that mix the two.
    """
    if style == "sect":
        return 1
    return int(style[3]) if style.startswith("dec") else 0


def _norm_line(s: str) -> str:
    return re.sub(r"\d+", "#", " ".join(s.split()).lower())


def repeated_lines(units: list[Unit]) -> frozenset[str]:
    """Whole lines that recur three times or more: running headers and footers, not headings."""
    counts: dict[str, int] = {}
    for u in units:
        if u.whole_line and len(u.text) <= 100:
            key = _norm_line(u.text)
            counts[key] = counts.get(key, 0) + 1
    return frozenset(k for k, n in counts.items() if n >= 3)


_PAGE_NUMBER_RE = re.compile(  # "7", "- 7 -", "Page 7", "Page 7 of 20"
    r"(?:page" + _WS_CLASS + r"*)?(?:[-–—]" + _WS_CLASS + r"*)?(?P<n>\d{1,4})(?:" + _WS_CLASS + r"*[-–—])?"
    r"(?:" + _WS_CLASS + r"+of" + _WS_CLASS + r"+\d{1,4})?",
    re.IGNORECASE,
)
_LONG_WORD_RE = re.compile(r"[^\W\d_]{3,}")


MIN_PAGE_CHARS = 500
"""A print's page holds more text than this (characters from one page's running line to the next, the median
over a run): numbers or lines closer together are a table's column or a list, not page furniture."""
MIN_PAGES = 5
"""A worded running line repeats on at least this many pages (a name in a caption, a clause and a signature
block is said three times and is text)."""


def running_lines(units: list[Unit], length: int) -> dict[str, list[Unit]]:
    """A print's running lines, the page furniture an export left among the text, by rule:

    - **The same words on every page**: a whole line with a word of three letters or more, repeated
      verbatim on :data:`MIN_PAGES` pages or more, from the first quarter of the text to its last ("Source:
      FILER, 10-K, 3/30/2016" at each page break of an EDGAR exhibit). A line repeated within one part of
      the text ("with a copy to …" in a notice clause) is text.
    - **Page numbers**: whole lines that are a bare number ("7", "- 7 -", "Page 7 of 20") in a run of
      three or more that counts up by one.
    Either kind is a page apart: :data:`MIN_PAGE_CHARS` or more between one and the next, the median over
    its lines (a column of years, "2019", "2020", "2021", is a table's). ``length`` is the text's length.
    """
    same: dict[str, list[Unit]] = {}
    chains: dict[int, list[Unit]] = {}  # by the number a chain would take next
    done: list[list[Unit]] = []
    for u in units:
        if not u.whole_line or len(u.text) > 100:
            continue
        m = _PAGE_NUMBER_RE.fullmatch(u.text)
        if m:
            n = int(m["n"])
            chain = chains.pop(n, None)
            if chain is None:
                chain = []
                done.append(chain)
            chain.append(u)
            chains[n + 1] = chain
        elif _LONG_WORD_RE.search(u.text):
            same.setdefault(" ".join(u.text.split()), []).append(u)
    spread = [us for us in same.values() if us[0].start <= length / 4 and us[-1].start >= length * 3 / 4]
    return {
        "page numbers": [u for chain in done if len(chain) >= 3 and _pages_apart(chain) for u in chain],
        "same words on every page": [u for us in spread if len(us) >= MIN_PAGES and _pages_apart(us) for u in us],
    }


def _pages_apart(lines: list[Unit]) -> bool:
    gaps = sorted(b.start - a.end for a, b in itertools.pairwise(lines))
    return bool(gaps) and gaps[len(gaps) // 2] >= MIN_PAGE_CHARS


def absorb_captions(units: list[Unit], heads: list[Heading | None]) -> None:
    """Join heading lines that belong together; drop bare numbers that head nothing.

    "ARTICLE I" then "DEFINITIONS" is one heading, ``ARTICLE I DEFINITIONS``; two ALL-CAPS lines in a
    row are one title; a lone "3.2" line (a PDF export that put numbers apart from their captions)
    is body text unless a caption line follows it.
    """
    for i, (u, h) in enumerate(zip(units, heads, strict=True)):
        if h is None or not h.only or h.toc or not u.text:
            continue
        nxt = heads[i + 1] if i + 1 < len(heads) else None
        adjacent = u.next_text is not None
        if h.title == h.label:
            if nxt is not None and nxt.style in ("caps", "title") and not nxt.toc:
                h.title = _clean_title(f"{h.label} {nxt.title}")
                heads[i + 1] = None
                units[i + 1].text = ""  # marks it as part of the heading before it
            elif not h.style.startswith(("part:", "sect")):
                heads[i] = None
        elif h.style == "caps":
            j = i + 1
            while adjacent and j < len(heads) and heads[j] is not None and heads[j].style == "caps":
                joined = _clean_title(f"{h.title} {heads[j].title}")
                if len(joined) > 100 or heads[j].toc:
                    break
                h.title = joined
                heads[j] = None
                adjacent = units[j].next_text is not None
                units[j].text = ""
                j += 1
