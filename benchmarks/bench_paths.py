"""Section paths that contradict their own numbering, on every real legal print: a parser check with no truth.

Run: python benchmarks/bench_paths.py [--show N]

Under each parent path, the ``(x)`` children in reading order should follow one another: (1) (2) (3), (a) (b),
(i) (ii), (A) (B), with inserted ``(1A)`` / ``(aa)`` between them. A break, (b) then (a) under one parent, or (2)
then (4), marks a likely fault: an item filed under the wrong parent, or a sibling read as text of the item
before. Some breaks are the print's own. An amending Act quotes the Code's labels among its own, a
compilation leaves repealed items out ((a), (c), (d)), and each definition restarts its list. So the count is a
figure to drive down and read, not one that must reach zero. Per print: sections, parents with ``(x)``
children, breaks; ``--show N`` lists the first N breaks of each print (parent, label, next label).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_notes import DATA, real_prints  # noqa: E402

_LABEL = re.compile(r"^[‘’“”'\"]*\((\w{1,5})\)")
_ONES = ["", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"]
_ROMAN = [tens + ones for tens in ("", "x", "xx", "xxx") for ones in _ONES][1:]  # i … xxxix


def label_of(title: str) -> str | None:
    """The parenthesised label a path title opens with (``(2) If, under …`` → ``2``), else ``None``."""
    m = _LABEL.match(title)
    return m.group(1) if m else None


def _inserted(label: str) -> bool:
    """An inserted label: ``1A``, ``2B``; ``aa``, ``ba`` (two letters that are no roman numeral)."""
    letters = len(label) == 2 and label.isalpha() and label.lower() not in _ROMAN
    return letters or bool(re.fullmatch(r"\d+[A-Za-z]+", label))


def follows(a: str, b: str) -> bool:
    """Whether label ``b`` may come right after ``a`` among siblings: the next number, letter or numeral, or an
    inserted label on either side (``1A``, ``aa``), which may sit between any two."""
    if _inserted(a) or _inserted(b):
        return True
    if a.isdigit() and b.isdigit():
        return int(b) == int(a) + 1
    low_a, low_b = a.lower(), b.lower()
    same_case = a.islower() == b.islower()
    if same_case and low_a in _ROMAN and low_b in _ROMAN and _ROMAN.index(low_b) == _ROMAN.index(low_a) + 1:
        return True
    return len(a) == 1 and len(b) == 1 and ord(b) == ord(a) + 1


def breaks(paths: Iterable[Sequence[str]]) -> tuple[int, list[tuple[str, str, str]]]:
    """``(parents with labelled children, [(parent's title, label, next label), …])`` over a document's paths, in
    reading order: a child counts once for its run of sections, and again where it comes back after a sibling
    (a duplicate is a break too)."""
    children: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    for path in paths:
        for i in range(1, len(path)):
            if (label := label_of(path[i])) is not None:
                kids = children.setdefault(tuple(path[:i]), [])
                if not kids or kids[-1][0] != path[i]:
                    kids.append((path[i], label))
    out = []
    for parent, kids in children.items():
        labels = [label for _, label in kids]
        out += [(parent[-1], a, b) for a, b in zip(labels, labels[1:], strict=False) if not follows(a, b)]
    return len(children), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", type=int, default=0, help="list the first N breaks of each print")
    args = ap.parse_args()
    from lclfqa.ingest.pdf import parse_pdf

    names = real_prints(ecfr=True)
    print("| print | sections | parents with (x) children | breaks |")
    print("|---|---|---|---|")
    total = 0
    shown = []
    for name in names:
        doc = parse_pdf(DATA / name)
        parents, found = breaks(s.path for s in doc.sections)
        total += len(found)
        print(f"| {Path(name).name} | {len(doc.sections)} | {parents} | {len(found)} |")
        shown += [f"{Path(name).name}: {parent[:60]} › ({a}) then ({b})" for parent, a, b in found[: args.show]]
    print(f"\n{total} breaks in {len(names)} prints")
    for line in shown:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
