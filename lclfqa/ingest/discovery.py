"""Which files an ingest reads: a walk of the folders given, with a symbolic-link policy.

A folder is a promise about what gets indexed. A link inside it that points outside (``notes.txt ->
/etc/passwd``) would index a file nobody put there, so by default such links are not followed, and each
is reported by name; ``follow_symlinks`` (``--follow-symlinks``) opts in. Links that stay inside the
folder are followed. Dangling links, link loops and folders that cannot be read are reported, never
skipped without a word. Hidden files and folders (``.name``) are skipped on purpose, as before. Files of a type
not read are counted by suffix (``Discovery.other``), and a folder given that holds no file of a type read is a
problem, so that "indexed 0 documents" never ends a run without a word on why.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Discovery:
    """``files``: (path, name it is cited by) to ingest; ``problems``: (path, reason) not ingested;
    ``renamed``: (path, name, why) for a file named by more of its path because its name was taken; ``other``:
    how many files of each suffix not read were found in the folders walked (``""``: no suffix)."""

    files: list[tuple[Path, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    renamed: list[tuple[str, str, str]] = field(default_factory=list)
    other: Counter[str] = field(default_factory=Counter)


def other_types(counts: dict[str, int]) -> str:
    """``counts`` (files by suffix) as text, most first: ``"2 .doc, 1 .png, 1 with no suffix"``."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], not kv[0], kv[0]))
    return ", ".join(f"{n} {suffix}" if suffix else f"{n} with no suffix" for suffix, n in ranked)


def distinct_name(path: Path, name: str, taken: Container[str]) -> str:
    """``name`` lengthened by the folders above ``path``, as few as make it unique among ``taken`` ("b/x.txt"
    where "x.txt" is another file's); the absolute path when no shorter name is free."""
    parts = Path(os.path.abspath(path)).parts
    for k in range(len(Path(name).parts) + 1, len(parts)):
        candidate = "/".join(parts[-k:])
        if candidate not in taken:
            return candidate
    return Path(os.path.abspath(path)).as_posix()


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def find_sources(paths: Iterable[str | Path], suffixes: Iterable[str], *, follow_symlinks: bool = False) -> Discovery:
    """Files to ingest under ``paths`` (files or folders), each named by its path relative to the folder
    given (a file given directly: its file name), and what was left out and why. Names are unique: a file
    whose name another file took already is named by more of its path (:func:`distinct_name`).

    Raises ``FileNotFoundError`` for a path that does not exist and ``PermissionError`` for a folder given
    that cannot be listed: those are mistakes in the command, not in the folder.
    """
    wanted = {s.lower() for s in suffixes}
    out = Discovery()
    seen_names: set[str] = set()
    by_real: dict[Path, tuple[int, bool]] = {}  # real path -> (position in out.files, reached through a link)

    def add(path: Path, name: str, via_link: bool = False) -> None:
        real = path.resolve()
        if real in by_real:  # the same file reached twice: keep the name of the file itself, not a link's
            position, first_via_link = by_real[real]
            if first_via_link and not via_link and name not in seen_names:
                seen_names.discard(out.files[position][1])
                out.files[position] = (path, name)
                by_real[real] = (position, False)
                seen_names.add(name)
            return
        if name in seen_names:  # another file has this name ("a/x.txt" and "b/x.txt" given as a and b)
            longer = distinct_name(path, name, seen_names)
            out.renamed.append((str(path), longer, f"{name} is another file's name in this run"))
            name = longer
        seen_names.add(name)
        by_real[real] = (len(out.files), via_link)
        out.files.append((path, name))

    for p in map(Path, paths):
        if p.is_symlink() and not p.exists():
            raise FileNotFoundError(f"{p}: a symbolic link to {os.readlink(p)}, which does not exist")
        if p.is_dir():
            root = p.resolve()
            try:
                os.listdir(p)
            except PermissionError:
                raise PermissionError(f"{p}: cannot list this folder (permission denied)") from None
            before, others, reported = len(out.files), out.other.copy(), len(out.problems)
            _walk(p, p, root, [root], wanted, follow_symlinks, out, add)
            said = any(path == str(p) for path, _ in out.problems[reported:])  # it could not be listed
            if len(out.files) == before and not said:
                here = out.other - others  # the files of other types in this folder
                seen = f"; found only {other_types(here)}" if here else ""
                out.problems.append(
                    (str(p), f"no file of a type lclfqa reads ({', '.join(sorted(wanted))}) in this folder{seen}")
                )
        elif p.is_file():
            add(p, p.name)
        elif p.exists():
            raise FileNotFoundError(f"{p}: not a file or folder")
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")
    return out


def _walk(
    folder: Path,
    top: Path,
    root: Path,
    stack: list[Path],
    wanted: set[str],
    follow: bool,
    out: Discovery,
    add,  # noqa: ANN001 - the closure above
) -> None:
    """Walk ``folder`` (shown under ``top``, which resolves to ``root``); ``stack`` holds the real paths of
    the folders being walked, so a link back to one of them is a loop."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        out.problems.append((str(folder), f"cannot list this folder ({exc.strerror or exc}); its files were not read"))
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        name = path.relative_to(top).as_posix()
        if entry.is_symlink():
            target = os.readlink(path)
            try:
                real = path.resolve(strict=True)
            except FileNotFoundError:
                out.problems.append((str(path), f"dangling symbolic link to {target}: nothing to read"))
                continue
            except (RuntimeError, OSError):  # RuntimeError: Python 3.11's "Symlink loop"
                out.problems.append((str(path), f"symbolic link loop ({target}): not followed"))
                continue
            if not follow and not _inside(real, root):
                if real.is_dir() or path.suffix.lower() in wanted:
                    out.problems.append(
                        (
                            str(path),
                            f"symbolic link to {real}, outside {top}: not followed (--follow-symlinks to include it)",
                        )
                    )
                continue
            if real.is_dir():
                if real in stack:
                    out.problems.append((str(path), f"symbolic link loop (back to {real}): not followed"))
                    continue
                _walk(path, top, root, [*stack, real], wanted, follow, out, add)
            elif real.is_file() and path.suffix.lower() in wanted:
                add(path, name, via_link=True)
            continue
        if entry.is_dir(follow_symlinks=False):
            _walk(path, top, root, [*stack, path.resolve()], wanted, follow, out, add)
        elif entry.is_file(follow_symlinks=False):
            if path.suffix.lower() in wanted:
                add(path, name)
            else:
                out.other[path.suffix.lower()] += 1
        elif path.suffix.lower() in wanted:  # a named pipe, socket or device under a document's name
            out.problems.append((str(path), "not a regular file (a pipe, socket or device): not read"))
        else:
            out.other[path.suffix.lower()] += 1
