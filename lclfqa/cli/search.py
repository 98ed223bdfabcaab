"""``lclfqa search``: the child chunks that best match a query, ranked exactly as ``ask`` retrieves."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich.console import Console

from lclfqa.cli import common
from lclfqa.cli.common import fail


def search(
    query: Annotated[str, typer.Argument(help="The question or search terms.")],
    index: common.IndexOption = common.DEFAULT_INDEX,
    config: common.ConfigOption = None,
    k: Annotated[
        int | None, typer.Option("-k", "--top-k", help="How many child chunks to return (default: settings' top_k).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print hits as JSON.")] = False,
    document_scope: common.ScopeOption = None,
    backend: common.BackendOption = None,
    milvus_uri: common.MilvusUriOption = None,
) -> None:
    """Hybrid retrieval (BM25 + dense, fused by RRF): the child chunks that best match QUERY, with sources.

    Ranks exactly as `ask` retrieves for a question without rewrites: the same settings (--config,
    LCLFQA_*), document scope, depth and RRF weights."""
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import open_index
    from lclfqa.index.search import RetrievalParams
    from lclfqa.index.search import search as run_search
    from lclfqa.llm.models import get_embeddings

    if not query.strip():
        fail('the query is empty: give it in quotes, e.g. lclfqa search "dependent care credit"')
    if k is not None and k < 1:
        fail(f"-k must be at least 1 (how many passages to return); got {k}")
    try:
        settings = common.load_settings(config, **common.backend_overrides(backend, milvus_uri))
        params = RetrievalParams.from_settings(settings, k=k, document_scope=document_scope)
    except (ValueError, OSError) as e:
        fail(str(e))
    try:
        idx = open_index(settings, index)
    except IndexStoreError as e:
        fail(str(e), e.exit_code)
    try:
        embedder = get_embeddings(idx.embedding_model, settings.openai_base_url)
    except Exception as e:  # an embedder this machine cannot load: say which and why
        idx.close()
        fail(f"index {index} was built with embedding model {idx.embedding_model!r}, which cannot be loaded here: {e}")
    try:
        scope, hits = run_search(idx, embedder, query, params)
    except ValueError as e:  # e.g. an embedder of another dimension than the index's vectors
        fail(str(e))
    finally:
        idx.close()
    if as_json:
        picked = {"opinion_pick": True}
        rows = [h.chunk.to_json() | {"score": round(h.score, 6)} | (picked if h.pick else {}) for h in hits]
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return
    out = Console()
    if scope:
        out.print(f"Searched only: {'; '.join(scope.documents)} (named in the query)", highlight=False)
    if not hits:
        out.print("No matching passages in this index.")
    for n, h in enumerate(hits, 1):
        c = h.chunk
        why = " [dim](the named opinion's best passage)[/]" if h.pick else ""
        where = " › ".join(c.section_path[-3:])
        out.print(f"[bold][{n}][/] {c.document}, p. {c.pages} — {where}{why}", highlight=False)
