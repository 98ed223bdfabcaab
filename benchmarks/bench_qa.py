"""Question-answering cost on the offline default: per-node latency, tokens, LLM calls; parallel vs sequential.

    python benchmarks/bench_qa.py                      # 2 eCFR questions from the tax-qa dev set, local model
    python benchmarks/bench_qa.py --questions 4 --model openai:gpt-4o-mini

Ingests ../shared/data/pdfs/treasury-regulations into a temporary index (or uses --index), then answers
each question twice — filter and extract in parallel, then chained — and prints per-node means, the
end-to-end latency of both graphs, and the process's peak memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import tempfile
import time
from pathlib import Path

from lclfqa import load_graph
from lclfqa.config import Settings
from lclfqa.index.ingest import ingest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
NODES = ["rewrite", "retrieve", "expand", "filter", "extract", "read"]


def ecfr_questions(n: int) -> list[str]:
    rows = [json.loads(line) for line in (DATA / "tax-qa" / "dev.jsonl").read_text(encoding="utf-8").splitlines()]
    return [r["question"] for r in rows if all(d.startswith("26 CFR") for d in r.get("documents", []))][:n]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, help="an existing index (default: ingest the eCFR regulations)")
    ap.add_argument("--questions", type=int, default=2)
    ap.add_argument("--model", default="local")
    ap.add_argument("--rewrites", type=int, default=3)
    ap.add_argument("--top-k", type=int, default=8)
    args = ap.parse_args()

    settings = Settings(chat_model=args.model, rewrites=args.rewrites, top_k=args.top_k)
    index = args.index
    if index is None:
        index = Path(tempfile.mkdtemp(prefix="bench-qa-")) / "index"
        t = time.perf_counter()
        report = ingest([DATA / "pdfs" / "treasury-regulations"], index, settings)
        print(f"ingest: {report.summary_line()} ({time.perf_counter() - t:.1f} s)")
    questions = ecfr_questions(args.questions)
    rows: dict[str, list[dict]] = {"parallel": [], "sequential": []}
    for mode in rows:
        graph = load_graph(index, settings.with_overrides(parallel=mode == "parallel"))
        graph.invoke({"question": "warm-up: what is section 21?"}) if not rows[
            "parallel"
        ] and mode == "parallel" else None
        for q in questions:
            t = time.perf_counter()
            result = graph.invoke({"question": q})
            wall = time.perf_counter() - t
            rows[mode].append({"wall": wall, "steps": result["steps"], "cited": len(result.citations)})
            print(f"{mode:<10} {wall:7.1f} s  {len(result.citations)} citations  {q[:70]}", flush=True)

    print(f"\nper node, mean over {len(questions)} question(s), parallel graph ({args.model}):")
    print(f"{'node':<9}{'seconds':>9}{'LLM calls':>11}{'prompt tok':>12}{'gen tok':>9}")
    for node in NODES:
        steps = [r["steps"][node] for r in rows["parallel"]]
        keys = ("seconds", "llm_calls", "prompt_tokens", "completion_tokens")
        m = {key: statistics.fmean(s.get(key, 0) for s in steps) for key in keys}
        print(
            f"{node:<9}{m['seconds']:9.1f}{m['llm_calls']:11.1f}{m['prompt_tokens']:12.0f}{m['completion_tokens']:9.0f}"
        )
    for mode, rs in rows.items():
        walls = [r["wall"] for r in rs]
        print(
            f"end to end, {mode:<10}: mean {statistics.fmean(walls):.1f} s (min {min(walls):.1f}, max {max(walls):.1f})"
        )
    print(f"peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
