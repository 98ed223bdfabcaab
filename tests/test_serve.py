"""``lclfqa serve`` and ``ask``'s fast path through it, and the early verdict of ``lclfqa chat``.

The server runs in a thread of the test process over a scripted chat model (the fakes of
``tests/test_cli_qa.py``), so each ``ask`` can be told apart: answered by the server (its count of questions
goes up, stderr is quiet) or in-process (one stderr line says why).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.cli.remote import ServerUnavailable, ask_server, fingerprint, mismatch
from lclfqa.cli.serve import QAServer, open_server, warm_up
from lclfqa.config import Settings
from lclfqa.graph.build import load_graph
from lclfqa.repl import graph_events, print_steps, show_streaming
from tests import servers
from tests.fakes import ScriptedChat
from tests.servers import free_port
from tests.test_graph import QUESTION, good_script

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
HEAVY = ("torch", "langgraph", "llama_cpp", "sentence_transformers", "faiss", "langchain_core")


@pytest.fixture(scope="module")
def index_dir(memo_index: Path) -> Path:
    return memo_index


@contextmanager
def serving(index: Path, **overrides: object) -> Iterator[QAServer]:
    """What ``lclfqa serve`` does, on a free port, with the settings of the environment (the fakes)."""
    server = open_server("127.0.0.1", 0)
    graph = load_graph(index, Settings.load(**overrides))
    warm_up(graph)
    server.hold(graph, index)
    server.log = Console(file=io.StringIO())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def _ask(index: Path, url: str, *args: str):
    return runner.invoke(app, ["ask", QUESTION, "--index", str(index), *args], env={"LCLFQA_SERVER_URL": url})


def test_ask_uses_the_server_and_answers_in_process_when_it_is_down(index_dir: Path, fake_models: ScriptedChat):
    with serving(index_dir) as server:
        health = json.load(urllib.request.urlopen(f"{server.url}/health", timeout=5))
        assert health["index"] == str(index_dir.resolve()) and health["questions"] == 0
        assert health["settings"] == fingerprint(Settings.load().as_record())
        served = _ask(index_dir, server.url, "--json")
        assert served.exit_code == 0, served.output
        assert server.questions == 1 and served.stderr == ""
        assert server.last_tokens == 0  # --json asks for no token events
        data = json.loads(served.stdout)
        assert data["answer"].startswith("No. Married taxpayers must file a joint return")
        assert data["citations"][0]["document"] == "tax-memo-education-credits.pdf"
        assert set(data["timings"]) == {"rewrite", "retrieve", "expand", "filter", "extract", "read"}
        # the text view: the answer streamed from the server, then its sources and steps, printed here
        shown = _ask(index_dir, server.url, "--show-steps")
        assert shown.exit_code == 0, shown.output
        assert server.questions == 2 and shown.stderr == "" and server.last_tokens > 0
        assert shown.stdout.startswith("No. Married taxpayers must file a joint return")
        assert "[1] tax-memo-education-credits.pdf, p" in shown.stdout and "Verified quotes:" in shown.stdout
        assert "kept" in shown.stdout and "answered in" in shown.stdout
        url = server.url
        calls = len(fake_models.calls)
    down = _ask(index_dir, url, "--json")
    assert down.exit_code == 0, down.output
    assert down.stderr.count("\n") == 1 and f"no server at {url}" in down.stderr
    assert "answering in this process" in down.stderr
    assert json.loads(down.stdout)["answer"] == data["answer"]
    assert len(fake_models.calls) > calls  # the fallback asked the model here


def test_the_server_refuses_another_index_or_other_models(index_dir: Path, tmp_path: Path, fake_models: ScriptedChat):
    other = tmp_path / "copy"
    shutil.copytree(index_dir, other)
    with serving(index_dir, rewrites=0) as server:
        moved = _ask(other, server.url, "--json")
        assert moved.exit_code == 0, moved.output
        assert f"it holds the index {index_dir.resolve()}, not {other.resolve()}" in moved.stderr
        model = _ask(index_dir, server.url, "--json", "--model", "local-tiny")
        assert model.exit_code == 0, model.output
        assert "it runs with other chat_model" in model.stderr
        assert server.questions == 0  # both answered in-process
        # a question's own settings are honoured by the server, not refused
        per_question = _ask(index_dir, server.url, "--json", "--rewrites", "3", "--top-k", "2")
        assert per_question.exit_code == 0 and per_question.stderr == "", per_question.output
        assert server.questions == 1
        data = json.loads(per_question.stdout)
        assert len(data["rewrites"]) == 3 and len(data["retrieved"]) == 2


def test_the_protocol_for_other_clients(index_dir: Path, fake_models: ScriptedChat, tmp_path: Path):
    """``POST /ask`` without ``stream``: one JSON object, the result ``ask --json`` prints; ``409`` for another
    index; ``400`` for a request without a question; ``404`` elsewhere."""

    def post(url: str, body: dict | list) -> tuple[int, dict]:
        request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as exc:
            return exc.code, json.load(exc)

    with serving(index_dir) as server:
        settings = Settings.load().as_record()
        status, result = post(
            f"{server.url}/ask", {"question": QUESTION, "index": str(index_dir), "settings": settings}
        )
        assert status == 200 and result["answer"].startswith("No. Married taxpayers") and result["citations"]
        status, body = post(f"{server.url}/ask", {"question": QUESTION, "index": str(tmp_path), "settings": settings})
        assert status == 409 and "it holds the index" in body["error"]
        status, body = post(f"{server.url}/ask", {"index": str(index_dir), "settings": settings})
        assert status == 400 and body["error"] == "bad request: question must be a non-empty string"
        status, body = post(f"{server.url}/ask", ["a list"])
        assert status == 400 and body["error"] == 'bad request: the body must be a JSON object, {"question": "…"}'
        status, body = post(f"{server.url}/other", {})
        assert status == 404
        assert server.questions == 1


def test_a_question_that_fails_on_the_server_fails_the_ask(index_dir: Path, fake_models: ScriptedChat):
    fake_models.script["answer"] = ValueError("the model broke")
    with serving(index_dir) as server:
        result = _ask(index_dir, server.url, "--json")
        assert result.exit_code == 1
        assert "the server failed answering" in result.stderr and "Traceback" not in result.output
        fake_models.script["answer"] = good_script()["answer"]
        again = _ask(index_dir, server.url, "--json")  # the server goes on with the next question
        assert again.exit_code == 0 and server.questions == 2, again.output


def test_the_served_path_loads_no_model_library(index_dir: Path, fake_models: ScriptedChat):
    """A fresh ``lclfqa ask`` that finds the server imports none of torch, LangGraph, llama.cpp."""
    probe = (
        "import sys\n"
        "from lclfqa.cli import app\n"
        f"app(['ask', {QUESTION!r}, '--index', sys.argv[1], '--json'], standalone_mode=False)\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    with serving(index_dir) as server:
        env = {**os.environ, "LCLFQA_SERVER_URL": server.url, "LCLFQA_MIN_ANSWER_SUPPORT": "0"}
        done = subprocess.run(
            [sys.executable, "-c", "import json\n" + probe, str(index_dir)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert server.questions == 1
    *answer, heavy = done.stdout.strip().splitlines()
    assert json.loads("\n".join(answer))["answer"].startswith("No.")
    assert json.loads(heavy) == []


SERVE_WITH_FAKES = """
import sys
from langchain_core.embeddings import DeterministicFakeEmbedding
import lclfqa.llm.models as models
from tests.fakes import ScriptedChat
from tests.test_graph import good_script
models.get_chat_model = lambda *a, **k: ScriptedChat(script=good_script())
models.get_embeddings = lambda *a, **k: DeterministicFakeEmbedding(size=32)
from lclfqa.cli import app
app(["serve", "--index", sys.argv[1], "--port", sys.argv[2]])
"""


def _wait_for(log: Path, line: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while line not in log.read_text():
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a shell may start the test run with SIGINT ignored


def test_the_serve_command_answers_ask_until_ctrl_c(index_dir: Path, fake_models: ScriptedChat, tmp_path: Path):
    """``lclfqa serve`` itself, in its own process with the scripted model: ``ask`` uses it; Ctrl-C stops it
    (exit 0, one line); then ``ask`` answers in-process and says so."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    env = {**os.environ, "LCLFQA_MIN_ANSWER_SUPPORT": "0"}
    env.pop("LCLFQA_SERVER_URL", None)
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVE_WITH_FAKES, str(index_dir), str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=_default_sigint,
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                health = json.load(urllib.request.urlopen(f"{url}/health", timeout=5))
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.3)
        assert health["index"] == str(index_dir.resolve())
        served = _ask(index_dir, url, "--json")
        assert served.exit_code == 0 and served.stderr == "", served.output
        assert json.loads(served.stdout)["answer"].startswith("No. Married taxpayers")
        assert fake_models.calls == []  # not answered here
        _wait_for(log, "question 1: answered")  # the server's line comes after the answer is sent
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert "question 1: answered" in text and text.rstrip().endswith("lclfqa serve: stopped")
    assert "Traceback" not in text
    down = _ask(index_dir, url, "--json")
    assert down.exit_code == 0 and f"no server at {url}" in down.stderr, down.output
    assert fake_models.calls  # answered here


def test_serve_says_a_taken_port_and_a_missing_index_in_one_line(tmp_path: Path, index_dir: Path):
    lclfqa = Path(sys.executable).with_name("lclfqa")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(lclfqa), "serve", "--index", str(index_dir), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2, done.stderr
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr and "Traceback" not in done.stderr
    done = subprocess.run(
        [str(lclfqa), "serve", "--index", str(tmp_path / "none"), "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "no index at" in done.stderr and "Traceback" not in done.stderr


def test_ask_server_says_why_it_cannot_take_a_question(tmp_path: Path):
    with pytest.raises(ServerUnavailable, match="not http://HOST:PORT"):
        next(ask_server("https://example.org", "q", tmp_path, {}))
    with pytest.raises(ServerUnavailable, match="no server at"):
        next(ask_server(f"http://127.0.0.1:{free_port()}", "q", tmp_path, {}))
    server, client = Settings().as_record(), Settings(top_k=3, n_ctx=4096, server_url="http://x:1").as_record()
    assert mismatch(server, client) == ["n_ctx"]  # top_k is a question's own; where the server is, no setting


# --- chat: the first words as soon as they are decided, and /steps


def _events(*tokens: str, verdict: str | None = None, answer: str) -> Iterator[tuple[str, object]]:
    yield "node", "extract"
    if verdict:
        yield "verdict", {"verdict": verdict, "word": verdict.capitalize()}
    for t in tokens:
        yield "token", t
    yield "state", {"answer": answer, "citations": []}


def test_chat_shows_the_decided_verdict_before_the_answer_call_writes():
    out = io.StringIO()

    def events():
        yield "verdict", {"verdict": "no", "word": "No"}
        assert out.getvalue() == "No"  # shown before the answer's first token arrives
        yield from _events("No", ", spouses must", " file jointly [1].", answer="No, spouses must file jointly [1].")

    result = show_streaming(events(), out=out, status=Console(file=io.StringIO()), early_verdict=True)
    assert out.getvalue() == "No, spouses must file jointly [1].\n"  # the verdict once, no correction
    assert result["shown"]["first_words_s"] <= result["shown"]["first_token_s"] <= result["shown"]["total_s"]


@pytest.mark.parametrize(
    ("tokens", "checked"),
    [
        (("Yes, spouses must", " file jointly [1]."), "No. Spouses must file jointly [1]."),  # contrary
        (("Spouses must file jointly [1].",), "No. Spouses must file jointly [1]."),  # none
        (("No.",), "No."),  # shorter than the opening held back
    ],
)
def test_the_early_verdict_opens_the_answer_as_the_verdict_stage_does(tokens, checked):
    out = io.StringIO()
    show_streaming(
        _events(*tokens, verdict="no", answer=checked), out=out, status=Console(file=io.StringIO()), early_verdict=True
    )
    assert out.getvalue() == checked + "\n"


def test_ask_does_not_show_the_verdict_early():
    out = io.StringIO()
    show_streaming(
        _events("Yes, spouses", " file jointly.", verdict="no", answer="No. Spouses file jointly."),
        out=out,
        status=Console(file=io.StringIO()),
    )
    assert out.getvalue().startswith("Yes, spouses file jointly.\n\nChecked against the quotes")


def test_the_graph_streams_the_verdict_before_the_answer(index_dir: Path, fake_models: ScriptedChat):
    fake_models.script["yes_no"] = json.dumps({"rule": "Spouses must file a joint return.", "verdict": "no"})
    graph = load_graph(index_dir, Settings.load())
    kinds = [(kind, payload) for kind, payload in graph_events(graph, QUESTION) if kind in ("verdict", "token")]
    assert kinds[0] == ("verdict", {"verdict": "no", "word": "No"})
    assert kinds[1][0] == "token" and kinds[1][1].startswith("No. Married taxpayers")


def test_chat_steps_show_each_steps_seconds_and_the_first_words(
    index_dir: Path, tmp_path: Path, fake_models: ScriptedChat
):
    fake_models.script["yes_no"] = json.dumps({"rule": "Spouses must file a joint return.", "verdict": "no"})
    fake_models.script["answer"] = "Yes, spouses must file a joint return [1]."
    args = ["chat", "--index", str(index_dir), "--memory", str(tmp_path / "chat.sqlite")]
    result = runner.invoke(app, args, input=f"{QUESTION}\n/steps\n/quit\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    # the decided "No" first, the answer going on from it: nothing to correct
    assert "No. Spouses must file a joint return [1]." in out and "Checked against the quotes" not in out
    steps = out[out.index("Steps") :]
    for node in ("rewrite", "retrieve", "expand", "filter", "extract", "read"):
        assert f"  {node:<8} " in steps and " s  " in steps
    assert "answered in" in steps and "first words after" in steps


def test_print_steps_reads_a_served_answer():
    console = Console(file=io.StringIO(), width=200)
    served = {
        "retrieved": [
            {"id": "a", "document": "m.pdf", "pages": [3], "section": ["IV", "B"], "score": 0.5, "kept": False}
        ],
        "quotes": [{"text": "Married taxpayers who file separately may claim neither credit."}],
        "steps": {"read": {"seconds": 1.5, "llm_calls": 2}},
        "shown": {"first_words_s": 2.0, "total_s": 8.0},
    }
    print_steps(served, console)
    text = console.file.getvalue()
    assert "dropped" in text and "m.pdf p. 3 IV › B" in text and "[1] Married taxpayers" in text
    assert "read        1.50 s  2 calls" in text and "first words after 2.0 s (25%)" in text


@pytest.mark.slow
def test_serve_with_the_tiny_model_answers_a_fresh_ask(local_sample_index: Path, tmp_path: Path):
    """The real thing on SmolLM2-135M: ``lclfqa serve`` loads the index, MiniLM and llama.cpp, and a fresh
    ``lclfqa ask --json`` process gets its answer from it (the server counts it; ask says nothing on stderr)."""
    lclfqa = str(Path(sys.executable).with_name("lclfqa"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LCLFQA_CHAT_MODEL": "local-tiny", "LCLFQA_PIPELINE": "rag", "LCLFQA_N_THREADS": "1"}
    env.pop("LCLFQA_SERVER_URL", None)
    log = tmp_path / "serve.log"
    with servers.serving(
        [lclfqa, "serve", "--index", str(local_sample_index), "--port", str(port)],
        ready_url=f"{url}/health",
        log=log,
        env=env,
        cwd=ROOT,
    ):
        started = time.monotonic()
        done = subprocess.run(
            [lclfqa, "ask", QUESTION, "--index", str(local_sample_index), "--json"],
            env={**env, "LCLFQA_SERVER_URL": url},
            capture_output=True,
            text=True,
            timeout=600,
        )
        seconds = time.monotonic() - started
        assert done.returncode == 0, done.stderr[-3000:]
        assert "answering in this process" not in done.stderr
        data = json.loads(done.stdout)
        assert data["answer"] and data["retrieved"] and set(data["timings"]) >= {"retrieve", "read"}
        health = json.load(urllib.request.urlopen(f"{url}/health", timeout=5))
        assert health["questions"] == 1 and health["chat_model"] == "local-tiny"
        _wait_for(log, "question 1: answered")
    print(f"served ask: {seconds:.1f} s in all, the graph {sum(v or 0 for v in data['timings'].values()):.1f} s")
