"""Settings → an :class:`~lclfqa.index.protocol.IndexBackend`: the one place that names backend classes.

``index_backend = "embedded"`` (default) reads the files in the index folder; ``"milvus"`` connects to
``milvus_uri`` (default: ``milvus.db`` inside the index folder, i.e. Milvus Lite), collections
``<milvus_prefix>_*``. Either way the index folder holds the writer lock (:mod:`lclfqa.index.lock`).
"""

from __future__ import annotations

from pathlib import Path

from lclfqa.config import EMBEDDER_REVISIONS, Settings
from lclfqa.index.embedded import EmbeddedBackend, check_index
from lclfqa.index.errors import EmbedderRevisionMismatch, IndexStoreError
from lclfqa.index.protocol import IndexBackend
from lclfqa.index.records import canonical_model

__all__ = ["check_files", "check_revision", "embedder_revision", "milvus_uri", "open_index"]

MILVUS_LITE_FILE = "milvus.db"


def milvus_uri(settings: Settings, index_dir: str | Path) -> str:
    """The Milvus URI ``settings`` name, or the Milvus Lite file inside ``index_dir``."""
    return settings.milvus_uri or str(Path(index_dir) / MILVUS_LITE_FILE)


def open_index(
    settings: Settings, index_dir: str | Path, *, create: bool = False, check_vectors: bool = True
) -> IndexBackend:
    """The index ``settings`` point at (``index_backend``), with ``index_dir`` its folder.

    Raises :class:`~lclfqa.index.errors.IndexNotFound` where there is no index yet, unless ``create``
    (ingest): then an empty one is returned, made on the first ``add_documents``. Other
    :class:`~lclfqa.index.errors.IndexStoreError`\\ s say what is wrong (unreadable files, Milvus not
    installed or unreachable, a bad URI, and, unless ``check_vectors`` is off, vectors from another build of
    the index's embedder: :func:`check_revision`).
    """
    index: IndexBackend
    if settings.index_backend == "milvus":
        from lclfqa.index.milvus import MilvusBackend  # pymilvus is optional: imported only when asked for

        index = MilvusBackend.connect(
            milvus_uri(settings, index_dir),
            token=settings.milvus_token,
            prefix=settings.milvus_prefix,
            lock_dir=index_dir,
            create=create,
        )
    else:
        index = EmbeddedBackend.open(index_dir, create=create)
    if check_vectors:
        try:
            check_revision(index)
        except EmbedderRevisionMismatch:
            index.close()
            raise
    return index


def embedder_revision(model: str) -> str:
    """The revision of embedding model ``model`` that this lclfqa embeds with (``config.EMBEDDER_REVISIONS``)."""
    return EMBEDDER_REVISIONS.get(canonical_model(model), "")


def check_revision(index: IndexBackend) -> None:
    """Raise :class:`~lclfqa.index.errors.EmbedderRevisionMismatch` unless ``index``'s vectors were made by the
    build of its embedder that this lclfqa runs (an empty index passes). Indexes that recorded no revision
    were made before revisions existed: right for every embedder whose vectors never changed."""
    model = index.embedding_model
    if not model:
        return
    recorded = str(index.recorded_settings.get("embedder_revision", ""))
    current = embedder_revision(model)
    if recorded != current:
        raise EmbedderRevisionMismatch(index.location, model, recorded, current)


def check_files(settings: Settings, index_dir: str | Path) -> list[str]:
    """Every check of the index's files there is (``lclfqa info --check``); ``[]`` when all pass. The
    embedded index only: Milvus keeps and checks its own files."""
    if settings.index_backend != "embedded":
        raise IndexStoreError("--check verifies the embedded index's files; a Milvus index is checked by Milvus itself")
    return check_index(index_dir)
