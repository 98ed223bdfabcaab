"""The graph's final state as a notebook-friendly object: ``result["answer"]`` and a Markdown rendering."""

from __future__ import annotations

import html
from typing import Any

from lclfqa.graph.evidence.refs import page_label

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


CITATION_KEYS = ("n", "document", "pages", "section", "quote", "inferred", "source")
"""What a citation shows, wherever it is shown (``ask --json``, eval rows, the REPL, a notebook)."""
QUOTE_KEYS = ("text", "document", "pages", "section", "how", "source", "child")
"""What a verified quote shows."""
NODE_FIGURES = ("seconds", "llm_calls", "prompt_tokens", "completion_tokens", "reused_tokens")
"""The figures every node's ``steps`` entry has (:class:`lclfqa.llm.calls.Meter`)."""


class QAResult(dict):
    """The final :class:`~lclfqa.graph.state.QAState` (a ``dict``) that renders as answer + sources.

    :meth:`to_json` is the one serialization of an answer: ``lclfqa ask --json`` prints it, the eval rows
    hold it, and the REPL's ``/sources`` and the notebook display render the same :attr:`citations`."""

    @property
    def answer(self) -> str:
        return str(self.get("answer", ""))

    @property
    def citations(self) -> list[dict[str, Any]]:
        """The citations, each in its one view: :data:`CITATION_KEYS` that it has."""
        return [{k: c[k] for k in CITATION_KEYS if k in c} for c in self.get("citations", [])]

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
        """Figures and quotations of the answer found in no source (see :mod:`lclfqa.graph.evidence.grounding`)."""
        return list(self.get("unsupported", []))

    def warning_text(self) -> str:
        """The check-first line shown under the answer, or ``""``."""
        if not self.unsupported:
            return ""
        return "Not found in any source; check before relying on it: " + "; ".join(self.unsupported)

    def to_json(self) -> dict[str, Any]:
        """The answer as JSON: what was asked and answered, the citations and verified quotes, the rewrites,
        the retrieved children (kept or dropped), and what each node cost (``nodes``: the figures of
        :data:`NODE_FIGURES`; ``steps``: everything the nodes reported)."""
        steps = self.get("steps", {})
        dropped = set(self.get("dropped", []))
        return {
            "question": self.get("question", ""),
            "answer": self.answer,
            "refused": bool(self.get("refused", False)),
            "unsupported": self.unsupported,
            "removed": list(self.get("removed") or []),
            "added": list(self.get("added") or []),
            "quotes": [{k: q.get(k) for k in QUOTE_KEYS} for q in self.get("quotes") or []],
            "citations": self.citations,
            "rewrites": self.get("rewrites", []),
            "translation": self.get("translation", ""),
            "scope": self.get("scope", []),
            "retrieved": [
                {k: r[k] for k in ("id", "document", "pages", "section")}
                | {"score": r.get("score"), "kept": r["id"] not in dropped}
                for r in self.get("retrieved", [])
            ],
            "timings": {node: s.get("seconds") for node, s in steps.items()},
            "nodes": {node: {k: s.get(k) for k in NODE_FIGURES} for node, s in steps.items()},
            "llm_calls": sum(int(s.get("llm_calls", 0)) for s in steps.values()),
            "tokens": {
                "prompt": sum(int(s.get("prompt_tokens", 0)) for s in steps.values()),
                "completion": sum(int(s.get("completion_tokens", 0)) for s in steps.values()),
                # of the prompt tokens, those the KV cache held from the call before (not evaluated again)
                "reused": sum(int(s.get("reused_tokens", 0) or 0) for s in steps.values()),
            },
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
