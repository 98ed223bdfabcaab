"""The command-line options that choose the index backend, shared by ``lclfqa`` and ``lclfqa eval``."""

from __future__ import annotations

from typing import Annotated, Any

import typer

__all__ = ["BackendOption", "MilvusUriOption", "backend_overrides"]

BackendOption = Annotated[
    str | None,
    typer.Option(
        "--backend",
        help="Index backend: 'embedded' (files in the --index folder) or 'milvus' (default: the settings').",
    ),
]
MilvusUriOption = Annotated[
    str | None,
    typer.Option(
        "--milvus-uri",
        help="With --backend milvus: a local FILE.db (Milvus Lite) or http://host:19530 (a Milvus server); "
        "default: milvus.db in the --index folder.",
    ),
]


def backend_overrides(backend: str | None, milvus_uri: str | None) -> dict[str, Any]:
    """Settings overrides for the two options (``None``: leave the settings' value)."""
    return {"index_backend": backend, "milvus_uri": milvus_uri}
