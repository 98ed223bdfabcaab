"""Document summaries for Summary-Augmented Chunking (Reuter et al.).

One chat-model call per document writes a ~150-character summary that names what the document is
(its kind, parties or subject, jurisdiction); it is prefixed to every child's indexed text so that
chunks of look-alike documents (two NDAs, two credit regulations) stop being confused — the
document-level retrieval mismatch the SAC paper measures.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from lclfqa.config import Settings
from lclfqa.ingest.document import ParsedDocument

SYSTEM = (
    "You summarise legal and tax documents for a search index. Write ONE sentence of at most {chars} "
    "characters that says what the document is and what distinguishes it from similar documents: its kind "
    "(regulation, statute, opinion, contract, policy, memo), its subject or parties, and its jurisdiction or "
    "citation. No preamble, no quotes."
)


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


def summarize(doc: ParsedDocument, llm: BaseChatModel, chars: int = 150) -> str:
    """A ~``chars``-character summary of ``doc`` (empty when the model returns nothing usable)."""
    messages = [
        SystemMessage(SYSTEM.format(chars=chars)),
        HumanMessage(f"Document file name: {doc.name}\n\n{_excerpt(doc)}\n\nSummary:"),
    ]
    reply = llm.invoke(messages)
    return clean_summary(str(reply.content), chars)


def make_summarizer(settings: Settings, llm: BaseChatModel | None = None) -> Callable[[ParsedDocument], str]:
    """A summarizer for the ingest pipeline, with ``llm`` or the chat model that ``settings`` names."""
    if llm is None:
        from lclfqa.llm.models import get_chat_model

        llm = get_chat_model(settings.chat_model, settings=settings)
    return lambda doc: summarize(doc, llm, settings.summary_chars)
