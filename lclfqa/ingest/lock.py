"""One writer per index: an advisory lock file held for a whole ingest.

An ingest reads the index's state (which documents, which chunks, which vectors), works for minutes,
then writes a new generation. If two ingests overlap, both start from the same old state and the last
one to write wins: the other's documents are lost. So the lock is taken before the state is read and
released after the new generation is live. Readers never take it: they read the ``CURRENT``
generation, which is complete at every moment.

The lock is ``flock`` on ``INDEX/LOCK`` (POSIX): the OS releases it when the holder exits, even after
``kill -9``, so a crash never leaves a stale lock. The holder's pid is written into the file so that a
waiting writer can say whom it waits for.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "LOCK"


class IndexBusy(RuntimeError):
    """Another process is writing the index and the caller asked not to wait (``--no-wait``)."""


def prepare_index_dir(index_dir: str | Path) -> Path:
    """Create ``index_dir`` (and parents); raise ``ValueError`` with a clear message if it cannot be one."""
    index_dir = Path(index_dir)
    if os.path.exists(index_dir) and not os.path.isdir(index_dir):
        raise ValueError(f"--index {index_dir} is a file, not an index directory; pass a folder path")
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise ValueError(f"--index {index_dir}: a parent of it is a file, not a folder") from None
    except PermissionError:
        raise ValueError(f"--index {index_dir}: no permission to create it") from None
    return index_dir


def _holder(path: Path) -> str:
    try:
        pid = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return "another process"
    return f"process {pid}" if pid.isdigit() else "another process"


@contextmanager
def writer_lock(
    index_dir: str | Path, *, wait: bool = True, on_wait: Callable[[str], None] | None = None
) -> Iterator[None]:
    """Hold the index's writer lock for the ``with`` block.

    If another process holds it: with ``wait``, call ``on_wait(message)`` once and block until it is
    free; without, raise :class:`IndexBusy`. Not re-entrant: one ``with`` per writer.
    """
    index_dir = prepare_index_dir(index_dir)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: one writer assumed
        yield
        return
    path = index_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except PermissionError:
        raise ValueError(f"--index {index_dir}: no permission to write in it; check its permissions") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            message = f"index {index_dir} is being written by {_holder(path)}"
            if not wait:
                raise IndexBusy(f"{message}; try again when it has finished (or leave out --no-wait to wait)") from None
            if on_wait is not None:
                on_wait(f"{message}; waiting for it to finish (Ctrl-C to stop)")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
