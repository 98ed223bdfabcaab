"""Ingest wall time, phase split and peak memory per corpus part, default settings and embedder.

Run: python benchmarks/bench_ingest.py                      (IRA, Dobbs, treasury regs, then all together)
     python benchmarks/bench_ingest.py --only ira           (or --only PATH; repeatable)
     python benchmarks/bench_ingest.py --only ira --embed-batch-size 64 256 1024
     python benchmarks/bench_ingest.py --only ira --embedder st local:all-MiniLM-L6-v2 local:all-MiniLM-L6-v2-int8
Options: --data DIR (default ../shared/data/pdfs), --model-batch-size N (MiniLM's own batch),
--embedder NAME… (an embedding model name, or ``st``: the same MiniLM through sentence-transformers and
torch, batch 64 — what lclfqa ran before the ONNX graph — as the baseline of one run).

Each part runs in a fresh subprocess (so ``ru_maxrss`` is that part's peak) and is ingested into a new
temporary index with ``Settings()`` defaults and the embedder named (default ``local:all-MiniLM-L6-v2``).
Phases are timed from the ``progress`` callback of ``lclfqa.index.ingest.ingest`` (no change to the pipeline):

- parse+chunk: start of ``ingest()`` to the last "parse" tick (discovery, hashing, parsing, chunking);
- embed: first to last "embed" tick (all ``embed_array`` calls);
- write: last "embed" tick to the end of ``ingest()`` (stacking vectors, ``write_index``: SQLite, BM25,
  dense matrix, HNSW graph from 10k chunks, fsync);
- model load (loading MiniLM, ~seconds) is outside ``ingest()`` here and shown on its own, since the
  pipeline caches the model per process (``get_embeddings`` is ``lru_cache``d).

Goal (issue 3): the 730-page IRA in <= 60 s with the default embedder.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "pdfs"
PARTS = {
    "ira": "statutes/inflation-reduction-act-2022.pdf",
    "dobbs": "court-opinions/dobbs-v-jackson-2022-slip-opinion.pdf",
    "regs": "treasury-regulations",
    "all": ".",
}
LABELS = {"ira": "IRA (statute)", "dobbs": "Dobbs (opinion)", "regs": "treasury regs", "all": "all PDFs"}
GOAL_S = 60.0
MARK = "BENCH_INGEST_JSON "


# ------------------------------------------------------------------------------- worker (one part)


class SentenceTransformersMiniLM:
    """The baseline: MiniLM through sentence-transformers on torch (batch 64), vectors as the index wants."""

    def __init__(self) -> None:
        from sentence_transformers import SentenceTransformer

        from lclfqa.llm.minilm import package_dir

        self.batch_size = 64
        self._model = SentenceTransformer(str(package_dir()), device="cpu")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def worker(path: Path, embed_batch: int, model_batch: int | None, embedder_name: str) -> dict:
    """Ingest ``path`` into a fresh temporary index; return the figures (runs in its own process)."""
    t_proc = time.perf_counter()
    from lclfqa.config import Settings
    from lclfqa.index.embedded import EmbeddedBackend
    from lclfqa.index.ingest import embedding_order, ingest
    from lclfqa.index.records import embedding_text, text_sha256
    from lclfqa.llm.minilm import MAX_TOKENS, MiniLM
    from lclfqa.llm.models import get_embeddings

    baseline = embedder_name == "st"
    settings = Settings().with_overrides(
        embed_batch_size=embed_batch, embedding_model="local:all-MiniLM-L6-v2" if baseline else embedder_name
    )
    t = time.perf_counter()
    embedder = SentenceTransformersMiniLM() if baseline else get_embeddings(settings.embedder())
    model_s = time.perf_counter() - t
    if model_batch is not None:
        embedder.batch_size = model_batch
    if baseline:
        import torch

        threads = torch.get_num_threads()
    else:
        threads = os.cpu_count() or 1

    marks: dict[str, float] = {}

    cpu: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if stage == "parse" and done == total:
            marks["parse_end"] = now
        elif stage == "embed":
            if "embed_start" not in marks:
                marks["embed_start"], cpu["embed_start"] = now, time.process_time()
            if done == total:
                marks["embed_end"], cpu["embed_end"] = now, time.process_time()

    with tempfile.TemporaryDirectory(prefix="lclfqa-bench-ingest-") as tmp:
        start = time.perf_counter()
        report = ingest([path], Path(tmp) / "index", settings, embeddings=embedder, progress=progress)
        end = time.perf_counter()
        peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
        parse_end = marks.get("parse_end", start)
        embed_start = marks.get("embed_start", parse_end)
        embed_end = marks.get("embed_end", embed_start)
        # What the embedder saw (after timing): length in characters and in MiniLM word pieces.
        with EmbeddedBackend.load(Path(tmp) / "index") as index:
            index_kind = index.manifest["dense"]["kind"]
            searchable = [c for c in index.chunks() if c.kind != "parent"]
    texts = [embedding_text(c) for c in searchable]
    counter = MiniLM("fp32")
    max_len = MAX_TOKENS

    def pieces(strings: list[str]) -> list[int]:
        return counter.token_counts(strings) if strings else [0]

    lengths = pieces(texts)
    body_lengths = pieces([c.text for c in searchable])
    # Word pieces the model actually runs, padding included: the pipeline embeds each distinct text once, in
    # ``embedding_order``, ``embed_batch`` per call; each call is sorted by length and padded per model batch.
    order = embedding_order({text_sha256(t): t for t in texts}, embedder)
    in_order = pieces([t for _, t in order])
    padded = 0
    for i in range(0, len(in_order), embed_batch):
        call = sorted(in_order[i : i + embed_batch])
        padded += sum(
            max(call[j : j + embedder.batch_size]) * len(call[j : j + embedder.batch_size])
            for j in range(0, len(call), embedder.batch_size)
        )
    return {
        "path": str(path),
        "documents": report.documents,
        "pages": report.pages,
        "parents": report.parents,
        "children": report.children,
        "footnote_chunks": report.footnote_chunks,
        "embedded": report.embedded,
        "skipped": report.skipped,
        "model_s": model_s,
        "parse_s": parse_end - start,
        "between_s": embed_start - parse_end,
        "embed_s": embed_end - embed_start,
        "write_s": end - embed_end,
        "ingest_s": end - start,
        "process_s": time.perf_counter() - t_proc,
        "peak_mib": peak_mib,
        "dense_index": index_kind,
        "embed_batch": embed_batch,
        "model_batch": embedder.batch_size,
        "torch_threads": threads,
        "embedder": embedder_name,
        "mean_chars": sum(map(len, texts)) / max(1, len(texts)),
        "mean_tokens": sum(lengths) / len(lengths),
        "tokens": sum(lengths),
        "body_tokens": sum(body_lengths),
        "padded_tokens": padded,
        "embedded_tokens": sum(in_order),
        "truncated": sum(n >= max_len for n in lengths),
        "embed_cpu_s": cpu.get("embed_end", 0.0) - cpu.get("embed_start", 0.0),
        "max_seq_length": max_len,
    }


# ------------------------------------------------------------------------------------------ driver


def resolve(only: str, data: Path) -> tuple[str, Path]:
    key = only.lower()
    if key in PARTS:
        return LABELS[key], (data / PARTS[key]).resolve()
    p = Path(only)
    if not p.exists() and (data / only).exists():
        p = data / only
    return p.name, p.resolve()


def run_part(label: str, path: Path, embed_batch: int, model_batch: int | None, embedder: str) -> dict | None:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(path), "--embed-batch-size", str(embed_batch)]
    cmd += ["--embedder", embedder]
    if model_batch is not None:
        cmd += ["--model-batch-size", str(model_batch)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(MARK)]
    if proc.returncode != 0 or not lines:
        print(f"{label}: worker failed (rc {proc.returncode})\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    result = json.loads(lines[-1][len(MARK) :])
    result["label"] = label
    result["subprocess_s"] = wall
    print(
        f"  done: {label}, embed batch {embed_batch}: ingest {result['ingest_s']:.1f} s, "
        f"process {wall:.1f} s (load {os.getloadavg()[0]:.1f})",
        file=sys.stderr,
        flush=True,
    )
    return result


def print_tables(results: list[dict]) -> None:
    print()
    print(
        "| part | docs | pages | parents | children | footnote chunks | parse+chunk s | embed s | write s "
        "| ingest s | pages/s | embedded texts/s | model load s | peak RSS MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    several = len({(x["embed_batch"], x["embedder"]) for x in results}) > 1
    for r in results:
        batch = f" ({r['embedder']}, batch {r['embed_batch']}/{r['model_batch']})" if several else ""
        rate = r["embedded"] / r["embed_s"] if r["embed_s"] > 0 else float("nan")
        print(
            f"| {r['label']}{batch} | {r['documents']} | {r['pages']:,} | {r['parents']:,} | {r['children']:,} "
            f"| {r['footnote_chunks']:,} | {r['parse_s']:.1f} | {r['embed_s']:.1f} | {r['write_s']:.1f} "
            f"| {r['ingest_s']:.1f} | {r['pages'] / r['ingest_s']:.1f} | {rate:.1f} | {r['model_s']:.1f} "
            f"| {r['peak_mib']:,.0f} |"
        )
    print()
    print(
        "| part | texts embedded | mean chars | mean word pieces | at the 256 cap | prefix+header share "
        "| padded pieces run (padding overhead) | embed CPU s (CPU/wall) | CPU ms per text | dense index |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        batch = f" ({r['embedder']}, batch {r['embed_batch']}/{r['model_batch']})" if several else ""
        share = 1 - r["body_tokens"] / max(1, r["tokens"])
        pad = r["padded_tokens"] / max(1, r.get("embedded_tokens", r["tokens"])) - 1
        util = r["embed_cpu_s"] / r["embed_s"] if r["embed_s"] > 0 else float("nan")
        print(
            f"| {r['label']}{batch} | {r['embedded']:,} | {r['mean_chars']:.0f} | {r['mean_tokens']:.0f} "
            f"| {r['truncated']:,} | {100 * share:.0f}% | {r['padded_tokens']:,} (+{100 * pad:.0f}%) "
            f"| {r['embed_cpu_s']:.0f} ({util:.2f} of {r['torch_threads']} threads) "
            f"| {1000 * r['embed_cpu_s'] / max(1, r['embedded']):.0f} | {r['dense_index']} |"
        )
    for r in results:
        if r["skipped"]:
            print(f"{r['label']}: skipped {r['skipped']}")
    for r in results:
        if "inflation-reduction-act" not in r["path"]:
            continue
        verdict = "met" if r["ingest_s"] <= GOAL_S else "MISSED"
        rate = r["embedded"] / r["embed_s"] if r["embed_s"] > 0 else float("nan")
        print(
            f"\nIRA goal <= {GOAL_S:.0f} s (batch {r['embed_batch']}): {verdict} — ingest {r['ingest_s']:.1f} s "
            f"({r['process_s']:.1f} s with imports and model load); embedding is "
            f"{100 * r['embed_s'] / r['ingest_s']:.0f}% of it at {rate:.1f} texts/s; the goal needs "
            f">= {r['embedded'] / max(1.0, GOAL_S - r['parse_s'] - r['write_s']):.0f} texts/s for "
            f"{r['embedded']:,} texts."
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder of PDFs (default: ../shared/data/pdfs)")
    ap.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="a part (ira, dobbs, regs, all) or a file/folder path; repeatable (default: all four parts)",
    )
    ap.add_argument("--embed-batch-size", type=int, nargs="+", default=[64], help="Settings.embed_batch_size values")
    ap.add_argument("--model-batch-size", type=int, default=None, help="MiniLM encode batch (default: its own, 64)")
    ap.add_argument(
        "--embedder",
        nargs="+",
        default=["local:all-MiniLM-L6-v2"],
        help="embedding model names, or 'st' (MiniLM on sentence-transformers/torch, the baseline)",
    )
    ap.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker is not None:
        result = worker(args.worker, args.embed_batch_size[0], args.model_batch_size, args.embedder[0])
        print(MARK + json.dumps(result), flush=True)
        return

    parts = [resolve(o, args.data) for o in (args.only or list(PARTS))]
    print(
        f"# ingest benchmark — {platform.node()}, {os.cpu_count()} cores, {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f} at start",
        flush=True,
    )
    results = []
    for label, path in parts:
        if not path.exists():
            print(f"{label}: {path} missing, skipped")
            continue
        for embedder in args.embedder:
            for batch in args.embed_batch_size:
                r = run_part(label, path, batch, args.model_batch_size, embedder)
                if r is not None:
                    results.append(r)
    print_tables(results)
    print(f"\nload average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
