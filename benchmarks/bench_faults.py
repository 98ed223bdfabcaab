"""Faults and bad inputs, as a new user would meet them: counts of clear errors and of data lost.

Run: python benchmarks/bench_faults.py                    (every section, ~5 min on 2 busy cores)
     python benchmarks/bench_faults.py --only cli memory  (sections: cli, loss, concurrency, kill,
                                                           corrupt, hostile, memory)
Options: --runs N (concurrency and kill -9 tries, default 20 and 10), --big-mb N (default 300).

Every CLI case runs ``python -m lclfqa.cli`` in a fresh process, as typed in a shell, and counts it
clear when it exits with the expected code and prints no traceback. Ingests inside the benchmark use a
deterministic fake embedder (``DeterministicFakeEmbedding``, 384-d) where the section is about the
index, not the embedder (loss, concurrency, kill, corrupt, memory); the CLI section uses the real
default embedder. Results print as a Markdown table for benchmarks/README.md ("Reliability").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
ENV = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"} | {"PYTHONPATH": str(ROOT)}
PY = sys.executable
TEXT = (
    "1. Scope\n\n"
    + "This note covers the child and dependent care credit. " * 30
    + "\n\n2. Spouses\n\n"
    + ("Married taxpayers must file a joint return to claim the credit. " * 30)
)

rows: list[tuple[str, str, int, int, str]] = []  # section, case, tried, clear/ok, data lost


def record(section: str, case: str, tried: int, ok: int, lost: str = "0") -> None:
    rows.append((section, case, tried, ok, lost))
    print(f"  {section:<12} {case:<62} {ok}/{tried} ok, lost {lost}", flush=True)


#: As root, folder modes do not apply; the mode-000 cases run with root's two overriding capabilities dropped.
NO_OVERRIDES = (
    ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
    if os.geteuid() == 0 and shutil.which("setpriv")
    else []
)


def cli(*args: str, modes_apply: bool = False) -> subprocess.CompletedProcess:
    prefix = NO_OVERRIDES if modes_apply else []
    return subprocess.run(
        [*prefix, PY, "-m", "lclfqa.cli", *args], capture_output=True, text=True, env=ENV, timeout=600
    )


def folder(where: Path, *names: str) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    for n in names:
        (where / n).write_text(f"{n}\n\n{TEXT}", encoding="utf-8")
    return where


def fake_ingest(paths, index, **settings):  # noqa: ANN001, ANN201
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from lclfqa.config import Settings
    from lclfqa.index.ingest import ingest

    return ingest(paths, index, Settings(**settings), embeddings=DeterministicFakeEmbedding(size=384))


def documents(index: Path) -> set[str]:
    from lclfqa.index.embedded import EmbeddedBackend

    with EmbeddedBackend.load(index) as ix:
        return set(ix.documents)


# --------------------------------------------------------------------------------------------- cli


def section_cli(tmp: Path) -> None:
    docs = folder(tmp / "docs", "a.txt", "b.txt")
    index = tmp / "idx"
    base = cli("ingest", str(docs), "--index", str(index), "-q")
    assert base.returncode == 0, base.stderr
    (tmp / "file.txt").write_text("x", encoding="utf-8")
    (tmp / "eight.toml").write_text('top_k = "eight"\n', encoding="utf-8")
    (tmp / "syntax.toml").write_text("top_k = \n", encoding="utf-8")
    (tmp / "unknown.toml").write_text("colour = 1\n", encoding="utf-8")
    (tmp / "float.toml").write_text("top_k = 8.5\n", encoding="utf-8")
    (tmp / "sizes.toml").write_text("child_size = 900\nparent_size = 800\n", encoding="utf-8")
    openai = tmp / "openai-idx"
    fake_ingest([docs], openai, embedding_model="openai:text-embedding-3-small")
    locked = tmp / "locked"
    locked.mkdir()
    with_locked = tmp / "with-locked"
    folder(with_locked / "sub", "x.txt")
    moved = folder(tmp / "to-move", "m.txt")
    moved_idx = tmp / "moved-idx"
    assert cli("ingest", str(moved), "--index", str(moved_idx), "-q").returncode == 0
    moved.rename(tmp / "moved-away")
    plain = tmp / "plain"
    folder(plain, "p.txt")
    (docs / "empty.txt").write_bytes(b"")
    cases: list[tuple[str, list[str], int]] = [
        ("ingest --index pointing at a file", ["ingest", str(docs), "--index", str(tmp / "file.txt"), "-q"], 2),
        ("search an index built with another embedder (no key)", ["search", "q", "--index", str(openai)], 2),
        ('top_k = "eight" in the TOML', ["ask", "q", "--index", str(index), "--config", str(tmp / "eight.toml")], 2),
        ("search -k -1", ["search", "credit", "--index", str(index), "-k", "-1"], 2),
        ("search -k 0", ["search", "credit", "--index", str(index), "-k", "0"], 2),
        (
            "ingest --child-size > --parent-size",
            ["ingest", str(docs), "--index", str(index), "--child-size", "5000"],
            2,
        ),
        ("child_size > parent_size in the TOML", ["ingest", str(docs), "--config", str(tmp / "sizes.toml")], 2),
        (
            "re-chunk with the sources moved (kept, exit 1)",
            ["ingest", str(plain), "--index", str(moved_idx), "-q", "--child-size", "200", "--parent-size", "800"],
            1,
        ),
        ("ingest a folder holding an empty file (exit 1)", ["ingest", str(docs), "--index", str(index), "-q"], 1),
        ("--index under a folder of mode 000", ["ingest", str(docs), "--index", str(locked / "i"), "-q"], 2),
        (
            "a subfolder of mode 000 (reported, exit 1)",
            ["ingest", str(with_locked), "--index", str(tmp / "wl"), "-q"],
            1,
        ),
        ("ask -k 0", ["ask", "q", "--index", str(index), "-k", "0"], 2),
        ("TOML syntax error", ["ask", "q", "--index", str(index), "--config", str(tmp / "syntax.toml")], 2),
        ("unknown setting in the TOML", ["ask", "q", "--index", str(index), "--config", str(tmp / "unknown.toml")], 2),
        ("top_k = 8.5 in the TOML", ["ask", "q", "--index", str(index), "--config", str(tmp / "float.toml")], 2),
        ("--config that does not exist", ["ask", "q", "--config", str(tmp / "none.toml")], 2),
        ("ingest a path that does not exist", ["ingest", str(tmp / "nope"), "-q"], 2),
        ("search a missing index", ["search", "q", "--index", str(tmp / "none")], 2),
        ("info on a file", ["info", "--index", str(tmp / "file.txt")], 2),
        ("info --check on a missing index", ["info", "--check", "--index", str(tmp / "none")], 2),
        ("chat --memory pointing at a folder", ["chat", "--index", str(index), "--memory", str(tmp)], 2),
        ("--rewrites 2", ["ask", "q", "--index", str(index), "--rewrites", "2"], 2),
        ("--pipeline bogus", ["ask", "q", "--index", str(index), "--pipeline", "bogus"], 2),
        ("--chunking bogus", ["ingest", str(docs), "--index", str(index), "--chunking", "bogus"], 2),
        ("parse a missing file", ["parse", str(tmp / "none.pdf")], 2),
        (
            "ingest --no-wait while no one writes (works)",
            ["ingest", str(plain), "--index", str(tmp / "nw"), "-q", "--no-wait"],
            0,
        ),
    ]
    locked.chmod(0)
    (with_locked / "sub").chmod(0)
    env_cases = [("LCLFQA_TOP_K=eight", {"LCLFQA_TOP_K": "eight"}, ["ask", "q", "--index", str(index)], 2)]
    clear = 0
    try:
        for name, args, code in cases:
            done = cli(*args, modes_apply="mode 000" in name)
            ok = done.returncode == code and "Traceback" not in done.stderr + done.stdout
            clear += ok
            if not ok:
                print(f"    NOT CLEAR: {name}: exit {done.returncode}\n{textwrap.indent(done.stderr[-800:], '      ')}")
        for name, extra, args, code in env_cases:
            done = subprocess.run([PY, "-m", "lclfqa.cli", *args], capture_output=True, text=True, env={**ENV, **extra})
            ok = done.returncode == code and "Traceback" not in done.stderr
            clear += ok
            if not ok:
                print(f"    NOT CLEAR: {name}: exit {done.returncode}\n{done.stderr[-800:]}")
    finally:
        locked.chmod(0o755)
        (with_locked / "sub").chmod(0o755)
    record("cli", "misuse and bad inputs: expected exit code, no traceback", len(cases) + len(env_cases), clear)
    lost = 0 if documents(moved_idx) >= {"m.txt", "p.txt"} else 1
    record("cli", "re-chunk with moved sources: documents kept", 1, 1 - lost, str(lost))


# -------------------------------------------------------------------------------------------- loss


def section_loss(tmp: Path) -> None:
    docs = folder(tmp / "docs", *[f"d{i}.txt" for i in range(5)])
    index = tmp / "idx"
    fake_ingest([docs], index, child_size=200, parent_size=800)
    shutil.move(docs, tmp / "moved")
    report = fake_ingest([folder(tmp / "o1", "x.txt")], index)
    lost = 5 - len(documents(index) & {f"d{i}.txt" for i in range(5)})
    record("loss", "re-chunk, 5 sources moved away (kept + reported)", 5, len(getattr(report, "kept", [])), str(lost))
    shutil.move(tmp / "moved", docs)
    cwd = os.getcwd()
    try:
        os.chdir(tmp)
        fake_ingest(["docs"], tmp / "rel-idx", child_size=200, parent_size=800)
        os.chdir(tmp / "o1")
        report = fake_ingest([tmp / "o1"], tmp / "rel-idx")
    finally:
        os.chdir(cwd)
    lost = 5 - len(documents(tmp / "rel-idx") & {f"d{i}.txt" for i in range(5)})
    record("loss", "re-chunk from another working folder (re-read by absolute path)", 5, 5 - lost, str(lost))
    (docs / "d0.txt").write_text("changed", encoding="utf-8")
    report = fake_ingest([folder(tmp / "o2", "y.txt")], index, child_size=300, parent_size=900)
    lost = 5 - len(documents(index) & {f"d{i}.txt" for i in range(5)})
    record(
        "loss",
        "re-chunk with one source changed since indexed (kept + reported)",
        1,
        len(getattr(report, "kept", [])),
        str(lost),
    )


# ------------------------------------------------------------------------------------- concurrency


def section_concurrency(tmp: Path, runs: int) -> None:
    script = textwrap.dedent(
        """
        import sys, time
        from langchain_core.embeddings import DeterministicFakeEmbedding
        from lclfqa.config import Settings
        from lclfqa.index.ingest import ingest
        class Slow(DeterministicFakeEmbedding):
            def embed_documents(self, texts):
                time.sleep(0.3)
                return super().embed_documents(texts)
        while time.time() < float(sys.argv[3]):
            time.sleep(0.005)
        ingest([sys.argv[1]], sys.argv[2], Settings(), embeddings=Slow(size=384))
        """
    )
    lost = runs_with_loss = 0
    for run in range(runs):
        a = folder(tmp / f"a{run}", f"a{run}.txt")
        b = folder(tmp / f"b{run}", f"b{run}.txt")
        index = tmp / f"idx{run}"
        start = str(time.time() + 4.0)  # both processes imported by then: they start together
        procs = [subprocess.Popen([PY, "-c", script, str(f), str(index), start], env=ENV) for f in (a, b)]
        codes = [p.wait(120) for p in procs]
        got = documents(index)
        missing = 2 - len(got & {f"a{run}.txt", f"b{run}.txt"})
        lost += missing
        runs_with_loss += missing > 0
        assert codes == [0, 0], codes
    record(
        "concurrency",
        f"two `ingest` processes into one index at once, {runs} runs",
        runs,
        runs - runs_with_loss,
        str(lost),
    )


# -------------------------------------------------------------------------------------------- kill


def section_kill(tmp: Path, runs: int) -> None:
    docs = folder(tmp / "docs", *[f"d{i}.txt" for i in range(40)])
    index = tmp / "idx"
    fake_ingest([folder(tmp / "first", "first.txt")], index)
    script = textwrap.dedent(
        """
        import sys
        from langchain_core.embeddings import DeterministicFakeEmbedding
        from lclfqa.config import Settings
        from lclfqa.index.ingest import ingest
        ingest([sys.argv[1]], sys.argv[2], Settings(child_size=int(sys.argv[3])),
               embeddings=DeterministicFakeEmbedding(size=384))
        """
    )
    survived = 0
    rng = random.Random(7)
    for run in range(runs):
        p = subprocess.Popen([PY, "-c", script, str(docs), str(index), str(300 + run)], env=ENV)
        time.sleep(rng.uniform(1.5, 6.0))
        p.send_signal(signal.SIGKILL)
        p.wait()
        try:
            got = documents(index)
            ok = "first.txt" in got and (got == {"first.txt"} or got >= {f"d{i}.txt" for i in range(40)})
        except Exception as exc:  # noqa: BLE001
            print(f"    run {run}: {exc}")
            ok = False
        survived += ok
    after = fake_ingest([docs], index)  # the lock died with the process: the next writer goes on
    record(
        "kill",
        f"kill -9 at a random moment of an ingest, {runs} runs (index loads)",
        runs,
        survived,
        "0" if "first.txt" in documents(index) and after.ok else "?",
    )


# ----------------------------------------------------------------------------------------- corrupt


def section_corrupt(tmp: Path) -> None:
    import numpy as np

    from lclfqa.index.embedded import EmbeddedBackend
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.writer import write_index
    from tests.test_index import make_corpus

    def fresh() -> Path:
        where = tmp / "idx"
        shutil.rmtree(where, ignore_errors=True)
        documents_, chunks, vectors = make_corpus(1)
        write_index(where, documents_, chunks, vectors, embedding_model="test", settings={}, hnsw=True)
        return where / (where / "CURRENT").read_text().strip()

    def overwrite(rel: str, where: str) -> None:
        path = gen / rel
        data = bytearray(path.read_bytes())
        at = {"start": 0, "middle": len(data) // 2, "end": max(0, len(data) - 64)}[where]
        data[at : at + 64] = os.urandom(64)[: len(data) - at]
        path.write_bytes(bytes(data))

    damages = {}
    for rel in ("chunks.sqlite", "dense.npy", "dense.hnsw", "bm25/data.csc.index.npy", "bm25/vocab.index.json"):
        for where in ("start", "middle", "end"):
            damages[f"garbage at the {where} of {rel}"] = lambda rel=rel, where=where: overwrite(rel, where)
    damages["truncated chunks.sqlite"] = lambda: (gen / "chunks.sqlite").write_bytes(
        (gen / "chunks.sqlite").read_bytes()[:4096]
    )
    damages["dense.hnsw deleted"] = lambda: (gen / "dense.hnsw").unlink()
    damages["manifest.json garbage"] = lambda: (gen / "manifest.json").write_bytes(os.urandom(200))
    damages["CURRENT garbage"] = lambda: (gen.parent / "CURRENT").write_bytes(os.urandom(20))
    damages["4 KB appended to dense.npy"] = lambda: (gen / "dense.npy").write_bytes(
        (gen / "dense.npy").read_bytes() + os.urandom(4096)
    )
    clear = 0
    for name, damage in damages.items():
        gen = fresh()
        damage()
        try:
            with EmbeddedBackend.load(gen.parent) as ix:
                ix.search_sparse("credit", 3)
                ix.search_dense(np.ones((1, ix.dimension), dtype=np.float32), 3)
            print(f"    LOADED despite: {name}")
        except IndexStoreError as exc:
            clear += "ingest" in str(exc)
        except Exception as exc:  # noqa: BLE001
            print(f"    NOT CLEAR: {name}: {type(exc).__name__}: {exc}")
    record(
        "corrupt",
        "damaged index files: 'index corrupted … re-ingest' or another clear error",
        len(damages),
        clear,
        "n/a",
    )


# ----------------------------------------------------------------------------------------- hostile


def section_hostile(tmp: Path) -> None:
    import ormsgpack

    from lclfqa.ingest.discovery import find_sources

    docs = folder(tmp / "docs", "a.txt")
    (docs / "passwd.txt").symlink_to("/etc/passwd")
    (docs / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "gone.txt").symlink_to(tmp / "deleted.txt")
    found = find_sources([docs], {".txt"})
    names = {n for _, n in found.files}
    reported = {Path(p).name for p, _ in found.problems}
    record(
        "hostile",
        "link to /etc/passwd, a loop, a dangling link: not followed, each reported",
        3,
        len(reported & {"passwd.txt", "loop", "gone.txt"}) if "passwd.txt" not in names else 0,
    )
    # a planted chat memory: one real turn through the CLI is not needed; write a LangGraph checkpoint table
    from langgraph.checkpoint.sqlite import SqliteSaver

    memory = tmp / "chat.sqlite"
    marker = tmp / "PWNED"
    con = sqlite3.connect(memory, check_same_thread=False)
    saver = SqliteSaver(con)
    saver.setup()
    payload = ormsgpack.Ext(0, ormsgpack.packb(["os", "system", f"touch {marker}"]))
    blob = ormsgpack.packb(
        {
            "v": 4,
            "id": "1",
            "ts": "2026-01-01T00:00:00+00:00",
            "channel_values": {"question": payload},
            "channel_versions": {},
            "versions_seen": {},
        }
    )
    con.execute("INSERT INTO checkpoints VALUES ('t', '', '1', NULL, 'msgpack', ?, '{}')", (blob,))
    con.commit()
    con.close()
    from lclfqa.safe_load import UnsafeData, open_chat_memory

    strict = open_chat_memory(memory)
    try:
        strict.get_tuple({"configurable": {"thread_id": "t"}})
        refused = 0
    except UnsafeData:
        refused = 1
    record(
        "hostile",
        "planted chat.sqlite (os.system in a msgpack extension): refused",
        1,
        refused if not marker.exists() else 0,
    )
    damaged = tmp / "pdf"
    damaged.mkdir()
    memo = ROOT / "examples" / "sample" / "tax-memo-education-credits.pdf"
    data = memo.read_bytes()
    (damaged / "memo.pdf").write_bytes(data[: len(data) // 2] + os.urandom(4096) + data[len(data) // 2 :])
    report = fake_ingest([damaged], tmp / "pdf-idx")
    record("hostile", "4 KB of garbage spliced into a PDF: reported as damaged", 1, len(report.damaged))


# ------------------------------------------------------------------------------------------ memory


def _peak_run(code: str) -> tuple[float, float, dict]:
    """Run ``code`` in a fresh process; its own peak RSS (MB), wall time and the JSON it printed last."""
    start = time.perf_counter()
    done = subprocess.run([PY, "-c", code], capture_output=True, text=True, env=ENV, timeout=3600)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr[-2000:])
        return float("nan"), wall, {}
    info = json.loads(done.stdout.strip().splitlines()[-1])
    return info.pop("peak_kb") / 1024, wall, info


def section_memory(tmp: Path, big_mb: int) -> None:
    big = tmp / "big" / "huge.txt"
    big.parent.mkdir()
    para = ("Section 1. The taxpayer may claim the credit for qualified expenses paid during the year. " * 10) + "\n\n"
    with open(big, "w", encoding="utf-8") as f:
        for _ in range(big_mb * 1_000_000 // len(para) + 1):
            f.write(para)
    medium = tmp / "medium" / "nine-million.txt"
    medium.parent.mkdir()
    with open(medium, "w", encoding="utf-8") as f:
        for i in range(9_500_000 // len(para)):
            f.write(f"{i + 1}. Part {i + 1}\n\n" + para if i % 20 == 0 else para)
    template = textwrap.dedent(
        """
        import json, resource, time
        def hwm_kb():  # this process's own peak (VmHWM; ru_maxrss also counts the parent's pages before exec)
            try:
                for line in open("/proc/self/status"):
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
            except OSError:
                pass
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        from langchain_core.embeddings import DeterministicFakeEmbedding
        from lclfqa.config import Settings
        from lclfqa.index.embedded import EmbeddedBackend
        from lclfqa.index.ingest import ingest
        r = ingest([{path!r}], {index!r}, Settings({settings}), embeddings=DeterministicFakeEmbedding(size=384))
        t = time.perf_counter()
        hits = EmbeddedBackend.load({index!r}).search_sparse("qualified expenses credit", 8) if r.documents else []
        print(json.dumps({{"documents": r.documents, "children": r.children, "skipped": r.skipped,
                           "search_ms": (time.perf_counter() - t) * 1000,
                           "peak_kb": hwm_kb()}}))
        """
    )
    for label, path, settings in [
        (f"{big_mb} MB text, defaults (max_file_mb 200)", big.parent, ""),
        (f"{big_mb} MB text, max_file_mb 1000 (max_chars 10 M)", big.parent, "max_file_mb=1000"),
        ("9.5 MB text (9.5 M characters), defaults: indexed", medium.parent, ""),
    ]:
        index = tmp / f"idx-{len(rows)}"
        peak, wall, info = _peak_run(template.format(path=str(path), index=str(index), settings=settings))
        size = sum(p.stat().st_size for p in index.rglob("*") if p.is_file()) / 1e6 if index.exists() else 0
        reason = info.get("skipped", [["", ""]])[0][1][:90] if info.get("skipped") else ""
        record(
            "memory",
            f"{label}: peak RSS {peak:,.0f} MB, {wall:.1f} s, index {size:,.1f} MB"
            + (
                f", {info.get('children')} children, BM25 {info.get('search_ms', 0):.1f} ms"
                if info.get("documents")
                else f", refused: {reason}"
            ),
            1,
            int(peak <= 2048),
            "0",
        )


SECTIONS = ("cli", "loss", "concurrency", "kill", "corrupt", "hostile", "memory")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", choices=SECTIONS)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--kills", type=int, default=10)
    ap.add_argument("--big-mb", type=int, default=300)
    args = ap.parse_args()
    run = {
        "cli": section_cli,
        "loss": section_loss,
        "concurrency": lambda where: section_concurrency(where, args.runs),
        "kill": lambda where: section_kill(where, args.kills),
        "corrupt": section_corrupt,
        "hostile": section_hostile,
        "memory": lambda where: section_memory(where, args.big_mb),
    }
    tmp = Path(tempfile.mkdtemp(prefix="lclfqa-faults-"))
    try:
        for name in args.only or SECTIONS:
            print(f"[{name}]", flush=True)
            where = tmp / name
            where.mkdir()
            run[name](where)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n| section | case | tried | ok | data lost |\n|---|---|---|---|---|")
    for section, case, tried, ok, lost in rows:
        print(f"| {section} | {case} | {tried} | {ok} | {lost} |")


if __name__ == "__main__":
    main()
