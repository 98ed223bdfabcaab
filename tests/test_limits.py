"""Limits on every input and a non-zero exit with a table when files are left out (issue 16, points 5
and 6). Small limits here exercise the same code as the 300 MB file in benchmarks/bench_faults.py."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.config import Settings
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.ingest import ingest
from lclfqa.ingest.limits import count_text_chars
from lclfqa.ingest.pdf_damage import pdf_damage

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample"
MEMO = SAMPLE / "tax-memo-education-credits.pdf"
runner = CliRunner()


def _emb() -> DeterministicFakeEmbedding:
    return DeterministicFakeEmbedding(size=8)


def _reasons(report) -> dict[str, str]:  # noqa: ANN001
    return {Path(p).name: r for p, r in report.skipped}


def test_a_file_over_max_file_mb_is_skipped_before_it_is_read(tmp_path: Path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "big.txt").write_text("1. Big\n\n" + "word " * 1000, encoding="utf-8")
    (tmp_path / "d" / "small.txt").write_text("1. Small\n\nA short note.\n", encoding="utf-8")
    report = ingest([tmp_path / "d"], tmp_path / "idx", Settings(max_file_mb=0.001), embeddings=_emb())
    assert set(EmbeddedBackend.load(tmp_path / "idx").documents) == {"small.txt"}
    reason = _reasons(report)["big.txt"]
    assert "max_file_mb" in reason and "LCLFQA_MAX_FILE_MB" in reason
    assert "file is 5,008 bytes" in reason and "1,000 bytes" in reason and "0.0 MB" not in reason, reason


def test_a_text_over_max_chars_is_refused_before_it_is_decoded(tmp_path: Path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "long.txt").write_text("1. Long\n\n" + "é" * 5000, encoding="utf-8")  # 10 kB, 5 k chars
    assert 5000 < count_text_chars(tmp_path / "d" / "long.txt", 10**9) < 5100
    report = ingest([tmp_path / "d"], tmp_path / "idx", Settings(max_chars=3000), embeddings=_emb())
    assert "max_chars" in _reasons(report)["long.txt"]
    ok = ingest([tmp_path / "d"], tmp_path / "idx2", Settings(max_chars=6000), embeddings=_emb())
    assert ok.ok and ok.documents == 1  # 10 kB of bytes but 5 k characters: within the limit


def test_a_pdf_over_max_pages_is_skipped(tmp_path: Path):
    (tmp_path / "d").mkdir()
    shutil.copy(MEMO, tmp_path / "d")
    report = ingest([tmp_path / "d"], tmp_path / "idx", Settings(max_pages=1), embeddings=_emb())
    assert "max_pages" in _reasons(report)[MEMO.name] and report.documents == 0


def test_limits_are_settings_with_clear_errors():
    assert Settings().max_file_mb == 200 and Settings().max_pages > 0 and Settings().max_chars > 0
    with pytest.raises(ValueError, match="max_pages must be positive"):
        Settings(max_pages=0)
    with pytest.raises(ValueError, match="LCLFQA_MAX_CHARS must be a number"):
        Settings.load(env={"LCLFQA_MAX_CHARS": "lots"})


def test_skipped_files_give_exit_code_1_and_a_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: _emb())
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "good.txt").write_text("1. Scope\n\nA good note.\n", encoding="utf-8")
    (tmp_path / "d" / "empty.txt").write_bytes(b"")
    (tmp_path / "d" / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    result = runner.invoke(app, ["ingest", str(tmp_path / "d"), "--index", str(tmp_path / "idx"), "-q"])
    assert result.exit_code == 1, result.output
    out = " ".join(result.output.split())
    assert "Not indexed as asked" in out and "empty.txt" in out and "broken.pdf" in out
    assert "2 skipped" in out and "Traceback" not in result.output
    assert set(EmbeddedBackend.load(tmp_path / "idx").documents) == {"good.txt"}
    (tmp_path / "d" / "empty.txt").unlink()
    (tmp_path / "d" / "broken.pdf").unlink()
    result = runner.invoke(app, ["ingest", str(tmp_path / "d"), "--index", str(tmp_path / "idx"), "-q"])
    assert result.exit_code == 0, result.output


def _splice(data: bytes, at: float, garbage: bytes) -> bytes:
    i = int(len(data) * at)
    return data[:i] + garbage + data[i:]


def test_a_pdf_with_garbage_spliced_in_is_reported_as_damaged(tmp_path: Path):
    assert pdf_damage(MEMO) is None
    (tmp_path / "d").mkdir()
    damaged = tmp_path / "d" / "memo.pdf"
    damaged.write_bytes(_splice(MEMO.read_bytes(), 0.5, os.urandom(4096)))
    assert pdf_damage(damaged) is not None
    report = ingest([tmp_path / "d"], tmp_path / "idx", Settings(), embeddings=_emb())
    assert not report.ok and [Path(p).name for p, _ in report.damaged] == ["memo.pdf"]
    assert "damaged" in report.damaged[0][1] and "inserted" in report.damaged[0][1]
