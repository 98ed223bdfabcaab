"""``lclfqa ask`` and ``lclfqa chat`` through Typer's CliRunner, with a scripted chat model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from tests.fakes import ScriptedChat
from tests.test_graph import QUESTION, SAMPLE

runner = CliRunner()


@pytest.fixture(scope="module")
def index_dir(memo_index: Path) -> Path:
    return memo_index


def test_ask_json(index_dir: Path, fake_models: ScriptedChat):
    result = runner.invoke(app, ["ask", QUESTION, "--index", str(index_dir), "--json", "--rewrites", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["answer"].startswith("No.")
    assert data["citations"][0]["document"] == "tax-memo-education-credits.pdf"
    assert data["citations"][0]["pages"] and len(data["rewrites"]) == 3
    # the verified quote each citation rests on, and the check's record
    assert data["citations"][0]["quote"] == data["quotes"][0]["text"] and data["removed"] == []
    assert set(data["timings"]) == {"rewrite", "retrieve", "expand", "filter", "extract", "read"}


def test_ask_prints_answer_sources_and_steps(index_dir: Path, fake_models: ScriptedChat):
    result = runner.invoke(
        app, ["ask", QUESTION, "--index", str(index_dir), "--show-steps", "--pipeline", "lclf", "--rewrites", "3"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "No. Married taxpayers must file a joint return" in out
    assert "Sources" in out and "[1] tax-memo-education-credits.pdf, p" in out
    assert "Rewrite 1:" in out and "dropped" in out and "Steps" in out
    # each sentence of the answer with the stage that last wrote it (the model's own here)
    assert "The answer, sentence by sentence" in out
    assert "model    Married taxpayers must file a joint return" in out


def test_ask_rejects_bad_settings_and_missing_index(tmp_path: Path, index_dir: Path, fake_models: ScriptedChat):
    result = runner.invoke(app, ["ask", "q", "--index", str(tmp_path / "none")])
    assert result.exit_code == 2 and "run ingest" in result.output
    result = runner.invoke(app, ["ask", "q", "--index", str(index_dir), "--rewrites", "2"])
    assert result.exit_code == 2 and "rewrites must be 0, 1 or 3" in result.output
    # with a server named, a missing index is said at once, without a word about the server
    result = runner.invoke(
        app, ["ask", "q", "--index", str(tmp_path / "none")], env={"LCLFQA_SERVER_URL": "http://127.0.0.1:9"}
    )
    assert result.exit_code == 2 and "run ingest" in result.output and "server" not in result.output, result.output
    result = runner.invoke(app, ["ask", "  ", "--index", str(index_dir)])
    assert result.exit_code == 2 and "the question is empty" in result.output and "graph.invoke" not in result.output


def test_chat_repl_remembers_turns_and_answers_commands(index_dir: Path, tmp_path: Path, fake_models: ScriptedChat):
    lines = [QUESTION, "/sources", "And the lifetime learning credit?", "/steps", "/thread", "/bogus", "/quit"]
    memory = tmp_path / "chat.sqlite"
    args = ["chat", "--index", str(index_dir), "--thread", "memo", "--memory", str(memory)]
    result = runner.invoke(app, args, input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.count("No. Married taxpayers") == 2
    assert "Stand-alone question:" in out  # the second turn was condensed with the history
    assert "Unknown command /bogus" in out and "memo" in out and "lclfqa chat --thread memo" in out
    assert "condense" in fake_models.routes()
    # resuming the thread continues the conversation, and says so; an id never used says that instead
    result = runner.invoke(app, args, input="One more?\n")
    assert result.exit_code == 0, result.output
    assert "Resuming: 2 earlier question(s) in this conversation." in result.stdout
    other = runner.invoke(app, [*args[:4], "mmeo", *args[5:]], input="/quit\n")
    assert "No conversation 'mmeo' was saved here: a new one starts under that id." in other.stdout
    condense_prompts = [m[-1].content for key, m, _ in fake_models.calls if key == "condense"]
    assert "lifetime learning credit" in condense_prompts[-1]


def test_the_example_notebook_runs(tmp_path: Path, fake_models: ScriptedChat, monkeypatch: pytest.MonkeyPatch):
    """Execute the notebook's code cells in order (from examples/, as Jupyter would), with the fake model."""
    nb = json.loads((SAMPLE.parent / "notebook.ipynb").read_text(encoding="utf-8"))
    work = tmp_path / "examples"
    shutil.copytree(SAMPLE, work / "sample")
    monkeypatch.chdir(work)
    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=32))
    namespace: dict = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), namespace)  # noqa: S102
    assert namespace["result"].answer.startswith("No.") and namespace["result"].citations
    assert namespace["followup"]["standalone_question"].startswith("Can spouses filing separately")


def test_ask_never_shows_a_figure_no_cited_quote_contains(index_dir: Path, fake_models: ScriptedChat):
    fake_models.script["yes_no"] = json.dumps({"rule": "Spouses must file a joint return.", "verdict": "no"})
    fake_models.script["answer"] = "No. The credit is 45% of qualified expenses [1]."
    result = runner.invoke(app, ["ask", QUESTION, "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    # the streamed first answer is followed by the checked one, and what was removed is said
    answer_part, _, rest = out.partition("Checked against the quotes: 1 sentence(s)")
    assert "45%" in answer_part and "The checked answer:\nNo. The source reads: “" in rest
    assert "removed (figures or quotations no cited quote holds). The checked answer:" in " ".join(rest.split())
    listed = "Removed by the check against the quotes (1 sentence(s)): The credit is 45% of qualified expenses [1]."
    assert f"{listed} (figures or quotations no cited quote holds)" in " ".join(rest.split())
    assert out.index("Removed by the check") < out.index("Sources")


def test_ask_streams_the_answer_not_the_verdict_calls_json(index_dir: Path, fake_models: ScriptedChat):
    fake_models.script["yes_no"] = json.dumps({"rule": "Spouses must file a joint return.", "verdict": "no"})
    fake_models.script["answer"] = "Yes, spouses must file a joint return [1]."
    result = runner.invoke(app, ["ask", QUESTION, "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    # the decided verdict corrects the streamed opening (the verdict call is tagged not to stream:
    # tests/test_serve_and_trace.py); its JSON is never printed
    assert '{"rule"' not in result.stdout and "Spouses must file a joint return." not in result.stdout
    assert result.stdout.startswith("Yes, spouses must file a joint return [1].")
    assert "The checked answer:\nNo. Spouses must file a joint return [1]." in result.stdout


def test_ask_adds_the_sources_words_after_the_streamed_answer_without_a_correction(
    index_dir: Path, fake_models: ScriptedChat
):
    fake_models.script["answer"] = "No, not on separate returns."  # gives none of the quote's words
    result = runner.invoke(app, ["ask", QUESTION, "--index", str(index_dir)])
    assert result.exit_code == 0, result.output
    first_line = result.stdout.splitlines()[0]
    assert first_line.startswith("No, not on separate returns. The source reads: “") and first_line.endswith("” [2]")
    assert "Checked against the quotes" not in result.stdout


def test_the_version_is_printed() -> None:
    from importlib.metadata import version

    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"lclfqa {version('lclfqa')}"


def test_a_model_endpoint_that_fails_is_one_line_and_chat_goes_on(
    index_dir: Path, tmp_path: Path, fake_models: ScriptedChat
):
    """An unreachable or failing endpoint ended ``ask`` in a stack trace and ``chat`` on its first question."""
    import httpx
    import openai

    down = openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))
    fake_models.script["answer"] = down
    result = runner.invoke(app, ["ask", QUESTION, "--index", str(index_dir)])
    said = " ".join(result.output.split())
    assert result.exit_code == 1 and "error: the chat model failed: Connection error. (APIConnectionError)" in said
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    args = ["chat", "--index", str(index_dir), "--thread", "down", "--memory", str(tmp_path / "chat.sqlite")]
    result = runner.invoke(app, args, input=f"{QUESTION}\n/thread\n")
    said = " ".join(result.output.split())
    assert result.exit_code == 0, result.output
    assert "the chat model failed: Connection error." in said and "(the conversation goes on)" in said
    assert said.endswith("Bye. Resume with: lclfqa chat --thread down")  # the session went on to its end
    # a bug is not dressed as the model failing
    fake_models.script["answer"] = KeyError("a bug")
    result = runner.invoke(app, args, input=f"{QUESTION}\n")
    assert isinstance(result.exception, KeyError)
