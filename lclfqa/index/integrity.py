"""Checksums of an index generation's files, and the checks that use them.

Garbage written into ``chunks.sqlite`` or ``dense.hnsw`` does not always make them unreadable: SQLite
and FAISS may load it and answer wrongly. So the manifest records each file's size and sha256 when the
generation is written, and:

- loading compares sizes and file headers (cheap), and the full sha256 when the generation is small
  enough that hashing costs little next to loading (``VERIFY_ON_LOAD_MAX_BYTES``);
- ``lclfqa info --check`` hashes every file and runs SQLite's ``PRAGMA integrity_check``.

A mismatch is an :class:`IndexCorrupted` error: "index corrupted: …, re-ingest", never a wrong answer.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

#: Hash every file on load when the generation's files total at most this many bytes. Measured here
#: (2 busy cores): a 10 MB index loads in 3 ms without hashing and 13 ms with; a 130 MB one in 35 ms and
#: 255 ms. Larger indexes get size and header checks on load and the full check from ``lclfqa info --check``
#: (benchmarks/README.md, "Reliability").
VERIFY_ON_LOAD_MAX_BYTES = 256 * 1024 * 1024

#: The first bytes each kind of file starts with.
HEADERS = {
    ".sqlite": b"SQLite format 3\x00",
    ".npy": b"\x93NUMPY",
    ".hnsw": b"IHNf",
}


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file's bytes, read in 1 MB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_digests(gen_dir: Path) -> dict[str, dict[str, int | str]]:
    """``{relative path: {"bytes": size, "sha256": hex}}`` for every file under ``gen_dir`` but the manifest."""
    out: dict[str, dict[str, int | str]] = {}
    for p in sorted(gen_dir.rglob("*")):
        if p.is_file() and p.name != "manifest.json":
            out[p.relative_to(gen_dir).as_posix()] = {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
    return out


def file_problems(gen_dir: Path, recorded: dict[str, dict], *, hashes: bool) -> list[str]:
    """What differs between ``gen_dir``'s files and the manifest's record of them; ``[]`` when all match.

    Always: every recorded file exists, has its recorded size and the header its kind starts with.
    With ``hashes``: also its sha256.
    """
    problems: list[str] = []
    for rel, meta in recorded.items():
        path = gen_dir / rel
        try:
            size = path.stat().st_size
        except OSError:
            problems.append(f"{rel} is missing")
            continue
        if size != meta.get("bytes"):
            problems.append(f"{rel} is {size} bytes, the manifest says {meta.get('bytes')}")
            continue
        header = HEADERS.get(path.suffix)
        if header is not None:
            with open(path, "rb") as f:
                if f.read(len(header)) != header:
                    problems.append(f"{rel} does not start with a {path.suffix[1:]} header")
                    continue
        if hashes and sha256_file(path) != meta.get("sha256"):
            problems.append(f"{rel} does not match its sha256 checksum")
    return problems


def recorded_bytes(recorded: dict[str, dict]) -> int:
    """Total size of the recorded files."""
    return sum(int(meta.get("bytes", 0)) for meta in recorded.values())


def sqlite_problems(path: Path) -> list[str]:
    """SQLite's own ``PRAGMA integrity_check`` of a database opened read-only; ``[]`` when it says ok."""
    uri = path.resolve().as_uri() + "?mode=ro&immutable=1"
    try:
        con = sqlite3.connect(uri, uri=True)
        try:
            rows = [r[0] for r in con.execute("PRAGMA integrity_check")]
        finally:
            con.close()
    except sqlite3.Error as exc:
        return [f"{path.name}: {exc}"]
    return [] if rows == ["ok"] else [f"{path.name}: {r}" for r in rows[:5]]
