"""The graph's final state as a notebook-friendly object: ``result["answer"]`` and a Markdown rendering."""

from __future__ import annotations

import html
from typing import Any

from lclfqa.nodes.refs import page_label

QUOTE_SHOWN = 240


def format_citation(c: dict[str, Any]) -> str:
    """``"[2] 26 CFR 1.21-3.pdf, p. 1, § 1.21-3 › (a): “No credit is allowed …”"`` (the verified quote, if any)."""
    pages = c.get("pages") or [0]
    text = f"[{c['n']}] {c['document']}, {page_label([pages[0], pages[-1]])}"
    if c.get("section"):
        text += f", {c['section']}"
    quote = " ".join(str(c.get("quote") or "").split())
    if quote:
        text += f": “{quote if len(quote) <= QUOTE_SHOWN else quote[: QUOTE_SHOWN - 1].rstrip() + '…'}”"
    return text


class QAResult(dict):
    """The final :class:`~lclfqa.graph.state.QAState` (a ``dict``) that renders as answer + sources."""

    @property
    def answer(self) -> str:
        return str(self.get("answer", ""))

    @property
    def citations(self) -> list[dict[str, Any]]:
        return list(self.get("citations", []))

    def sources_text(self) -> str:
        """One line per cited source; says when the citations were inferred rather than written."""
        cites = self.citations
        if not cites:
            return ""
        lines = [format_citation(c) for c in cites]
        if all(c.get("inferred") for c in cites):
            lines.insert(0, "(the answer cites no source by number; these are the sources it was given)")
        return "\n".join(lines)

    @property
    def unsupported(self) -> list[str]:
        """Figures and quotations of the answer found in no source (see :mod:`lclfqa.nodes.grounding`)."""
        return list(self.get("unsupported", []))

    def warning_text(self) -> str:
        """The check-first line shown under the answer, or ``""``."""
        if not self.unsupported:
            return ""
        return "Not found in any source; check before relying on it: " + "; ".join(self.unsupported)

    def to_json(self) -> dict[str, Any]:
        """The ``lclfqa ask --json`` object."""
        steps = self.get("steps", {})
        dropped = set(self.get("dropped", []))
        return {
            "question": self.get("question", ""),
            "answer": self.answer,
            "refused": bool(self.get("refused", False)),
            "unsupported": self.unsupported,
            "removed": list(self.get("removed") or []),
            "quotes": [
                {k: q.get(k) for k in ("text", "document", "pages", "section", "how")} for q in self.get("quotes") or []
            ],
            "citations": [
                {k: c[k] for k in ("n", "document", "pages", "section", "quote", "inferred") if k in c}
                for c in self.citations
            ],
            "rewrites": self.get("rewrites", []),
            "translation": self.get("translation", ""),
            "scope": self.get("scope", []),
            "retrieved": [
                {
                    "id": r["id"],
                    "document": r["document"],
                    "pages": r["pages"],
                    "section": r["section"],
                    "score": r.get("score"),
                    "kept": r["id"] not in dropped,
                }
                for r in self.get("retrieved", [])
            ],
            "timings": {node: s.get("seconds") for node, s in steps.items()},
            "steps": steps,
        }

    def _repr_markdown_(self) -> str:
        out = [self.answer or "*(no answer)*"]
        if self.unsupported:
            out.append(f"\n> **Warning.** {self.warning_text()}")
        if self.citations:
            out.append("\n**Sources**\n")
            out += [f"- {format_citation(c)}" for c in self.citations]
        return "\n".join(out)

    def _repr_html_(self) -> str:
        items = "".join(f"<li>{html.escape(format_citation(c))}</li>" for c in self.citations)
        sources = f"<p><b>Sources</b></p><ul>{items}</ul>" if items else ""
        answer = html.escape(self.answer).replace("\n", "<br>")
        warning = f"<p><b>Warning.</b> {html.escape(self.warning_text())}</p>" if self.unsupported else ""
        return f"<div><p>{answer}</p>{warning}{sources}</div>"
