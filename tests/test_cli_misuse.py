"""Every CLI misuse is one clear line and exit code 2, never a traceback (issue 16, point 8).

The eight cases the issue found, then others of the same kind. Each runs the real command on real
files; the only stand-in is the embedder of the dimension-mismatch case (a 16-d embedder against a
32-d index, as a custom embedder used through the Python API would be).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.config import Settings
from lclfqa.index.ingest import ingest
from tests.fakes import MODES_UNTESTABLE, ROOTLESS

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A folder of documents, an index of it (fake 32-d vectors), one built 'with OpenAI', a file."""
    base = tmp_path_factory.mktemp("misuse")
    docs = base / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("1. Scope\n\n" + "A note about the dependent care credit. " * 20, encoding="utf-8")
    index = base / "idx"
    ingest([docs], index, Settings(), embeddings=DeterministicFakeEmbedding(size=32))
    openai_index = base / "openai-idx"
    settings = Settings(embedding_model="openai:text-embedding-3-small")
    ingest([docs], openai_index, settings, embeddings=DeterministicFakeEmbedding(size=32))
    a_file = base / "plain.txt"
    a_file.write_text("not an index", encoding="utf-8")
    bad_toml = base / "bad.toml"
    bad_toml.write_text('top_k = "eight"\n', encoding="utf-8")
    qa_set = base / "qa.jsonl"  # one question on the indexed note, one on a document never ingested
    rows = [("Q-1", "a.txt"), ("Q-2", "other-agreement.pdf")]
    qa_set.write_text(
        "".join(
            json.dumps({"id": i, "question": "What does the note say?", "gold_answer": "It notes.", "documents": [d]})
            + "\n"
            for i, d in rows
        ),
        encoding="utf-8",
    )
    return {
        "base": base,
        "docs": docs,
        "index": index,
        "openai": openai_index,
        "file": a_file,
        "bad_toml": bad_toml,
        "qa_set": qa_set,
    }


ONE_TEST = {"query": "What does the note say?", "snippets": [{"file_path": "a.txt", "span": [0, 20]}]}


def _written(w: dict[str, Path], name: str, text: str) -> Path:
    (w["base"] / name).parent.mkdir(parents=True, exist_ok=True)
    (w["base"] / name).write_text(text, encoding="utf-8")
    return w["base"] / name


def _moved_sources(w: dict[str, Path]) -> list[str]:
    """Index a folder, move it away, re-ingest with other chunk sizes: the moved documents are kept (exit 1)."""
    docs = w["base"] / "to-move"
    shutil.copytree(w["docs"], docs, dirs_exist_ok=True)
    index = w["base"] / "moved-idx"
    ingest([docs], index, Settings(child_size=200, parent_size=800), embeddings=DeterministicFakeEmbedding(size=32))
    shutil.rmtree(w["base"] / "moved-away", ignore_errors=True)
    docs.rename(w["base"] / "moved-away")
    other = w["base"] / "other"
    other.mkdir(exist_ok=True)
    (other / "b.txt").write_text("1. Other\n\nAnother note.\n", encoding="utf-8")
    return ["ingest", str(other), "--index", str(index), "-q"]


# (name, arguments from the fixture, expected exit code, words the message must contain)
CASES: list[tuple[str, Callable[[dict[str, Path]], list[str]], int, str]] = [
    ("ingest --index is a file", lambda w: ["ingest", str(w["docs"]), "--index", str(w["file"]), "-q"], 2, "is a file"),
    (
        "search an index built with another embedder",
        lambda w: ["search", "credit", "--index", str(w["openai"])],
        2,
        "OPENAI_API_KEY",
    ),
    ('top_k = "eight" in the TOML', lambda w: ["ask", "q", "--config", str(w["bad_toml"])], 2, "top_k must be"),
    (
        "search -k -1",
        lambda w: ["search", "credit", "--index", str(w["index"]), "-k", "-1"],
        2,
        "-k must be at least 1",
    ),
    (
        "child_size > parent_size",
        lambda w: ["ingest", str(w["docs"]), "--index", str(w["index"]), "--child-size", "5000", "-q"],
        2,
        "must not exceed parent_size",
    ),
    ("moved sources on re-chunk", _moved_sources, 1, "kept"),
    ("search an empty query", lambda w: ["search", "  ", "--index", str(w["index"])], 2, "the query is empty"),
    ("search -k 0", lambda w: ["search", "credit", "--index", str(w["index"]), "-k", "0"], 2, "-k must be at least 1"),
    # more of the same kind
    ("ask -k 0", lambda w: ["ask", "q", "--index", str(w["index"]), "-k", "0"], 2, "top_k must be positive"),
    ("--config that does not exist", lambda w: ["ask", "q", "--config", str(w["base"] / "no.toml")], 2, "no.toml"),
    ("ingest a folder that does not exist", lambda w: ["ingest", str(w["base"] / "nope"), "-q"], 2, "no such file"),
    ("info on a file", lambda w: ["info", "--index", str(w["file"])], 2, "plain.txt"),
    ("info --check on no index", lambda w: ["info", "--check", "--index", str(w["base"] / "none")], 2, "no index"),
    (
        "eval qa on an index without the set's documents",
        lambda w: [
            "eval",
            "qa",
            "--dataset",
            str(w["qa_set"]),
            "--index",
            str(w["index"]),
            "--out",
            str(w["base"] / "r"),
        ],
        2,
        "1 question(s) name documents that are not in",
    ),
    ("serve --port 99999", lambda w: ["serve", "--index", str(w["index"]), "--port", "99999"], 2, "--port must be"),
    (
        "eval qa --baseline that the run does not answer",
        lambda w: [
            *("eval", "qa", "--dataset", str(w["qa_set"]), "--index", str(w["index"])),
            *("--out", str(w["base"] / "r-baseline"), "--baseline", "nope"),
        ],
        2,
        "--baseline 'nope' is not among the variants this run answers",
    ),
    (
        "eval qa on a set of blank lines",
        lambda w: [
            *("eval", "qa", "--dataset", str(_written(w, "blank.jsonl", "\n \n")), "--index", str(w["index"])),
            *("--out", str(w["base"] / "r-blank")),
        ],
        2,
        "no questions in it",
    ),
    (
        "eval qa on a row whose question is empty",
        lambda w: [
            "eval",
            "qa",
            "--dataset",
            str(_written(w, "empty-q.jsonl", json.dumps({"id": "E", "question": " ", "gold_answer": "x"}) + "\n")),
            "--index",
            str(w["index"]),
            "--out",
            str(w["base"] / "r-empty-q"),
        ],
        2,
        "line 1: the question is empty",
    ),
    (
        "eval retrieval on a benchmark with no tests",
        lambda w: [
            "eval",
            "retrieval",
            "--corpus",
            str(w["docs"]),
            "--benchmark",
            str(_written(w, "none.json", '{"tests": []}')),
            "--configs",
            "bm25",
        ],
        2,
        "no queries in its 'tests' list",
    ),
    (
        "eval qa --out is a file",
        lambda w: ["eval", "qa", "--dataset", str(w["qa_set"]), "--index", str(w["index"]), "--out", str(w["file"])],
        2,
        "is a file; give a folder for the run's rows and report",
    ),
    (
        "eval retrieval --index is a file",
        lambda w: [
            *("eval", "retrieval", "--corpus", str(w["docs"]), "--configs", "bm25", "--index", str(w["file"])),
            *("--benchmark", str(_written(w, "one.json", json.dumps({"tests": [ONE_TEST]})))),
        ],
        2,
        "is a file, not an index folder",
    ),
    (
        "ingest with the documents' own folder as the index",
        lambda w: ["ingest", str(w["docs"]), "--index", str(w["docs"]), "-q"],
        2,
        "is the folder being ingested; give the index a folder of its own",
    ),
    (
        "ingest into a folder of other files",
        lambda w: ["ingest", str(w["docs"]), "--index", str(_written(w, "letters/2026.txt", "x").parent), "-q"],
        2,
        "holds other files (2026.txt), not an index; give a new or empty folder",
    ),
    (
        "ingest into a folder whose files' names start as an index's do",
        lambda w: [
            *("ingest", str(w["docs"]), "-q", "--index"),
            str(_written(w, "drafts/gen-notes.txt", "x").parent),
        ],
        2,
        "holds other files (gen-notes.txt), not an index",
    ),
    (
        "ask --model bogus",
        lambda w: ["ask", "q", "--index", str(w["index"]), "--model", "bogus"],
        2,
        "unknown chat model",
    ),
    (
        "chat --model bogus, before the first question",
        lambda w: ["chat", "--index", str(w["index"]), "--model", "openai:"],
        2,
        "unknown chat model 'openai:'; use 'local', 'local-tiny', 'openai:<model>' or 'replay:<FILE.jsonl>'",
    ),
    (
        "chat --memory is a folder",
        lambda w: ["chat", "--index", str(w["index"]), "--memory", str(w["base"])],
        2,
        "not a file",
    ),
]


@pytest.mark.parametrize("name,make_args,code,words", CASES, ids=[c[0] for c in CASES])
def test_cli_misuse_is_one_clear_line(world, monkeypatch, name, make_args, code, words):  # noqa: ANN001
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # ingest embeds with the fake 32-d embedder the fixture's indexes were built with
    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=32))
    result = runner.invoke(app, make_args(world))
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, SystemExit | None), repr(result.exception)
    out = " ".join(result.output.split())
    assert "Traceback" not in result.output and words in out, result.output
    if code == 2:
        assert result.output.count("error:") == 1


def test_an_embedder_of_another_dimension_is_a_clear_error(world, monkeypatch):  # noqa: ANN001
    monkeypatch.setattr("lclfqa.llm.models.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=16))
    result = runner.invoke(app, ["search", "credit", "--index", str(world["index"])])
    assert result.exit_code == 2 and "dimension 32" in result.output and result.output.count("error:") == 1


def test_toml_and_environment_values_of_the_wrong_type(world, tmp_path: Path):  # noqa: ANN001
    for text, words in [
        ("top_k = 8.5\n", "top_k must be a whole number"),
        ("parallel = 'yes'\n", "parallel must be true or false"),
        ("top_k = \n", "not valid TOML"),
        ("colour = 1\n", "unknown setting"),
    ]:
        (tmp_path / "c.toml").write_text(text, encoding="utf-8")
        result = runner.invoke(app, ["ingest", str(world["docs"]), "--config", str(tmp_path / "c.toml"), "-q"])
        assert result.exit_code == 2 and words in " ".join(result.output.split()), result.output
    result = runner.invoke(app, ["ask", "q", "--index", str(world["index"])], env={"LCLFQA_TOP_K": "eight"})
    assert result.exit_code == 2 and "LCLFQA_TOP_K must be a number" in result.output
    # a mistyped true/false is refused, not read as false (which re-chunked every document, or dropped the scope)
    result = runner.invoke(
        app, ["search", "credit", "--index", str(world["index"])], env={"LCLFQA_DOCUMENT_SCOPE": "ture"}
    )
    assert result.exit_code == 2 and "LCLFQA_DOCUMENT_SCOPE must be true or false" in result.output, result.output
    for variable, value, words in [
        ("LCLFQA_TOP_K", "0", "LCLFQA_TOP_K='0': top_k must be positive"),
        ("LCLFQA_RRF_K", "-5", "LCLFQA_RRF_K='-5': rrf_k must be positive"),
        ("LCLFQA_DENSE_WEIGHT", "-1", "LCLFQA_DENSE_WEIGHT='-1': dense_weight must be a number >= 0"),
    ]:
        result = runner.invoke(app, ["info", "--index", str(world["index"])], env={variable: value})
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and words in said, said
    result = runner.invoke(
        app, ["search", "q", "--index", str(world["index"])], env={"LCLFQA_EMBEDDING_MODEL": "bogus"}
    )
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "unknown embedding model 'bogus'" in said and "re-ingest" not in said, said
    result = runner.invoke(app, ["info", "--index", str(world["index"]), "--milvus-uri", "x.db"])
    assert result.exit_code == 0 and "--milvus-uri is ignored without --backend milvus" in result.output
    # a variable that names no setting is said, with the setting it is closest to, not silently ignored
    result = runner.invoke(app, ["info", "--index", str(world["index"])], env={"LCLFQA_TOPK": "3"})
    said = " ".join(result.output.split())
    assert result.exit_code == 0 and "warning: LCLFQA_TOPK (LCLFQA_TOP_K?) is not an lclfqa setting" in said, said
    # an empty variable is unset (compose writes an unset ${X} as ""), whatever its type
    assert Settings.load(env={"LCLFQA_SUMMARIES": "", "LCLFQA_TOP_K": " "}) == Settings()
    for word, value in [("Off", False), ("1", True), (" yes ", True), ("0", False)]:
        assert Settings.load(env={"LCLFQA_SUMMARIES": word}).summaries is value


def test_a_settings_file_that_cannot_be_read_is_named(world, tmp_path: Path):  # noqa: ANN001
    (tmp_path / "latin1.toml").write_bytes("top_k = 8 # caf\xe9\n".encode("latin-1"))
    for path, words in [
        (tmp_path / "missing.toml", "cannot read the settings file (No such file or directory)"),
        (tmp_path, "cannot read the settings file (Is a directory)"),
        (tmp_path / "latin1.toml", "not a TOML settings file (not UTF-8 text)"),
    ]:
        result = runner.invoke(app, ["search", "credit", "--index", str(world["index"]), "--config", str(path)])
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and f"{path}: {words}" in said, result.output
        assert "Errno" not in said and "codec" not in said


def _run_without_root_overrides(args: list[str]) -> subprocess.CompletedProcess:
    """Run the CLI so that folder modes apply: root reads anything, so as root the command runs with the
    two capabilities that let it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) dropped."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [*ROOTLESS, sys.executable, "-m", "lclfqa.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


@pytest.mark.skipif(MODES_UNTESTABLE, reason="root without setpriv reads any folder")
def test_folders_with_mode_000_are_clear_errors(world, tmp_path: Path):  # noqa: ANN001
    docs = tmp_path / "docs"  # only a subfolder nobody can list: nothing to embed
    docs.mkdir()
    (docs / "locked-sub").mkdir()
    (docs / "locked-sub" / "x.txt").write_text("1. X\n\nText.\n", encoding="utf-8")
    index = tmp_path / "idx"
    shutil.copytree(world["index"], index)
    locked = tmp_path / "locked"
    locked.mkdir()
    zeroed = [docs / "locked-sub", index, locked]
    for p in zeroed:
        p.chmod(0)
    try:
        cases = [
            # an index folder under a folder that cannot be entered
            (["ingest", str(world["docs"]), "--index", str(locked / "idx"), "-q"], 2, "no permission"),
            (["search", "credit", "--index", str(locked / "idx")], 2, "no index"),
            (["info", "--check", "--index", str(locked / "idx")], 2, "no index"),
            # a subfolder that cannot be listed: reported in the table, the rest indexed
            (["ingest", str(docs), "--index", str(tmp_path / "new-idx"), "-q"], 1, "cannot list this folder"),
            # the index itself at mode 000 (Typer's path check catches these)
            (["search", "credit", "--index", str(index)], 2, "not readable"),
            (["info", "--index", str(index)], 2, "not readable"),
        ]
        for args, code, words in cases:
            done = _run_without_root_overrides(args)
            message = re.sub(r"[│╭╮╰╯─\s]+", " ", done.stderr)
            assert done.returncode == code, done.stderr
            assert "Traceback" not in done.stderr and words in message, done.stderr
    finally:
        for p in zeroed:
            p.chmod(0o755)


def _commands(group, prefix: tuple[str, ...] = ()):
    """Every leaf command of the ``lclfqa`` app, with its words (``("eval", "qa")``)."""
    for name, cmd in group.commands.items():
        if hasattr(cmd, "commands"):  # a command group (Typer carries its own copy of click)
            yield from _commands(cmd, (*prefix, name))
        else:
            yield (*prefix, name), cmd


def test_command_help_paragraphs_are_wrapped_by_the_terminal_not_the_source():
    # the rich help keeps a docstring's line breaks: a sentence wrapped at the source's 120 columns broke
    # mid-line in an 80- or 100-column terminal ("… over this index, the" / "server answers it …")
    import typer.main

    commands = list(_commands(typer.main.get_command(app)))
    assert len(commands) >= 10
    for words, cmd in commands:
        assert cmd.help, words
        assert all("\n" not in p for p in cmd.help.split("\n\n")), (words, cmd.help)
    done = runner.invoke(app, ["ask", "--help"], env={"COLUMNS": "100"}, terminal_width=100)
    assert done.exit_code == 0
    assert "over this index, the\n" not in done.stdout


def _bytes_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_store_given_the_index_or_another_programs_file_is_refused_before_writing(world, tmp_path: Path):  # noqa: ANN001
    """``--memory`` and ``--llm-cache`` pointed at the index's own database wrote into it and broke the index
    for good; a text file, a folder or another program's SQLite file failed only after the work, in a stack
    trace. Each is now refused first, exit 2, and nothing is written anywhere."""
    index = tmp_path / "idx"
    shutil.copytree(world["index"], index)
    own = next(index.glob("gen-*/chunks.sqlite"))
    foreign = tmp_path / "accounts.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE ledger (amount REAL)")
    before, foreign_before = _bytes_of(index), foreign.read_bytes()
    cases = [
        (["chat", "--index", str(index), "--memory", str(own)], "is inside the index"),
        (["ask", "q", "--index", str(index), "--llm-cache", str(own)], "is inside the index"),
        (["ask", "q", "--index", str(index), "--llm-cache", str(foreign)], "holds other data (tables ledger)"),
        (["chat", "--index", str(index), "--memory", str(foreign)], "holds other data (tables ledger)"),
        (["ask", "q", "--index", str(index), "--llm-cache", str(world["file"])], "is not a SQLite file"),
        (["ask", "q", "--index", str(index), "--llm-cache", str(tmp_path)], "is not a file"),
    ]
    for args, words in cases:
        result = runner.invoke(app, args, input="q\n")
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and words in said and said.count("error:") == 1, (args, result.output)
    assert _bytes_of(index) == before and foreign.read_bytes() == foreign_before
    # a chat over an index that does not exist leaves no chat.sqlite behind
    result = runner.invoke(app, ["chat", "--index", str(tmp_path / "nothere" / "deep" / "idx")], input="q\n")
    assert result.exit_code == 2 and not (tmp_path / "nothere").exists(), result.output


def test_stores_lclfqa_wrote_or_new_ones_are_accepted(tmp_path: Path) -> None:
    from lclfqa.safe_load import check_store, open_chat_memory, strict_llm_cache

    strict_llm_cache(tmp_path / "cache.sqlite")
    open_chat_memory(tmp_path / "chat.sqlite").setup()
    (tmp_path / "empty.sqlite").touch()
    index = tmp_path / "idx"  # `chat --index .`: the default memory, chat.sqlite, lies in the index's own folder
    (index / "gen-000001").mkdir(parents=True)
    (index / "CURRENT").write_text("gen-000001\n", encoding="utf-8")
    check_store(index / "chat.sqlite", "chat memory")
    with pytest.raises(ValueError, match="is inside the index"):
        check_store(index / "gen-000001" / "chunks.sqlite", "chat memory")
    check_store(tmp_path / "cache.sqlite", "LLM cache")
    check_store(tmp_path / "chat.sqlite", "chat memory")
    check_store(tmp_path / "empty.sqlite", "chat memory")
    # the store check and the index read a generation's folder name alike
    from lclfqa.index.generations import is_generation
    from lclfqa.safe_load import _GENERATION

    for name in ["gen-000001", "gen-000002.tmp", "gen-1", "gen-notes", "gen-0000001", "CURRENT"]:
        assert bool(_GENERATION.match(name)) is is_generation(name), name
    check_store(tmp_path / "new" / "chat.sqlite", "chat memory")
    with pytest.raises(ValueError, match="is no chat memory"):
        check_store(tmp_path / "cache.sqlite", "chat memory")
    # the stores check when they open, for library callers too (a notebook's Settings(llm_cache=...))
    with pytest.raises(ValueError, match="is no chat memory"):
        open_chat_memory(tmp_path / "cache.sqlite")
    with pytest.raises(ValueError, match="is no LLM cache"):
        strict_llm_cache(tmp_path / "chat.sqlite")


@pytest.mark.parametrize(
    "full",
    [
        sqlite3.OperationalError("database or disk is full"),
        OSError(28, "No space left on device"),
        OSError("19968 requested and 3040 written"),
    ],
    ids=["sqlite", "enospc", "numpy"],
)
def test_a_full_disk_is_one_line_and_the_index_is_unchanged(world, tmp_path: Path, monkeypatch, full):  # noqa: ANN001
    """A disk that filled while an index was written: a SQLite stack trace, or numpy's "… requested and …
    written" with exit 2, the code of a mistake in the command."""
    index = tmp_path / "idx"
    shutil.copytree(world["index"], index)
    before = _bytes_of(index)
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "b.txt").write_text("1. More\n\nAnother note about the credit.\n", encoding="utf-8")

    def no_space(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise full

    monkeypatch.setattr("lclfqa.index.embedded.EmbeddedBackend.add_documents", no_space)
    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=32))
    result = runner.invoke(app, ["ingest", str(tmp_path / "more"), "--index", str(index), "-q"])
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and f"error: no space left to write the index at {index}" in said, said
    assert isinstance(result.exception, SystemExit) and _bytes_of(index) == before


def test_a_full_disk_is_a_typed_index_error_for_library_callers(world, tmp_path: Path, monkeypatch):  # noqa: ANN001
    """``ingest`` itself says the disk is full (``IndexSpaceError``, exit code 1, the index unchanged), so a
    notebook or a server calling it need not read SQLite's or numpy's messages; other failures pass unchanged."""
    from lclfqa.index.errors import IndexSpaceError

    index = tmp_path / "idx"
    shutil.copytree(world["index"], index)
    before = _bytes_of(index)
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "b.txt").write_text("1. More\n\nAnother note about the credit.\n", encoding="utf-8")
    failures = iter([OSError(28, "No space left on device"), PermissionError(13, "Permission denied")])

    def failing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise next(failures)

    monkeypatch.setattr("lclfqa.index.embedded.EmbeddedBackend.add_documents", failing)
    fake = DeterministicFakeEmbedding(size=32)
    with pytest.raises(IndexSpaceError, match="no space left to write the index at") as caught:
        ingest([tmp_path / "more"], index, Settings(), embeddings=fake)
    assert caught.value.exit_code == 1 and _bytes_of(index) == before
    with pytest.raises(PermissionError):
        ingest([tmp_path / "more"], index, Settings(), embeddings=fake)
