"""Text lines with geometry from a PDF page (pypdfium2, Apache-2.0/BSD-3).

PDFium gives characters with boxes; we group them into lines ourselves (its own line breaks glue a
hyphenated word to the next line's printed line number in the Inflation Reduction Act). The *loose*
character box has the font's ascent-to-descent height, so a line's height tracks its font size, the
one signal that separates body text, headings, running headers and footnotes. Coordinates are PDF
points with the origin at the bottom left of the page.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import re
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

SOFT_HYPHEN = "\ufffe"  # PDFium's mark for a hyphen it recognised as a line-end word break


@dataclass
class Line:
    """One printed line of a page."""

    text: str
    x0: float
    x1: float
    bottom: float
    top: float
    height: float  # font height of the line's main text (superscripts excluded)
    page: int
    bold: bool = False
    emphasis_prefix: str = ""  # leading run printed bold/italic/medium (an eCFR paragraph subject)
    # (start, end) in text of the raised small runs, and of small digits right after a word (note markers)
    superscripts: list[tuple[int, int]] = field(default_factory=list)
    first_char_small: bool = False  # the line starts with a superscript/smaller run (footnote number)
    rotated: bool = False  # set along a slanted or vertical baseline (a diagonal stamp, margin text)
    light: bool = False  # filled in a light grey (or faint black): how watermarks are printed
    column: int = 0  # on a page set in columns: 1, 2, … from the left; 0 across them (or one column)
    loose_height: float = 0.0  # text turned a quarter: its height by the level lines' measure (loose boxes)

    @property
    def center(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(slots=True)
class _Char:
    ch: str
    left: float
    bottom: float
    right: float
    top: float
    index: int
    height: float  # top - bottom, stored: it is read for every character several times


# Only lines that open with a paragraph marker can carry an emphasised subject worth a font look-up; a
# contract's decimal clause number ("5.1 Term.", "5.2.1 Material Breach.") is one.
_MARKER_START = re.compile(
    r"^\s*(?:\d{1,2}\s+)?[‘'“\"]*(?:\(\w{1,4}\)|§|Example\b|Sec\.|SEC\.|\d{1,3}(?:\.\d{1,3}){1,3}\.?\s)"
)

_EMPHASIS_WORDS = ("bold", "italic", "oblique", "medium", "semibold", "demi", "heavy", "black")


def _font(textpage_raw, index: int, buf, flags) -> tuple[str, int]:
    pdfium_c.FPDFText_GetFontInfo(textpage_raw, index, buf, len(buf), ctypes.byref(flags))
    name = buf.value.decode("latin-1", "replace").lower()
    weight = pdfium_c.FPDFText_GetFontWeight(textpage_raw, index)
    return name, weight


def _is_bold(name: str, weight: int) -> bool:
    return weight >= 600 or any(w in name for w in ("bold", "semibold", "heavy", "black"))


def _is_emphasis(name: str, weight: int) -> bool:
    return weight >= 600 or any(w in name for w in _EMPHASIS_WORDS)


def page_lines(page: pdfium.PdfPage, page_number: int) -> list[Line]:
    """The page's lines, top to bottom (left to right within a baseline).

    Text drawn outside the page's crop box is not printed, so it is left out (a compilation's tables
    are drawn whole on every page they span, and each page clips out its own part).
    """
    textpage = page.get_textpage()
    try:
        return _lines(textpage, page_number, page.get_cropbox())
    finally:
        textpage.close()


def _lines(
    textpage: pdfium.PdfTextPage, page_number: int, box: tuple[float, float, float, float] | None = None
) -> list[Line]:
    n = textpage.count_chars()
    if n <= 0:
        return []
    raw = textpage.raw
    text = textpage.get_text_range(0, n)
    if len(text) != n:  # surrogate pairs: fall back to one call per character
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i)) for i in range(n))
    rect = pdfium_c.FS_RECTF()
    get_box = pdfium_c.FPDFText_GetLooseCharBox
    # twice the crop box, widened by 2 pt: compared with twice a character's centre (left + right)
    x_min, y_min, x_max, y_max = (
        (2 * v + d for v, d in zip(box, (-4, -4, 4, 4), strict=True)) if box else (-1e9, -1e9, 1e9, 1e9)
    )

    get_angle = pdfium_c.FPDFText_GetCharAngle
    groups: list[list[_Char]] = []
    angles: list[float] = []  # each group's baseline angle (0.0: horizontal)
    cur_angle = 0.0
    current: list[_Char] = []
    cur_bottom = cur_top = 0.0
    pending_space = False
    small_caps = 0  # spaces between a capital and a smaller letter (see _join_small_caps)
    for i, ch in enumerate(text):
        if ch in "\r\n":
            continue
        if ch.isspace():
            pending_space = bool(current)
            continue
        get_box(raw, i, rect)
        left, bottom, right, top = rect.left, rect.bottom, rect.right, rect.top
        if not (y_min <= bottom + top <= y_max and x_min <= left + right <= x_max):
            continue  # clipped away (its centre is off the printed page)
        h = top - bottom
        c = _Char(ch, left, bottom, right, top, i, h)
        # The baseline's angle is read where a rotated run can begin (a new line, a jump in size or
        # position) and inside one: one call per line, not per character.
        same_line = False
        if current and not cur_angle:
            line_h = cur_top - cur_bottom
            center = (cur_top + cur_bottom) / 2
            same_line = abs((top + bottom) / 2 - center) <= 0.45 * (line_h if line_h > h else h)
            if same_line and left < current[-1].left - 3 * (line_h if line_h > 1.0 else 1.0):
                same_line = False  # jumped back to the left margin at the same height: a new column/row
            if same_line and (h > 1.6 * line_h or left - current[-1].right > 2 * line_h):
                same_line = _angle(get_angle(raw, i)) == 0.0
                if same_line and left - current[-1].right > 2 * line_h and (k := _resumed(groups, angles, c)) >= 0:
                    # the text goes on where an earlier line of this baseline stopped (an enrolled bill
                    # draws the printed line number between a fraction's numerator and its slash)
                    resumed = groups.pop(k)
                    angles.pop(k)
                    if current[-1].right < resumed[0].left:  # the line number, left of the line: its start
                        first = resumed[0]
                        space = _Char(" ", first.left, first.bottom, first.left, first.bottom, -1, 0.0)
                        resumed = [*current, space, *resumed]
                    else:
                        groups.append(current)
                        angles.append(cur_angle)
                    current = resumed
                    cur_bottom, cur_top = current[-1].bottom, current[-1].top
                    for x in current:
                        if x.index >= 0 and x.height > cur_top - cur_bottom + 0.5:
                            cur_bottom, cur_top = x.bottom, x.top
                    pending_space = left - current[-1].right > 0.2 * h
        angle = 0.0 if same_line else _angle(get_angle(raw, i))
        if current and (not same_line if not cur_angle else angle != cur_angle or _apart(current[-1], c)):
            groups.append(current)  # a new line, or the end of a rotated run
            angles.append(cur_angle)
            current = []
            pending_space = False
        if not current:
            cur_angle = angle
            cur_bottom, cur_top = c.bottom, c.top
        elif h > cur_top - cur_bottom + 0.5:
            # a taller character defines the line (after a superscript start)
            cur_bottom, cur_top = c.bottom, c.top
        if pending_space:
            # a capital, then a smaller letter on its baseline: maybe one small-caps word split ("T HE")
            p = current[-1]
            ph = p.height
            split = -1
            if h < 0.88 * ph and h > 0.55 * ph and p.ch.isupper() and ch.isalpha() and bottom - p.bottom < 0.15 * ph:
                small_caps += 1
                split = _SPLIT
            current.append(_Char(" ", c.left, c.bottom, c.left, c.bottom, split, 0.0))
            pending_space = False
        current.append(c)
    if current:
        groups.append(current)
        angles.append(cur_angle)
    if small_caps:
        groups = [_join_small_caps(g) if any(c.index == _SPLIT for c in g) else g for g in groups]
    groups, angles = _drop_line_number_column(groups, angles)
    groups, angles = _attach_markers(groups, angles)
    groups, angles = _split_beside(groups, angles)
    bands = _gutters(groups, angles)
    columns = [0] * len(groups)
    if bands:
        groups, angles, columns = _split_at_gutters(groups, angles, bands)

    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int()
    colour = (ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint())
    lines = [_make_line(g, raw, page_number, buf, flags, colour, a) for g, a in zip(groups, angles, strict=True)]
    for ln, column in zip(lines, columns, strict=True):
        ln.column = column
    sideways = {id(ln): a for ln, a in zip(lines, angles, strict=True) if a in SIDEWAYS}
    lines = [ln for ln in lines if ln.text.strip()]
    lines.sort(key=lambda ln: (-round(ln.top), ln.x0))
    lines = _merge_same_baseline(lines)
    if len(sideways) > 1:
        lines = _sideways_order(lines, sideways)
    return _column_order(lines) if bands else lines


MIN_LINE_NUMBERS = 10  # a pleading's margin numbers: at least this many bare 1, 2, 3 … down one column


def _drop_line_number_column(groups: list[list[_Char]], angles: list[float]) -> tuple[list[list[_Char]], list[float]]:
    """Drop a pleading's column of line numbers: bare numbers 1, 2, 3 … down the left margin.

    A US pleading prints 1–28 left of the text, in text objects of their own, at a regular pitch of about
    a line, whether or not a text line sits beside them; set a point off the text's baseline, a number would
    land inside the sentence. The column counts where at least ``MIN_LINE_NUMBERS`` bare numbers from 1 on
    follow in sequence, each aligned with the first (right, left or centre), at one pitch, and no other text
    of the page starts left of them (a numbered list ``1.`` … at the body's margin has its text there).
    """
    bare = [
        k
        for k, g in enumerate(groups)
        if not angles[k] and 1 <= len(g) <= 2 and all(c.ch.isdigit() and c.index >= 0 for c in g) and g[0].ch != "0"
    ]
    if len(bare) < MIN_LINE_NUMBERS:
        return groups, angles
    bare.sort(key=lambda k: -groups[k][0].top)
    run: list[int] = []  # the column, top down: 1, 2, 3 … (other bare numbers on the page are passed over)
    for k in bare:
        value = int("".join(c.ch for c in groups[k]))
        if value == len(run) + 1:
            run.append(k)
        elif value == 1 and len(run) < MIN_LINE_NUMBERS:
            run = [k]
    if len(run) < MIN_LINE_NUMBERS:
        return groups, angles
    firsts = [groups[k] for k in run]
    left, right = firsts[0][0].left, firsts[0][-1].right
    h = max(c.height for g in firsts for c in g)
    aligned = all(
        abs(g[-1].right - right) < 1.0
        or abs(g[0].left - left) < 1.0
        or abs(g[0].left + g[-1].right - left - right) < 2.0
        for g in firsts
    )
    steps = sorted(a[0].top - b[0].top for a, b in itertools.pairwise(firsts))
    pitch = steps[len(steps) // 2]
    if not aligned or not h <= pitch <= 3 * h or any(abs(s - pitch) > 0.1 * pitch for s in steps):
        return groups, angles
    drop = set(run)
    edge = max(g[-1].right for g in firsts)
    for k, g in enumerate(groups):
        if k in drop or angles[k]:
            continue
        # a number drawn in one piece with its line's text starts in the column: that line is no obstacle
        if g[0].left < edge - 0.5 and not (g[0].ch.isdigit() and g[0].left >= left - 2.0):
            return groups, angles
    keep = [k for k in range(len(groups)) if k not in drop]
    return [groups[k] for k in keep], [angles[k] for k in keep]


_MARKER_CHARS = frozenset("0123456789*†‡§¶")
_SPLIT = -2  # the index of a generated space that may split one small-caps word (a space: index < 0)


def _join_small_caps(group: list[_Char]) -> list[_Char]:
    """A word set in small caps that the text layer split after its capital (``T HE S UPREME C OURT``,
    ``A ct``) read whole: ``THE SUPREME COURT``, ``Act``.

    Small caps drawn as a capital and then smaller letters on its baseline (the candidates, marked while
    the line was grouped) leave a narrow gap that PDFium can read as a space. A candidate space is taken
    out only where the gap is narrower than the line's word spaces (under 0.7 of the narrowest, and under
    0.3 of the capital's height; without other spaces, under 0.16 of it): a real word after a capital
    (``MA–PD PLANS``, ``A CONTRACT``: a word set all in small caps) keeps its space.
    """
    gaps = [
        group[k + 1].left - group[k - 1].right
        for k in range(1, len(group) - 1)
        if group[k].index == -1 and group[k - 1].index >= 0 and group[k + 1].index >= 0
    ]
    word_space = min((g for g in gaps if g > 0), default=0.0)
    out: list[_Char] = []
    for k, c in enumerate(group):
        if c.index == _SPLIT:
            before, after = group[k - 1], group[k + 1]
            gap = after.left - before.right
            if gap < (min(0.7 * word_space, 0.3 * before.height) if word_space else 0.16 * before.height):
                continue
            c.index = -1
        out.append(c)
    return out


def _resumed(groups: list[list[_Char]], angles: list[float], c: _Char) -> int:
    """Index of one of the last few lines, on ``c``'s baseline, that stops right where ``c`` is printed
    (``c`` goes on with it); -1 if none."""
    for k in range(len(groups) - 1, max(-1, len(groups) - 4), -1):
        g = groups[k]
        first, last = g[0], g[-1]
        size = max(first.height, c.height)
        if (
            not angles[k]
            and abs((first.top + first.bottom) / 2 - (c.top + c.bottom) / 2) <= 0.45 * size
            and abs(c.left - last.right) <= 0.5 * size
        ):
            return k
    return -1


def _main_band(group: list[_Char]) -> tuple[float, float, float]:
    """A group's main size and the bottom and top of its main-size characters."""
    alnum = [c for c in group if c.index >= 0 and c.ch.isalnum()] or [c for c in group if c.index >= 0]
    h = max(c.height for c in alnum)
    body = [c for c in alnum if c.height >= 0.85 * h]
    return h, min(c.bottom for c in body), max(c.top for c in body)


def block_edges(starts: list[float], ends: list[float]) -> tuple[float, float]:
    """A page's text block: the left edge nine in ten of its lines start at or right of, and the right edge nine
    in ten end at or left of (not a title's or a side note's)."""
    starts, ends = sorted(starts), sorted(ends)
    return starts[len(starts) // 10], ends[-1 - len(ends) // 10]


def _split_beside(groups: list[list[_Char]], angles: list[float]) -> tuple[list[list[_Char]], list[float]]:
    """A line that holds a side note and the text beside it, set on one baseline, is two lines.

    An older Act prints a section's side note in the margin, smaller than the text, and its first line may
    share the baseline of the section's first line (``Short title.`` … ``6. This Act may be cited as …``):
    read as one line, the note opens the section's line and hides its number. A line is cut where a white
    strip wider than 0.75 of the larger size (more than a word space; a side note may stand a pica off the text)
    parts two pieces whose sizes differ by a point or more (the test :func:`_merge_same_baseline` uses for
    one line's pieces), each with two letters or more; the smaller piece lies wholly beside the page's text
    block (the edges most lines of the common size start and end at), as a side note does, and the larger
    is a line of prose, with no such strip of its own (a table's row, its last column set smaller and out
    past the block, is not cut); a running head's smaller first words at the text's own margin stay in its line.
    """
    strips = {k: found for k, g in enumerate(groups) if not angles[k] and (found := _strips(g))}
    if not strips:  # most pages: no line holds two sizes a wide strip apart
        return groups, angles
    sized = [(k, size) for k, g in enumerate(groups) if not angles[k] and (size := _piece_size(g)) is not None]
    if len(sized) < 5:
        return groups, angles
    common = sorted(size for _, size in sized)[len(sized) // 2]
    # the text's lines: not its notes or titles, nor a line of two pieces (whose start may be a side note)
    level = [groups[k] for k, size in sized if abs(size - common) < 0.5 and k not in strips]
    if not level:
        return groups, angles
    left, right = block_edges([g[0].left for g in level], [g[-1].right for g in level])
    block = (left - 6, right + 6)
    out_g: list[list[_Char]] = []
    out_a: list[float] = []
    for k, (g, a) in enumerate(zip(groups, angles, strict=True)):
        cut = next((b for b in strips.get(k, ()) if _beside(g, b, block)), -1)
        if cut < 0:
            out_g.append(g)
            out_a.append(a)
            continue
        left, right = g[:cut], g[cut:]  # ``g[cut]`` is a character: a space before it goes with ``left``
        while left[-1].index < 0:  # the generated space between the two pieces
            left = left[:-1]
        out_g += [left, right]
        out_a += [a, a]
    return out_g, out_a


def _strips(g: list[_Char]) -> list[int]:
    """Where a strip wider than 0.75 of the larger of its neighbours' sizes (more than a word space) parts ``g``
    between characters of sizes a point or more apart: the indices of the characters right of such strips
    (quick: no piece measured)."""
    heights = [c.height for c in g if c.index >= 0]
    if not heights or max(heights) - min(heights) < 1.0:  # most lines: one size throughout
        return []
    out = []
    prev = None
    for k, c in enumerate(g):
        if c.index < 0:
            continue
        if prev is not None and c.left - prev.right > 0.75 * max(prev.height, c.height):
            if abs(prev.height - c.height) >= 1.0:
                out.append(k)
        prev = c
    return out


def _beside(g: list[_Char], b: int, block: tuple[float, float]) -> bool:
    """Whether the strip left of ``g[b]`` parts a side note from its text (see :func:`_split_beside`)."""
    first, second = _piece_size(g[:b]), _piece_size(g[b:])
    if first is None or second is None or abs(first - second) < 1.0:
        return False
    a = max(k for k in range(b) if g[k].index >= 0)
    if g[b].left - g[a].right <= 0.75 * max(first, second):
        return False
    text = g[b:] if first < second else g[:b]
    if _strips_within(text, max(first, second)):  # a table's row: white between its cells, not prose
        return False
    return (first < second and g[a].right < block[0]) or (second < first and g[b].left > block[1])


def _strips_within(piece: list[_Char], size: float) -> bool:
    """Whether white wider than twice ``size`` parts two of ``piece``'s characters past a label it opens with
    (``(a)`` set a tab from its text): cells of a row, not a line of prose, whose word spaces a justified line
    may stretch to an em or more."""
    chars = [c for c in piece if c.index >= 0]
    return any(b.left - a.right > 2 * size for a, b in itertools.pairwise(chars[5:]))


def _piece_size(piece: list[_Char]) -> float | None:
    """The median height of a piece's letters and digits, or ``None`` where it has fewer than two letters."""
    if sum(c.ch.isalpha() for c in piece) < 2:
        return None
    heights = sorted(c.height for c in piece if c.ch.isalnum())
    return heights[len(heights) // 2]


def _attach_markers(groups: list[list[_Char]], angles: list[float]) -> tuple[list[list[_Char]], list[float]]:
    """A note marker that PDFium gives apart from its line joins that line where it is printed.

    Some word processors draw each raised marker after the line it sits in (``(DMCA)¹ was signed`` comes
    out as the line and a lone ``1`` above it), and set a note's own number apart from the note's text.
    A group of one to three small marker characters (digits, ``*†‡§¶``) whose middle lies inside a larger
    line's band, raised above its baseline and within its width, is put back among that line's
    characters by position; a marker that opens the line is followed by a space (``1 Pub. L. No. …``).
    """
    lone = [
        k
        for k, g in enumerate(groups)
        if len(g) <= 5
        and not angles[k]
        and 0 < sum(c.index >= 0 for c in g) <= 3
        and all(c.ch in _MARKER_CHARS for c in g if c.index >= 0)
    ]
    if not lone:
        return groups, angles
    # a marker is smaller than the page's common size (printed line numbers, a table's digits are not)
    firsts = sorted(g[0].height for g in groups)
    common = firsts[len(firsts) // 2]
    lone = [k for k in lone if max(c.height for c in groups[k]) < 0.8 * common]
    if not lone:
        return groups, angles
    lone_set = set(lone)
    bands: dict[int, tuple[float, float, float]] = {}  # a host's band, read when a marker is near it
    moved: set[int] = set()
    for k in lone:
        marker = [c for c in groups[k] if c.index >= 0]
        bottom, top = min(c.bottom for c in marker), max(c.top for c in marker)
        left, right = marker[0].left, marker[-1].right
        size, middle = top - bottom, (top + bottom) / 2
        best, best_d = None, 0.0
        for j, host in enumerate(groups):
            if angles[j] or j in lone_set or j in moved or abs(host[0].bottom - middle) > 3 * common:
                continue
            if j not in bands:
                bands[j] = _main_band(host)
            h, hb, ht = bands[j]
            if not (size < 0.8 * h and hb < middle < ht and bottom > hb + 0.15 * h):
                continue
            if not (host[0].left - h <= left and right <= max(c.right for c in host) + h):
                continue
            d = abs(middle - (hb + ht) / 2)
            if best is None or d < best_d:
                best, best_d = j, d
        if best is None:
            continue
        host = groups[best]
        pos = next((i for i, c in enumerate(host) if c.left >= left), len(host))
        if pos == 0:
            c = host[0]
            marker = [*marker, _Char(" ", c.left, c.bottom, c.left, c.bottom, -1, 0.0)]
        host[pos:pos] = marker
        moved.add(k)
    if not moved:
        return groups, angles
    keep = [k for k in range(len(groups)) if k not in moved]
    return [groups[k] for k in keep], [angles[k] for k in keep]


MIN_GUTTER = 8.0  # points: the narrowest white strip between two columns of text
COLUMN_SHARE = 0.6  # the columns' runs of text and width: each at least this share, divided among them


def _runs(groups: list[list[_Char]], angles: list[float]) -> list[tuple[float, float, float, float]]:
    """Each horizontal group's runs of characters without a gap of 1.5 times its size: (left, right, bottom,
    top), the height of the run's first character (read on every page: kept to one pass, no calls)."""
    runs = []
    for g, angle in zip(groups, angles, strict=True):
        if angle:
            continue
        visible = [c for c in g if c.index >= 0]
        if not visible:
            continue
        first = visible[0]
        gap = 1.5 * visible[len(visible) // 2].height
        left, right, bottom, top = first.left, first.right, first.bottom, first.top
        for c in visible:
            cl = c.left
            if cl - right > gap or cl < left - gap:
                runs.append((left, right, bottom, top))
                left, right, bottom, top = cl, c.right, c.bottom, c.top
            elif c.right > right:
                right = c.right
        runs.append((left, right, bottom, top))
    return runs


Band = tuple[list[float], tuple[float, float]]  # a band's gutters, and the heights it spans (bottom, top)


def _gutters(groups: list[list[_Char]], angles: list[float]) -> list[Band]:
    """The bands of a page set in columns, each with the middles of the white strips between its columns
    and the heights it spans: one band down the whole page, or ``[]`` for a page set in one column.

    A gutter is a strip at least ``MIN_GUTTER`` wide inside the text's width that at most a tenth of the
    page's runs of text cross (a title, a running head). The strips found make columns only if each
    column is one of text: with k columns, each holds at least ``COLUMN_SHARE``/k of the runs wholly
    inside it and of the text's width, most of its lines fill it, and neighbours stand side by side on
    the page. All strips are tried together (three columns), then each alone, widest first (two). A
    margin note column, printed line numbers, a table of contents or a ragged line end is not a column.

    A page whose full-width text crosses the strip too often for that (an abstract above two columns, a
    block of notes across the page under them, a long block between two bands of columns) is tried in
    bands (:func:`_banded`).
    """
    runs = _runs(groups, angles)
    if len(runs) < BAND_RUNS:
        return []
    gutters = _strip_gutters(runs)
    if gutters:
        return [(gutters, (-math.inf, math.inf))]
    order = sorted(runs, key=lambda r: -r[3])
    bands: list[Band] = []
    _banded(order, 0, len(order), bands)
    return bands


def _strip_gutters(runs: list[tuple[float, float, float, float]], candidates: bool = False) -> list[float]:
    """The gutters of :func:`_gutters` among ``runs``; with ``candidates``, the middles of all the strips,
    unchecked (:func:`_banded` checks them band by band)."""
    lo, hi = math.floor(min(r[0] for r in runs)), math.ceil(max(r[1] for r in runs))
    steps = [0] * (hi - lo + 2)  # how many runs cross each x, as steps summed below
    for left, right, _, _ in runs:
        a, b = math.floor(left) + 1 - lo, math.ceil(right) - 1 - lo
        if a <= b:
            steps[a] += 1
            steps[b + 1] -= 1
    crossing = list(itertools.accumulate(steps[:-1]))
    allowed = max(1, len(runs) // 10)
    strips: list[tuple[int, int]] = []  # strips of x where few runs cross, off the text's edges
    start = None
    for i, n in enumerate([*crossing, allowed + 1]):
        if n <= allowed and start is None:
            start = i
        elif n > allowed and start is not None:
            if i - start >= MIN_GUTTER and start > 0 and i < len(crossing):
                strips.append((start, i))
            start = None
    if not strips:
        return []
    middles = [lo + (a + b - 1) / 2 for a, b in strips]
    if candidates:
        return middles
    widest = [lo + (a + b - 1) / 2 for a, b in sorted(strips, key=lambda s: s[0] - s[1])]
    for gutters in ([middles] if len(middles) > 1 else []) + [[x] for x in widest]:
        if _columns_of_text(runs, gutters, hi - lo):
            return gutters
    return []


BAND_RUNS = 20  # a band of columns: enough runs to tell columns of text from a table's or a list's
MIN_BAND_RUNS = 12  # the shortest, at a page's foot: two columns of six lines (two short notes in each)


Run = tuple[float, float, float, float]  # a run of text: left, right, bottom, top


def _notes_at_foot(band: list[Run], page: list[Run]) -> bool:
    """Whether a short band is the page's notes: set smaller than most of the page's other runs, and at its foot
    (nothing under it but a line or two, a page number), not a table in the text."""
    inside = set(band)
    rest = [r for r in page if r not in inside]
    if not rest:
        return False
    bottom = min(r[2] for r in band)
    if sum(1 for r in rest if r[3] <= bottom) > 2:
        return False

    def middle(runs: list[Run]) -> float:
        return sorted(r[3] - r[2] for r in runs)[len(runs) // 2]

    return middle(band) < 0.9 * middle(rest)


def _banded(order: list[tuple[float, float, float, float]], start: int, end: int, bands: list[Band]) -> None:
    """Bands of columns among ``order[start:end]`` (the page's runs, top to bottom), under, over or between
    full-width text (a title and an abstract above, a block of notes across the page under them), added
    to ``bands``: each band is read column by column, the text outside them line by line.

    The strips among the runs narrower than 0.6 of the text's width (a column's lines, not full-width
    ones) are the candidates; a candidate needs six runs wholly on each side of it, as wide as a fifth of
    the text at the median (columns of text, not printed line numbers or margin notes). For each, the runs
    are cut where the runs crossing it stop: the longest stretch (at least ``MIN_BAND_RUNS``) that a tenth of its
    runs cross at most is a band, and it must make columns of text of like widths on its own
    (:func:`_strip_gutters`). A band spans the heights between the middles of the crossing runs around
    it; the stretches above and below it, less those runs, are searched the same way.
    """
    part = order[start:end]
    if len(part) < BAND_RUNS:
        return
    width = max(r[1] for r in part) - min(r[0] for r in part)
    narrow = [r for r in part if r[1] - r[0] < 0.6 * width]
    candidates = _strip_gutters(narrow, candidates=True) if len(narrow) >= MIN_BAND_RUNS else []
    n = len(part)
    for x in candidates:
        sides = (sorted(r[1] - r[0] for r in part if r[1] <= x), sorted(r[1] - r[0] for r in part if r[0] >= x))
        if any(len(w) < 6 or w[len(w) // 2] < 0.2 * width for w in sides):
            continue  # no column of text on one side (printed line numbers, a margin note)
        flags = [r[0] < x < r[1] for r in part]
        prefix = list(itertools.accumulate(flags, initial=0))
        cuts = [k for k, f in enumerate(flags) if f]
        best = None
        for a in [0, *(k + 1 for k in cuts)]:
            for b in [*cuts, n]:
                size = b - a
                if size >= MIN_BAND_RUNS and (best is None or size > best[1] - best[0]):
                    if prefix[b] - prefix[a] <= max(1, size // 10):
                        best = (a, b)
        if best is None or (best == (0, n) and (start, end) == (0, len(order))):
            continue  # the whole page: its own strips were tried before
        band = part[best[0] : best[1]]
        if len(band) < BAND_RUNS and not _notes_at_foot(band, order):
            continue  # a short band is a foot's notes in two columns, never a table's rows
        gutters = _strip_gutters(band)
        if not gutters or not _like_widths(band, gutters):
            continue
        a, b = start + best[0], start + best[1]
        top = (order[a - 1][2] + order[a - 1][3]) / 2 if a > 0 else math.inf
        bottom = (order[b][2] + order[b][3]) / 2 if b < len(order) else -math.inf
        bands.append((gutters, (bottom, top)))
        if a - 1 > start:
            _banded(order, start, a - 1, bands)
        if b + 1 < end:
            _banded(order, b + 1, end, bands)
        return


def _like_widths(runs: list[tuple[float, float, float, float]], gutters: list[float]) -> bool:
    """Columns of like widths (a page's columns, not a table's narrow first column beside a wide one)."""
    edges = [-math.inf, *gutters, math.inf]
    widths = []
    for a, b in itertools.pairwise(edges):
        inside = [r for r in runs if a <= r[0] and r[1] <= b]
        widths.append(max(r[1] for r in inside) - min(r[0] for r in inside) if inside else 0.0)
    return min(widths) >= 0.7 * max(widths)


def _columns_of_text(runs: list[tuple[float, float, float, float]], gutters: list[float], width: float) -> bool:
    """Whether the runs between ``gutters`` make columns of text side by side (see :func:`_gutters`)."""
    edges = [-math.inf, *gutters, math.inf]
    share = COLUMN_SHARE / (len(gutters) + 1)
    columns = [[r for r in runs if a <= r[0] and r[1] <= b] for a, b in itertools.pairwise(edges)]
    for column in columns:
        if len(column) < share * len(runs):
            return False
        extent = max(r[1] for r in column) - min(r[0] for r in column)
        widths = sorted(r[1] - r[0] for r in column)
        if extent < share * width or widths[len(widths) // 2] < 0.6 * extent:
            return False
    for one, two in itertools.pairwise(columns):  # side by side: neighbours share most of their height
        top = min(max(r[3] for r in one), max(r[3] for r in two))
        bottom = max(min(r[2] for r in one), min(r[2] for r in two))
        span = min(max(r[3] for r in rs) - min(r[2] for r in rs) for rs in (one, two))
        if top - bottom <= 0.5 * span:
            return False
    return True


def _split_at_gutters(
    groups: list[list[_Char]], angles: list[float], bands: list[Band]
) -> tuple[list[list[_Char]], list[float], list[int]]:
    """Groups cut where they jump a gutter of their band (lines of two columns on one baseline), and each
    group's column: 1, 2, … from the left, 0 across a gutter or outside every band of columns (full-width
    text above, below or between them, read line by line)."""
    out: list[list[_Char]] = []
    out_angles: list[float] = []
    columns: list[int] = []
    whole = len(bands) == 1 and bands[0][1] == (-math.inf, math.inf)

    def column_of(left: float, right: float, gutters: list[float]) -> int:
        for k, (a, b) in enumerate(itertools.pairwise([-math.inf, *gutters, math.inf]), start=1):
            if a <= left and right <= b:
                return k
        return 0

    for g, angle in zip(groups, angles, strict=True):
        visible = [c for c in g if c.index >= 0]
        if not visible:
            continue
        gutters: list[float] = bands[0][0] if whole else []
        if not whole and not angle:
            middle = (visible[0].bottom + visible[0].top) / 2
            gutters = next((gs for gs, (lo, hi) in bands if lo < middle < hi), [])
        if angle or not gutters:
            out.append(g)
            out_angles.append(angle)
            columns.append(0)
            continue
        left, right = min(c.left for c in visible), max(c.right for c in visible)
        if not any(left < x < right for x in gutters):  # inside one column: nothing to cut
            while g and g[0].index < 0:
                g = g[1:]
            while g and g[-1].index < 0:
                g = g[:-1]
            out.append(g)
            out_angles.append(angle)
            columns.append(column_of(left, right, gutters))
            continue
        pieces = []
        h = max(c.height for c in visible)
        cut = 0
        previous = None
        for j, b in enumerate(g):
            if b.index < 0:
                continue
            if previous is not None and b.left - previous.right > 0.5 * h:
                if any(previous.right <= x <= b.left for x in gutters):
                    pieces.append(g[cut:j])
                    cut = j
            previous = b
        pieces.append(g[cut:])
        for piece in pieces:
            shown = [c for c in piece if c.index >= 0]
            if not shown:
                continue
            while piece and piece[0].index < 0:
                piece = piece[1:]
            while piece and piece[-1].index < 0:  # the space before the next column's text
                piece = piece[:-1]
            out.append(piece)
            out_angles.append(angle)
            columns.append(column_of(min(c.left for c in shown), max(c.right for c in shown), gutters))
    return out, out_angles, columns


def _column_order(lines: list[Line]) -> list[Line]:
    """A page set in columns read column by column: between two lines that run across columns (a title,
    a running head), the first column's lines top to bottom, then the next column's.

    Lines of one column alone under a line across the columns are the full-width text's own (the short
    last line of a paragraph across the page, of a note in a block across the page's foot): they take
    column 0, so that a note's last line stays with the note.
    """
    out: list[Line] = []
    held: dict[int, list[Line]] = {}

    def flush() -> None:
        if len(held) == 1 and out and not out[-1].column:
            for x in next(iter(held.values())):
                x.column = 0
        out.extend(x for k in sorted(held) for x in held[k])
        held.clear()

    for ln in lines:
        if ln.column:
            held.setdefault(ln.column, []).append(ln)
        else:
            flush()
            out.append(ln)
    flush()
    return out


SIDEWAYS = (90.0, 270.0)  # baseline angles of text turned a quarter (a landscape table on a portrait page)


def _sideways_order(lines: list[Line], angles: dict[int, float]) -> list[Line]:
    """Lines turned a quarter, in their own reading order, in the places the top-down sort gave them.

    PDFium measures the angle clockwise: text at 270° reads upwards and its next line lies to the right (at
    90°: downwards, to the left); the top-down sort would order such lines by where they end, by length.
    Lines of one size are ordered among themselves (a schedule's text); a sideways cover's lines of
    several sizes keep the top-down order.
    """
    out = list(lines)
    for angle, size in {(a, round(ln.height)) for ln in lines if (a := angles.get(id(ln)))}:
        slots = [i for i, ln in enumerate(lines) if angles.get(id(ln)) == angle and round(ln.height) == size]
        if angle == 270.0:
            ordered = sorted((lines[i] for i in slots), key=lambda ln: (round(ln.x0), ln.bottom))
        else:
            ordered = sorted((lines[i] for i in slots), key=lambda ln: (-round(ln.x1), -ln.top))
        for i, ln in zip(slots, ordered, strict=True):
            out[i] = ln
    return out


def _apart(a: _Char, b: _Char) -> bool:
    """Two characters of a rotated run too far apart to be neighbours on one line (the next line of it)."""
    size_a = max(a.right - a.left, a.height)
    size_b = max(b.right - b.left, b.height)
    distance = math.hypot((a.left + a.right - b.left - b.right) / 2, (a.top + a.bottom - b.top - b.bottom) / 2)
    return distance > 1.2 * (size_a + size_b)


def _angle(radians: float) -> float:
    """A baseline angle rounded to whole degrees, 0.0 for horizontal text (PDFium answers -1 on error)."""
    degrees = round(math.degrees(radians)) % 360 if radians >= 0 else 0
    return float(degrees)


def _is_light(r: int, g: int, b: int, a: int) -> bool:
    """A grey that prints light on white paper (blended by its opacity): neither black body text, a
    coloured link, nor white text on a dark banner."""
    r, g, b = (255 - a * (255 - v) / 255 for v in (r, g, b))
    luminance = 0.299 * r + 0.587 * g + 0.114 * b
    return LIGHT <= luminance < 250 and max(r, g, b) - min(r, g, b) <= 40


LIGHT = 100  # luminance (0-255) from which a grey counts as light: 50 % grey is 128, body text 0-60


def _make_line(chars: list[_Char], raw, page_number: int, buf, flags, colour, angle: float = 0.0) -> Line:
    visible = [c for c in chars if c.index >= 0]
    alnum = [c for c in visible if c.ch.isalnum()]
    if angle:  # a rotated line: its boxes bound the rotated glyphs, so the font size and scale say its size
        probe = (alnum or visible)[len(alnum or visible) // 2]
        matrix = pdfium_c.FS_MATRIX()
        pdfium_c.FPDFText_GetMatrix(raw, probe.index, matrix)
        main_h = pdfium_c.FPDFText_GetFontSize(raw, probe.index) * math.hypot(matrix.c, matrix.d)
        loose = 0.0
        if angle in SIDEWAYS:  # turned a quarter: the loose boxes' width is the level lines' height measure
            main_w = max([c.right - c.left for c in alnum or visible])
            across = [c for c in visible if 0.85 * main_w <= c.right - c.left <= 1.15 * main_w]
            loose = round(max(c.right for c in across) - min(c.left for c in across), 1)
        pdfium_c.FPDFText_GetFillColor(raw, probe.index, *(ctypes.byref(v) for v in colour))
        return Line(
            text="".join([c.ch for c in chars]),
            x0=min(c.left for c in visible),
            x1=max(c.right for c in visible),
            bottom=min(c.bottom for c in visible),
            top=max(c.top for c in visible),
            height=round(main_h, 1),
            page=page_number,
            rotated=True,
            loose_height=loose,
            light=_is_light(*(v.value for v in colour)),
        )
    # the line's size is its letters' and digits' (a bullet from a symbol font can have a huge box, or one of
    # about their size set lower, which would raise a bulleted line's height above its letters')
    main_h = max([c.height for c in alnum or visible])
    cut, cap = 0.85 * main_h, 1.15 * main_h
    body = [c for c in alnum or visible if cut <= c.height <= cap]
    bottom = min([c.bottom for c in body])
    top = max([c.top for c in body])
    sups: list[tuple[int, int]] = []
    small_h = 0.8 * main_h
    raised = bottom + 0.15 * main_h
    sup_start = None
    for pos, c in enumerate(chars):  # one character of text per _Char
        small = c.index >= 0 and c.height < small_h and c.bottom > raised
        if small and sup_start is None:
            sup_start = pos
        elif not small and sup_start is not None:
            sups.append((sup_start, pos))
            sup_start = None
    if sup_start is not None:
        sups.append((sup_start, len(chars)))
    sups = _small_markers(chars, sups, small_h, bottom - 0.05 * main_h)
    if sups and any(c.ch in FRACTION_SLASHES for c in chars):
        chars, sups = _fraction_numerators(chars, sups)
    text = "".join([c.ch for c in chars])
    if _HAS_SUPERSCRIPT_DIGIT.search(text):
        text, sups = superscript_digits(text, sups)
    if sups:
        sups = [span for span in _split_joined_markers(text, sups) if not unit_exponent(text, *span)]
    elif _LETTER_SPACED.fullmatch(text):  # "J U D G M E N T": a heading's letters spread out
        text = _letters_joined(text, visible, main_h)
    first_small = bool(visible) and visible[0].height < 0.85 * main_h
    # Fonts: sample the first letters to tell bold headings and emphasised paragraph subjects.
    bold = False
    light = False
    emphasis_prefix = ""
    if alnum:
        probe = alnum[min(len(alnum) - 1, len(alnum) // 2)]
        pdfium_c.FPDFText_GetFillColor(raw, probe.index, *(ctypes.byref(v) for v in colour))
        light = _is_light(*(v.value for v in colour))
        name, weight = _font(raw, probe.index, buf, flags)
        bold = _is_bold(name, weight) and _is_bold(*_font(raw, alnum[0].index, buf, flags))
        if _MARKER_START.match(text):
            emphasis_prefix = _emphasis_prefix(chars, raw, buf, flags)
    return Line(
        text=text,
        x0=visible[0].left,
        x1=max(c.right for c in visible),
        bottom=bottom,
        top=top,
        height=round(top - bottom, 1),
        page=page_number,
        bold=bold,
        emphasis_prefix=emphasis_prefix,
        superscripts=sups,
        first_char_small=first_small,
        light=light,
    )


# A line of capitals set apart by single spaces ("J U D G M E N T", typed so, or placed one by one with the text
# layer putting a space between each): five letters or more, nothing else on the line.
_LETTER_SPACED = re.compile(r"(?:[A-Z] ){4,}[A-Z]")


def _letters_joined(text: str, letters: list[_Char], size: float) -> str:
    """A letter-spaced line read as its words: the letters join where the white between them is the line's
    common spacing (at most 0.8 of the type's size), and a gap clearly wider than that (1.8 times) parts two
    words (``M E M O R A N D U M   O P I N I O N`` → ``MEMORANDUM OPINION``). Capitals a table sets far apart
    (``A   B   C   D   E`` column heads) stay as printed."""
    gaps = [b.left - a.right for a, b in itertools.pairwise(letters)]
    if len(gaps) != text.count(" "):
        return text
    common = sorted(gaps)[len(gaps) // 2]
    if common > 0.8 * size:
        return text
    word_gap = max(1.8 * common, 0.25 * size)  # a tightly set word's next word is a space apart at least
    out = [letters[0].ch]
    for gap, c in zip(gaps, letters[1:], strict=True):
        out.append(" " + c.ch if gap > word_gap else c.ch)
    return "".join(out)


SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"  # U+2070, U+00B9, U+00B2, U+00B3, U+2074–U+2079
_TO_ASCII = str.maketrans(SUPERSCRIPT_DIGITS, "0123456789")
_HAS_SUPERSCRIPT_DIGIT = re.compile(f"[{SUPERSCRIPT_DIGITS}]")
_SUPERSCRIPT_RUN = re.compile(f"[{SUPERSCRIPT_DIGITS}]{{1,3}}(?![{SUPERSCRIPT_DIGITS}])")


def superscript_digits(text: str, sups: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """Note markers typed as Unicode superscript digits (``nullity.¹ The``, ``¹ See …``) read as raised
    numbers: each run of one to three becomes a superscript span holding its ASCII digits (``1``), as a
    marker drawn raised reads, so every later rule sees one kind of marker (and ``int()`` never sees ``¹``).

    A run is no marker, and keeps its characters and no span, where it is a number's power (``10⁶``: after a
    digit), part of a word or a fraction (``x²y``, ``¹⁄₂``: before a letter, digit or fraction slash) or a
    unit's exponent (``m²``, :func:`unit_exponent`). The characters keep their places: spans stay valid.
    """
    out = text
    kept = list(sups)
    for m in _SUPERSCRIPT_RUN.finditer(text):
        a, b = m.span()
        kept = [(x, y) for x, y in kept if y <= a or x >= b]  # a run drawn small and raised: decided here
        before = text[a - 1] if a > 0 else " "
        after = text[b] if b < len(text) else " "
        if before.isdigit() or after.isalnum() or after in FRACTION_SLASHES + "/":
            continue
        ascii_run = out[:a] + m.group().translate(_TO_ASCII) + out[b:]
        if unit_exponent(ascii_run, a, b):
            continue
        out = ascii_run
        kept.append((a, b))
    return out, sorted(kept)


_UNIT = re.compile(r"(?:^|[^\w])(?:(?:\d[\d,.]*\s?)(?:[kcmdµ]?m|ft|in|yd|mi)|[kcmdµ]?m|ft|yd)$")


_JOINED_MARKERS = re.compile(r"\d{1,3}(?:\s*,\s*\d{1,3})*\s*,?")


def _split_joined_markers(text: str, sups: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Two markers at one spot joined by a comma printed raised with them (``law.³,⁴``, ``granted.⁶, ⁷``) are
    a marker each: a raised run of numbers and commas becomes one span per number, the commas left out of
    all of them. Only where the numbers rise (``³,⁴``, not a raised ``1,000``)."""
    out = []
    for a, b in sups:
        run = text[a:b]
        if "," not in run or not _JOINED_MARKERS.fullmatch(run):
            out.append((a, b))
            continue
        numbers = [(a + m.start(), a + m.end()) for m in re.finditer(r"\d+", run)]
        values = [int(text[x:y]) for x, y in numbers]
        if any(v <= u for u, v in itertools.pairwise(values)):
            out.append((a, b))
            continue
        out.extend(numbers)
    return out


def unit_exponent(text: str, a: int, b: int) -> bool:
    """Whether the raised run ``text[a:b]`` is a unit's exponent, not a note marker: a ``2`` or ``3``
    glued to a unit of length (``450 m²``, ``12 km²``, ``3 cm³``, ``per ft²``; ``in`` only after a number,
    ``6 in²``, since the word ``in`` takes markers)."""
    return text[a:b].strip() in {"2", "3"} and a > 0 and _UNIT.search(text[:a]) is not None


def _small_markers(
    chars: list[_Char], sups: list[tuple[int, int]], small_h: float, floor: float
) -> list[tuple[int, int]]:
    """``sups`` and the runs of small digits set on the baseline right after a word or its punctuation
    (``statutory.12 On``, a marker a print sets small but does not raise), not before a letter (``H2O``),
    not a fraction's denominator (``1⁄2``) and not lowered below the line (a subscript)."""
    taken = {i for a, b in sups for i in range(a, b)}
    out = list(sups)
    pos = 1
    while pos < len(chars):
        c = chars[pos]
        if pos in taken or not (c.index >= 0 and c.ch.isdigit() and c.height < small_h and c.bottom >= floor):
            pos += 1
            continue
        end = pos
        while (
            end < len(chars)
            and end not in taken
            and chars[end].index >= 0
            and chars[end].ch.isdigit()
            and chars[end].height < small_h
        ):
            end += 1
        before, after = chars[pos - 1], chars[end] if end < len(chars) else None
        if (
            before.index >= 0
            and not before.ch.isdigit()
            and not before.ch.isspace()
            and before.ch not in FRACTION_SLASHES + "/"
            and (after is None or not after.ch.isalnum())
            and end - pos <= 3
        ):
            out.append((pos, end))
        pos = end
    return sorted(out) if len(out) > len(sups) else sups


FRACTION_SLASHES = "\u2044\u2215"  # FRACTION SLASH, DIVISION SLASH: how a typeset fraction joins its parts


def _fraction_numerators(chars: list[_Char], sups: list[tuple[int, int]]) -> tuple[list[_Char], list[tuple[int, int]]]:
    """A raised run of digits right before a fraction slash is a numerator, not a marker (``66²⁄₃``).

    It leaves the superscripts, and a whole number printed right before it is set apart by a space, as
    a reader would copy it: ``66 2⁄3``, not ``662⁄3``.
    """
    out = list(chars)
    kept: list[tuple[int, int]] = []
    shift = 0
    for a, b in sups:
        run = "".join(c.ch for c in chars[a:b])
        if run.isdigit() and b < len(chars) and chars[b].ch in FRACTION_SLASHES:
            if a > 0 and chars[a - 1].ch.isdigit():
                c = chars[a]
                out.insert(a + shift, _Char(" ", c.left, c.bottom, c.left, c.bottom, -1, 0.0))
                shift += 1
            continue
        kept.append((a + shift, b + shift))
    return out, kept


def _emphasis_prefix(chars: list[_Char], raw, buf, flags) -> str:
    """The text of an emphasised run that starts within the first 12 characters of the line.

    eCFR paragraphs print their subject in italics after the marker: ``(a) *Amount of education tax
    credit.* An individual…``; returns ``"(a) Amount of education tax credit."`` for such a line.
    Checks one character per word, so it stays cheap.
    """
    start = None
    end = None
    word_start = True
    for pos, c in enumerate(chars):
        if c.ch == " ":
            word_start = True
            continue
        if not word_start:
            continue
        word_start = False
        if c.index < 0 or not c.ch.isalpha():
            if start is not None:
                end = pos
            continue
        emph = _is_emphasis(*_font(raw, c.index, buf, flags))
        if emph and start is None:
            if pos > 12:
                return ""
            start = pos
        elif not emph and start is not None:
            end = pos
            break
        elif not emph and start is None and pos > 12:
            return ""
    if start is None:
        return ""
    text = "".join(c.ch for c in chars[: end if end is not None else len(chars)])
    return text.strip()


def _merge_same_baseline(lines: list[Line]) -> list[Line]:
    """Join pieces of one printed line that PDFium emitted apart (same baseline, same size)."""
    out: list[Line] = []
    for ln in lines:
        prev = out[-1] if out else None
        if (
            prev is not None
            and abs(prev.bottom - ln.bottom) < 1.5
            and abs(prev.height - ln.height) < 1.0
            and not prev.rotated
            and not ln.rotated
            and prev.light == ln.light
            and prev.column == ln.column
            and ln.x0 >= prev.x1 - 1
            and ln.x0 - prev.x1 < 4 * ln.height
        ):
            offset = len(prev.text) + 1
            prev.text = f"{prev.text} {ln.text}"
            prev.superscripts.extend((a + offset, b + offset) for a, b in ln.superscripts)
            prev.x1 = ln.x1
            continue
        out.append(ln)
    return out
