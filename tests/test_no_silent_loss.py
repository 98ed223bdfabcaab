"""No document leaves the index silently: re-chunking with moved, changed or relative sources, impossible
settings, and two ingests into one index at once (issue 16, points 1 and 2)."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import time
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.config import Settings
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.ingest import ingest
from lclfqa.index.lock import IndexBusy, writer_lock

SMALL = Settings(child_size=200, parent_size=800)
TEXT = (
    "1. Scope\n\n"
    + "This note covers the child and dependent care credit. " * 30
    + "\n\n2. Spouses\n\n"
    + ("Married taxpayers must file a joint return to claim the credit. " * 30)
)


def _folder(where: Path, *names: str) -> Path:
    where.mkdir(parents=True)
    for n in names:
        (where / n).write_text(f"{n}\n\n{TEXT}", encoding="utf-8")
    return where


def _emb() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=8)


def _children(where: Path, document: str) -> int:
    return len(EmbeddedBackend.load(where).chunks(kind="child", document=document))


def test_rechunking_keeps_a_document_whose_source_moved_and_names_it(tmp_path: Path):
    docs = _folder(tmp_path / "docs", "a.txt", "b.txt")
    where = tmp_path / "idx"
    ingest([docs], where, SMALL, embeddings=_emb())
    before = _children(where, "a.txt")
    shutil.move(docs, tmp_path / "moved")
    other = _folder(tmp_path / "other", "c.txt")
    report = ingest([other], where, Settings(), embeddings=_emb())  # new chunk sizes: everything re-chunks
    assert set(EmbeddedBackend.load(where).documents) == {"a.txt", "b.txt", "c.txt"}  # nothing dropped
    assert _children(where, "a.txt") == before  # the old chunks, kept as they were
    assert not report.ok and {name for name, _ in report.kept} == {"a.txt", "b.txt"}
    assert all("not found" in reason and "kept" in reason for _, reason in report.kept)
    # the sources come back: the next ingest re-chunks them with the current settings
    shutil.move(tmp_path / "moved", docs)
    again = ingest([other], where, Settings(), embeddings=_emb())
    assert again.ok and again.reused_documents == 1
    assert _children(where, "a.txt") < before


def test_rechunking_rereads_sources_from_their_absolute_path_whatever_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _folder(tmp_path / "work" / "docs", "a.txt")
    monkeypatch.chdir(tmp_path / "work")
    ingest(["docs"], tmp_path / "idx", SMALL, embeddings=_emb())  # a relative path, as typed
    small = _children(tmp_path / "idx", "a.txt")
    monkeypatch.chdir(tmp_path)  # another folder: "docs/a.txt" no longer resolves
    other = _folder(tmp_path / "other", "c.txt")
    report = ingest([other], tmp_path / "idx", Settings(), embeddings=_emb())
    assert set(EmbeddedBackend.load(tmp_path / "idx").documents) == {"a.txt", "c.txt"}
    assert report.ok, report.kept
    assert 0 < _children(tmp_path / "idx", "a.txt") < small


def test_rechunking_keeps_a_document_whose_source_changed(tmp_path: Path):
    docs = _folder(tmp_path / "docs", "a.txt")
    where = tmp_path / "idx"
    ingest([docs], where, SMALL, embeddings=_emb())
    before = EmbeddedBackend.load(where).chunks(document="a.txt")
    (docs / "a.txt").write_text("Something else entirely.\n", encoding="utf-8")
    report = ingest([_folder(tmp_path / "o", "c.txt")], where, Settings(), embeddings=_emb())
    assert [name for name, _ in report.kept] == ["a.txt"] and "changed" in report.kept[0][1]
    assert EmbeddedBackend.load(where).chunks(document="a.txt") == before


def test_impossible_chunk_sizes_are_refused_before_the_index_is_touched(tmp_path: Path):
    docs = _folder(tmp_path / "docs", "a.txt", "b.txt")
    where = tmp_path / "idx"
    ingest([docs], where, Settings(), embeddings=_emb())
    generation = (where / "CURRENT").read_text()
    with pytest.raises(ValueError, match="child_size .* must not exceed parent_size"):
        Settings(child_size=3000, parent_size=2000)
    for bad in (["--child-size", "3000"], ["--child-size", "0"], ["--parent-size", "-5"]):
        result = CliRunner().invoke(app, ["ingest", str(docs), "--index", str(where), "-q", *bad])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
    assert (where / "CURRENT").read_text() == generation
    assert set(EmbeddedBackend.load(where).documents) == {"a.txt", "b.txt"}


# ------------------------------------------------------------------------------------- one writer


class SlowEmbeddings(DeterministicFakeEmbedding):
    """An embedder that takes time, as a real one does: it keeps an ingest inside its critical section."""

    def embed_documents(self, texts):  # noqa: ANN001, ANN201
        time.sleep(0.15)
        return super().embed_documents(texts)


def _ingest_in_child(folder: str, where: str, start: multiprocessing.synchronize.Event) -> None:
    start.wait()
    ingest([folder], where, Settings(), embeddings=SlowEmbeddings(size=8))


RUNS = 20


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_two_concurrent_ingests_into_one_index_keep_both_folders(tmp_path: Path):
    """Two processes ingest different folders into one index at the same moment, 20 times: each run ends
    with both folders' documents (before the whole-ingest lock, the last writer won)."""
    ctx = multiprocessing.get_context("fork")
    lost = []
    for run in range(RUNS):
        a = _folder(tmp_path / f"a{run}", f"a{run}.txt")
        b = _folder(tmp_path / f"b{run}", f"b{run}.txt")
        where = tmp_path / f"idx{run}"
        start = ctx.Event()
        procs = [ctx.Process(target=_ingest_in_child, args=(str(f), str(where), start)) for f in (a, b)]
        for p in procs:
            p.start()
        start.set()
        for p in procs:
            p.join(60)
        assert [p.exitcode for p in procs] == [0, 0]
        docs = set(EmbeddedBackend.load(where).documents)
        if docs != {f"a{run}.txt", f"b{run}.txt"}:
            lost.append((run, sorted(docs)))
    assert lost == [], f"{len(lost)} of {RUNS} runs lost a writer's documents: {lost[:3]}"


def test_a_second_writer_waits_with_a_message_or_fails_fast_with_no_wait(tmp_path: Path):
    docs = _folder(tmp_path / "docs", "a.txt")
    where = tmp_path / "idx"
    ingest([_folder(tmp_path / "first", "first.txt")], where, Settings(), embeddings=_emb())
    messages: list[str] = []
    with writer_lock(where):  # another ingest holds the index
        assert set(EmbeddedBackend.load(where).documents) == {"first.txt"}  # readers read the last complete version
        with pytest.raises(IndexBusy, match="being written by process"):
            ingest([docs], where, Settings(), embeddings=_emb(), wait=False)
        result = CliRunner().invoke(app, ["ingest", str(docs), "--index", str(where), "-q", "--no-wait"])
        assert result.exit_code == 3 and "being written" in result.output, result.output
        ctx = multiprocessing.get_context("fork")
        done = ctx.Event()

        def waiter() -> None:
            ingest([docs], where, Settings(), embeddings=_emb(), on_wait=messages.append)
            done.set()

        thread = __import__("threading").Thread(target=waiter)
        thread.start()
        time.sleep(0.5)
        assert not done.is_set()  # still waiting for the lock
    thread.join(30)
    assert done.is_set() and messages and "waiting" in messages[0]
    assert set(EmbeddedBackend.load(where).documents) == {"first.txt", "a.txt"}
