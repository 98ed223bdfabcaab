"""Garbage written into an index's files is an error naming the file, never a wrong answer (issue 16,
point 7): checksums in the manifest, cheap checks on load, ``lclfqa info --check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.index.embedded import EmbeddedBackend, check_index
from lclfqa.index.errors import IndexCorrupted
from tests.test_index import build

runner = CliRunner()


def _overwrite_middle(path: Path, garbage: bytes = b"\xde\xad\xbe\xef" * 64) -> None:
    """Garbage over the middle of the file; its size stays the same, so only a checksum can tell."""
    data = bytearray(path.read_bytes())
    mid = len(data) // 2
    data[mid : mid + len(garbage)] = garbage
    path.write_bytes(bytes(data))


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    where = tmp_path / "idx"
    build(where, hnsw=True)
    return where


def test_the_manifest_records_size_and_sha256_of_every_file(index_dir: Path):
    ix = EmbeddedBackend.load(index_dir)
    files = ix.manifest["files"]
    assert {"chunks.sqlite", "dense.npy", "dense.hnsw"} <= set(files)
    assert any(name.startswith("bm25/") for name in files)
    for name, meta in files.items():
        assert meta["bytes"] == (ix.path / name).stat().st_size and len(meta["sha256"]) == 64
    assert check_index(index_dir) == []


@pytest.mark.parametrize("name", ["chunks.sqlite", "dense.hnsw", "dense.npy"])
def test_garbage_in_a_file_is_refused_on_load_and_by_info_check(index_dir: Path, name: str):
    gen = EmbeddedBackend.load(index_dir).path
    _overwrite_middle(gen / name)
    with pytest.raises(IndexCorrupted, match=rf"index corrupted: .*{name}.*re-ingest"):
        EmbeddedBackend.load(index_dir)
    assert any(name in p for p in check_index(index_dir))
    result = runner.invoke(app, ["info", "--index", str(index_dir), "--check"])
    assert result.exit_code == 1 and "index corrupted" in result.output and "Traceback" not in result.output
    result = runner.invoke(app, ["search", "credit", "--index", str(index_dir)])
    assert result.exit_code == 1 and "index corrupted" in result.output


def test_a_truncated_or_headerless_file_is_refused(index_dir: Path):
    gen = EmbeddedBackend.load(index_dir).path
    data = (gen / "chunks.sqlite").read_bytes()
    (gen / "chunks.sqlite").write_bytes(b"X" * 16 + data[16:])
    with pytest.raises(IndexCorrupted, match="header"):
        EmbeddedBackend.load(index_dir)


def test_info_check_passes_on_a_good_index(index_dir: Path):
    result = runner.invoke(app, ["info", "--index", str(index_dir), "--check"])
    assert result.exit_code == 0, result.output
    assert "ok" in result.output


def test_an_index_without_checksums_still_loads_and_info_check_says_so(index_dir: Path):
    gen = EmbeddedBackend.load(index_dir).path
    manifest = json.loads((gen / "manifest.json").read_text())
    del manifest["files"]  # as written before checksums existed
    (gen / "manifest.json").write_text(json.dumps(manifest))
    EmbeddedBackend.load(index_dir)
    assert any("no checksums" in p for p in check_index(index_dir))
