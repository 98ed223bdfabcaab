"""Which files an ingest reads: symbolic links that leave the folder, loops, dangling links, unreadable
folders (issue 16, point 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from lclfqa.config import Settings
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.ingest import discover, ingest
from lclfqa.ingest.discovery import find_sources, other_types
from tests.fakes import MODES_UNTESTABLE, ROOTLESS

SUFFIXES = {".txt"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """docs/ with a real file, a link inside, a link to a file outside (as to /etc/passwd), a link to a
    folder outside, a loop, and a dangling link."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (outside / "more").mkdir()
    (outside / "more" / "other.txt").write_text("outside folder text\n", encoding="utf-8")
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "a.txt").write_text("1. Scope\n\nA real document about credits.\n", encoding="utf-8")
    (docs / "sub" / "b.txt").write_text("1. Scope\n\nAnother real document.\n", encoding="utf-8")
    (docs / "inside.txt").symlink_to(docs / "sub" / "b.txt")
    (docs / "passwd.txt").symlink_to(outside / "secret.txt")
    (docs / "more").symlink_to(outside / "more", target_is_directory=True)
    (docs / "sub" / "loop").symlink_to(docs, target_is_directory=True)
    (docs / "gone.txt").symlink_to(tmp_path / "deleted.txt")
    return docs


def test_links_leaving_the_folder_are_not_followed_and_each_is_reported(tree: Path):
    found = find_sources([tree], SUFFIXES)
    assert sorted(name for _, name in found.files) == ["a.txt", "sub/b.txt"]  # inside.txt is b.txt again
    problems = {Path(p).name: reason for p, reason in found.problems}
    assert set(problems) == {"passwd.txt", "more", "loop", "gone.txt"}
    assert "outside" in problems["passwd.txt"] and "--follow-symlinks" in problems["passwd.txt"]
    assert "--follow-symlinks" in problems["more"]
    assert "loop" in problems["loop"]
    assert "dangling" in problems["gone.txt"]


def test_follow_symlinks_opts_in(tree: Path):
    found = find_sources([tree], SUFFIXES, follow_symlinks=True)
    assert sorted(name for _, name in found.files) == ["a.txt", "more/other.txt", "passwd.txt", "sub/b.txt"]
    assert {Path(p).name for p, _ in found.problems} == {"loop", "gone.txt"}  # still reported


def test_ingest_does_not_index_a_link_to_a_file_outside_the_folder(tree: Path, tmp_path: Path):
    report = ingest([tree], tmp_path / "idx", Settings(), embeddings=DeterministicFakeEmbedding(size=8))
    docs = EmbeddedBackend.load(tmp_path / "idx").documents
    assert set(docs) == {"a.txt", "sub/b.txt"}
    assert not any("root:x:0:0" in c.text for c in EmbeddedBackend.load(tmp_path / "idx").chunks())
    assert not report.ok and any(Path(p).name == "passwd.txt" for p, _ in report.skipped)


def test_an_etc_passwd_link_is_not_followed(tmp_path: Path):
    if not Path("/etc/passwd").is_file():
        pytest.skip("no /etc/passwd")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "passwd.txt").symlink_to("/etc/passwd")
    found = find_sources([tmp_path / "d"], SUFFIXES)
    assert found.files == [] and "/etc/passwd" in found.problems[0][1]


def test_discover_still_lists_plain_files(tmp_path: Path):
    (tmp_path / "x.txt").write_text("t", encoding="utf-8")
    assert [n for _, n in discover([tmp_path], SUFFIXES)] == ["x.txt"]


_LIST = (
    "import json, sys; from pathlib import Path; from lclfqa.ingest.discovery import find_sources; "
    "found = find_sources([Path(sys.argv[1])], {'.txt'}); "
    "print(json.dumps({'files': [list(f) for f in found.files], 'problems': [list(p) for p in found.problems]}))"
)


@pytest.mark.skipif(MODES_UNTESTABLE, reason="root without setpriv reads any folder")
def test_an_unreadable_subfolder_is_reported(tmp_path: Path):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.txt").write_text("t", encoding="utf-8")
    (tmp_path / "locked").chmod(0)
    # root lists folders of any mode: run without the capabilities that allow it (ROOTLESS)
    try:
        done = subprocess.run(
            [*ROOTLESS, sys.executable, "-c", _LIST, str(tmp_path)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
            timeout=60,
        )
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["files"] == [] and "permission" in found["problems"][0][1].lower()


def test_cli_reports_links_per_file_and_follow_symlinks_opts_in(tree: Path, tmp_path: Path, monkeypatch):  # noqa: ANN001
    from typer.testing import CliRunner

    from lclfqa.cli import app

    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=8))
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(tree), "--index", str(tmp_path / "i1"), "-q"])
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "passwd.txt" in out and "--follow-symlinks" in out, result.output
    assert "passwd.txt" not in EmbeddedBackend.load(tmp_path / "i1").documents
    result = runner.invoke(app, ["ingest", str(tree), "--index", str(tmp_path / "i2"), "-q", "--follow-symlinks"])
    assert result.exit_code == 1  # the loop and the dangling link are still reported
    assert {"passwd.txt", "more/other.txt"} <= set(EmbeddedBackend.load(tmp_path / "i2").documents)


def test_files_of_other_types_are_counted_and_a_folder_with_none_to_read_is_a_problem(tmp_path: Path):
    mixed = tmp_path / "mixed"
    (mixed / "sub").mkdir(parents=True)
    (mixed / "brief.txt").write_text("1. Scope\n\nA brief.\n", encoding="utf-8")
    (mixed / "old.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    (mixed / "sub" / "scan.png").write_bytes(b"\x89PNG")
    (mixed / "sub" / "other.doc").write_bytes(b"\xd0\xcf")
    (mixed / "LICENSE").write_text("MIT\n", encoding="utf-8")
    found = find_sources([mixed], SUFFIXES)
    assert [name for _, name in found.files] == ["brief.txt"] and found.problems == []
    assert found.other == {".doc": 2, ".png": 1, "": 1}
    assert other_types(found.other) == "2 .doc, 1 .png, 1 with no suffix"

    scans = tmp_path / "scans"
    scans.mkdir()
    (scans / "p1.tiff").write_bytes(b"II*\x00")
    empty = tmp_path / "empty"
    empty.mkdir()
    found = find_sources([mixed, scans, empty], SUFFIXES)
    assert [name for _, name in found.files] == ["brief.txt"]
    problems = dict(found.problems)
    assert set(problems) == {str(scans), str(empty)}  # the folder with a file to read is no problem
    assert "no file of a type lclfqa reads (.txt)" in problems[str(scans)] and "1 .tiff" in problems[str(scans)]
    assert "found only" not in problems[str(empty)]


def test_cli_says_what_it_did_not_read_and_fails_a_folder_with_nothing_to_read(tmp_path: Path, monkeypatch):  # noqa: ANN001
    from typer.testing import CliRunner

    from lclfqa.cli import app

    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=8))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "memo.txt").write_text("1. Scope\n\nA memo about credits.\n", encoding="utf-8")
    (docs / "engagement.doc").write_bytes(b"\xd0\xcf\x11\xe0")
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(docs), "--index", str(tmp_path / "i1"), "-q"])
    out = " ".join(result.output.split())
    assert result.exit_code == 0, result.output  # a folder may hold other files beside its documents
    assert "not read: 1 .doc" in out and ".pdf" in out
    (docs / "memo.txt").unlink()
    result = runner.invoke(app, ["ingest", str(docs), "--index", str(tmp_path / "i2"), "-q"])
    out = " ".join(result.output.split())
    assert result.exit_code == 1 and "no file of a type lclfqa reads" in out and "found only 1 .doc" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_under_a_documents_name_is_reported_not_passed_over(tmp_path: Path):
    (tmp_path / "note.txt").write_text("1. A\n\nText.\n", encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.txt")
    os.mkfifo(tmp_path / "fifo")  # no document's name: counted with the files of other types
    found = find_sources([tmp_path], {".txt"})
    assert [name for _, name in found.files] == ["note.txt"]
    assert found.problems == [(str(tmp_path / "pipe.txt"), "not a regular file (a pipe, socket or device): not read")]
    assert dict(found.other) == {"": 1}
