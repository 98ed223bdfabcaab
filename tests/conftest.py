"""Shared fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from lclfqa.config import Settings
from lclfqa.index.ingest import ingest
from tests.fakes import ScriptedChat

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample"


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the shipped sample (memo PDF + engagement letter) with fake 32-d embeddings."""
    folder = tmp_path_factory.mktemp("docs")
    for f in SAMPLE.iterdir():
        if f.suffix in (".pdf", ".txt"):
            shutil.copy(f, folder / f.name)
    out = tmp_path_factory.mktemp("idx") / "index"
    report = ingest([folder], out, Settings(), embeddings=DeterministicFakeEmbedding(size=32))
    assert report.documents == 2
    return out


@pytest.fixture(scope="session")
def local_sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped sample indexed with the real offline embedder (all-MiniLM-L6-v2), as a user ingests it;
    for the slow tests that serve the graph."""
    out = tmp_path_factory.mktemp("local-idx") / "index"
    report = ingest([SAMPLE], out, Settings())
    assert report.documents == 2
    return out


@pytest.fixture(scope="module")
def memo_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the sample's memo PDF alone, with fake 32-d embeddings (the CLI and serve tests)."""
    folder = tmp_path_factory.mktemp("docs")
    shutil.copy(SAMPLE / "tax-memo-education-credits.pdf", folder)
    out = tmp_path_factory.mktemp("idx") / "index"
    ingest([folder], out, Settings(), embeddings=DeterministicFakeEmbedding(size=32))
    return out


@pytest.fixture
def fake_models(monkeypatch: pytest.MonkeyPatch) -> ScriptedChat:
    """The scripted chat model and fake embedder in place of the real ones, for commands run in-process;
    no server (``LCLFQA_SERVER_URL`` unset). The scripted answer is not written from the quotes the fake
    embedder retrieves: its words are not checked here (tests/test_graph.py and tests/test_quotes.py test
    that check)."""
    from tests.test_graph import good_script

    llm = ScriptedChat(script=good_script())
    monkeypatch.setenv("LCLFQA_MIN_ANSWER_SUPPORT", "0")
    monkeypatch.delenv("LCLFQA_SERVER_URL", raising=False)
    monkeypatch.setattr("lclfqa.llm.models.get_chat_model", lambda *a, **k: llm)
    monkeypatch.setattr("lclfqa.llm.models.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=32))
    return llm
