"""Parse speed: lclfqa's layout parser vs pdfminer.six layout analysis on the same pages, same run.

Run: python benchmarks/bench_parse.py [PDF ...]   (defaults: the IRA and Dobbs PDFs in ../shared/data)
     python benchmarks/bench_parse.py --pages 40 --repeat 3 --legal   (adds the six Australian prints)

For each PDF: lclfqa on the whole document (best of ``--repeat``, after a warm-up), then lclfqa and
pdfminer.six (``extract_pages`` with default ``LAParams``: characters → lines → boxes, the analysis
pdfplumber and unstructured build on) on the same first ``--pages`` pages, cut into one PDF, one after
the other. pdfminer.six is optional (``pip install pdfminer.six``); without it the script says so. Goals
(issues 3 and 15): ≥ 150 pages/s on the IRA, ≥ 3× pdfminer.six layout analysis on the same pages.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DATA = SHARED / "pdfs"
DEFAULT = [
    DATA / "statutes" / "inflation-reduction-act-2022.pdf",
    DATA / "court-opinions" / "dobbs-v-jackson-2022-slip-opinion.pdf",
]
LEGAL = sorted((SHARED / "legal-pdfs" / "australia").glob("*.pdf"))


def best_of(n: int, fn, *args):
    """(result, best seconds) over ``n`` runs."""
    best = float("inf")
    out = None
    for _ in range(n):
        t = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t)
    return out, best


def lclfqa_parse(path: Path):
    from lclfqa.ingest.pdf import parse_pdf

    return parse_pdf(path)


def first_pages(path: Path, n: int, folder: Path) -> tuple[Path, int]:
    """The first ``n`` pages of ``path`` as a PDF of their own."""
    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(str(path))
    k = min(n, len(src))
    sub = pdfium.PdfDocument.new()
    sub.import_pages(src, list(range(k)))
    out = folder / f"first-{k}-{path.stem[:40]}.pdf"
    sub.save(str(out))
    return out, k


def pdfminer_layout(path: Path) -> int:
    """pdfminer.six's layout analysis of every page; returns the number of text lines it found."""
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LAParams, LTTextContainer, LTTextLine

    lines = 0
    for page in extract_pages(str(path), laparams=LAParams()):
        for box in page:
            if isinstance(box, LTTextContainer):
                lines += sum(isinstance(x, LTTextLine) for x in box)
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdfs", nargs="*", type=Path)
    ap.add_argument("--pages", type=int, default=40, help="pages compared with pdfminer.six (default 40)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts (default 3)")
    ap.add_argument("--legal", action="store_true", help="add the six Australian prints of legal-pdfs/")
    args = ap.parse_args()
    paths = args.pdfs or DEFAULT + (LEGAL if args.legal else [])
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# parse benchmark — {platform.node()} {os.cpu_count()} cores, load {load:.1f}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, best of {args.repeat}"
    )
    try:
        import pdfminer

        have_pdfminer = f"pdfminer.six {pdfminer.__version__}"
    except ImportError:
        have_pdfminer = ""
        print("pdfminer.six not installed: `pip install pdfminer.six` for the side-by-side")
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            if not path.exists():
                print(f"{path}: missing, skipped")
                continue
            lclfqa_parse(path)  # warm-up (imports)
            doc, dt = best_of(args.repeat, lclfqa_parse, path)
            print(
                f"{path.name}: {doc.pages} pages, lclfqa {dt:.2f} s = {doc.pages / dt:.0f} pages/s "
                f"({len(doc.sections)} sections, {len(doc.footnotes)} footnotes, "
                f"longest {max((len(f.text) for f in doc.footnotes), default=0)} chars)"
            )
            if not have_pdfminer:
                continue
            sub, k = first_pages(path, args.pages, Path(tmp))
            _, ours = best_of(args.repeat, lclfqa_parse, sub)
            _, theirs = best_of(args.repeat, pdfminer_layout, sub)
            print(
                f"  first {k} pages: lclfqa {k / ours:.0f} pages/s, {have_pdfminer} layout {k / theirs:.1f} pages/s "
                f"-> {theirs / ours:.1f}x"
            )


if __name__ == "__main__":
    main()
