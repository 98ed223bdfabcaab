"""Generations on disk: how the embedded index replaces itself atomically.

Layout of an index directory::

    DIR/CURRENT              names the live generation, e.g. "gen-000003"
    DIR/gen-000003/          one complete, immutable index (see :mod:`lclfqa.index.writer`)

Why generations: ingest must never leave a half-written index where a working one was. A write builds a
new ``gen-NNNNNN.tmp``, fsyncs it, renames it, and only then swaps ``CURRENT`` atomically; older
generations are deleted last. A crash (or Ctrl-C) at any point leaves the previous ``CURRENT`` and its
generation untouched, and the next write sweeps away what the crash left behind.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from lclfqa.index.errors import IndexFormatError

__all__ = ["CURRENT", "GEN_RE", "fsync_tree", "is_generation", "publish", "read_current"]

CURRENT = "CURRENT"
GEN_RE = re.compile(r"^gen-(\d{6})$")
_GEN_ANY_RE = re.compile(r"^gen-(\d{6})(\.tmp)?$")


def is_generation(name: str) -> bool:
    """Whether ``name`` is a generation's folder name, finished (``gen-000003``) or being written (``….tmp``)."""
    return bool(_GEN_ANY_RE.match(name))


def _fsync_file(path: Path) -> None:
    with open(path, "rb") as f:
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    """Make a rename/creation inside ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def fsync_tree(root: Path) -> None:
    """fsync every file and directory below ``root``."""
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            _fsync_file(Path(dirpath) / name)
        _fsync_dir(Path(dirpath))


def read_current(index_dir: Path) -> str | None:
    """The generation ``CURRENT`` names, or ``None`` when there is no ``CURRENT``."""
    try:
        name = (index_dir / CURRENT).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except PermissionError:
        raise IndexFormatError(f"cannot read index {index_dir} (permission denied); check its permissions") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IndexFormatError(
            f"cannot read {index_dir / CURRENT} ({exc}); delete {index_dir} and run ingest again"
        ) from None
    return name


def _remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def next_generation(index_dir: Path) -> str:
    """Sweep what an earlier crash left behind (unfinished generations, an unswapped ``CURRENT.tmp``) and
    name the generation to write next."""
    for p in index_dir.iterdir():
        if p.name.startswith("gen-") and p.name.endswith(".tmp"):
            _remove_tree(p)
    (index_dir / f"{CURRENT}.tmp").unlink(missing_ok=True)
    numbers = [int(m.group(1)) for p in index_dir.iterdir() if (m := _GEN_ANY_RE.match(p.name))]
    return f"gen-{max(numbers, default=0) + 1:06d}"


def publish(index_dir: Path, gen_name: str, build: Callable[[Path], None]) -> Path:
    """Build generation ``gen_name`` with ``build(tmp_dir)`` (which must create ``tmp_dir`` and fsync it),
    make it the live one, delete the older ones; return its path. The caller holds the writer lock.

    A failure or interrupt at any point leaves the previous generation live; its half-written successor
    is removed here (or by the next write).
    """
    tmp_dir = index_dir / f"{gen_name}.tmp"
    gen_dir = index_dir / gen_name
    published = False
    try:
        build(tmp_dir)
        os.rename(tmp_dir, gen_dir)
        _fsync_dir(index_dir)
        current_tmp = index_dir / f"{CURRENT}.tmp"
        with open(current_tmp, "w", encoding="utf-8") as f:
            f.write(gen_name + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(current_tmp, index_dir / CURRENT)
        published = True
        _fsync_dir(index_dir)
    except BaseException:
        if not published and read_current(index_dir) != gen_name:
            _remove_tree(tmp_dir)
            _remove_tree(gen_dir)
            (index_dir / f"{CURRENT}.tmp").unlink(missing_ok=True)
        raise
    # Only now is the old generation unneeded. Readers that already loaded it keep their open
    # files (POSIX); where deletion fails (Windows, open files) the next write retries.
    for p in index_dir.iterdir():
        if is_generation(p.name) and p.name != gen_name:
            _remove_tree(p)
    return gen_dir
