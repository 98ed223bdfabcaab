"""Notes found vs the true counts on every legal PDF in ../shared/data, one markdown table (issue 32).

Run: python benchmarks/bench_notes.py [--ecfr]   (--ecfr adds the 19 eCFR prints, which have no notes)

Per PDF: pages, notes found / true (the data READMEs' counts: legal-pdfs/README.md, legal-pdfs/more/README.md;
the ANZ print's 107, not the README's 81, see tests/test_pdf_parsing.py; Dobbs 155 as issue 15 measured it),
the longest note (a note over 3,000 characters swallowed body text), the running lines dropped, and the
seconds to parse (best of ``--repeat``). The exit status is 1 when any count is off.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TRUE = {
    "legal-pdfs/australia/Breach of Contract.pdf": 218,
    "legal-pdfs/australia/Employment contract law.pdf": 403,
    "legal-pdfs/australia/Contract scope of the penalty doctrine(ANZ Bank).pdf": 107,
    "legal-pdfs/australia/Penalties and consumer contract fairness(ANZ Bank).pdf": 394,
    "legal-pdfs/australia/Statutes_Insurance Contracts Act.pdf": 0,
    "legal-pdfs/australia/Statutes_Independent Contractors act.pdf": 0,
    "legal-pdfs/more/scr2024-baude-fear-of-balancing.pdf": 104,
    "legal-pdfs/more/za-sca-2024-mec-gauteng-v-m.pdf": 24,
    "legal-pdfs/more/eu-reg-650-2012-succession-oj.pdf": 10,
    "legal-pdfs/more/us-ca1-2020-calvary-chapel-v-mills.pdf": 2,
    "legal-pdfs/more/us-copyright-office-dmca-summary.pdf": 3,
    "legal-pdfs/more/mt-cap373-money-laundering-act.pdf": 0,
    "pdfs/court-opinions/dobbs-v-jackson-2022-slip-opinion.pdf": 155,
    "pdfs/statutes/inflation-reduction-act-2022.pdf": 0,
}


def real_prints(ecfr: bool) -> list[str]:
    """The legal prints under ``DATA`` (paths relative to it), with the 19 eCFR prints when ``ecfr``; exits with
    status 2, naming them, when any is missing."""
    names = list(TRUE)
    if ecfr:
        names += [str(p.relative_to(DATA)) for p in sorted((DATA / "pdfs" / "treasury-regulations").glob("*.pdf"))]
    missing = [name for name in names if not (DATA / name).is_file()]
    if missing:
        print(f"missing under {DATA}: {', '.join(missing)}", file=sys.stderr)
        raise SystemExit(2)
    return names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ecfr", action="store_true", help="add the eCFR prints (no notes)")
    ap.add_argument("--repeat", type=int, default=1, help="parse each PDF this many times, keep the best time")
    args = ap.parse_args()
    from lclfqa.ingest.pdf import parse_pdf

    truth = {name: TRUE.get(name, 0) for name in real_prints(args.ecfr)}
    print("| print | pages | notes found / true | longest note | running lines dropped | seconds |")
    print("|---|---|---|---|---|---|")
    off = 0
    for name, true in truth.items():
        best = float("inf")
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            doc = parse_pdf(DATA / name)
            best = min(best, time.perf_counter() - start)
        found = len(doc.footnotes)
        longest = max((len(f.text) for f in doc.footnotes), default=0)
        mark = "✓" if found == true else "✗"
        off += found != true
        dropped = doc.dropped_headers + doc.dropped_footers
        print(f"| {Path(name).name} | {doc.pages} | {found} / {true} {mark} | {longest:,} | {dropped} | {best:.2f} |")
    print(f"\n{len(truth) - off} of {len(truth)} exact")
    return 1 if off else 0


if __name__ == "__main__":
    raise SystemExit(main())
