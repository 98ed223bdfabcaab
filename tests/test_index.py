"""The on-disk hybrid index: round trip, links, search, errors and crash safety (no embedder needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import bm25s
import numpy as np
import pytest

from lclfqa.index import writer as index_module
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.errors import EmbedderMismatch, IndexFormatError, IndexNotFound
from lclfqa.index.records import DocumentRecord, embedding_text, text_sha256
from lclfqa.index.tokens import TOKENIZER_VERSION, tokenize
from lclfqa.index.writer import write_index
from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk

REG = "Treas. Reg. 1.25A-1.pdf"
VENDOR = "Vendor Agreement || Ünïcode & Co%20.txt"
MODEL = "test:random-16"
DIM = 16


def make_corpus(version: int = 1) -> tuple[list[DocumentRecord], list[Chunk], np.ndarray]:
    """Two documents; REG has two parents with an overlapping child and a footnote on both."""
    documents = [
        DocumentRecord(
            REG,
            f"/data/{REG}",
            "a" * 64,
            pages=3,
            sections=4,
            footnotes=1,
            summary="AOTC rules",
            dropped_headers=3,
            dropped_footers=2,
        ),
        DocumentRecord(VENDOR, f"/data/{VENDOR}", "b" * 64, pages=1, sections=2, footnotes=0),
    ]
    path = ("§ 1.25A-1 Calculation of education tax credit", "(b) Coordination")
    chunks = [
        Chunk("reg-p1", PARENT, REG, "Parent one text about the credit.", path[:1], 1, 2),
        Chunk(
            "reg-p2",
            PARENT,
            REG,
            "Parent two: indemnify indemnify indemnify (a parent is never searched).",
            path,
            2,
            3,
        ),
        Chunk(
            "reg-c1",
            CHILD,
            REG,
            "The AOTC phases out as modified adjusted gross income rises.",
            path[:1],
            1,
            1,
            parent_ids=("reg-p1",),
            indexed_text="<section-header>§ 1.25A-1</section-header> The AOTC phases out as modified "
            "adjusted gross income rises.",
        ),
        Chunk(
            "reg-c2",
            CHILD,
            REG,
            "§ 1.25A-1(b)(4) coordination with the lifetime learning credit.",
            path,
            2,
            3,
            parent_ids=("reg-p1", "reg-p2"),
            indexed_text="§ 1.25A-1(b)(4) coordination with the lifetime learning credit.",
        ),
        Chunk(
            "reg-c3",
            CHILD,
            REG,
            "Qualified tuition and related expenses include fees.",
            path,
            3,
            3,
            parent_ids=("reg-p2",),
            indexed_text="Qualified tuition and related expenses include fees.",
        ),
        Chunk(
            "reg-f1",
            FOOTNOTE,
            REG,
            "See Rev. Proc. 2019-44 for the inflation adjustment.",
            path,
            2,
            2,
            parent_ids=("reg-p2", "reg-p1"),  # deliberately not in document order
            indexed_text="See Rev. Proc. 2019-44 for the inflation adjustment.",
            footnote_numbers=("1", "*"),
        ),
        Chunk(
            f"{VENDOR}#p1",
            PARENT,
            VENDOR,
            "Vendor shall indemnify Customer. Either party may terminate.",
            ("Agreement",),
            1,
            1,
            start=0,
            end=61,
        ),
        Chunk(
            f"{VENDOR}#c1",
            CHILD,
            VENDOR,
            "Vendor shall indemnify Customer.",
            ("Agreement", "Ünïcode § 9"),
            1,
            1,
            start=0,
            end=32,
            parent_ids=(f"{VENDOR}#p1",),
            indexed_text="Vendor shall indemnify Customer against third-party claims.",
        ),
        Chunk(
            f"{VENDOR}#c2",
            CHILD,
            VENDOR,
            "Either party may terminate for convenience.",
            ("Agreement",),
            1,
            1,
            start=33,
            end=61,
            parent_ids=(f"{VENDOR}#p1",),
        ),  # empty indexed_text: text is indexed
    ]
    if version == 2:
        documents = documents[1:]
        chunks = [c for c in chunks if c.document == VENDOR]
        chunks[1] = Chunk(
            f"{VENDOR}#c1",
            CHILD,
            VENDOR,
            "Version two: arbitration in Zürich.",
            ("Agreement",),
            1,
            1,
            parent_ids=(f"{VENDOR}#p1",),
        )
    n = sum(c.kind != PARENT for c in chunks)
    vectors = np.random.default_rng(version).standard_normal((n, DIM)).astype(np.float32) * 3  # not unit
    return documents, chunks, vectors


def build(index_dir: Path, version: int = 1, **kwargs) -> Path:
    documents, chunks, vectors = make_corpus(version)
    return write_index(
        index_dir,
        documents,
        chunks,
        vectors,
        embedding_model=MODEL,
        settings={"chunking": {"child_size": 500}, "v": version},
        **kwargs,
    )


def searchable_ids(version: int = 1) -> list[str]:
    return [c.id for c in make_corpus(version)[1] if c.kind != PARENT]


def generations(index_dir: Path) -> list[str]:
    return sorted(p.name for p in index_dir.iterdir() if p.name.startswith("gen-"))


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    d = tmp_path / "índex dir %20"  # non-ASCII and URI-special characters in the path
    build(d)
    return d


@pytest.fixture
def index(index_dir: Path):
    with EmbeddedBackend.load(index_dir) as ix:
        yield ix


# ------------------------------------------------------------------------------------- round trip


def test_round_trip_every_field(index: EmbeddedBackend) -> None:
    documents, chunks, _ = make_corpus()
    assert index.documents == {d.name: d for d in documents}
    assert index.chunks() == chunks
    for c in chunks:
        got = index.chunk(c.id)
        assert got == c
        assert type(got.section_path) is tuple and type(got.parent_ids) is tuple
        assert type(got.footnote_numbers) is tuple
    assert index.chunk("reg-c1").start is None and index.chunk("reg-c1").end is None
    assert index.chunk(f"{VENDOR}#c1").end == 32
    assert index.chunk("reg-f1").parent_ids == ("reg-p2", "reg-p1")


def test_manifest(index: EmbeddedBackend, index_dir: Path) -> None:
    m = index.manifest
    assert m["format_version"] == index_module.FORMAT_VERSION
    assert index.embedding_model == m["embedding_model"] == MODEL
    assert index.dimension == m["dimension"] == DIM
    assert m["settings"] == {"chunking": {"child_size": 500}, "v": 1}
    assert m["counts"] == {
        "documents": 2,
        "chunks": 9,
        "parents": 3,
        "children": 5,
        "footnotes": 1,
        "searchable": 6,
    }
    assert m["dense"]["kind"] == "flat"
    assert (index_dir / "CURRENT").read_text().strip() == index.path.name == "gen-000001"
    assert len(index) == 6


@pytest.mark.parametrize(
    ("kind", "document", "expected"),
    [
        (None, None, None),
        (PARENT, None, ["reg-p1", "reg-p2", f"{VENDOR}#p1"]),
        (CHILD, REG, ["reg-c1", "reg-c2", "reg-c3"]),
        (FOOTNOTE, None, ["reg-f1"]),
        (None, VENDOR, [f"{VENDOR}#p1", f"{VENDOR}#c1", f"{VENDOR}#c2"]),
        (FOOTNOTE, VENDOR, []),
        (None, "no such document", []),
    ],
)
def test_chunks_filters(index: EmbeddedBackend, kind, document, expected) -> None:
    if expected is None:
        expected = [c.id for c in make_corpus()[1]]
    assert [c.id for c in index.chunks(kind=kind, document=document)] == expected


def test_chunks_rejects_unknown_kind(index: EmbeddedBackend) -> None:
    with pytest.raises(ValueError, match="parent, child, footnote"):
        index.chunks(kind="children")


def test_unknown_chunk_id(index: EmbeddedBackend) -> None:
    with pytest.raises(KeyError, match="nope"):
        index.chunk("nope")
    with pytest.raises(KeyError):
        index.parents_of("nope")


# ------------------------------------------------------------------------------------------ links


@pytest.mark.parametrize(
    ("chunk_id", "parents"),
    [
        ("reg-c1", ["reg-p1"]),
        ("reg-c2", ["reg-p1", "reg-p2"]),  # a section on the overlap belongs to two parents
        ("reg-f1", ["reg-p1", "reg-p2"]),  # parent order, not the order parent_ids lists them in
        ("reg-p1", []),
        (f"{VENDOR}#c2", [f"{VENDOR}#p1"]),
    ],
)
def test_parents_of(index: EmbeddedBackend, chunk_id: str, parents: list[str]) -> None:
    assert [p.id for p in index.parents_of(chunk_id)] == parents


@pytest.mark.parametrize(
    ("parent_id", "children"),
    [
        ("reg-p1", ["reg-c1", "reg-c2", "reg-f1"]),
        ("reg-p2", ["reg-c2", "reg-c3", "reg-f1"]),
        (f"{VENDOR}#p1", [f"{VENDOR}#c1", f"{VENDOR}#c2"]),
        ("reg-c1", []),
    ],
)
def test_children_of(index: EmbeddedBackend, parent_id: str, children: list[str]) -> None:
    assert [c.id for c in index.children_of(parent_id)] == children


# ------------------------------------------------------------------------------------------- BM25


@pytest.mark.parametrize(
    ("query", "best"),
    [
        ("What does 1.25A-1 say?", "reg-c2"),
        ("(b)(4)", "reg-c2"),
        ("section 25A(b)(4) coordination", "reg-c2"),
        ("AOTC phase-out", "reg-c1"),
        ("modified adjusted gross income", "reg-c1"),
        ("Rev. Proc. 2019-44", "reg-f1"),
        ("Does the vendor INDEMNIFY the customer?", f"{VENDOR}#c1"),
        ("third-party claims", f"{VENDOR}#c1"),  # only in indexed_text, not in text
        ("terminate for convenience", f"{VENDOR}#c2"),  # indexed_text empty: text is indexed
        ("tuition fees", "reg-c3"),
    ],
)
def test_bm25_ranks_the_right_chunk_first(index: EmbeddedBackend, query: str, best: str) -> None:
    hits = index.search_sparse(query, 3)
    assert hits[0][0] == best
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert all(s > 0 for _, s in hits)


def test_bm25_never_returns_parents_and_respects_k(index: EmbeddedBackend) -> None:
    hits = index.search_sparse("indemnify credit", 10)
    ids = [cid for cid, _ in hits]
    assert ids and not set(ids) & {"reg-p1", "reg-p2", f"{VENDOR}#p1"}
    assert len(index.search_sparse("credit", 1)) == 1
    assert index.search_sparse("credit", 0) == []


@pytest.mark.parametrize("query", ["", "what is the", "zzzunknownword", "?!"])
def test_bm25_no_match_is_empty(index: EmbeddedBackend, query: str) -> None:
    assert index.search_sparse(query, 5) == []


# ------------------------------------------------------------------------------------------ dense


def test_dense_returns_the_exact_vector_first(index: EmbeddedBackend) -> None:
    _, _, vectors = make_corpus()
    ids = searchable_ids()
    for i, v in enumerate(vectors):
        hits = index.search_dense(v[None, :] * 7.5, 3)[0]  # unnormalised query: still cosine
        assert hits[0][0] == ids[i]
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_dense_scores_are_cosines(index: EmbeddedBackend) -> None:
    _, _, vectors = make_corpus()
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    q = np.random.default_rng(99).standard_normal(DIM).astype(np.float32)
    expected = unit @ (q / np.linalg.norm(q))
    hits = index.search_dense(q[None, :], 100)[0]  # k larger than the index
    assert len(hits) == len(vectors)
    ids = searchable_ids()
    assert [cid for cid, _ in hits] == [ids[i] for i in np.argsort(-expected)]
    assert [s for _, s in hits] == pytest.approx(sorted(expected, reverse=True), abs=1e-5)


@pytest.mark.parametrize("hnsw", [False, True])
def test_batch_search_equals_single_search(tmp_path: Path, hnsw: bool) -> None:
    build(tmp_path / "ünï %20", hnsw=hnsw)  # FAISS opens the file by name: non-ASCII must work
    ix = EmbeddedBackend.load(tmp_path / "ünï %20")
    assert ix.manifest["dense"]["kind"] == ("hnsw" if hnsw else "flat")
    assert (ix.path / "dense.hnsw").exists() == hnsw
    queries = np.random.default_rng(5).standard_normal((4, DIM)).astype(np.float32)
    batch = ix.search_dense(queries, 4)
    assert len(batch) == 4
    for q, hits in zip(queries, batch, strict=True):
        single = ix.search_dense(q[None, :], 4)[0]
        assert [c for c, _ in hits] == [c for c, _ in single]
        assert [s for _, s in hits] == pytest.approx([s for _, s in single], abs=1e-6)
    _, _, vectors = make_corpus()
    assert [hits[0][0] for hits in ix.search_dense(vectors, 1)] == searchable_ids()


def test_dense_rejects_wrong_dimension(index: EmbeddedBackend) -> None:
    with pytest.raises(ValueError, match=f"dimension {DIM}"):
        index.search_dense(np.ones((1, DIM + 1), dtype=np.float32), 3)
    with pytest.raises(ValueError, match=f"dimension {DIM}"):
        index.search_dense(np.ones(DIM, dtype=np.float32), 3)  # one vector is one row of a matrix


def test_vectors_by_text(index: EmbeddedBackend) -> None:
    _, chunks, vectors = make_corpus()
    searchable = [c for c in chunks if c.kind != PARENT]
    cache = index.vectors_by_text()
    assert set(cache) == {text_sha256(embedding_text(c)) for c in searchable}
    for c, v in zip(searchable, vectors, strict=True):
        np.testing.assert_allclose(cache[text_sha256(embedding_text(c))], v / np.linalg.norm(v), atol=1e-6)
    assert text_sha256(embedding_text(searchable[-1])) == text_sha256(searchable[-1].text)


# -------------------------------------------------------------------------------------- embedder


def test_check_embedder(index: EmbeddedBackend) -> None:
    index.check_embedder(MODEL)
    with pytest.raises(EmbedderMismatch) as err:
        index.check_embedder("openai:text-embedding-3-small")
    assert MODEL in str(err.value) and "openai:text-embedding-3-small" in str(err.value)
    assert err.value.index_model == MODEL


def test_check_embedder_local_alias(tmp_path: Path) -> None:
    documents, chunks, vectors = make_corpus()
    write_index(tmp_path, documents, chunks, vectors, embedding_model="local:all-MiniLM-L6-v2", settings={})
    ix = EmbeddedBackend.load(tmp_path)
    ix.check_embedder("local")
    ix.check_embedder("local:all-MiniLM-L6-v2")
    with pytest.raises(EmbedderMismatch):
        ix.check_embedder("local:other")


# ----------------------------------------------------------------------------- missing / corrupt


def assert_same_hits(got: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    """Same chunk ids in the same order, scores equal up to float rounding (approx takes flat lists only)."""
    assert [c for c, _ in got] == [c for c, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected])


def test_an_index_from_an_older_tokenizer_rebuilds_bm25_in_memory_until_the_next_write(
    index_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with EmbeddedBackend.load(index_dir) as ix:
        expected = ix.search_sparse("modified adjusted gross income", 3)
    gen = index_dir / (index_dir / "CURRENT").read_text().strip()
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["tokenizer"] = "lclfqa-legal-1"  # as written before words were stemmed
    del manifest["files"]  # ... and before the manifest held checksums
    (gen / "manifest.json").write_text(json.dumps(manifest))
    # the stored arrays hold other tokens: prove they are not used
    for f in (gen / "bm25").iterdir():
        f.write_bytes(b"stale")
    with caplog.at_level("WARNING"), EmbeddedBackend.load(index_dir) as ix:
        assert_same_hits(ix.search_sparse("modified adjusted gross income", 3), expected)
    assert "tokenised with 'lclfqa-legal-1'" in caplog.text and "BM25 rebuilt in memory" in caplog.text
    build(index_dir)  # the next write stores the current tokenizer's BM25
    with EmbeddedBackend.load(index_dir) as ix:
        assert ix.manifest["tokenizer"] == TOKENIZER_VERSION
        assert_same_hits(ix.search_sparse("modified adjusted gross income", 3), expected)


def test_missing_index(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFound, match="does not exist"):
        EmbeddedBackend.load(tmp_path / "nowhere")
    with pytest.raises(IndexNotFound, match="nothing has been indexed into it"):  # a folder an ingest left empty
        EmbeddedBackend.load(tmp_path)
    (tmp_path / "gen-000001").mkdir()
    with pytest.raises(IndexNotFound, match="CURRENT is missing"):
        EmbeddedBackend.load(tmp_path)
    (tmp_path / "gen-000001").rmdir()
    (tmp_path / "CURRENT").write_text("gen-000007\n")
    with pytest.raises(IndexNotFound, match="gen-000007"):
        EmbeddedBackend.load(tmp_path)


def _corrupt_sqlite(gen: Path) -> None:
    (gen / "chunks.sqlite").write_bytes(b"this is not a database" * 100)


def _corrupt_manifest(gen: Path) -> None:
    (gen / "manifest.json").write_text("{ not json")


def _old_format(gen: Path) -> None:
    m = json.loads((gen / "manifest.json").read_text())
    m["format_version"] = 999
    (gen / "manifest.json").write_text(json.dumps(m))


def _truncate_dense(gen: Path) -> None:
    data = (gen / "dense.npy").read_bytes()
    (gen / "dense.npy").write_bytes(data[: len(data) // 2])


def _wrong_dense_shape(gen: Path) -> None:
    np.save(gen / "dense.npy", np.zeros((2, DIM), dtype=np.float32))


def _missing_bm25(gen: Path) -> None:
    for p in (gen / "bm25").iterdir():
        p.unlink()


def _pickled_dense(gen: Path) -> None:
    np.save(gen / "dense.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)


def _corrupt_hnsw(gen: Path) -> None:
    data = (gen / "dense.hnsw").read_bytes()
    (gen / "dense.hnsw").write_bytes(data[: len(data) // 2])


def _no_manifest(gen: Path) -> None:
    (gen / "manifest.json").unlink()


def _bad_current(gen: Path) -> None:
    (gen.parent / "CURRENT").write_text("../../etc\n")


@pytest.mark.parametrize(
    "damage",
    [
        _corrupt_sqlite,
        _corrupt_manifest,
        _old_format,
        _truncate_dense,
        _wrong_dense_shape,
        _missing_bm25,
        _pickled_dense,
        _corrupt_hnsw,
        _no_manifest,
        _bad_current,
    ],
)
def test_corrupt_index_is_a_format_error(index_dir: Path, damage) -> None:
    if damage is _corrupt_hnsw:
        build(index_dir, hnsw=True)
    gen = EmbeddedBackend.load(index_dir).path
    damage(gen)
    with pytest.raises(IndexFormatError) as err:
        EmbeddedBackend.load(index_dir)
    assert str(index_dir) in str(err.value)
    assert "ingest" in str(err.value)


# ---------------------------------------------------------------------------------------- writing


def test_second_write_replaces_first(index_dir: Path) -> None:
    gen2 = build(index_dir, version=2)
    assert gen2.name == "gen-000002"
    assert generations(index_dir) == ["gen-000002"]
    ix = EmbeddedBackend.load(index_dir)
    assert ix.path == gen2
    assert list(ix.documents) == [VENDOR]
    assert ix.manifest["settings"]["v"] == 2
    assert ix.chunk(f"{VENDOR}#c1").text == "Version two: arbitration in Zürich."
    with pytest.raises(KeyError):
        ix.chunk("reg-c1")
    assert ix.search_sparse("Zurich arbitration", 1)[0][0] == f"{VENDOR}#c1"


@pytest.mark.skipif(os.name == "nt", reason="POSIX keeps deleted files readable while open")
def test_loaded_index_survives_a_newer_write(index_dir: Path) -> None:
    old = EmbeddedBackend.load(index_dir)
    build(index_dir, version=2)
    assert old.chunk("reg-c2").text.startswith("§ 1.25A-1(b)(4)")
    assert old.search_sparse("1.25A-1", 1)[0][0] == "reg-c2"


class Boom(RuntimeError):
    pass


def _fail_bm25_save(monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise Boom("disk full")

    monkeypatch.setattr(bm25s.BM25, "save", boom)


def _interrupt_sqlite(monkeypatch) -> None:
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(index_module, "_write_sqlite", interrupted)


def _fail_manifest(monkeypatch) -> None:
    real = json.dump

    def boom(obj, fp, **kwargs):
        real({"half": "written"}, fp)
        raise Boom("crash while writing the manifest")

    monkeypatch.setattr(index_module.json, "dump", boom)


def _fail_rename(monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise Boom("rename failed")

    monkeypatch.setattr(os, "rename", boom)


def _fail_current_replace(monkeypatch) -> None:
    real = os.replace

    def boom(src, dst, *args, **kwargs):
        if Path(dst).name == "CURRENT":
            raise Boom("crash before CURRENT was swapped")
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", boom)


@pytest.mark.parametrize(
    "failure", [_fail_bm25_save, _interrupt_sqlite, _fail_manifest, _fail_rename, _fail_current_replace]
)
def test_failed_write_leaves_previous_generation_live(index_dir: Path, monkeypatch, failure) -> None:
    failure(monkeypatch)
    with pytest.raises((Boom, KeyboardInterrupt)):
        build(index_dir, version=2)
    monkeypatch.undo()

    assert (index_dir / "CURRENT").read_text().strip() == "gen-000001"
    assert generations(index_dir) == ["gen-000001"]  # the half-written one was removed
    ix = EmbeddedBackend.load(index_dir)
    assert ix.manifest["settings"]["v"] == 1
    assert ix.chunk("reg-c2") == make_corpus()[1][3]
    assert ix.search_sparse("1.25A-1", 1)[0][0] == "reg-c2"

    build(index_dir, version=2)  # and the next write works
    assert generations(index_dir) == ["gen-000002"]
    assert EmbeddedBackend.load(index_dir).manifest["settings"]["v"] == 2


_CRASH = """
import os, sys
from pathlib import Path
from lclfqa.index import writer as index_module
from tests.test_index import build
point = sys.argv[2]
if point == "bm25":
    index_module._write_bm25 = lambda *a, **k: os._exit(3)
else:
    real = os.replace
    def crash(src, dst, *a, **k):
        if Path(dst).name == "CURRENT":
            os._exit(3)
        return real(src, dst, *a, **k)
    os.replace = crash
build(Path(sys.argv[1]), version=2)
"""


@pytest.mark.parametrize("point", ["bm25", "current"])
def test_hard_crash_leaves_previous_generation_live(index_dir: Path, point: str) -> None:
    """A process killed mid-write (no cleanup runs) still leaves the old generation live."""
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-c", _CRASH, str(index_dir), point], cwd=root, capture_output=True)
    assert proc.returncode == 3, proc.stderr.decode()
    leftovers = {"bm25": ["gen-000001", "gen-000002.tmp"], "current": ["gen-000001", "gen-000002"]}[point]
    assert generations(index_dir) == leftovers
    if point == "current":
        assert (index_dir / "CURRENT.tmp").exists()
    assert EmbeddedBackend.load(index_dir).manifest["settings"]["v"] == 1

    gen = build(index_dir, version=2)  # the next write sweeps the debris
    assert gen.name == {"bm25": "gen-000002", "current": "gen-000003"}[point]
    assert generations(index_dir) == [gen.name]
    assert not (index_dir / "CURRENT.tmp").exists()
    assert EmbeddedBackend.load(index_dir).manifest["settings"]["v"] == 2


def test_stale_tmp_dirs_are_removed_by_next_write(index_dir: Path) -> None:
    stale = index_dir / "gen-000005.tmp"
    stale.mkdir()
    (stale / "manifest.json").write_text("{}")
    (index_dir / "CURRENT.tmp").write_text("gen-000005\n")
    assert EmbeddedBackend.load(index_dir).path.name == "gen-000001"  # debris is never loaded
    gen = build(index_dir, version=2)
    assert generations(index_dir) == [gen.name]
    assert not (index_dir / "CURRENT.tmp").exists()


def _parent_is_child(chunks):
    chunks[3] = Chunk("reg-c2", CHILD, REG, "x", (), 1, 1, parent_ids=("reg-c1",))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d, c, v: (d, c, v[:-1]), "shape"),
        (lambda d, c, v: (d, c, v[:, :, None]), "shape"),
        (lambda d, c, v: (d, c + [c[2]], np.vstack([v, v[:1]])), "duplicate chunk id"),
        (
            lambda d, c, v: (d, [*c[:2], Chunk("x", CHILD, REG, "t", (), 1, 1, parent_ids=("nope",))], v[:1]),
            "'nope'",
        ),
        (
            lambda d, c, v: (
                d,
                [
                    *c[:2],
                    Chunk("x", CHILD, REG, "t", (), 1, 1),
                    Chunk("y", CHILD, REG, "t", (), 1, 1, parent_ids=("x",)),
                ],
                v[:2],
            ),
            "kind is 'child'",
        ),
        (lambda d, c, v: (d, [Chunk("x", "section", REG, "t", (), 1, 1)], v[:1]), "valid kinds"),
        (lambda d, c, v: (d[1:], c, v), "not in `documents`"),
        (lambda d, c, v: (d + d[:1], c, v), "duplicate document names"),
        (lambda d, c, v: (d, c, np.vstack([np.zeros((1, DIM)), v[1:]])), "all zeros"),
        (lambda d, c, v: (d, c, np.where(v > 0, np.nan, v)), "NaN"),
    ],
)
def test_write_validates_before_touching_disk(tmp_path: Path, mutate, message: str) -> None:
    documents, chunks, vectors = mutate(*make_corpus())
    with pytest.raises(ValueError, match=message):
        write_index(tmp_path / "ix", documents, chunks, vectors, embedding_model=MODEL, settings={})
    assert not (tmp_path / "ix").exists()


def test_settings_must_be_json(tmp_path: Path) -> None:
    documents, chunks, vectors = make_corpus()
    with pytest.raises(ValueError, match="JSON"):
        write_index(tmp_path, documents, chunks, vectors, embedding_model=MODEL, settings={"p": Path(".")})


def test_index_of_parents_only(tmp_path: Path) -> None:
    documents, chunks, _ = make_corpus()
    parents = [c for c in chunks if c.kind == PARENT]
    write_index(tmp_path, documents, parents, np.zeros((0, DIM), np.float32), embedding_model=MODEL, settings={})
    ix = EmbeddedBackend.load(tmp_path)
    assert len(ix) == 0 and ix.manifest["bm25"] is None
    assert ix.chunks() == parents
    assert ix.search_sparse("indemnify", 5) == []
    assert ix.search_dense(np.ones((1, DIM)), 5) == [[]]
    assert ix.search_dense(np.ones((2, DIM)), 5) == [[], []]
    assert ix.vectors_by_text() == {}


# -------------------------------------------------------------------------------------- tokenizer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "§ 1.25A-1(b)(4)",
            ["section", "1.25a-1(b)(4)", "1.25a-1(b)", "1.25a-1", "25a", "(b)(4)", "(b)", "(4)"],
        ),
        ("Treas. Reg. § 1.25A-1", ["trea", "reg", "section", "1.25a-1", "25a"]),
        ("§§1.25A-1", ["section", "1.25a-1", "25a"]),
        ("the AOTC (AOTC) of section 25A(a)", ["aotc", "(aotc)", "aotc", "section", "25a(a)", "25a", "(a)"]),
        ("paragraph (b)(4)", ["paragraph", "(b)(4)", "(b)", "(4)"]),
        (
            "What is the taxpayer’s self-employed income of $1,000?",
            ["taxpay", "self-employed", "self", "employ", "incom", "1000"],  # stemmed words
        ),
        ("Ünïcode Zürich", ["unicod", "zurich"]),
        ("credits credited, married marrying", ["credit", "credit", "marri", "marri"]),
        ("Form 1098–T", ["form", "1098-t", "1098"]),  # en dash as printed in PDFs
        ("", []),
        ("the of and what", []),
    ],
)
def test_tokenize(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


@pytest.mark.parametrize(
    ("query", "document_text"),
    [
        ("1.25A-1", "§ 1.25A-1(b)(4) coordination"),
        ("section 25A", "§ 1.25A-1(b)(4) coordination"),
        ("sections 25A and 25B", "§§ 25A and 25B"),
        ("(b)(4)", "§ 1.25A-1(b)(4) coordination"),
        ("AOTC", "American opportunity tax credit (AOTC)"),
        ("1098-T", "Form 1098–T"),
    ],
)
def test_citation_queries_share_tokens_with_the_cite(query: str, document_text: str) -> None:
    assert set(tokenize(query)) <= set(tokenize(document_text))
