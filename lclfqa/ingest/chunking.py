"""Parent, child and footnote chunks (LCLF-QA §3.2), with the links retrieval follows.

- **Parents**: consecutive sections merge until the parent reaches ``L`` characters (a section longer
  than ``L`` is first split on paragraph/sentence boundaries). When the last section of a parent is
  shorter than ``L`` it also opens the next parent — the paper's one-section overlap, which keeps
  the context that straddles a boundary in both parents.
- **Children**: each section is split on sentence boundaries into pieces of about ``child_size``
  characters, and each child carries one section path, injected into its indexed text as
  ``<section-header>…</section-header>``. A bit too small to stand alone (under 0.3 × ``child_size``)
  joins a neighbour: a heading the section after it (the child takes that section's path), an item or a
  tail the child before it (the child takes the common ancestor's path: a lead-in "such
  consideration—" keeps its "(1) shall be paid in cash," "(2) …" items). Whatever their size, the bits
  after a child that ends on a lead-in ("… the lesser of—") join it while it stays within 1.3 ×
  ``child_size``, and inside one section's text a lead-in paragraph opens the span of the items it
  introduces. A section that sits in two parents (the overlap) yields its children once, linked to both
  parents.
- **Footnotes**: each page's footnotes form one footnote child (or one per footnote), linked to
  every parent on that page and to the parent holding the footnote's marker — see
  :func:`link_footnotes`.

Offsets: for plain-text sources ``source_text[chunk.start:chunk.end] == chunk.text`` for every
section child (the retrieval metrics need exact character ranges).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass

from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk, Footnote, ParsedDocument, Section
from lclfqa.ingest.opinions import opinion_title
from lclfqa.textnorm import strip_span

SECTION_HEADER = "<section-header>{}</section-header>"
_PARAGRAPH = re.compile(r"\n\s*\n")
# Sentence ends: . ! ? ; : followed by space and a capital/opening mark. Legal abbreviations
# ("U. S.", "v.", "Id.") split early, which the packing below repairs by merging small pieces.
_SENTENCE = re.compile(r"(?<=[.!?;:])[\"”’)]*\s+(?=[A-Z(“\"‘§\d])")
_MIN_CHILD_FRACTION = 0.3
# "… the lesser of—", "… when due:". The reader's span test (graph/evidence/sentences.py) also takes a hyphen;
# here that would move the chunks of 2 of the 24 shared contracts and prints of other layouts, so it stays apart.
_LEAD_IN = re.compile(r"[—–:][\"”’']*\s*$")


@dataclass(frozen=True)
class _Piece:
    """A section, or part of a section longer than L: the unit parents are made of."""

    section: Section
    start: int  # offsets into section.text
    end: int

    @property
    def text(self) -> str:
        return self.section.text[self.start : self.end]

    def __len__(self) -> int:
        return self.end - self.start


def split_spans(text: str, size: int) -> list[tuple[int, int]]:
    """Split ``text`` into ``(start, end)`` spans of at most ~``size`` characters.

    Breaks at paragraphs first, then sentences, then spaces; a span longer than ``size`` is only
    produced when a single word is, or when a lead-in ("… the lesser of—") moves to the span of the item it
    introduces (at most 1.3 × ``size``). Spans are stripped of surrounding whitespace and cover every
    non-space character, in order.
    """
    if size <= 0:
        raise ValueError("size must be positive")
    units = _units(text, 0, len(text), size)
    spans: list[tuple[int, int]] = []
    for i, (a, b) in enumerate(units):
        lead = units[i - 1][0] if i else 0  # where the unit that ends spans[-1] starts
        if spans and b - spans[-1][0] <= size:
            spans[-1] = (spans[-1][0], b)  # pack small units up to size
        elif (
            spans
            and spans[-1][0] < lead
            and _LEAD_IN.search(text[lead : units[i - 1][1]])
            and b - lead <= (1 + _MIN_CHILD_FRACTION) * size
        ):  # a lead-in ("… the lesser of—") opens the span of the item it introduces, not ends the one before
            spans[-1] = strip_span(text, spans[-1][0], lead)
            spans.append((lead, b))
        else:
            spans.append((a, b))
    # a tiny tail joins the previous span rather than standing alone
    if len(spans) >= 2 and spans[-1][1] - spans[-1][0] < _MIN_CHILD_FRACTION * size:
        tail = spans.pop()
        spans[-1] = (spans[-1][0], tail[1])
    return spans


def _units(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Stripped spans no longer than ``size`` (unless a single word is), split at the coarsest level."""
    a, b = strip_span(text, start, end)
    if a >= b:
        return []
    if b - a <= size:
        return [(a, b)]
    for pattern in (_PARAGRAPH, _SENTENCE, re.compile(r"\s+")):
        cuts = [m for m in pattern.finditer(text, a, b)]
        if cuts:
            out: list[tuple[int, int]] = []
            pos = a
            for m in cuts:
                out.extend(_units(text, pos, m.start(), size))
                pos = m.end()
            out.extend(_units(text, pos, b, size))
            return out
    return [(a, b)]  # one unbreakable word


def _pieces(sections: tuple[Section, ...], parent_size: int) -> list[_Piece]:
    pieces: list[_Piece] = []
    for s in sections:
        if len(s.text) <= parent_size:
            pieces.append(_Piece(s, 0, len(s.text)))
        else:
            pieces.extend(_Piece(s, a, b) for a, b in split_spans(s.text, parent_size))
    return pieces


def group_parents(sizes: list[int], parent_size: int) -> list[tuple[int, int]]:
    """Index ranges ``[i, j)`` of the pieces each parent holds (the paper's merge and overlap rule).

    Pieces merge until the total reaches ``parent_size``; if the parent's last piece is shorter
    than ``parent_size`` and the parent holds more than that one piece, the next parent starts
    with it.
    """
    groups: list[tuple[int, int]] = []
    i, n = 0, len(sizes)
    while i < n:
        j, total = i, 0
        while j < n and total < parent_size:
            total += sizes[j]
            j += 1
        groups.append((i, j))
        if j < n and sizes[j - 1] < parent_size and j - 1 > i:
            i = j - 1
        else:
            i = j
    return groups


_SECTION_TITLE = re.compile(r"^(?:SEC\.|Sec\.|SECTION|Section|§)\s*\d")


def header_text(path: tuple[str, ...], max_levels: int = 4, max_chars: int = 90) -> str:
    """The ``<section-header>`` a child carries: the innermost levels of its path, each shortened.

    Two titles stay even when the path runs deeper than ``max_levels``, in place of the outermost levels
    kept: the opinion the text belongs to (``JUSTICE ALITO delivered the opinion of the Court.``: a
    question asks what the majority or the dissent says) and the innermost section title
    (``SEC. 6418. TRANSFER OF CERTAIN CREDITS.``, ``§ 1.25A-1 …``: a reader asks for "§ 6418", not for
    "(g)(3)(B)").
    """
    kept = list(path[-max_levels:])
    anchors: list[str] = []
    if len(path) > max_levels and opinion_title(path[0]) == path[0]:
        anchors.append(path[0])
    if not any(_SECTION_TITLE.match(p) for p in kept):
        section = next((p for p in reversed(path[:-max_levels]) if _SECTION_TITLE.match(p)), None)
        if section is not None:
            anchors.append(section)
    if anchors:
        inner = max(1, max_levels - len(anchors))
        kept = [*anchors, *path[-inner:]]
    levels = [p if len(p) <= max_chars else p[: max_chars - 1].rstrip() + "…" for p in kept]
    return SECTION_HEADER.format(" › ".join(levels)) if levels else ""


def document_prefix(name: str, summary: str = "", metadata: bool = True) -> str:
    """The SAC prefix: document name (metadata) and the ~150-character summary, when present."""
    parts = []
    if metadata:
        parts.append(f"Document: {name}.")
    if summary:
        parts.append(f"Summary: {summary.strip()}")
    return " ".join(parts)


def _indexed(prefix: str, path: tuple[str, ...], text: str) -> str:
    header = header_text(path)
    return "\n".join(p for p in (prefix, header, text) if p)


def _chunk_id(document: str, kind: str, n: int) -> str:
    key = hashlib.sha256(document.encode("utf-8")).hexdigest()[:12]
    return f"{key}:{kind[0]}{n}"


def chunk_document(
    doc: ParsedDocument,
    *,
    parent_size: int = 2000,
    child_size: int = 500,
    footnote_chunks: str = "page",
    prefix: str = "",
) -> list[Chunk]:
    """All chunks of ``doc``: parents first, then section children, then footnote children."""
    if footnote_chunks not in ("page", "footnote"):
        raise ValueError(f"footnote_chunks must be 'page' or 'footnote', not {footnote_chunks!r}")
    if child_size > parent_size:
        raise ValueError(f"child_size ({child_size}) must not exceed parent_size ({parent_size})")
    pieces = _pieces(doc.sections, parent_size)
    groups = group_parents([len(p) for p in pieces], parent_size)

    parents: list[Chunk] = []
    piece_parents: list[list[str]] = [[] for _ in pieces]
    for n, (i, j) in enumerate(groups):
        pid = _chunk_id(doc.name, PARENT, n)
        members = pieces[i:j]
        for k in range(i, j):
            piece_parents[k].append(pid)
        parents.append(_parent(doc, pid, members))

    children = _section_children(doc, pieces, piece_parents, child_size, prefix)
    footnotes = link_footnotes(doc, pieces, piece_parents, parents, footnote_chunks, prefix)
    return parents + children + footnotes


def _section_children(
    doc: ParsedDocument, pieces: list[_Piece], piece_parents: list[list[str]], child_size: int, prefix: str
) -> list[Chunk]:
    """The section children of ``pieces`` (module docstring: small bits join a neighbour)."""
    children: list[Chunk] = []
    carry: list[tuple[Section, int, int, list[str]]] = []  # heading-only bits waiting for their body
    last: _Built | None = None  # the child just made, which a trailing bit may still join

    def emit(bits: list[tuple[Section, int, int]], path: tuple[str, ...], pids: list[str]) -> None:
        nonlocal last
        children.append(_child(doc, len(children), bits, path, pids, prefix))
        last = _Built(bits, path, pids)

    def flush() -> None:
        if carry:
            bits = [(c, a, b) for c, a, b, _ in carry]
            emit(bits, _path_of(bits), carry[-1][3])
            carry.clear()

    def settle() -> None:
        """Carried bits that head nothing after them join the child before them, or stand alone."""
        joined = _trailing(last, [(c, a, b) for c, a, b, _ in carry], carry[-1][3], child_size) if last else None
        if joined is None:
            flush()
        else:
            children.pop()
            emit(*joined)
            carry.clear()

    for k, piece in enumerate(pieces):
        sec, pids = piece.section, piece_parents[k]
        for a, b in split_spans(piece.text, child_size):
            sa, sb = piece.start + a, piece.start + b
            if carry and not _within(sec.path, carry[0][0].path):
                settle()  # the carried heading does not head this section
            # heading bits merge into the next child only within parents that hold both
            shared = [p for p in pids if all(p in ids for *_, ids in carry)]
            if carry and not shared:
                flush()
                shared = pids
            small = sb - sa < _MIN_CHILD_FRACTION * child_size
            # a heading: the next section lies under this one
            nxt = pieces[k + 1].section.path if k + 1 < len(pieces) else ()
            leads = len(nxt) > len(sec.path) and _within(nxt, sec.path)
            after_lead_in = _leads_in(last)  # its items join it, whatever their size
            if ((small and not leads) or after_lead_in) and not carry and last is not None:
                joined = _trailing(last, [(sec, sa, sb)], pids, child_size, after_lead_in)
                if joined is not None:  # an item or a tail of the child before: it joins that child
                    children.pop()
                    emit(*joined)
                    continue
            if small and k + 1 < len(pieces) and not carry_too_big(carry, child_size):
                carry.append((sec, sa, sb, shared))
                continue
            bits = [*((c, ca, cb) for c, ca, cb, _ in carry), (sec, sa, sb)]
            emit(bits, _path_of(bits), shared)
            carry.clear()
    if carry:
        settle()
    return children


def carry_too_big(carry: list, child_size: int) -> bool:
    return sum(b - a for _, a, b, _ in carry) > _MIN_CHILD_FRACTION * child_size


@dataclass
class _Built:
    """What a section child was made of: its bits ``(section, start, end)``, path and parents."""

    bits: list[tuple[Section, int, int]]
    path: tuple[str, ...]
    pids: list[str]


def _leads_in(built: _Built | None) -> bool:
    """Whether the child ``built`` ends on a lead-in ("… shall be equal to the lesser of—", "… when due:"):
    its items belong with it, whatever their size."""
    if built is None:
        return False
    sec, a, b = built.bits[-1]
    return bool(_LEAD_IN.search(sec.text[a:b]))


def _path_of(bits: list[tuple[Section, int, int]]) -> tuple[str, ...]:
    """A carried child's path: its last bit's, when every bit before is a heading above it; else the
    bits' common ancestor (a lead-in carried with two sibling items is the lead-in's, not the last item's)."""
    last = bits[-1][0].path
    if all(_within(last, c.path) for c, _, _ in bits):
        return last
    return tuple(os.path.commonprefix([c.path for c, _, _ in bits]))


def _within(path: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    """``path`` is ``outer`` or lies under it."""
    return path[: len(outer)] == outer


def _trailing(
    last: _Built, bits: list[tuple[Section, int, int]], pids: list[str], child_size: int, introduced: bool = False
) -> tuple[list[tuple[Section, int, int]], tuple[str, ...], list[str]] | None:
    """The child ``last`` with small trailing ``bits`` joined, or ``None`` when they may not join.

    Small bits that head nothing after them (enumerated items under a lead-in, "(1) shall be required to
    be paid in cash," / "(2) …"; a source credit at a section's end) belong with the text before them,
    not — as a heading does — with the next section: they join the last child when the first lies in that
    child's section or beside it (a sibling), both sit in a common parent, and the child stays within
    1.3 × ``child_size``. The child's path becomes the paths' common ancestor. Bits that the child
    ``introduced`` (it ends on a lead-in, "… the lesser of—") join it whatever their size and section, on the
    same two conditions: a lead-in's items are the rest of its sentence.
    """
    shared = [p for p in last.pids if p in pids]
    size = sum(y - x for _, x, y in [*last.bits, *bits])
    path = bits[0][0].path
    if not shared or size > (1 + _MIN_CHILD_FRACTION) * child_size:
        return None
    if introduced:
        return [*last.bits, *bits], tuple(os.path.commonprefix([last.path, path])), shared
    if not (_within(path, last.path) or (path[:-1] == last.path[:-1] and len(path) == len(last.path) > 1)):
        return None
    common = last.path if _within(path, last.path) else last.path[:-1]
    return [*last.bits, *bits], common, shared


def _child(
    doc: ParsedDocument,
    n: int,
    bits: list[tuple[Section, int, int]],
    path: tuple[str, ...],
    parent_ids: list[str],
    prefix: str,
) -> Chunk:
    """A section child made of ``bits`` (``(section, start, end)``, in document order: heading bits carried
    into the section after them, or items joined to the section before them) under ``path``."""
    first, fa, _ = bits[0]
    final, _, fb = bits[-1]
    if doc.source_text is not None and first.start is not None and final.start is not None:
        start: int | None = first.start + fa
        end: int | None = final.start + fb
        text = doc.source_text[start:end]
    elif len(bits) == 1:
        start = end = None
        text = first.text[fa:fb]
    else:
        start = end = None
        text = "\n".join(c.text[a:b] for c, a, b in bits)
    return Chunk(
        id=_chunk_id(doc.name, CHILD, n),
        kind=CHILD,
        document=doc.name,
        text=text,
        section_path=path,
        page_start=first.page_at(fa),
        page_end=final.page_at(max(fb - 1, bits[-1][1])),
        start=start,
        end=end,
        parent_ids=tuple(dict.fromkeys(parent_ids)),
        indexed_text=_indexed(prefix, path, text),
        footnote_numbers=tuple(dict.fromkeys(r for c, a, b in bits for r in _refs_in(c, a, b))),
    )


def _refs_in(section: Section, a: int, b: int) -> tuple[str, ...]:
    """Footnote markers of ``section`` that fall in ``text[a:b]`` (best effort: digits glued to text; a letter
    marker only after punctuation, ``aside.a The``, since one glued to a word cannot be told from the word)."""
    if not section.footnote_refs:
        return ()
    piece = section.text[a:b]
    return tuple(r for r in section.footnote_refs if re.search(_ref_pattern(r), piece))


def _ref_pattern(ref: str) -> str:
    """Where marker ``ref`` stands in plain text: a number glued to what precedes it (``statutory.12``,
    ``hearing,3``); a letter right after punctuation and before no letter (``aside.a``, not ``data``)."""
    if ref.isalpha():
        return rf"(?<=[.,;:)\]”’\"'!?]){re.escape(ref)}(?![^\W\d_]|\d)"
    return rf"(?<=[^\d\s(§]){re.escape(ref)}(?!\d)"


def _parent(doc: ParsedDocument, pid: str, members: list[_Piece]) -> Chunk:
    first, last = members[0], members[-1]
    if doc.source_text is not None and first.section.start is not None and last.section.start is not None:
        start = first.section.start + first.start
        end = last.section.start + last.end
        text = doc.source_text[start:end]
    else:
        start = end = None
        text = "\n\n".join(p.text for p in members)
    return Chunk(
        id=pid,
        kind=PARENT,
        document=doc.name,
        text=text,
        section_path=first.section.path,
        page_start=first.section.page_at(first.start),
        page_end=last.section.page_at(max(last.start, last.end - 1)),
        start=start,
        end=end,
    )


def link_footnotes(
    doc: ParsedDocument,
    pieces: list[_Piece],
    piece_parents: list[list[str]],
    parents: list[Chunk],
    granularity: str,
    prefix: str,
) -> list[Chunk]:
    """Footnote children, each linked to every parent on its page and to the parent(s) of its marker.

    The marker link matters when a footnote is printed on a later page than the sentence that cites
    it, or when its page's parents do not include the citing paragraph.
    """
    if not doc.footnotes:
        return []
    by_page: dict[int, list[Footnote]] = {}
    for f in doc.footnotes:
        by_page.setdefault(f.page, []).append(f)
    groups = [fs for _, fs in sorted(by_page.items())] if granularity == "page" else [[f] for f in doc.footnotes]

    out: list[Chunk] = []
    for fs in groups:
        page = fs[0].page
        linked: list[str] = [p.id for p in parents if p.page_start <= page <= p.page_end]
        marker_path: tuple[str, ...] = ()
        for f in fs:
            for k, piece in enumerate(pieces):
                sec = piece.section
                cited = f.marker_page or f.page  # an endnote: the page of its marker
                if f.number in sec.footnote_refs and sec.page_start <= cited and sec.page_end >= cited - 1:
                    if f.number in _refs_in(sec, piece.start, piece.end) or len(piece) == len(sec.text):
                        linked.extend(piece_parents[k])
                        marker_path = marker_path or sec.path
        label = f"Footnote {fs[0].number}" if len(fs) == 1 else f"Footnotes {fs[0].number}–{fs[-1].number}"
        path = (*marker_path, f"{label} (page {page})") if marker_path else (f"{label} (page {page})",)
        text = "\n".join(f"{f.number} {f.text}" for f in fs)
        out.append(
            Chunk(
                id=_chunk_id(doc.name, FOOTNOTE, len(out)),
                kind=FOOTNOTE,
                document=doc.name,
                text=text,
                section_path=path,
                page_start=page,
                page_end=max(f.page for f in fs),
                parent_ids=tuple(dict.fromkeys(linked)),
                indexed_text=_indexed(prefix, path, text),
                footnote_numbers=tuple(f.number for f in fs),
            )
        )
    return out
