"""Index errors: every message names the index and says what to do, so the CLI can print it and exit 2."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

__all__ = [
    "BackendUnavailable",
    "EmbedderMismatch",
    "IndexCorrupted",
    "IndexFormatError",
    "IndexNotFound",
    "IndexSpaceError",
    "IndexStoreError",
    "out_of_space",
]


class IndexStoreError(RuntimeError):
    """Base class for index problems; every message names the index and what to do. ``exit_code`` is what a
    command exits with: 1 where the index named cannot be read (damaged, truncated: the work failed, the
    command was right, as ``info --check`` says it), else 2."""

    exit_code = 2


class IndexNotFound(IndexStoreError):
    """There is no index at the path (no directory, no ``CURRENT``, or the generation it names is gone)."""


class IndexFormatError(IndexStoreError):
    """The index exists but cannot be read: corrupt, truncated, or written by another format version."""

    exit_code = 1


class IndexCorrupted(IndexFormatError):
    """An index file no longer matches the size, header or checksum the manifest recorded for it."""

    def __init__(self, index_dir: str | Path, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            f"index corrupted: {index_dir}: {'; '.join(problems)}; re-ingest (delete {index_dir} and run "
            "lclfqa ingest again)"
        )


def out_of_space(exc: BaseException) -> bool:
    """Whether ``exc`` is a write that found the disk full: ``ENOSPC``, SQLite's "database or disk is full", or
    numpy's short write ("… requested and … written")."""
    text = str(exc)
    return (
        (isinstance(exc, OSError) and exc.errno == errno.ENOSPC)
        or (isinstance(exc, sqlite3.OperationalError) and "disk is full" in text)
        or (isinstance(exc, OSError) and " requested and " in text and text.rstrip().endswith("written"))
    )


class IndexSpaceError(IndexStoreError):
    """The disk filled while a new version of the index was written; the previous version stays live (the
    work failed, not the command: exit 1)."""

    exit_code = 1

    def __init__(self, index_dir: str | Path, cause: BaseException) -> None:
        super().__init__(
            f"no space left to write the index at {index_dir} ({cause}); it is unchanged: free space, ingest again"
        )


class EmbedderMismatch(IndexStoreError):
    """Query vectors from one embedding model are meaningless against an index built with another."""

    def __init__(self, index_dir: str | Path, index_model: str, asked_model: str) -> None:
        self.index_model = index_model
        self.asked_model = asked_model
        super().__init__(
            f"index {index_dir} was built with embedding model {index_model!r}, but {asked_model!r} was "
            f"asked for: query with {index_model!r}, or re-ingest the documents with {asked_model!r}"
        )


class EmbedderRevisionMismatch(IndexStoreError):
    """The index's vectors come from another build of its embedder than this lclfqa's: queries would be
    embedded differently from the texts they are compared with."""

    def __init__(self, location: str | Path, model: str, recorded: str, current: str) -> None:
        self.recorded = recorded
        self.current = current
        super().__init__(
            f"index {location} holds vectors from another build of embedding model {model!r} "
            f"(revision {recorded or 'unrecorded'!r}; this lclfqa embeds with {current or 'the original'!r}), "
            "so its vectors no longer match the queries': delete the index and ingest the documents again"
        )


class BackendUnavailable(IndexStoreError):
    """The configured backend cannot be used here: its package is missing or its server cannot be reached."""
