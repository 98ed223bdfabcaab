"""One contract, every backend: the same documents in, the same chunks and rankings out.

Each test runs against the embedded index and against Milvus (Milvus Lite: the real Milvus engine from
a local ``.db`` file, no mocks). BM25-only and dense-only rankings must give identical ids (order equal up
to exact score ties); fused top-8 lists must overlap by 0.9 on average (Milvus's RRF breaks ties in its
own order); scope filters, parent expansion, replacing, removing and concurrent readers must behave alike.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.config import Settings
from lclfqa.graph.nodes.expand import build_sources
from lclfqa.index.errors import EmbedderMismatch, IndexNotFound, IndexStoreError
from lclfqa.index.factory import open_index
from lclfqa.index.ingest import ingest
from lclfqa.index.protocol import IndexBackend
from lclfqa.index.records import DocumentBatch, DocumentRecord, embedding_text, text_sha256
from lclfqa.index.search import RetrievalParams, search
from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk
from tests.fakes import CountingEmbeddings

pytest.importorskip("pymilvus")  # the dev extra installs it; without it only the embedded half could run

BACKENDS = ["embedded", "milvus"]
MODEL = "test:random-16"
DIM = 16
WORDS = (
    "taxpayer credit deduction dependent tuition expense refund basis partner partnership trust estate grantor "
    "beneficiary election penalty interest assessment notice deficiency audit examiner appeal petition court "
    "regulation statute section paragraph clause agreement indemnify warranty liability breach remedy damages "
    "termination notice confidential disclosure license royalty payment invoice fee retainer counsel client "
    "privacy policy data user account cookie consent share third party advertising location retention deletion"
).split()
DOCS = ["Treas. Reg. 1.25A-1.pdf", 'Vendor "Agreement" || Ünïcode & Co%20.txt', "privacy_qa/Fiverr.txt"]


def _sentence(rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(WORDS, size=n)) + "."


def make_document(name: str, seed: int, parents: int = 4, version: int = 1) -> tuple[DocumentRecord, list[Chunk]]:
    """A document with ``parents`` parents, three children each (the first also held by the previous parent,
    as the overlap rule does), and a footnote linked to two parents."""
    rng = np.random.default_rng(seed * 100 + version)
    key = f"d{seed}v{version}"
    chunks: list[Chunk] = []
    for p in range(parents):
        path = (f"§ 1.25A-{p + 1} Part {p}", f"({'abcd'[p % 4]}) Rules")
        chunks.append(Chunk(f"{key}:p{p}", PARENT, name, _sentence(rng, 60), path, p + 1, p + 2))
    for p in range(parents):
        for c in range(3):
            text = _sentence(rng, int(rng.integers(12, 40))) + (f" See § 1.25A-{p + 1}(b)({c + 1})." if c == 1 else "")
            held = (f"{key}:p{p - 1}", f"{key}:p{p}") if c == 0 and p > 0 else (f"{key}:p{p}",)
            prefix = f"Document: {name}."
            chunks.append(
                Chunk(
                    f"{key}:c{p}.{c}",
                    CHILD,
                    name,
                    text,
                    chunks[p].section_path,
                    p + 1,
                    p + 1,
                    start=None if seed % 2 else 1000 * p + 100 * c,
                    end=None if seed % 2 else 1000 * p + 100 * c + len(text),
                    parent_ids=held,
                    indexed_text=f"{prefix}\n{text}",
                )
            )
    note = _sentence(rng, 15)
    chunks.append(
        Chunk(
            f"{key}:f0", FOOTNOTE, name, note, (), 1, 1, parent_ids=(f"{key}:p0", f"{key}:p1"), footnote_numbers=("7",)
        )
    )
    sha = f"{seed}{version}" * 8
    record = DocumentRecord(name, f"/data/{name}", sha, parents + 1, parents, 1, summary=f"v{version}")
    return record, chunks


def vectors_of(chunks: list[Chunk]) -> np.ndarray:
    """A deterministic vector per searchable chunk (by its text), as an embedder would give."""
    rows = []
    for c in chunks:
        if c.kind != PARENT:
            seed = int(text_sha256(embedding_text(c))[:8], 16)
            rows.append(np.random.default_rng(seed).standard_normal(DIM).astype(np.float32))
    return np.stack(rows)


def corpus() -> tuple[list[DocumentRecord], list[Chunk]]:
    records, chunks = [], []
    for i, name in enumerate(DOCS):
        record, doc_chunks = make_document(name, i + 1, parents=4 + 2 * i)
        records.append(record)
        chunks += doc_chunks
    return records, chunks


def settings_for(backend: str) -> Settings:
    return Settings(index_backend=backend)


def build(backend: str, where: Path) -> IndexBackend:
    index = open_index(settings_for(backend), where, create=True)
    records, chunks = corpus()
    index.add_documents(DocumentBatch(records, chunks, vectors_of(chunks), MODEL, {"v": 1}))
    return index


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, IndexBackend]]:
    """Both backends holding the same corpus (read-only tests share them)."""
    out = {b: build(b, tmp_path_factory.mktemp(b) / "index") for b in BACKENDS}
    yield out
    for index in out.values():
        index.close()


@pytest.fixture(params=BACKENDS)
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[IndexBackend]:
    """One backend with the corpus, to change."""
    index = build(request.param, tmp_path / "index")
    yield index
    index.close()


def queries() -> list[str]:
    rng = np.random.default_rng(7)
    out = [_sentence(rng, n) for n in (2, 3, 4, 6, 8) for _ in range(4)]
    return out + ["section 1.25A-2(b)(2)", "1.25A-3", "(b)(1) indemnify", "What does my partner owe?"]


def same_ranking(ours: list[tuple[str, float]], theirs: list[tuple[str, float]]) -> bool:
    """Identical ids in identical order, where chunks of exactly equal score may come in either order
    (and, tied at the cut-off, either may be the one kept)."""
    if len(ours) != len(theirs):
        return False
    if not ours:
        return True
    scale = theirs[0][1] / ours[0][1]  # BM25: Milvus keeps the (k1 + 1) factor that bm25s drops

    def canonical(ranked: list[tuple[str, float]], factor: float) -> list[tuple[float, str]]:
        last = round(ranked[-1][1] * factor, 4)
        return sorted((-round(s * factor, 4), cid if round(s * factor, 4) > last else "") for cid, s in ranked)

    return canonical(ours, scale) == canonical(theirs, 1.0)


# ------------------------------------------------------------------------------------------ contents


def test_same_documents_chunks_and_counts(built: dict[str, IndexBackend]) -> None:
    records, chunks = corpus()
    for name, index in built.items():
        assert list(index.documents) == DOCS, name
        assert list(index.documents.values()) == records, name
        assert index.chunks() == chunks, name
        notes = [c for c in chunks if c.kind == FOOTNOTE and c.document == DOCS[1]]
        assert index.chunks(kind=FOOTNOTE, document=DOCS[1]) == notes
        assert index.chunk(chunks[5].id) == chunks[5]
        assert len(index) == sum(c.kind != PARENT for c in chunks)
        stats = index.stats()
        assert (stats.documents, stats.parents, stats.children, stats.footnotes) == (3, 18, 54, 3), name
        assert (stats.embedding_model, stats.dimension) == (MODEL, DIM)
        assert index.recorded_settings == {"v": 1}
        with pytest.raises(KeyError, match="no chunk"):
            index.chunk("no-such-id")
        with pytest.raises(ValueError, match="valid kinds"):
            index.chunks(kind="sentence")


def test_vectors_for_gives_back_the_stored_unit_vectors(built: dict[str, IndexBackend]) -> None:
    _, chunks = corpus()
    searchable = [c for c in chunks if c.kind != PARENT]
    vectors = vectors_of(chunks)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    keys = [text_sha256(embedding_text(c)) for c in searchable]
    for index in built.values():
        found = index.vectors_for(keys[:10] + ["0" * 64])
        assert set(found) == set(keys[:10])
        for key, row in zip(keys[:10], unit[:10], strict=True):
            assert np.allclose(found[key], row, atol=1e-6)


# ------------------------------------------------------------------------------------------- rankings


def test_bm25_gives_identical_ids(built: dict[str, IndexBackend]) -> None:
    a, b = built["embedded"], built["milvus"]
    nonempty = 0
    for q in queries():
        for documents in (None, [DOCS[0], DOCS[2]]):
            ours, theirs = a.search_sparse(q, 10, documents), b.search_sparse(q, 10, documents)
            assert same_ranking(ours, theirs), (q, ours, theirs)
            nonempty += bool(ours)
            if ours:  # the same scores up to a constant factor ((k1 + 1): Milvus keeps it, bm25s drops it)
                ratio = np.array([s for _, s in theirs]) / np.array([s for _, s in sorted(ours, key=lambda h: -h[1])])
                assert np.allclose(ratio, ratio[0], rtol=1e-3), q
    assert nonempty >= 40


def test_dense_gives_identical_ids(built: dict[str, IndexBackend]) -> None:
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((6, DIM)).astype(np.float32)
    for documents in (None, [DOCS[1]]):
        ours = built["embedded"].search_dense(vectors, 10, documents)
        theirs = built["milvus"].search_dense(vectors, 10, documents)
        for o, t in zip(ours, theirs, strict=True):
            assert [c for c, _ in o] == [c for c, _ in t]  # exact ties are unlikely among random vectors
            assert [s for _, s in o] == pytest.approx([s for _, s in t], abs=1e-5)


def test_fused_top8_overlap(built: dict[str, IndexBackend]) -> None:
    emb = DeterministicFakeEmbedding(size=DIM)
    overlaps = []
    for q in queries():
        for scope in (True, False):
            params = RetrievalParams(k=8, depth=50, document_scope=scope)
            tops = [
                [h.chunk.id for h in search(index, emb, q, params, sparse_queries=[q, q + " refund"])[1]]
                for index in (built["embedded"], built["milvus"])
            ]
            assert len(tops[0]) == len(tops[1]) == 8
            overlaps.append(len(set(tops[0]) & set(tops[1])) / 8)
    assert np.mean(overlaps) >= 0.9, overlaps


def test_unequal_weights_are_applied_alike(built: dict[str, IndexBackend]) -> None:
    emb = DeterministicFakeEmbedding(size=DIM)
    params = RetrievalParams(k=8, sparse_weight=0.3, dense_weight=1.0)
    overlaps = []
    for q in queries():
        tops = [[h.chunk.id for h in search(index, emb, q, params)[1]] for index in built.values()]
        overlaps.append(len(set(tops[0]) & set(tops[1])) / 8)
    # both fused by lclfqa's RRF (Milvus's RRFRanker has no weights); BM25 ties may rank in either order
    assert np.mean(overlaps) >= 0.9, overlaps


def test_scope_filters_every_list(built: dict[str, IndexBackend]) -> None:
    emb = DeterministicFakeEmbedding(size=DIM)
    for name, index in built.items():
        scope, hits = search(index, emb, 'Consider "Fiverr"\'s privacy policy; who sees my data?', RetrievalParams())
        assert scope.documents == ("privacy_qa/Fiverr.txt",), name
        assert hits and {h.chunk.document for h in hits} == {"privacy_qa/Fiverr.txt"}, name
        assert index.search_sparse("credit", 5, documents=[]) == []
        assert index.search_dense(np.ones((2, DIM), np.float32), 5, documents=["no-such.pdf"]) == [[], []]


# -------------------------------------------------------------------------------------- expansion


def test_parent_expansion_is_the_same(built: dict[str, IndexBackend]) -> None:
    _, chunks = corpus()
    by_id = {c.id: c for c in chunks}
    for name, index in built.items():
        for c in chunks:
            expected = sorted(c.parent_ids, key=lambda p: chunks.index(by_id[p]))
            assert [p.id for p in index.parents_of(c.id)] == expected, (name, c.id)
        parent = "d1v1:p1"
        assert [c.id for c in index.children_of(parent)] == [c.id for c in chunks if parent in c.parent_ids]
        assert index.children_of("d1v1:c0.0") == []
        with pytest.raises(KeyError):
            index.parents_of("no-such-id")
    emb = DeterministicFakeEmbedding(size=DIM)
    sources = {}
    for name, index in built.items():
        _, hits = search(index, emb, "Which footnote? partner trust beneficiary", RetrievalParams(document_scope=False))
        children = [
            {
                "id": h.chunk.id,
                "kind": h.chunk.kind,
                "text": h.chunk.text,
                "parent_ids": list(h.chunk.parent_ids),
                "pages": [h.chunk.page_start, h.chunk.page_end],
            }
            for h in hits
        ]
        children = sorted(children, key=lambda c: c["id"])  # the same children in: the same sources out
        sources[name], _ = build_sources(children, index, parents=True, expand_footnotes=True, budget=10**6)
    assert json.dumps(sources["embedded"]) == json.dumps(sources["milvus"])


# --------------------------------------------------------------------------------------------- writes


def test_reingest_replaces_a_document(fresh: IndexBackend) -> None:
    record, chunks = make_document(DOCS[0], 1, parents=3, version=2)
    old_ids = {c.id for c in fresh.chunks(document=DOCS[0])}
    fresh.add_documents(DocumentBatch([record], chunks, vectors_of(chunks), MODEL, {"v": 2}))
    assert list(fresh.documents) == DOCS  # replaced in place
    assert fresh.documents[DOCS[0]].summary == "v2"
    assert fresh.chunks(document=DOCS[0]) == chunks
    assert fresh.recorded_settings == {"v": 2}
    for cid in old_ids:
        with pytest.raises(KeyError):
            fresh.chunk(cid)
    hits = fresh.search_sparse(chunks[4].text, 50)
    assert chunks[4].id == hits[0][0] and not {c for c, _ in hits} & old_ids
    assert not {c for row in fresh.search_dense(vectors_of(chunks), 50) for c, _ in row} & old_ids
    assert fresh.stats().parents == 18 - 4 + 3


def test_adding_the_same_content_again_changes_nothing(fresh: IndexBackend) -> None:
    records, chunks = corpus()
    before = (fresh.chunks(), fresh.search_sparse("credit refund", 20), fresh.stats())
    fresh.add_documents(DocumentBatch(records, chunks, vectors_of(chunks), MODEL, {"v": 1}))
    assert (fresh.chunks(), fresh.search_sparse("credit refund", 20), fresh.stats()) == before


def test_removal_removes(fresh: IndexBackend) -> None:
    gone = [c.id for c in fresh.chunks(document=DOCS[2])]
    fresh.remove_documents([DOCS[2], "never-indexed.pdf"])
    assert list(fresh.documents) == DOCS[:2]
    assert not {c.document for c in fresh.chunks()} & {DOCS[2]}
    for cid in gone:
        with pytest.raises(KeyError):
            fresh.chunk(cid)
    found = {c for q in queries() for c, _ in fresh.search_sparse(q, 100)}
    assert found and not found & set(gone)
    assert fresh.stats().documents == 2 and len(fresh) == sum(1 for c in fresh.chunks() if c.kind != PARENT)


def test_another_embedder_is_refused(fresh: IndexBackend) -> None:
    record, chunks = make_document("new.txt", 9)
    with pytest.raises(EmbedderMismatch, match="other-model"):
        fresh.add_documents(DocumentBatch([record], chunks, vectors_of(chunks), "other-model", {}))
    assert "new.txt" not in fresh.documents


def test_concurrent_readers_see_the_same_results(built: dict[str, IndexBackend]) -> None:
    emb = DeterministicFakeEmbedding(size=DIM)
    for index in built.values():

        def ids(q: str, index: IndexBackend = index) -> list[str]:
            return [h.chunk.id for h in search(index, emb, q, RetrievalParams())[1]]

        work = queries() * 3
        expected = [ids(q) for q in work]
        with ThreadPoolExecutor(max_workers=8) as pool:
            assert list(pool.map(ids, work)) == expected


# --------------------------------------------------------------------------------------- opening it


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_index_is_index_not_found(backend: str, tmp_path: Path) -> None:
    with pytest.raises(IndexNotFound, match="run ingest"):
        open_index(settings_for(backend), tmp_path / "nothing")
    empty = open_index(settings_for(backend), tmp_path / "new", create=True)
    assert len(empty) == 0 and not empty.documents and empty.search_sparse("credit", 5) == []
    empty.close()


def test_a_bad_milvus_uri_is_a_clear_error(tmp_path: Path) -> None:
    bad = Settings(index_backend="milvus", milvus_uri="milvus.example:19530")
    with pytest.raises(IndexStoreError, match="neither a local file ending in .db"):
        open_index(bad, tmp_path)
    with pytest.raises(IndexStoreError, match="must start with a letter"):
        open_index(Settings(index_backend="milvus", milvus_prefix="1-bad"), tmp_path, create=True)


def test_cli_search_on_milvus_and_its_errors(built: dict[str, IndexBackend], tmp_path: Path) -> None:
    from lclfqa.cli import app

    runner = CliRunner()
    where = ["--index", str(tmp_path)]
    result = runner.invoke(app, ["search", "credit", *where, "--backend", "milvus", "--milvus-uri", "x"])
    assert result.exit_code == 2 and "neither a local file ending in .db" in result.output, result.output
    result = runner.invoke(app, ["search", "credit", "--index", str(tmp_path), "--backend", "milvus"])
    assert result.exit_code == 2 and "no index at" in result.output and "Traceback" not in result.output
    result = runner.invoke(app, ["search", "credit", "--index", str(tmp_path), "--backend", "cassandra"])
    assert result.exit_code == 2 and "index_backend must be one of embedded, milvus" in result.output


def test_milvus_not_installed_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from lclfqa.cli import app

    monkeypatch.setitem(sys.modules, "pymilvus", None)  # what an install without the milvus extra sees
    result = CliRunner().invoke(app, ["info", "--index", str(tmp_path), "--backend", "milvus", "--milvus-uri", "x.db"])
    assert result.exit_code == 2 and "pip install 'lclfqa[milvus]'" in result.output, result.output


# ------------------------------------------------------------------------------- ingest and the graph


def test_ingest_and_the_graph_run_alike_on_both_backends(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import SAMPLE
    from tests.test_graph import QUESTION, good_script, graph_with

    folder = tmp_path / "docs"
    folder.mkdir()
    for f in SAMPLE.iterdir():
        if f.suffix in (".pdf", ".txt"):
            shutil.copy(f, folder / f.name)
    retrieved = {}
    for backend in BACKENDS:
        where, settings, emb = tmp_path / backend, Settings(index_backend=backend), CountingEmbeddings(size=32)
        first = ingest([folder], where, settings, embeddings=emb)
        assert first.documents == 2 and first.embedded == emb.calls > 0
        emb.calls = 0
        again = ingest([folder], where, settings, embeddings=emb)
        assert again.reused_documents == 2 and emb.calls == 0
        counts = (first.parents, first.children, first.footnote_chunks)
        assert (again.parents, again.children, again.footnote_chunks) == counts
        graph, _ = graph_with(where, good_script(), index_backend=backend, rewrites=3)
        result = graph.invoke({"question": QUESTION})
        assert result.answer.startswith("No. Married taxpayers"), backend
        retrieved[backend] = [c["id"] for c in result["retrieved"]]
        graph.context.resources.index.close()
    assert len(set(retrieved["embedded"]) & set(retrieved["milvus"])) >= 0.9 * len(retrieved["embedded"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_vectors_of_another_build_of_the_embedder_are_refused(
    backend: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index made before its embedder's vectors changed (the int8 MiniLM's per-batch scale) opens for
    ``info`` but not for questions or more documents: its vectors no longer match the queries'."""
    from lclfqa.cli import app
    from lclfqa.index import factory
    from lclfqa.index.errors import EmbedderRevisionMismatch
    from lclfqa.llm.models import LOCAL_EMBEDDER_INT8
    from tests.conftest import SAMPLE

    settings = Settings(index_backend=backend, embedding_model=LOCAL_EMBEDDER_INT8)
    emb = CountingEmbeddings(size=32)
    current = tmp_path / "current"
    ingest([SAMPLE / "engagement-letter.txt"], current, settings, embeddings=emb)
    index = open_index(settings, current)
    assert index.recorded_settings["embedder_revision"] == "int8-per-token"
    index.close()

    old = tmp_path / "old"
    with monkeypatch.context() as m:  # what an lclfqa before revisions recorded: none
        m.setattr(factory, "EMBEDDER_REVISIONS", {})
        ingest([SAMPLE / "engagement-letter.txt"], old, settings, embeddings=emb)
    with pytest.raises(EmbedderRevisionMismatch, match="another build of embedding model .*int8.* ingest the"):
        open_index(settings, old)
    calls = emb.calls
    with pytest.raises(EmbedderRevisionMismatch):
        ingest([SAMPLE], old, settings, embeddings=emb)
    assert emb.calls == calls  # refused before anything was embedded, and nothing lost:
    index = open_index(settings, old, check_vectors=False)
    assert list(index.documents) == ["engagement-letter.txt"]
    index.close()
    where = ["--index", str(old), "--backend", backend]
    result = CliRunner().invoke(app, ["search", "credit", *where])
    assert result.exit_code == 2 and "ingest the documents again" in result.output, result.output
    assert isinstance(result.exception, SystemExit)  # a clear error, not an exception
    rows = tmp_path / "qa.jsonl"
    rows.write_text(json.dumps({"id": "Q1", "question": "Is leave paid?", "gold_answer": "Yes."}) + "\n")
    asked = ["eval", "qa", "--dataset", str(rows), *where, "--judge", "none", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(app, asked)
    assert result.exit_code == 2 and "ingest the documents again" in result.output, result.output
    result = CliRunner().invoke(app, ["info", *where])
    assert result.exit_code == 0 and LOCAL_EMBEDDER_INT8 in result.output, result.output
    assert "warning:" in result.output and "ingest the documents again" in result.output

    # an index an older lclfqa made with an embedder whose vectors never changed recorded no revision: it opens
    record, chunks = make_document("old.txt", 4)
    plain = open_index(Settings(index_backend=backend), tmp_path / "plain", create=True)
    plain.add_documents(DocumentBatch([record], chunks, vectors_of(chunks), "local:all-MiniLM-L6-v2", {"v": 1}))
    plain.close()
    index = open_index(Settings(index_backend=backend), tmp_path / "plain")
    assert "embedder_revision" not in index.recorded_settings and list(index.documents) == ["old.txt"]
    index.close()


def test_the_langchain_retriever_gives_the_search_results(built: dict[str, IndexBackend]) -> None:
    from lclfqa.index.retriever import IndexRetriever

    emb = DeterministicFakeEmbedding(size=DIM)
    for index in built.values():
        retriever = IndexRetriever(index=index, embeddings=emb, params=RetrievalParams(k=5))
        for q in queries()[:4]:
            docs = retriever.invoke(q)
            hits = search(index, emb, q, RetrievalParams(k=5))[1]
            assert [d.id for d in docs] == [h.chunk.id for h in hits]
            assert [d.page_content for d in docs] == [h.chunk.text for h in hits]
            assert docs[0].metadata["score"] == hits[0].score and docs[0].metadata["document"] == hits[0].chunk.document
