"""A LangChain retriever over an lclfqa index, on either backend: ``search`` as a ``BaseRetriever``.

For LangChain code that composes retrievers (chains, ensembles, agents): the documents are the top
children of :func:`lclfqa.index.search.search`, ranked exactly as ``lclfqa search`` ranks them.

>>> retriever = IndexRetriever(index=open_index(settings, ".lclfqa/index"), embeddings=embedder)  # doctest: +SKIP
>>> retriever.invoke("Can married taxpayers filing separately claim the AOTC?")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from lclfqa.index.search import RetrievalParams, search

__all__ = ["IndexRetriever"]


class IndexRetriever(BaseRetriever):
    """Top children of an :class:`~lclfqa.index.protocol.IndexBackend` as LangChain ``Document``\\ s: the
    chunk's text as ``page_content``, its id, and its citation fields, fused score and the question's
    document scope as ``metadata``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: Any  # an IndexBackend (a Protocol, which pydantic cannot check)
    embeddings: Embeddings
    params: RetrievalParams = RetrievalParams()

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        scope, hits = search(self.index, self.embeddings, query, self.params)
        return [
            Document(
                page_content=h.chunk.text,
                id=h.chunk.id,
                metadata={
                    **{key: value for key, value in h.chunk.to_json().items() if key != "text"},
                    "score": h.score,
                    "scope": list(scope.documents),
                },
            )
            for h in hits
        ]
