"""Shared fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from lclfqa.config import Settings
from lclfqa.index.ingest import ingest

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
