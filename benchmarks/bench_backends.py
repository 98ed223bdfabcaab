"""The two index backends side by side: ingest throughput, hybrid query latency, memory and disk.

Run: python benchmarks/bench_backends.py                      (10k and 100k child chunks, both backends)
     python benchmarks/bench_backends.py --sizes 10000 --backends milvus --queries 100
     python benchmarks/bench_backends.py --today /work/main       (adds "embedded, today's code" rows)

Corpus (synthetic, so that sizes up to 1M need no PDFs and no embedder): documents of 48 children and 12
parents (4 children each), child texts of 60-110 words drawn Zipf-like from a 30,000-word vocabulary
(common words, legal words, pseudo-words, and a citation "§ 1.NNNa-N(b)" in every fifth child), dense
vectors random unit 384-d (MiniLM's dimension; the worst case for a graph index, and no embedding time
is counted). Queries: 8 words drawn the same way, with a random unit vector.

Each (backend, size) runs in a fresh process, one after the other:

- ingest: ``open_index(settings, dir, create=True).add_documents(...)`` of the whole corpus in one call,
  as ``lclfqa ingest`` does after embedding (embedded: one generation, BM25 + HNSW built; Milvus: batched
  inserts, BM25 computed by Milvus's function); chunks/s = children / seconds;
- query: ``lclfqa.index.search.search`` with ``RetrievalParams(k=8, depth=50)``, document scope off, as
  ``lclfqa search`` runs (1 BM25 + 1 dense list) and as the graph runs with a query2doc passage (2 + 2),
  and a scoped query (one document named by ``documents=``); p50/p95 over ``--queries`` timed calls after
  10 warm-up calls; the chunks read back are part of the time;
- memory: resident set of the process after opening the index and running the queries, minus the same
  process before opening it; for Milvus Lite also its server process (it runs the engine); disk: the
  index folder (embedded) or the Milvus Lite file.

``--today DIR`` also times the embedded index of the lclfqa checked out in DIR (the code before the index
room existed: ``write_index`` + ``Index.load`` + ``fused_search``), for "no slower than today".
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DO_NOT_TRACK", "1")
ROOT = Path(__file__).resolve().parents[1]
DIM = 384
CHILDREN_PER_DOC, CHILDREN_PER_PARENT = 48, 4
COMMON = (
    "the of and to in a is that for it as with be on by this are or from at an not which have has "
    "shall may must any such under section tax income credit deduction taxpayer return year amount "
    "paid agreement party parties notice data information user service policy provide use law court"
).split()


def vocabulary(rng: np.random.Generator, size: int = 30_000) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = list(dict.fromkeys(COMMON))
    while len(words) < size:
        n = int(rng.integers(4, 11))
        words.append("".join(rng.choice(letters, n)))
    return words[:size]


def zipf_words(rng: np.random.Generator, vocab: list[str], n: int) -> list[str]:
    ranks = np.minimum(rng.zipf(1.15, n), len(vocab)) - 1
    return [vocab[r] for r in ranks]


def corpus(n_children: int, seed: int = 0):  # noqa: ANN201 - (records, chunks, vectors)
    from lclfqa.ingest.document import CHILD, PARENT, Chunk

    try:
        from lclfqa.index.records import DocumentRecord
    except ImportError:  # today's code
        from lclfqa.ingest.index import DocumentRecord

    rng = np.random.default_rng(seed)
    vocab = vocabulary(rng)
    records, chunks = [], []
    n_docs = -(-n_children // CHILDREN_PER_DOC)
    made = 0
    for d in range(n_docs):
        name = f"doc-{d:06d}.txt"
        records.append(DocumentRecord(name, f"/data/{name}", f"{d:064x}", 10, 12, 0))
        k = min(CHILDREN_PER_DOC, n_children - made)
        parents = -(-k // CHILDREN_PER_PARENT)
        children = []
        for c in range(k):
            words = zipf_words(rng, vocab, int(rng.integers(60, 111)))
            if c % 5 == 0:
                words.append(f"§ 1.{rng.integers(1, 999)}a-{rng.integers(1, 9)}(b)")
            text = " ".join(words)
            pid = f"{d}:p{c // CHILDREN_PER_PARENT}"
            child = Chunk(f"{d}:c{c}", CHILD, name, text, ("Part",), 1, 1, parent_ids=(pid,), indexed_text=text)
            children.append(child)
        for p in range(parents):
            body = " ".join(ch.text for ch in children[p * CHILDREN_PER_PARENT : (p + 1) * CHILDREN_PER_PARENT])
            chunks.append(Chunk(f"{d}:p{p}", PARENT, name, body, ("Part",), 1, 1))
        chunks += children
        made += k
    vectors = rng.standard_normal((n_children, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = [" ".join(zipf_words(rng, vocab, 8)) for _ in range(400)]
    qvectors = rng.standard_normal((400, DIM)).astype(np.float32)
    return records, chunks, vectors, queries, qvectors / np.linalg.norm(qvectors, axis=1, keepdims=True)


class TableEmbeddings:
    """Query vectors by text, precomputed (query embedding is not part of the time)."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.table[t].tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.table[text].tolist()


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def milvus_server_rss() -> float:
    """RSS of this process's Milvus Lite server children (the engine runs there)."""
    import psutil

    return sum(c.memory_info().rss for c in psutil.Process().children(recursive=True)) / 2**20


def disk_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 2**20
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def percentiles(samples: list[float]) -> dict[str, float]:
    a = np.array(samples) * 1000
    return {"p50_ms": round(float(np.percentile(a, 50)), 2), "p95_ms": round(float(np.percentile(a, 95)), 2)}


def run_case(backend: str, n: int, n_queries: int, workdir: Path) -> dict:
    """One (backend, size) in this process; returns the measurements."""
    today = backend == "today"
    records, chunks, vectors, queries, qvectors = corpus(n)
    table = {q: v for q, v in zip(queries, qvectors, strict=True)}
    table.update({f"{q}\n{queries[-1 - i]}": qvectors[-1 - i] for i, q in enumerate(queries)})
    emb = TableEmbeddings(table)
    where = workdir / f"{backend}-{n}"
    shutil.rmtree(where, ignore_errors=True)
    base_rss = rss_mb(os.getpid())
    t0 = time.perf_counter()
    if today:
        from lclfqa.ingest.index import Index, write_index
        from lclfqa.retrieval import fused_search

        write_index(where, records, chunks, vectors, embedding_model="bench", settings={})
        ingest_s = time.perf_counter() - t0
        index = Index.load(where)

        def hybrid(sparse: list[str], dense: list[str], documents: list[str] | None = None) -> list:
            return fused_search(
                index, emb, sparse_queries=sparse, dense_queries=dense, k=8, depth=50, documents=documents
            )
    else:
        from lclfqa.config import Settings
        from lclfqa.index.factory import open_index
        from lclfqa.index.records import DocumentBatch
        from lclfqa.index.search import RetrievalParams, search

        settings = Settings(index_backend=backend)
        index = open_index(settings, where, create=True)
        index.add_documents(DocumentBatch(records, chunks, vectors, "bench"))
        ingest_s = time.perf_counter() - t0
        index.close()
        index = open_index(settings, where)
        params = RetrievalParams(k=8, depth=50, document_scope=False)

        def hybrid(sparse: list[str], dense: list[str], documents: list[str] | None = None) -> list:
            if documents is None:
                return search(index, emb, sparse[0], params, sparse_queries=sparse, dense_queries=dense)[1]
            from lclfqa.llm.models import embed_array

            fused = index.hybrid(sparse, embed_array(emb, dense), params, documents)
            return [index.chunk(cid) for cid, _ in fused]

    names = list(index.documents)
    rng = np.random.default_rng(1)
    shapes = {
        "1+1 (lclfqa search)": lambda q, i: hybrid([q], [q]),
        "2+2 (question + passage)": lambda q, i: hybrid([q, f"{q} {queries[-1 - i]}"], [q, f"{q}\n{queries[-1 - i]}"]),
        "1+1 scoped to 1 document": lambda q, i: hybrid([q], [q], [names[int(rng.integers(len(names)))]]),
    }
    timings = {}
    for label, call in shapes.items():
        for i in range(10):
            call(queries[i], i)
        samples = []
        for i in range(n_queries):
            q = queries[10 + i % (len(queries) - 10)]
            t = time.perf_counter()
            hits = call(q, 10 + i)
            samples.append(time.perf_counter() - t)
            assert len(hits) == 8, (label, len(hits))
        timings[label] = percentiles(samples)
    rss = rss_mb(os.getpid()) - base_rss
    server = milvus_server_rss() if backend == "milvus" else 0.0
    index.close()
    disk_path = where / "milvus.db" if backend == "milvus" else where
    return {
        "backend": backend,
        "children": n,
        "parents": sum(c.kind == "parent" for c in chunks),
        "ingest_s": round(ingest_s, 1),
        "ingest_chunks_per_s": round(n / ingest_s),
        "queries": timings,
        "client_rss_mb": round(rss, 1),
        "server_rss_mb": round(server, 1),
        "disk_mb": round(disk_mb(disk_path), 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--backends", default="embedded,milvus")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--today", type=Path, help="an older lclfqa checkout to time as 'embedded, today's code'")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "lclfqa-bench-backends")
    ap.add_argument("--case", help=argparse.SUPPRESS)  # backend:size, run in this process
    args = ap.parse_args()
    if args.case:
        backend, n = args.case.split(":")
        print(json.dumps(run_case(backend, int(n), args.queries, args.workdir)))
        return
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    backends = args.backends.split(",") + (["today"] if args.today else [])
    for n in map(int, args.sizes.split(",")):
        for backend in backends:
            cwd = args.today if backend == "today" else ROOT
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--case",
                f"{backend}:{n}",
                "--queries",
                str(args.queries),
                "--workdir",
                str(args.workdir),
            ]
            print(f"running {backend} at {n:,} children", file=sys.stderr, flush=True)
            env = {**os.environ, "PYTHONPATH": str(cwd)}
            out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
            if out.returncode:
                print(out.stderr[-3000:], file=sys.stderr)
                continue
            row = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(json.dumps({"machine": platform.platform(), "cpus": os.cpu_count(), "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
