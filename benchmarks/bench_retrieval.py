"""Hybrid retrieval latency: lclfqa's ``search`` vs LangChain's EnsembleRetriever, same run, same texts.

Run: python benchmarks/bench_retrieval.py                 (10k and 100k chunks, 50 queries)
     python benchmarks/bench_retrieval.py --sizes 10000 --vectors random
Options: --data DIR (PDFs, default ../shared/data/pdfs), --queries N, --embed N (real texts embedded),
--lc-seconds S (time budget for the LangChain side per size; at least 10 queries are always timed).

Corpus. Real child texts come from parsing and chunking every PDF under --data with the default settings
(no embedding). ``--vectors real`` (default): ``--embed`` (2,000) of them are embedded once with
all-MiniLM-L6-v2 (cached under /tmp); every further chunk recombines the first half of one embedded text
with the second half of another, and its vector is the matching mix of their vectors plus Gaussian noise
(norm ~0.25), re-normalised, so the vectors stay clustered like real ones. ``--vectors random`` uses
random unit vectors instead (no model needed; the worst case for HNSW). Queries are 8-word spans of
random chunks (4-query runs add 3 more spans of the same chunk, standing in for rewrites), embedded
with MiniLM too (``random``: the target's vector plus noise).

Both systems get the same texts and the same vectors. Query embedding is excluded from BOTH sides: each
is given a fake ``Embeddings`` that returns the precomputed vector of a query string.

- lclfqa: ``write_index`` (HNSW from 10k chunks) + ``EmbeddedBackend.load``, then ``search(k=8)`` (bm25s
  weights + FAISS + weighted RRF over depth-50 lists, then the 8 chunks read from SQLite; the chunk cache
  is cleared before every timed call).
- LangChain: ``EnsembleRetriever(retrievers=[BM25Retriever (rank-bm25, whitespace split), FAISS
  .as_retriever()], weights=[0.5, 0.5])``, both with k=8, ``invoke(query)`` — one query per call.

Goal (issue 3): hybrid <= 5 ms p50 and >= 40x faster than EnsembleRetriever at 100k chunks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("DO_NOT_TRACK", "1")
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "pdfs"
DIM = 384
CACHE = Path(tempfile.gettempdir()) / "lclfqa-bench-retrieval"
GOAL_MS, GOAL_X = 5.0, 40.0


# ----------------------------------------------------------------------------------------- corpus


def real_texts(data: Path) -> list[str]:
    """Indexed texts (prefix + header + text) of every child and footnote chunk of the PDFs, default settings."""
    from lclfqa.config import Settings
    from lclfqa.index.records import embedding_text
    from lclfqa.ingest.chunking import chunk_document, document_prefix
    from lclfqa.ingest.document import PARENT
    from lclfqa.ingest.formats import parse_file

    s = Settings()
    paths = sorted(data.rglob("*.pdf"))
    key = hashlib.sha256(repr([(str(p), p.stat().st_size, p.stat().st_mtime) for p in paths]).encode()).hexdigest()
    cached = CACHE / f"texts-{key[:16]}.json"
    if cached.exists():
        return json.loads(cached.read_text(encoding="utf-8"))
    texts = []
    for path in paths:
        doc = parse_file(path)
        chunks = chunk_document(
            doc,
            parent_size=s.parent_size,
            child_size=s.child_size,
            footnote_chunks=s.footnote_chunks,
            prefix=document_prefix(path.name, "", s.metadata_prefix),
        )
        texts += [embedding_text(c) for c in chunks if c.kind != PARENT]
    CACHE.mkdir(exist_ok=True)
    cached.write_text(json.dumps(texts), encoding="utf-8")
    return texts


def minilm(texts: list[str]) -> np.ndarray:
    """MiniLM vectors of ``texts``, cached on disk by the texts' hash (embedding is the slow part here)."""
    key = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"minilm-{key}.npy"
    if path.exists():
        return np.load(path)
    from lclfqa.llm.models import LOCAL_EMBEDDER, embed_array, get_embeddings

    t = time.perf_counter()
    vectors = embed_array(get_embeddings(LOCAL_EMBEDDER), texts)
    print(f"  embedded {len(texts)} texts with MiniLM in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    CACHE.mkdir(exist_ok=True)
    np.save(path, vectors)
    return vectors


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def embed_base(pool: list[str], mode: str, n_embed: int) -> tuple[list[str], np.ndarray]:
    """``n_embed`` real texts (a fixed random sample of ``pool``) and their vectors, computed once."""
    rng = np.random.default_rng(0)
    base = [pool[i] for i in rng.choice(len(pool), size=min(n_embed, len(pool)), replace=False)]
    return base, minilm(base) if mode == "real" else unit(rng.standard_normal((len(base), DIM)))


def build_corpus(base: list[str], base_vec: np.ndarray, n: int, mode: str, rng: np.random.Generator):
    """``n`` texts and unit vectors: the real embedded texts first, then noisy half-and-half recombinations."""
    base, base_vec = base[:n], base_vec[:n]
    words = [t.split() for t in base]
    texts, vecs = list(base), [base_vec]
    extra = n - len(base)
    if extra > 0:
        a = rng.integers(0, len(base), extra)
        b = rng.integers(0, len(base), extra)
        for i, j in zip(a, b, strict=True):
            wa, wb = words[i], words[j]
            texts.append(" ".join(wa[: len(wa) // 2] + wb[len(wb) // 2 :]))
        if mode == "real":
            noise = rng.standard_normal((extra, DIM)).astype(np.float32) * (0.25 / np.sqrt(DIM))
            vecs.append(unit(0.5 * base_vec[a] + 0.5 * base_vec[b] + noise))
        else:
            vecs.append(unit(rng.standard_normal((extra, DIM))))
    return texts, np.vstack(vecs)


def make_queries(texts: list[str], vectors: np.ndarray, count: int, mode: str, rng: np.random.Generator):
    """``count`` groups of 4 strings (question + 3 stand-in rewrites): 8-word spans of one random chunk."""
    groups = []
    for t in rng.integers(0, len(texts), count):
        w = [x for x in texts[t].split() if re.search(r"\w", x)]
        starts = rng.integers(0, max(1, len(w) - 8), 4)
        groups.append((int(t), [" ".join(w[s : s + 8]) for s in starts]))
    flat = [q for _, qs in groups for q in qs]
    if mode == "real":
        qvec = minilm(flat)
    else:
        targets = np.repeat([t for t, _ in groups], 4)
        qvec = unit(vectors[targets] + rng.standard_normal((len(flat), DIM)) * (0.5 / np.sqrt(DIM)))
    return [qs for _, qs in groups], {q: v for q, v in zip(flat, qvec, strict=True)}


# ---------------------------------------------------------------------------------------- systems


def precomputed_embeddings(table: dict[str, np.ndarray]):
    from langchain_core.embeddings import Embeddings

    lists = {q: v.tolist() for q, v in table.items()}

    class Precomputed(Embeddings):
        """Returns the stored vector of a query: query embedding is excluded from the timings."""

        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [lists[t] for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return lists[text]

    return Precomputed()


def build_lclfqa(texts: list[str], vectors: np.ndarray, directory: Path):
    from lclfqa.index.embedded import EmbeddedBackend
    from lclfqa.index.records import DocumentRecord
    from lclfqa.index.writer import write_index
    from lclfqa.ingest.document import CHILD, Chunk

    docs = [DocumentRecord(f"doc-{d:04d}.pdf", "synthetic", "0" * 64, 1, 0, 0) for d in range(len(texts) // 1000 + 1)]
    chunks = [Chunk(f"c{i}", CHILD, f"doc-{i // 1000:04d}.pdf", t, (), 1, 1) for i, t in enumerate(texts)]
    write_index(directory, docs, chunks, vectors, embedding_model="bench:precomputed", settings={})
    return EmbeddedBackend.load(directory)


def build_langchain(texts: list[str], vectors: np.ndarray, embeddings):
    from langchain_classic.retrievers import EnsembleRetriever
    from langchain_community.retrievers import BM25Retriever
    from langchain_community.vectorstores import FAISS

    bm25 = BM25Retriever.from_texts(texts, k=8)
    store = FAISS.from_embeddings(list(zip(texts, vectors.tolist(), strict=True)), embeddings)
    dense = store.as_retriever(search_kwargs={"k": 8})
    return EnsembleRetriever(retrievers=[bm25, dense], weights=[0.5, 0.5]), dense, store


def timed_ms(fn, args_list, budget_s: float | None = None, minimum: int = 10) -> np.ndarray:
    """Per call: (wall ms, process CPU ms). CPU time is what a call costs when it is not preempted: on the
    shared 2 cores a call longer than a scheduler slice (~3-6 ms at load 6) waits ~20 ms for its next one."""
    out = []
    started = time.perf_counter()
    for args in args_list:
        t, c = time.perf_counter_ns(), time.process_time_ns()
        fn(*args)
        out.append(((time.perf_counter_ns() - t) / 1e6, (time.process_time_ns() - c) / 1e6))
        if budget_s is not None and len(out) >= minimum and time.perf_counter() - started > budget_s:
            break
    return np.array(out)


# ------------------------------------------------------------------------------------------- main


def run_size(n: int, base: list[str], base_vec: np.ndarray, args, rows: list[tuple], notes: list[str]) -> None:
    from lclfqa.index.search import RetrievalParams, search

    params = RetrievalParams(k=8, document_scope=False)

    rng = np.random.default_rng(n)
    t = time.perf_counter()
    texts, vectors = build_corpus(base, base_vec, n, args.vectors, rng)
    groups, table = make_queries(texts, vectors, args.queries, args.vectors, rng)
    emb = precomputed_embeddings(table)
    print(f"  {n:,} chunks: corpus + queries in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="lclfqa-bench-retrieval-") as tmp:
        t = time.perf_counter()
        index = build_lclfqa(texts, vectors, Path(tmp) / "index")
        ours_build = time.perf_counter() - t
        dense_kind = index.manifest["dense"]["kind"]
        faiss_name = type(index._hnsw).__name__ if index._hnsw is not None else "exact scan (numpy einsum)"
        t = time.perf_counter()
        ensemble, lc_dense, store = build_langchain(texts, vectors, emb)
        lc_build = time.perf_counter() - t
        print(
            f"  {n:,} chunks: lclfqa index built in {ours_build:.1f} s ({dense_kind}: {faiss_name}), "
            f"LangChain in {lc_build:.1f} s ({type(store.index).__name__})",
            file=sys.stderr,
            flush=True,
        )

        def ours(queries):
            index._cache.clear()  # cold chunk cache: the 8 hits are read from SQLite every time
            _, hits = search(index, emb, queries[0], params, sparse_queries=queries, dense_queries=queries)
            assert len(hits) == 8

        one = [([qs[0]],) for qs in groups]
        four = [(qs,) for qs in groups]
        for fn, calls in ((ours, one), (ours, four), (ensemble.invoke, [(qs[0],) for qs in groups[:3]])):
            timed_ms(fn, calls)  # warm-up: imports, caches, first-touch of mmapped pages
        ours1 = timed_ms(ours, one * args.passes)
        ours4 = timed_ms(ours, four * args.passes)
        bm25_only = timed_ms(index.search_sparse, [(qs[0], 50) for qs in groups])
        dense_only = timed_ms(index.search_dense, [(table[qs[0]][None, :], 50) for qs in groups])
        lc = timed_ms(ensemble.invoke, [(qs[0],) for qs in groups], budget_s=args.lc_seconds)
        lc_dense_ms = timed_ms(lc_dense.invoke, [(qs[0],) for qs in groups])
        # FAISS's default OpenMP pool (one thread per core) costs more than a flat scan on 2 busy cores;
        # the same LangChain setup with one FAISS thread, for a fairer reference:
        import faiss

        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(1)
        lc_1t = timed_ms(ensemble.invoke, [(qs[0],) for qs in groups], budget_s=args.lc_seconds)
        lc_dense_1t = timed_ms(lc_dense.invoke, [(qs[0],) for qs in groups])
        faiss.omp_set_num_threads(threads)
        index.close()

    lc_p50 = (float(np.percentile(lc[:, 0], 50)), float(np.percentile(lc[:, 1], 50)))
    ours_p50 = float(np.percentile(ours1[:, 0], 50))
    lc1_p50 = float(np.percentile(lc_1t[:, 0], 50))
    notes.append(f"{n:,}: 1 query is {lc1_p50 / ours_p50:.0f}x faster than LangChain with 1 FAISS thread (wall p50)")
    rows += [
        (n, f"LangChain EnsembleRetriever (BM25Retriever + FAISS), 1 query, FAISS {threads} threads", lc, None),
        (n, "  of which FAISS retriever alone (IndexFlatL2)", lc_dense_ms, None),
        (n, "LangChain EnsembleRetriever, 1 query, FAISS 1 thread", lc_1t, None),
        (n, "  of which FAISS retriever alone (IndexFlatL2, 1 thread)", lc_dense_1t, None),
        (n, f"lclfqa search, 1 query ({faiss_name})", ours1, lc_p50),
        (n, "lclfqa search, 4 queries (vs LangChain's 1)", ours4, lc_p50),
        (n, "  of which search_sparse k=50", bm25_only, None),
        (n, "  of which search_dense k=50", dense_only, None),
    ]
    rows.append((n, f"build: lclfqa write_index+load {ours_build:.1f} s, LangChain {lc_build:.1f} s", None, None))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="folder of PDFs (default: ../shared/data/pdfs)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000], help="child chunk counts")
    ap.add_argument("--queries", type=int, default=50, help="queries per size (default 50)")
    ap.add_argument("--passes", type=int, default=3, help="timed passes over the queries for lclfqa (default 3)")
    ap.add_argument("--vectors", choices=["real", "random"], default="real", help="see the module docstring")
    ap.add_argument("--embed", type=int, default=2000, help="real texts embedded with MiniLM (default 2000)")
    ap.add_argument("--lc-seconds", type=float, default=60.0, help="time budget of the LangChain side per size")
    args = ap.parse_args()

    import bm25s
    import faiss
    import langchain_classic
    import langchain_community

    print(
        f"# retrieval benchmark — {platform.node()}, {os.cpu_count()} cores, {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.1f} at start",
        flush=True,
    )
    print(
        f"# faiss {faiss.__version__}, bm25s {bm25s.__version__}, "
        f"langchain-community {langchain_community.__version__}, "
        f"langchain-classic {getattr(langchain_classic, '__version__', '?')}; vectors: {args.vectors}"
    )
    t = time.perf_counter()
    pool = real_texts(args.data)
    print(f"  {len(pool):,} real child texts parsed in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    base, base_vec = embed_base(pool, args.vectors, args.embed)
    rows: list[tuple] = []
    notes: list[str] = []
    for n in args.sizes:
        run_size(n, base, base_vec, args, rows, notes)

    print(
        "\n| chunks | system | queries | p50 ms | p95 ms | speed-up vs LangChain default (wall p50) "
        "| p50 CPU ms | p95 CPU ms | speed-up (CPU p50) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    verdicts = []
    for n, name, ms, lc_p50 in rows:
        if ms is None:
            print(f"| {n:,} | {name} | | | | | | | |")
            continue
        p50, p95 = np.percentile(ms[:, 0], 50), np.percentile(ms[:, 0], 95)
        c50, c95 = np.percentile(ms[:, 1], 50), np.percentile(ms[:, 1], 95)
        speed = f"{lc_p50[0] / p50:.0f}x" if lc_p50 else ""
        cspeed = f"{lc_p50[1] / max(c50, 1e-3):.0f}x" if lc_p50 else ""
        print(f"| {n:,} | {name} | {len(ms)} | {p50:.2f} | {p95:.2f} | {speed} | {c50:.2f} | {c95:.2f} | {cspeed} |")
        if lc_p50 and n >= 100_000 and "1 query" in name:
            ok = p50 <= GOAL_MS and lc_p50[0] / p50 >= GOAL_X
            verdicts.append(
                f"goal at {n:,} (<= {GOAL_MS:.0f} ms p50, >= {GOAL_X:.0f}x, wall clock): {'met' if ok else 'MISSED'}"
            )
    for line in notes + verdicts:
        print(line)
    print(f"\nload average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
