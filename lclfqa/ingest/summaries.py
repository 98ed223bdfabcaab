"""Document summaries for Summary-Augmented Chunking (Reuter et al.).

One chat-model call per document writes a ~150-character summary that names what the document is
(its kind, parties or subject, jurisdiction); it is prefixed to every child's indexed text so that
chunks of look-alike documents (two NDAs, two credit regulations) stop being confused — the
document-level retrieval mismatch the SAC paper measures. The prompt is ``document_summary`` in
``lclfqa/prompts/templates.toml``; the calls are metered (:class:`DocumentSummarizer` keeps the count).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel

from lclfqa import prompts
from lclfqa.config import Settings
from lclfqa.ingest.document import ParsedDocument
from lclfqa.llm.calls import Meter, chat


def _excerpt(doc: ParsedDocument, limit: int = 3000) -> str:
    parts: list[str] = []
    size = 0
    for s in doc.sections:
        head = " › ".join(s.path[-2:])
        piece = f"{head}\n{s.text}" if head else s.text
        parts.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return "\n\n".join(parts)[:limit]


def clean_summary(text: str, chars: int) -> str:
    """One line, no surrounding quotes or labels, cut at a word boundary near ``chars``."""
    text = re.sub(r"^\s*(summary|answer)\s*:\s*", "", text.strip(), flags=re.I)
    text = " ".join(text.split()).strip("\"'“” ")
    limit = int(chars * 1.3)
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return text


def summarize(doc: ParsedDocument, llm: BaseChatModel, chars: int = 150, meter: Meter | None = None) -> str:
    """A ~``chars``-character summary of ``doc`` (empty when the model returns nothing usable); the call is
    counted on ``meter``."""
    messages = prompts.messages("document_summary", chars=chars, file_name=doc.name, excerpt=_excerpt(doc))
    return clean_summary(chat(llm, messages, meter or Meter("summaries")), chars)


@dataclass
class DocumentSummarizer:
    """The ingest pipeline's summarizer: ``summarizer(doc)`` is :func:`summarize` with one model and length,
    and ``meter`` counts every call it made (LLM calls, tokens, seconds since it was made)."""

    llm: BaseChatModel
    chars: int = 150
    meter: Meter = field(default_factory=lambda: Meter("summaries"))

    def __call__(self, doc: ParsedDocument) -> str:
        return summarize(doc, self.llm, self.chars, self.meter)


def make_summarizer(settings: Settings, llm: BaseChatModel | None = None) -> DocumentSummarizer:
    """A summarizer for the ingest pipeline, with ``llm`` or the chat model that ``settings`` names."""
    if llm is None:
        from lclfqa.llm.models import get_chat_model

        llm = get_chat_model(settings.chat_model, settings=settings)
    return DocumentSummarizer(llm, settings.summary_chars)
