"""Chunks as they travel in the state (plain dicts) and as prompts show them.

A ref is ``{"id", "kind", "document", "pages": [first, last], "section": [...], "text", "parent_ids"}`` plus
``score`` (retrieval), ``source`` (its number in ``sources``) and, for parents, ``footnotes``.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from lclfqa.ingest.document import Chunk


def chunk_ref(chunk: Chunk, **extra: Any) -> dict[str, Any]:
    """The state's view of ``chunk`` (:meth:`Chunk.to_json`) with ``extra`` fields."""
    return chunk.to_json() | extra


def page_label(pages: list[int]) -> str:
    """``"p. 3"`` or ``"pp. 3-4"``."""
    first, last = pages[0], pages[-1]
    return f"p. {first}" if first == last else f"pp. {first}-{last}"


def label(ref: dict[str, Any], max_levels: int = 3) -> str:
    """``"26 CFR 1.21-3, p. 1, § 1.21-3 › … › (a)"``: where a chunk comes from, as prompts show it.

    The document by its file name without folder or extension (labels were 29 % of the references'
    characters on the tax dev set, and every prompt token costs the local model time; citations keep the
    full path). A deep path keeps its top level (in a judgment, whose opinion it is: the Court's, a
    concurrence or a dissent) and its last levels."""
    parts = [PurePosixPath(ref["document"]).stem or ref["document"], page_label(ref["pages"])]
    section = ref.get("section") or []
    if len(section) > max_levels:
        section = [section[0], "…", *section[-(max_levels - 1) :]]
    if section:
        parts.append(" › ".join(section))
    if ref.get("kind") == "footnote":
        parts.append("footnotes")
    return ", ".join(parts)


def body(ref: dict[str, Any]) -> str:
    """The text a prompt shows: the chunk, then any injected footnotes inside ``<footnote>`` tags."""
    notes = "".join(f"\n<footnote>{n}</footnote>" for n in ref.get("footnotes", []))
    return ref["text"].strip() + notes


def citation(source: dict[str, Any], children: list[dict[str, Any]] = (), *, inferred: bool = False) -> dict[str, Any]:
    """The ``citations`` entry for a source: document, pages, section path — narrowed to ``children`` (the
    kept children of that source) when there are any."""
    refs = list(children) or [source]
    pages = sorted({p for r in refs for p in range(r["pages"][0], r["pages"][-1] + 1)})
    section = refs[0].get("section") or source.get("section") or []
    return {
        "n": source["source"],
        "document": source["document"],
        "pages": pages,
        "section": " › ".join(section),
        "inferred": inferred,
    }


_SECTION_HEADING = re.compile(r"^\s*(?:§+|Sec\.|SEC\.|Section)\s*(\d[\w.\-–]*)")
_PARAGRAPH = re.compile(r"^\s*\(([A-Za-z0-9]{1,4})\)")


def section_labels(section: list[str]) -> list[str]:
    """The section numbers a passage sits under, as an answer cites them: for the path ``["…", "§ 1.21-4
    Payments …", "(a) In general.", "(1) For whom …"]``, ``["§ 1.21-4", "§ 1.21-4(a)", "§ 1.21-4(a)(1)"]``
    (``[]`` when no heading opens with a section number). The document prints them around the passage, so
    a sentence citing the passage may state them."""
    for i, heading in enumerate(section):
        m = _SECTION_HEADING.match(heading)
        if not m:
            continue
        label, out = f"§ {m.group(1).rstrip('.')}", []
        out.append(label)
        for below in section[i + 1 :]:
            p = _PARAGRAPH.match(below)
            if not p:
                break
            label += f"({p.group(1)})"
            out.append(label)
        return out
    return []


def with_section_labels(text: str, ref: dict[str, Any]) -> str:
    """``text`` followed by :func:`section_labels` of ``ref``'s section path (what the check of an answer
    reads as the passage: its words and the section numbers printed above it)."""
    labels = section_labels(ref.get("section") or [])
    return f"{text} [{'; '.join(labels)}]" if labels else text


def information_text(quotes: list[dict[str, Any]]) -> str:
    """The verified quotes as the reader sees them: ``[k] “…” (document, page, section)``; a footnote's
    and a separate opinion's quotes say so (the label keeps a judgment's top-level opinion heading)."""
    return "\n".join(f"[{k}] “{q['text']}” ({label(q)})" for k, q in enumerate(quotes, 1))
