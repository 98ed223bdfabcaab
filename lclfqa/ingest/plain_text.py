"""Plain text and the formats unstructured reads, as :class:`ParsedDocument`; and the dispatcher.

Plain text is parsed here, by rules, because it is where exact character offsets are possible: the
LegalBench-RAG gold spans index into the text as Python reads it, so every section keeps
``source_text[start:end] == text``. Word, HTML, Markdown and e-mail go through unstructured, which
sees their structure (heading styles, ``<h1>`` tags) but gives no offsets.

``parse_file`` is the one entry point ingest calls: it picks the parser by suffix.
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import logging
import os
import re
import shutil
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from lclfqa.ingest.document import ParsedDocument, Section, UnreadableDocument, file_sha256

log = logging.getLogger("lclfqa.ingest")

# unstructured pings an analytics service when it is imported and posts telemetry on every call
# unless one of these is set; set them before anything imports it (setdefault keeps a user's choice).
_QUIET_ENV = {"DO_NOT_TRACK": "1", "SCARF_NO_ANALYTICS": "true", "UNSTRUCTURED_DISABLE_NOTICE": "1"}
for _key, _value in _QUIET_ENV.items():
    os.environ.setdefault(_key, _value)

PDF_SUFFIXES = frozenset({".pdf"})
TEXT_SUFFIXES = frozenset({".txt", ".text"})
UNSTRUCTURED_SUFFIXES = frozenset({".docx", ".html", ".htm", ".md", ".eml"})
SUPPORTED_SUFFIXES: frozenset[str] = PDF_SUFFIXES | TEXT_SUFFIXES | UNSTRUCTURED_SUFFIXES
"""Suffixes ``parse_file`` reads (lower case). A file without a suffix is read as plain text."""

# Formats unstructured can read only with a tool outside Python; tried when that tool is present.
_NEEDS_TOOL = {
    ".rtf": ("pypandoc", "pip install pypandoc-binary (it bundles pandoc)"),
    ".odt": ("pypandoc", "pip install pypandoc-binary python-docx"),
    ".doc": ("soffice", "install LibreOffice (apt-get install libreoffice-writer) so `soffice` is on PATH"),
}

# A document cut into more pieces than this is over-split: the deepest headings become body text.
MAX_SECTIONS = 400
_MIN_CHARS_PER_SECTION = 250


def _supported_list() -> str:
    return ", ".join(sorted(SUPPORTED_SUFFIXES))


# ------------------------------------------------------------------------------------------------
# The dispatcher
# ------------------------------------------------------------------------------------------------


def parse_file(path: str | Path) -> ParsedDocument:
    """Parse one file of any supported type; :class:`UnreadableDocument` says why not and what to do."""
    p = Path(path)
    if not p.exists():
        raise UnreadableDocument(p, "file not found; check the path (quote names with spaces or '&')")
    if not p.is_file():
        raise UnreadableDocument(p, "not a regular file; pass a file, or a folder to `lclfqa ingest`")
    if p.stat().st_size == 0:
        raise UnreadableDocument(p, "empty file (0 bytes); re-export or re-download it")
    suffix = p.suffix.lower()
    if suffix in PDF_SUFFIXES:
        from lclfqa.ingest.pdf import parse_pdf  # heavy, and only PDFs need it

        return parse_pdf(p)
    if suffix in TEXT_SUFFIXES or suffix == "":
        return parse_text_file(p)
    if suffix in UNSTRUCTURED_SUFFIXES or suffix in _NEEDS_TOOL:
        return parse_with_unstructured(p)
    raise UnreadableDocument(
        p,
        f"unsupported file type {suffix!r}; supported: {_supported_list()}. Convert it to PDF or plain text first.",
    )


# ------------------------------------------------------------------------------------------------
# Decoding
# ------------------------------------------------------------------------------------------------

_TEXT_CONTROLS = frozenset("\t\n\r\f\v")


def _bad_char_ratio(text: str) -> float:
    """Share of characters no text file holds: control characters, unassigned or private code points."""
    if not text:
        return 0.0
    bad = 0
    for ch in text:
        if ch in _TEXT_CONTROLS:
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cn", "Co", "Cs") or ch == "\ufffd":
            bad += 1
    return bad / len(text)


def decode_text(data: bytes, path: str | Path = "<bytes>") -> str:
    """Decode a text file's bytes the way Python's text mode reads them, so offsets line up.

    UTF-8 (a BOM stays as ``"\\ufeff"`` at offset 0, as ``open(path, encoding="utf-8").read()``
    keeps it), UTF-16 with a BOM, else Windows-1252 if that reads as text (logged as a warning).
    Line ends become ``"\\n"`` (universal newlines). Binary, empty or blank input raises.
    """
    if not data:
        raise UnreadableDocument(path, "empty file (0 bytes); re-export or re-download it")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise UnreadableDocument(
                path, f"has a UTF-16 byte-order mark but is not UTF-16 ({exc.reason}); re-save it as UTF-8"
            ) from exc
    elif b"\x00" in data[:65536]:
        raise UnreadableDocument(
            path,
            "looks binary (NUL bytes), not plain text; if it is a PDF, Word or other document, give it its real suffix",
        )
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                raise UnreadableDocument(path, "neither UTF-8 nor Windows-1252 text; re-save it as UTF-8") from exc
            if _bad_char_ratio(text) <= 0.01:
                log.warning(
                    "%s: not valid UTF-8 (byte 0x%02x at offset %d); read it as Windows-1252 (cp1252). "
                    "Re-save the file as UTF-8 if its accents or quotes look wrong.",
                    path,
                    data[exc.start],
                    exc.start,
                )
    if _bad_char_ratio(text) > 0.01:
        raise UnreadableDocument(
            path,
            "looks binary (control characters), not plain text; if it is a PDF, Word or other document, "
            "give it its real suffix",
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.replace("\ufeff", "").strip():
        raise UnreadableDocument(path, "holds only whitespace; there is no text to index")
    return text


# ------------------------------------------------------------------------------------------------
# Plain text: units, headings, sections
# ------------------------------------------------------------------------------------------------

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


def _roman_value(s: str) -> int | None:
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
class _Unit:
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
class _Heading:
    style: str  # nesting key: "caps", "title", "part", "sect", "dec2", "(a)", "(i)", "A.", ...
    tier: int  # 0: display and ARTICLE-like headings, 1: enumerated clauses under them
    title: str
    label: str
    value: str  # the enumerator (lower case), to tell (i) the letter from (i) the numeral
    only: bool  # the unit is the heading line alone (its body follows in later units)
    toc: bool = False


def _units(text: str) -> list[_Unit]:
    """Cut the text into stripped units with exact offsets; blank lines only set ``blank_after``."""
    units: list[_Unit] = []
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
                u = _Unit(s, e, text[s:e], line_start=first, whole_line=(len(cuts) == 2))
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


class _Outline:
    """Decides which units are headings and where each heading sits in the path."""

    def __init__(self, repeated: frozenset[str] = frozenset()) -> None:
        self.stack: list[_Heading] = []
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
        rv = _roman_value(value)
        if rv is None:
            return letter_style, value
        if len(value) > 1:
            return roman_style, value
        last_letter = self._last_value(letter_style)
        if last_letter is not None and len(last_letter) == 1 and ord(last_letter) + 1 == ord(value):
            return letter_style, value
        last_roman = self._last_value(roman_style)
        if last_roman is not None and _roman_value(last_roman) == rv - 1:
            return roman_style, value
        if value == "i":
            return roman_style, value
        return letter_style, value

    def classify(self, u: _Unit) -> _Heading | None:
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
        self, u: _Unit, label_end: int, style: str, tier: int, value: str, structural: bool, toc: bool
    ) -> _Heading | None:
        label = " ".join(u.text[:label_end].split())
        rem = u.text[label_end:].strip(_WS)
        if not rem:
            return _Heading(style, tier, label, label, value, only=True, toc=toc) if u.line_start else None
        words = rem.split()
        toc = toc or bool(_PAGE_REF_RE.search(rem))
        if toc:
            return _Heading(style, tier, _clean_title(f"{label} {rem}"), label, value, only=True, toc=True)
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
                return _Heading(style, tier, _clean_title(f"{label} {caption}"), label, value, only=False)
        if style.startswith("part:"):  # "ARTICLE V. REPRESENTATIONS AND WARRANTIES OF PARENT   Parent, …"
            caps = _CAPS_LEAD_RE.match(rem)
            if caps and len(_WORD_RE.findall(caps.group(0))) >= 1:
                title = _clean_title(f"{label} {caps.group(0)}")
                return _Heading(style, tier, title, label, value, only=False)
        short = len(words) <= 14 and len(rem) <= 120
        if short and not _LIST_TAIL_RE.search(rem) and not rem[0].islower():
            # a heading line ("2. INTRODUCTION", "(a) Commercial E-mails"), not a short list item
            sentence = rem.endswith(".") and any(w.lower() in _VERBISH for w in words)
            if (structural and u.line_start) or (_is_titleish(rem) and not sentence):
                return _Heading(style, tier, _clean_title(f"{label} {rem}"), label, value, only=True)
        if structural and u.line_start and not rem[0].islower() and not _LIST_TAIL_RE.search(rem):
            lead = " ".join(words[:8])
            return _Heading(style, tier, _clean_title(f"{label} {lead}") + "…", label, value, only=False)
        return None

    def _display(self, u: _Unit, toc: bool) -> _Heading | None:
        """A short ALL-CAPS line, or a short Title Case line standing alone."""
        if not u.whole_line:
            return None
        t = " ".join(u.text.split())
        words = t.split()
        if toc:
            return _Heading("title", 0, _clean_title(t), "", "", only=True, toc=True)
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
            return _Heading("caps", 0, title, "", "", only=True) if len(title) >= 3 else None
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
            return _Heading("title", 0, _clean_title(t), "", "", only=True)
        return None

    # -- nesting -------------------------------------------------------------------------------

    def push(self, h: _Heading) -> None:
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


def _repeated_lines(units: list[_Unit]) -> frozenset[str]:
    """Whole lines that recur three times or more: running headers and footers, not headings."""
    counts: dict[str, int] = {}
    for u in units:
        if u.whole_line and len(u.text) <= 100:
            key = _norm_line(u.text)
            counts[key] = counts.get(key, 0) + 1
    return frozenset(k for k, n in counts.items() if n >= 3)


@dataclass
class _Draft:
    start: int
    end: int
    path: tuple[str, ...]
    depth_of_own_heading: int = 0  # len(path) when the section opens with its own heading, else 0
    toc: bool = False  # a table of contents: text after it opens a new section


def _absorb_captions(units: list[_Unit], heads: list[_Heading | None]) -> None:
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


def _outline_sections(text: str) -> list[_Draft]:
    units = _units(text)
    outline = _Outline(_repeated_lines(units))
    heads: list[_Heading | None] = []
    # classification depends on the open path (is "(i)" a letter or a numeral?), so push as we go
    for u in units:
        h = outline.classify(u)
        heads.append(h)
        if h is not None and not h.toc:
            outline.push(h)
    _absorb_captions(units, heads)

    outline = _Outline()
    drafts: list[_Draft] = []
    pending: list[tuple[_Unit, _Heading]] = []  # heading lines seen since the last body text

    def open_section(start: int, end: int) -> None:
        path = outline.path()
        drafts.append(_Draft(start, end, path, len(path)))

    def resolve_pending() -> int | None:
        """Put the pending heading lines on the path, or file them as a table of contents.

        Returns where the next section starts: at the first heading line, or ``None`` after a table
        of contents (which became a section of its own and leaves the path as it was).
        """
        nonlocal pending
        if not pending:
            return None
        if _is_toc_run(pending):
            first = pending[0][1]
            name = first.title if "content" in first.title.lower() else "Table of contents"
            drafts.append(_Draft(pending[0][0].start, pending[-1][0].end, outline.path() + (name,), toc=True))
            pending = []
            return None
        start = pending[0][0].start
        seen: set[int] = set()
        for _, h in pending:
            if id(h) not in seen:
                seen.add(id(h))
                outline.push(h)
        pending = []
        return start

    for u, h in zip(units, heads, strict=True):
        if not u.text:  # a caption absorbed into the heading line before it
            if pending:
                pending.append((u, pending[-1][1]))
            elif drafts:
                drafts[-1].end = u.end
            continue
        if h is not None and (h.toc or h.only):
            pending.append((u, h))
            continue
        start = resolve_pending()
        if h is not None:  # a heading with its text in the same unit ("1. Definitions. In this …")
            outline.push(h)
            open_section(u.start if start is None else start, u.end)
        elif start is not None:  # body text under the heading lines just resolved
            open_section(start, u.end)
        elif drafts and not drafts[-1].toc:
            drafts[-1].end = u.end
        else:
            drafts.append(_Draft(u.start, u.end, outline.path(), 0))
    start = resolve_pending()
    if start is not None:
        open_section(start, units[-1].end)
    return drafts


def _is_toc_run(pending: list[tuple[_Unit, _Heading]]) -> bool:
    """Heading lines with no text between them: a table of contents, not nested headings."""
    heads = [h for _, h in pending]
    tocs = sum(1 for h in heads if h.toc)
    return tocs >= 2 or len({id(h) for h in heads}) >= 4


def _cap_sections(drafts: list[_Draft], text: str) -> list[_Draft]:
    """Merge scraps ("ii", a rule line) into the section before, then the deepest headings into their
    running section until the count is sensible."""
    drafts = _merge_into_previous(drafts, lambda d: d.end - d.start < 30 and len(text[d.start : d.end].split()) <= 2)
    cap = min(MAX_SECTIONS, max(24, len(text) // _MIN_CHARS_PER_SECTION))
    while len(drafts) > cap:
        deepest = max(d.depth_of_own_heading for d in drafts)
        if deepest <= 1:
            break
        drafts = _merge_into_previous(drafts, lambda d, deepest=deepest: d.depth_of_own_heading == deepest)
    if len(drafts) > cap:  # one flat level of many headings: group neighbours to about cap sections
        target = len(text) / cap
        out: list[_Draft] = []
        for d in drafts:
            if out and out[-1].end - out[-1].start < target:
                out[-1].end = d.end
            else:
                out.append(d)
        drafts = out
    return drafts


def _merge_into_previous(drafts: list[_Draft], merge) -> list[_Draft]:
    out: list[_Draft] = []
    for d in drafts:
        if out and merge(d):
            out[-1].end = d.end
        else:
            out.append(d)
    return out


def sections_from_text(text: str) -> tuple[list[Section], int]:
    """Sections tiling ``text`` (offsets exact), and the page count (pages split on form feeds)."""
    feeds = [m.start() for m in re.finditer("\f", text)]
    drafts = _cap_sections(_outline_sections(text), text)
    sections = []
    for d in drafts:
        sections.append(
            Section(
                path=d.path,
                text=text[d.start : d.end],
                page_start=bisect.bisect_right(feeds, d.start) + 1,
                page_end=bisect.bisect_right(feeds, d.end - 1) + 1,
                start=d.start,
                end=d.end,
            )
        )
    return sections, len(feeds) + 1


def parse_text_file(path: str | Path) -> ParsedDocument:
    """Parse a plain-text file into sections with exact offsets into ``source_text``."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UnreadableDocument(p, f"cannot be read ({exc.strerror}); check that it is readable") from exc
    text = decode_text(data, p)
    sections, pages = sections_from_text(text)
    return ParsedDocument(
        name=p.name,
        source=str(p),
        sha256=file_sha256(p),
        pages=pages,
        sections=tuple(sections),
        source_text=text,
    )


# ------------------------------------------------------------------------------------------------
# unstructured, offline
# ------------------------------------------------------------------------------------------------

_MODALS = ["shall", "will", "may", "must", "can", "should", "would", "could", "might", "cannot"]
_AUX = ["is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had", "do", "does", "did"]
_NOT_VERB_AFTER_TO = [
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "our",
    "your",
    "their",
    "its",
    "his",
    "her",
    "my",
    "any",
    "all",
    "such",
    "each",
    "us",
    "you",
    "them",
    "him",
    "me",
    "it",
    "which",
    "whom",
    "what",
    "date",
]
_COMMON_VERBS = (
    "accept access acknowledge act add agree allow apply approve arise ask assign assist assume authorize "
    "become begin believe bind bring build buy calculate call cause change charge check choose claim collect "
    "combine come communicate complete comply conduct confirm connect consent consider constitute contain "
    "continue contribute control cover create deduct define delete deliver depend describe design determine "
    "develop disclose display distribute do elect eliminate enable encrypt end enforce ensure enter entitle "
    "establish exceed exclude execute exercise exist expect expire explain extend fail file find follow "
    "gather get give govern grant have help hold identify impose include increase indemnify inform "
    "intend involve issue keep know lead learn let limit link maintain make manage mean meet modify monitor "
    "move need notify obtain occur offer operate own participate pay perform permit place post prepare "
    "prevent process produce prohibit protect provide publish purchase qualify receive reduce refer register "
    "relate release rely remain remove report represent request require reserve respond restrict result "
    "retain return review run satisfy say see seek sell send serve set share show sign start state store "
    "submit supply support survive take tell terminate transfer treat try understand update use verify "
    "view want warrant withdraw work"
).split()


def _third_person(verb: str) -> str:
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


_COMMON_VERBS_Z = sorted({_third_person(v) for v in _COMMON_VERBS} | {"is", "has", "does"})


def _offline_nlp():
    """A spaCy pipeline that needs no download: blank English, sentence splitter, verb rules.

    unstructured asks spaCy for sentences (titles are one sentence) and for verb tags (narrative
    text has a verb). The sentencizer gives the first; rules mark auxiliaries, words after a modal
    or a pronoun, ``-ed``/``-ing`` words and common third-person verbs as verbs, so a one-sentence
    paragraph ("The taxpayer may claim the credit.") stays NarrativeText instead of turning Title.
    """
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"LOWER": {"IN": _AUX}}]], {"TAG": "VBZ"})
    ruler.add([[{"LOWER": {"IN": _COMMON_VERBS_Z}, "IS_LOWER": True}]], {"TAG": "VBZ"})
    ruler.add([[{"IS_SENT_START": True, "LOWER": {"IN": _COMMON_VERBS}}]], {"TAG": "VB"})  # imperatives
    ruler.add([[{"LOWER": {"REGEX": r"^[a-z]{3,}ed$"}, "IS_LOWER": True}]], {"TAG": "VBD"})
    ruler.add([[{"LOWER": {"REGEX": r"^[a-z]{3,}ing$"}, "IS_LOWER": True}]], {"TAG": "VBG"})
    ruler.add(
        [
            [
                {"LOWER": {"IN": _MODALS}},
                {"LOWER": {"IN": ["not", "also", "only", "then"]}, "OP": "?"},
                {"IS_ALPHA": True, "IS_LOWER": True},
            ]
        ],
        {"TAG": "VB"},
        index=-1,
    )
    ruler.add(
        [[{"LOWER": "to"}, {"IS_ALPHA": True, "IS_LOWER": True, "LOWER": {"NOT_IN": _NOT_VERB_AFTER_TO}}]],
        {"TAG": "VB"},
        index=1,
    )
    ruler.add(
        [[{"LOWER": {"IN": ["i", "we", "you", "they"]}}, {"IS_ALPHA": True, "IS_LOWER": True}]], {"TAG": "VBP"}, index=1
    )
    return nlp


_UNSTRUCTURED_READY = False


def prepare_unstructured() -> None:
    """Make unstructured safe offline: no telemetry, no notice, no spaCy model download.

    unstructured 0.27 downloads ``en_core_web_sm`` from GitHub on first use (offline that raises
    for Word/HTML/Markdown and silently yields nothing for PDF). We replace its model loader,
    ``unstructured.nlp.tokenize._get_nlp``, by :func:`_offline_nlp` before anything calls it.
    """
    global _UNSTRUCTURED_READY
    if _UNSTRUCTURED_READY:
        return
    for key, value in _QUIET_ENV.items():
        os.environ.setdefault(key, value)
    import unstructured.nlp.tokenize as tokenize

    nlp = _offline_nlp()
    tokenize._get_nlp = lambda: nlp
    for cached in ("_process_cached", "word_tokenize", "pos_tag", "_tokenize_for_cache"):
        fn = getattr(tokenize, cached, None)
        if fn is not None and hasattr(fn, "cache_clear"):
            fn.cache_clear()
    _UNSTRUCTURED_READY = True


def _check_tools(p: Path, suffix: str) -> None:
    need = _NEEDS_TOOL.get(suffix)
    if need is None:
        return
    tool, how = need
    if tool == "soffice":
        ok = shutil.which("soffice") is not None
    else:
        try:
            import pypandoc

            pypandoc.get_pandoc_version()
            ok = True
        except (ImportError, OSError, RuntimeError):
            ok = False
    if not ok:
        raise UnreadableDocument(
            p, f"{suffix} files need {tool}, which is not installed: {how}; or save the file as PDF or .docx"
        )


_PY_MODULE_FOR = {  # suffix: (module unstructured imports, the package to install)
    ".docx": ("docx", "python-docx"),
    ".odt": ("docx", "python-docx"),
    ".md": ("markdown", "markdown"),
}


def _partition(p: Path) -> list:
    suffix = p.suffix.lower()
    _check_tools(p, suffix)
    need = _PY_MODULE_FOR.get(suffix)
    if need is not None:
        try:
            __import__(need[0])
        except ImportError as exc:
            raise UnreadableDocument(
                p, f"reading {suffix} needs the Python package {need[1]}: pip install {need[1]}"
            ) from exc
    prepare_unstructured()
    from unstructured.partition.auto import partition

    try:
        return partition(filename=str(p))
    except UnreadableDocument:
        raise
    except Exception as exc:  # unstructured raises many types; the user needs the file and the cause
        raise UnreadableDocument(p, f"unstructured could not read it ({type(exc).__name__}: {exc})") from exc


def _elements_to_sections(elements: Iterable) -> tuple[list[Section], int, int]:
    """Title elements open sections (nested by ``category_depth``); everything else is body text.

    Returns the sections and how many Header and Footer elements were dropped.
    """
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    pages: list[int] = []
    refs: list[str] = []
    headers = footers = 0

    def emit() -> None:
        if body:
            path = tuple(t for _, t in stack)
            sections.append(
                Section(
                    path=path,
                    text="\n\n".join(body),
                    page_start=min(pages),
                    page_end=max(pages),
                    footnote_refs=tuple(refs),
                )
            )

    for el in elements:
        category = getattr(el, "category", type(el).__name__)
        text = (getattr(el, "text", "") or "").strip()
        if category == "Header":
            headers += 1
            continue
        if category == "Footer":
            footers += 1
            continue
        if not text or category in ("PageBreak", "PageNumber"):
            continue
        md = getattr(el, "metadata", None)
        page = getattr(md, "page_number", None) or 1
        if category == "Title":
            emit()
            depth = getattr(md, "category_depth", None)
            if not isinstance(depth, int) or depth < 0:
                depth = stack[-1][0] + 1 if stack else 0
            while stack and stack[-1][0] >= depth:
                stack.pop()
            stack.append((depth, " ".join(text.split())))
            body, pages, refs = [text], [page], []
            continue
        if category == "FootnoteReference":
            refs.append(text)
        body.append(text)
        pages.append(page)
    emit()
    return sections, headers, footers


def parse_with_unstructured(path: str | Path) -> ParsedDocument:
    """Parse Word, HTML, Markdown or e-mail with unstructured, offline; no character offsets."""
    p = Path(path)
    if not p.is_file():
        raise UnreadableDocument(p, "file not found; check the path")
    if p.stat().st_size == 0:
        raise UnreadableDocument(p, "empty file (0 bytes); re-export or re-download it")
    sections, headers, footers = _elements_to_sections(_partition(p))
    if not sections:
        raise UnreadableDocument(
            p, "no text found; if it is a scan or holds only images, export it as a PDF with a text layer"
        )
    return ParsedDocument(
        name=p.name,
        source=str(p),
        sha256=file_sha256(p),
        pages=max(s.page_end for s in sections),
        sections=tuple(sections),
        dropped_headers=headers,
        dropped_footers=footers,
    )
