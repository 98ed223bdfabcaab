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
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "LOCK"

# Locks this process holds: resolved index directory -> (holding thread, depth). An index backend's
# write takes the lock re-entrantly: ingest already holds it for the whole run, and a second flock on
# another descriptor would wait for itself.
_held: dict[Path, tuple[int, int]] = {}
_held_lock = threading.Lock()


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
    index_dir: str | Path,
    *,
    wait: bool = True,
    on_wait: Callable[[str], None] | None = None,
    reentrant: bool = False,
) -> Iterator[None]:
    """Hold the index's writer lock for the ``with`` block.

    If another process holds it: with ``wait``, call ``on_wait(message)`` once and block until it is
    free; without, raise :class:`IndexBusy`. With ``reentrant`` (a backend's own write), a thread that
    already holds it passes straight through; otherwise a second ``with`` waits like another process.
    """
    index_dir = prepare_index_dir(index_dir)
    key = index_dir.resolve()
    me = threading.get_ident()
    with _held_lock:
        holder = _held.get(key)
        if reentrant and holder is not None and holder[0] == me:
            _held[key] = (me, holder[1] + 1)
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield
        finally:
            with _held_lock:
                _held[key] = (me, _held[key][1] - 1)
        return
    with _locked(index_dir, wait, on_wait):
        with _held_lock:
            outer = _held.get(key)
            _held[key] = (me, 1)
        try:
            yield
        finally:
            with _held_lock:
                if outer is None:
                    _held.pop(key, None)
                else:
                    _held[key] = outer


@contextmanager
def _locked(index_dir: Path, wait: bool, on_wait: Callable[[str], None] | None) -> Iterator[None]:
    """The flock itself (see :func:`writer_lock`)."""
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
