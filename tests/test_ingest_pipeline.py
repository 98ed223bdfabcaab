"""The ingest pipeline and CLI: batches with bad files, incremental re-ingest, search, JSON output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.config import Settings
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.errors import IndexNotFound
from lclfqa.index.ingest import PARSER_VERSION, discover, embedding_order, ingest
from lclfqa.index.search import RetrievalParams, search
from tests.fakes import CountingEmbeddings

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
REGS = DATA / "pdfs" / "treasury-regulations"
needs_data = pytest.mark.skipif(not REGS.exists(), reason="../shared/data not present")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    if REGS.exists():
        shutil.copy(REGS / "26 CFR 1.21-3 (up to date as of 6-26-2026).pdf", folder / "dependent care & MFS.pdf")
    (folder / "policy notes.txt").write_text(
        "1. Scope\n\nThis note covers the child and dependent care credit.\n\n2. Married taxpayers\n\n"
        "Married taxpayers must file a joint return to claim the credit.\n",
        encoding="utf-8",
    )
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    (folder / "empty.txt").write_bytes(b"")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 20)
    (folder / ".hidden.txt").write_text("never ingested", encoding="utf-8")
    return folder


@needs_data
def test_a_batch_with_bad_files_indexes_the_rest_and_says_why(corpus: Path, tmp_path: Path):
    emb = CountingEmbeddings(size=16)
    report = ingest([corpus], tmp_path / "idx", Settings(), embeddings=emb)
    skipped = {Path(p).name: reason for p, reason in report.skipped}
    assert set(skipped) == {"corrupt.pdf", "empty.txt", "binary.txt"}
    assert "empty" in skipped["empty.txt"]
    assert report.documents == 2 and report.children > 0
    idx = EmbeddedBackend.load(tmp_path / "idx")
    assert set(idx.documents) == {"dependent care & MFS.pdf", "policy notes.txt"}
    assert emb.calls == report.children + report.footnote_chunks
    _, hits = search(idx, emb, "joint return married credit", RetrievalParams(k=3, document_scope=False))
    assert hits and all(h.chunk.kind != "parent" for h in hits)


def test_a_file_reached_from_another_folder_keeps_its_name_and_one_copy(tmp_path: Path):
    top = tmp_path / "corpus"
    (top / "nda").mkdir(parents=True)
    (top / "nda" / "mutual.txt").write_text("1. Term\n\nThe obligations last five years.\n", encoding="utf-8")
    (top / "leases").mkdir()
    (top / "leases" / "office.txt").write_text("1. Rent\n\nRent is due monthly in advance.\n", encoding="utf-8")
    emb = CountingEmbeddings(size=16)
    ingest([top / "nda"], tmp_path / "idx", Settings(), embeddings=emb)
    again = ingest([top], tmp_path / "idx", Settings(), embeddings=emb)  # the parent: "nda/mutual.txt"
    assert again.documents == 2 and again.reused_documents == 1
    idx = EmbeddedBackend.load(tmp_path / "idx")
    assert set(idx.documents) == {"mutual.txt", "leases/office.txt"}
    assert sum("five years" in c.text for c in idx.chunks() if c.kind != "parent") == 1


def _two_folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "x.txt").write_text("1. Term\n\nThe obligations last five years.\n", encoding="utf-8")
    (b / "x.txt").write_text("1. Rent\n\nRent is due monthly in advance.\n", encoding="utf-8")
    return a, b


def _texts(index: Path) -> dict[str, str]:
    idx = EmbeddedBackend.load(index)
    return {name: " ".join(c.text for c in idx.chunks(document=name) if c.kind != "parent") for name in idx.documents}


def test_two_files_of_one_name_are_both_indexed(tmp_path: Path):
    a, b = _two_folders(tmp_path)
    emb = CountingEmbeddings(size=16)
    ingest([a, b], tmp_path / "one-run", Settings(), embeddings=emb)  # one run: the second was dropped unsaid
    texts = _texts(tmp_path / "one-run")
    assert set(texts) == {"x.txt", "b/x.txt"} and "Rent" in texts["b/x.txt"]
    ingest([a], tmp_path / "two-runs", Settings(), embeddings=emb)
    report = ingest([b], tmp_path / "two-runs", Settings(), embeddings=emb)  # two runs: it replaced the first
    texts = _texts(tmp_path / "two-runs")
    assert set(texts) == {"x.txt", "b/x.txt"} and "five years" in texts["x.txt"] and "Rent" in texts["b/x.txt"]
    assert report.ok and [(Path(p).parent.name, n) for p, n, _ in report.renamed] == [("b", "b/x.txt")]
    out = CliRunner().invoke(app, ["ingest", str(b), "--index", str(tmp_path / "cli")])
    assert out.exit_code == 0
    out = CliRunner().invoke(app, ["ingest", str(a), str(b), "--index", str(tmp_path / "cli")])
    assert out.exit_code == 0 and "named a/x.txt" in out.output.replace("\n", "")
    texts = _texts(tmp_path / "cli")  # b, indexed first, keeps "x.txt"; a is told apart, and nothing is twice
    assert set(texts) == {"x.txt", "a/x.txt"} and "Rent" in texts["x.txt"] and "five years" in texts["a/x.txt"]


def test_one_file_by_a_link_or_moved_into_a_parent_folder_is_one_document(tmp_path: Path):
    a, _ = _two_folders(tmp_path)
    emb = CountingEmbeddings(size=16)
    (tmp_path / "alias").symlink_to(a, target_is_directory=True)
    ingest([tmp_path / "alias"], tmp_path / "idx", Settings(), embeddings=emb)
    report = ingest([tmp_path / "a"], tmp_path / "idx", Settings(), embeddings=emb)  # the same file, by its path
    assert set(_texts(tmp_path / "idx")) == {"x.txt"} and report.renamed == []
    top = tmp_path / "top"
    top.mkdir()
    (tmp_path / "alias").unlink()
    a.rename(top / "a")  # moved one folder down: reached now as "a/x.txt"
    report = ingest([top], tmp_path / "idx", Settings(), embeddings=emb)
    assert set(_texts(tmp_path / "idx")) == {"x.txt"}
    assert [(n, why) for _, n, why in report.renamed] == [("x.txt", "indexed as x.txt already; given as a/x.txt")]
    out = CliRunner().invoke(app, ["ingest", str(top), "--index", str(tmp_path / "idx")])
    assert out.exit_code == 0 and "given as a/x.txt" in out.output.replace("\n", "")


def test_a_moved_or_copied_file_is_one_document(tmp_path: Path):
    a, _ = _two_folders(tmp_path)
    emb = CountingEmbeddings(size=16)
    ingest([a], tmp_path / "idx", Settings(), embeddings=emb)
    copy = tmp_path / "copy"
    shutil.copytree(a, copy)
    assert ingest([copy], tmp_path / "idx", Settings(), embeddings=emb).reused_documents == 1
    moved = tmp_path / "moved"
    a.rename(moved)
    (moved / "x.txt").write_text("1. Term\n\nThe obligations last ten years.\n", encoding="utf-8")
    ingest([moved], tmp_path / "idx", Settings(), embeddings=emb)
    assert _texts(tmp_path / "idx") == {"x.txt": "1. Term\n\nThe obligations last ten years."}


@needs_data
def test_reingest_embeds_only_new_or_changed_text(corpus: Path, tmp_path: Path):
    for bad in ("corrupt.pdf", "empty.txt", "binary.txt"):
        (corpus / bad).unlink()
    emb = CountingEmbeddings(size=16)
    first = ingest([corpus], tmp_path / "idx", Settings(), embeddings=emb)
    assert first.embedded > 0
    emb.calls = 0
    again = ingest([corpus], tmp_path / "idx", Settings(), embeddings=emb)
    assert again.reused_documents == 2 and emb.calls == 0 and again.embedded == 0
    (corpus / "policy notes.txt").write_text(
        "1. Scope\n\nThis note covers the child and dependent care credit.\n\n2. Married taxpayers\n\n"
        "Spouses living apart may be treated as not married.\n",
        encoding="utf-8",
    )
    changed = ingest([corpus], tmp_path / "idx", Settings(), embeddings=emb)
    assert changed.reused_documents == 1
    assert 0 < emb.calls < first.embedded  # only the changed document's new text
    idx = EmbeddedBackend.load(tmp_path / "idx")
    assert any("living apart" in c.text for c in idx.chunks(document="policy notes.txt"))
    assert not any("joint return" in c.text for c in idx.chunks(document="policy notes.txt"))
    # adding a folder keeps what was there
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "memo.txt").write_text("1. Facts\n\nThe taxpayer paid tuition.\n", encoding="utf-8")
    ingest([extra], tmp_path / "idx", Settings(), embeddings=emb)
    names = set(EmbeddedBackend.load(tmp_path / "idx").documents)
    assert names == {"dependent care & MFS.pdf", "policy notes.txt", "memo.txt"}


class WordCountingEmbeddings(CountingEmbeddings):
    """Counts a text's length in words (as a tokenizer would), and records each batch it is given."""

    batches: list = []

    def token_counts(self, texts):
        return [len(t.split()) for t in texts]

    def embed_documents(self, texts):
        self.batches.append(list(texts))
        return super().embed_documents(texts)


def test_texts_are_embedded_shortest_first_by_the_embedders_own_count():
    texts = {"h3": "x" * 40, "h1": "a b c d e f", "h2": "yy zz", "h0": "uu vv"}
    # by characters the 40-character single word is last; by the embedder's count it is first
    assert [k for k, _ in embedding_order(texts, DeterministicFakeEmbedding(size=4))] == ["h0", "h2", "h1", "h3"]
    assert [k for k, _ in embedding_order(texts, WordCountingEmbeddings(size=4))] == ["h3", "h0", "h2", "h1"]


def test_ingest_embeds_in_that_order(tmp_path: Path):
    folder = tmp_path / "d"
    folder.mkdir()
    # long words in few-word sections, short ones in many-word sections: characters and words disagree
    words = {i: ["recharacterisations"] * (2 + i) if i % 2 else ["tax"] * (4 + 2 * i) for i in range(1, 10)}
    sections = [f"{i}. Part {i}\n\n" + " ".join(words[i]) + ".\n\n" for i in range(1, 10)]
    (folder / "a.txt").write_text("".join(sections), encoding="utf-8")
    emb = WordCountingEmbeddings(size=8)
    ingest([folder], tmp_path / "idx", Settings().with_overrides(embed_batch_size=2), embeddings=emb)
    sent = [t for batch in emb.batches for t in batch]
    assert len(emb.batches) > 2 and len(sent) == len(set(sent))
    assert [len(t.split()) for t in sent] == sorted(len(t.split()) for t in sent)


def test_changing_chunk_settings_rechunks_everything(tmp_path: Path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.txt").write_text("1. One\n\n" + "Sentence about credits. " * 60, encoding="utf-8")
    emb = CountingEmbeddings(size=8)
    small = ingest([folder], tmp_path / "idx", Settings(child_size=200, parent_size=800), embeddings=emb)
    big = ingest([folder], tmp_path / "idx", Settings(child_size=500, parent_size=2000), embeddings=emb)
    assert big.reused_documents == 0 and big.children < small.children


def test_an_index_from_an_older_parser_reparses_its_documents(tmp_path: Path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "a.txt").write_text("1. One\n\n" + "Sentence about credits. " * 60, encoding="utf-8")
    emb = CountingEmbeddings(size=8)
    where = tmp_path / "idx"
    first = ingest([folder], where, Settings(), embeddings=emb)
    assert EmbeddedBackend.load(where).manifest["settings"]["chunking"]["parser"] == PARSER_VERSION
    assert ingest([folder], where, Settings(), embeddings=emb).reused_documents == 1
    manifest_path = where / (where / "CURRENT").read_text().strip() / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["settings"]["chunking"]["parser"]  # as written before the parser was versioned
    manifest_path.write_text(json.dumps(manifest))
    again = ingest([folder], where, Settings(), embeddings=emb)
    assert again.reused_documents == 0 and again.children == first.children
    assert again.embedded == 0  # same text, so the stored vectors are reused


def test_discover_names_files_relative_to_the_folder(tmp_path: Path):
    (tmp_path / "sub dir").mkdir()
    (tmp_path / "sub dir" / "x%20y.txt").write_text("text", encoding="utf-8")
    (tmp_path / "skip.bin").write_bytes(b"1")
    assert [name for _, name in discover([tmp_path], {".txt"})] == ["sub dir/x%20y.txt"]
    with pytest.raises(FileNotFoundError):
        discover([tmp_path / "missing"], {".txt"})


@needs_data
@pytest.mark.slow
def test_cli_ingest_search_and_parse_with_the_real_embedder(tmp_path: Path):
    runner = CliRunner()
    pdf = REGS / "26 CFR 1.21-3 (up to date as of 6-26-2026).pdf"
    result = runner.invoke(app, ["ingest", str(pdf), "--index", str(tmp_path / "idx"), "-q"])
    assert result.exit_code == 0, result.output
    assert "1 documents" in result.output
    result = runner.invoke(
        app,
        [
            "search",
            "What are the special rules for married taxpayers?",
            "--index",
            str(tmp_path / "idx"),
            "-k",
            "3",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    hits = json.loads(result.stdout)
    assert len(hits) == 3 and hits[0]["document"] == pdf.name
    assert any("joint return" in " ".join(h["text"].split()) for h in hits)
    parsed = runner.invoke(app, ["parse", str(pdf), "--json"])
    assert parsed.exit_code == 0
    out = json.loads(parsed.stdout)
    assert set(out) >= {"document", "pages", "sections", "footnotes", "dropped"}
    # running lines dropped, counted per rule (the eCFR print's header, footer and page numbers)
    dropped = out["dropped"]
    assert dropped["by_rule"] and sum(dropped["by_rule"].values()) == dropped["headers"] + dropped["footers"] > 0
    assert set(dropped["by_rule"]) <= {"repeated", "page_number", "stacked", "inward", "echo", "set_apart"}


def test_cli_errors_are_clear(tmp_path: Path):
    runner = CliRunner()
    result = runner.invoke(app, ["search", "anything", "--index", str(tmp_path / "nope")])
    assert result.exit_code == 2
    assert "nope" in result.output
    result = runner.invoke(app, ["ingest", str(tmp_path / "missing-folder"), "--index", str(tmp_path / "i"), "-q"])
    assert result.exit_code == 2 and "no such file" in result.output
    assert runner.invoke(app, ["--help"]).exit_code == 0


def test_an_index_keeps_its_embedder_unless_another_is_asked_for(tmp_path: Path):
    from lclfqa.config import DEFAULT_EMBEDDER
    from lclfqa.index.errors import EmbedderMismatch
    from lclfqa.llm.models import LOCAL_EMBEDDER, LOCAL_EMBEDDER_INT8

    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b", "c"):
        (docs / f"{name}.txt").write_text(f"1. Scope\n\nNote {name} covers the credit.\n", encoding="utf-8")
    emb = CountingEmbeddings(size=16)
    # a new index gets the default embedder
    ingest([docs / "a.txt"], tmp_path / "new", Settings(), embeddings=emb)
    assert EmbeddedBackend.load(tmp_path / "new").embedding_model == DEFAULT_EMBEDDER == LOCAL_EMBEDDER
    # an index built with the int8 MiniLM takes more documents without the flag, and stays int8
    fast = tmp_path / "fast"
    ingest([docs / "a.txt"], fast, Settings(embedding_model=LOCAL_EMBEDDER_INT8), embeddings=emb)
    report = ingest([docs / "b.txt"], fast, Settings(), embeddings=emb)
    assert report.documents == 2
    assert EmbeddedBackend.load(fast).embedding_model == LOCAL_EMBEDDER_INT8
    # another embedder asked for by name is refused, and nothing is lost
    with pytest.raises(EmbedderMismatch, match="re-ingest"):
        ingest([docs / "c.txt"], fast, Settings(embedding_model=LOCAL_EMBEDDER), embeddings=emb)
    assert set(EmbeddedBackend.load(fast).documents) == {"a.txt", "b.txt"}


def test_an_ingest_that_reads_nothing_writes_no_index(tmp_path: Path):
    """Every file skipped (here: a name that is not UTF-8, a stack trace before) made an index of nothing, which
    then fixed its embedder (a '1-d' one) and refused the next ingest with another. Now nothing is written but
    the writer's lock file (never removed: another ingest may be waiting on it)."""
    odd = tmp_path / "odd"
    odd.mkdir()
    bad_name = odd / "caf\udce9.txt"  # a Latin-1 name on a UTF-8 file system
    bad_name.write_text("1. Scope\n\nA note about the credit.\n", encoding="utf-8")
    index = tmp_path / "idx"
    report = ingest([odd], index, Settings(), embeddings=DeterministicFakeEmbedding(size=8))
    assert report.documents == 0 and [p.name for p in index.iterdir()] == ["LOCK"]
    with pytest.raises(IndexNotFound, match="nothing has been indexed into it"):
        EmbeddedBackend.load(index)
    assert [reason for _, reason in report.skipped] == [
        "its file name is not UTF-8 text: rename the file and ingest again"
    ]
    good = tmp_path / "good"
    good.mkdir()
    (good / "note.txt").write_text("1. Scope\n\nA note about the credit.\n", encoding="utf-8")
    report = ingest(
        [good], index, Settings(embedding_model="local:other"), embeddings=DeterministicFakeEmbedding(size=8)
    )
    assert report.documents == 1 and EmbeddedBackend.load(index).embedding_model == "local:other"
    # an index that exists keeps its folder when a later run reads nothing
    report = ingest(
        [odd], index, Settings(embedding_model="local:other"), embeddings=DeterministicFakeEmbedding(size=8)
    )
    assert report.documents == 1 and (index / "CURRENT").exists()


def test_an_index_folder_with_hidden_files_or_a_cut_publish_is_not_taken_for_documents(tmp_path: Path):
    """The check that keeps an index out of the user's folders passes what an index folder may hold: hidden
    files a desktop adds (.DS_Store) and what a publish cut short leaves (CURRENT.tmp beside a generation)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.txt").write_text("1. Scope\n\nA note about the credit.\n", encoding="utf-8")
    for name, leftovers in [("finder", [".DS_Store"]), ("cut", ["LOCK", "CURRENT.tmp", "gen-000001/"])]:
        index = tmp_path / name
        index.mkdir()
        for left in leftovers:
            (index / left).mkdir() if left.endswith("/") else (index / left).write_text("x", encoding="utf-8")
        report = ingest([docs], index, Settings(), embeddings=DeterministicFakeEmbedding(size=8))
        assert report.documents == 1, name
    milvus = tmp_path / "milvus"
    milvus.mkdir()
    (milvus / "milvus.db").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="holds a Milvus Lite index: pass --backend milvus"):
        ingest([docs], milvus, Settings(), embeddings=DeterministicFakeEmbedding(size=8))
