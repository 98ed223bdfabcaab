"""``lclfqa ask`` as a user runs it: one fresh process per question, then the same through ``lclfqa serve``.

Run:  python benchmarks/bench_ask.py --index /tmp/val/index --n 6 --pipelines lclf,rag --serve
      PYTHONPATH=/tmp/avx2/lib python benchmarks/bench_ask.py …      (an AVX2-only llama-cpp-python build)

Questions: every ``len/n``-th answerable row of ``--dataset`` (default: the frozen validation set,
``benchmarks/data/validation.jsonl``), plus one question refused before any model call (it cites a section
no document has). Per question and pipeline: wall seconds of the whole process (start-up, imports, index,
embedder, the weights' check, llama.cpp's load, the graph), the graph's own seconds per node, and tokens —
prompt, the part of it the KV cache held from the call before (reused: not evaluated again), generated.
``--serve`` starts ``lclfqa serve`` on a free port and asks the same lclf questions through it
(``LCLFQA_SERVER_URL``): the process start-up and model loads are then paid once.

Prints the CPU (``lscpu`` model name and the AVX2 / AVX-512 / AMX flags), the llama.cpp build's CPU features
as llama.cpp reports them, and one table; ``--out FILE`` writes every row as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFUSED = "What does section 9137 of the Act say about this?"


def cpu() -> str:
    """``lscpu``'s model name and the SIMD kinds the CPU advertises."""
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    name = re.search(r"Model name:\s*(.+)", out)
    flags = set((re.search(r"Flags:\s*(.+)", out) or re.search(r"()", "")).group(1).split())
    kinds = [
        k
        for k, f in (("AVX2", "avx2"), ("AVX-512", "avx512f"), ("VNNI", "avx512_vnni"), ("AMX", "amx_int8"))
        if f in flags
    ]
    return f"{name.group(1).strip() if name else 'unknown CPU'}, {os.cpu_count()} cores, {' + '.join(kinds)}"


def llama_build() -> str:
    """The CPU features of the llama.cpp build on ``sys.path`` (``llama_print_system_info``)."""
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False).stdout
    feats = [m.group(1) for m in re.finditer(r"(AVX512\w*|AVX2|AMX\w*|AVX_VNNI)\s*=\s*1", out)]
    return ", ".join(dict.fromkeys(feats)) or out.strip()[:200]


def questions(dataset: Path, n: int) -> list[dict]:
    rows = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines() if line.strip()]
    answerable = [r for r in rows if not r.get("unanswerable")]
    step = max(1, len(answerable) // max(1, n))
    return answerable[::step][:n]


def ask(question: str, index: Path, pipeline: str, env: dict[str, str]) -> dict:
    """One fresh ``lclfqa ask --json`` process: its wall seconds and the result's figures."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "lclfqa.cli", "ask", question, "--index", str(index), "--json"],
        capture_output=True,
        text=True,
        env={**env, "LCLFQA_PIPELINE": pipeline},
        check=False,
    )
    wall = time.perf_counter() - started
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"wall": wall, "error": proc.stderr[-500:], "rc": proc.returncode}
    tokens = result.get("tokens") or {}
    nodes = result.get("nodes") or {}
    return {
        "wall": wall,
        "graph": sum(v or 0 for v in (result.get("timings") or {}).values()),
        "timings": result.get("timings"),
        "refused": result.get("refused"),
        "prompt": tokens.get("prompt", 0),
        "reused": tokens.get("reused", 0),
        "completion": tokens.get("completion", 0),
        "nodes": {
            k: {f: v.get(f) for f in ("seconds", "prompt_tokens", "reused_tokens", "completion_tokens")}
            for k, v in nodes.items()
        },
        "via": "server" if "LCLFQA_SERVER_URL" in env else "process",
        "stderr": proc.stderr.strip().splitlines()[-1:] if proc.stderr.strip() else [],
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(index: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lclfqa.cli", "serve", "--index", str(index), "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    import urllib.request

    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/health", timeout=1) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"lclfqa serve did not come up: {proc.stderr.read()[-500:] if proc.stderr else ''}")


def p50(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--dataset", type=Path, default=ROOT / "benchmarks" / "data" / "validation.jsonl")
    ap.add_argument("--n", type=int, default=6, help="questions (spread over the set)")
    ap.add_argument("--pipelines", default="lclf,rag")
    ap.add_argument("--serve", action="store_true", help="also ask the lclf questions through lclfqa serve")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    env = {k: v for k, v in os.environ.items() if k != "LCLFQA_SERVER_URL"}
    env["DO_NOT_TRACK"] = "1"
    print(
        f"# ask benchmark — {cpu()}; llama.cpp build: {llama_build()}; {time.strftime('%Y-%m-%d %H:%M')}, "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    rows: list[dict] = []
    refused = ask(REFUSED, args.index, "lclf", env) | {"pipeline": "refused", "id": "refused"}
    rows.append(refused)
    print(f"refused question, fresh process: {refused['wall']:.1f} s (refused: {refused.get('refused')})", flush=True)
    items = questions(args.dataset, args.n)
    for pipeline in [p.strip() for p in args.pipelines.split(",") if p.strip()]:
        for item in items:
            row = ask(item["question"], args.index, pipeline, env) | {"pipeline": pipeline, "id": item["id"]}
            rows.append(row)
            print(
                f"  {pipeline} {item['id']}: {row['wall']:.1f} s, tokens {row.get('prompt')} "
                f"(reused {row.get('reused')}) + {row.get('completion')}",
                flush=True,
            )
    if args.serve:
        proc, url = serve(args.index, env)
        try:
            served = {**env, "LCLFQA_SERVER_URL": url}
            for item in items:
                row = ask(item["question"], args.index, "lclf", served) | {"pipeline": "lclf (serve)", "id": item["id"]}
                rows.append(row)
                print(f"  lclf (serve) {item['id']}: {row['wall']:.1f} s", flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(
        "\n| variant | questions | wall s p50 | min–max | graph s p50 | tokens p50 (prompt + out) "
        "| evaluated p50 (without reused) |"
    )
    print("|---|---|---|---|---|---|---|")
    for variant in dict.fromkeys(r["pipeline"] for r in rows):
        rs = [r for r in rows if r["pipeline"] == variant and "error" not in r]
        walls = [r["wall"] for r in rs]
        if not rs:
            continue
        print(
            f"| {variant} | {len(rs)} | {p50(walls):.1f} | {min(walls):.1f}–{max(walls):.1f} "
            f"| {p50([r['graph'] for r in rs]):.1f} | {p50([r['prompt'] + r['completion'] for r in rs]):.0f} "
            f"| {p50([r['prompt'] - r['reused'] + r['completion'] for r in rs]):.0f} |"
        )
    errors = [r for r in rows if "error" in r]
    for r in errors:
        print(f"error {r['pipeline']} {r['id']}: rc {r['rc']}: {r['error']}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
