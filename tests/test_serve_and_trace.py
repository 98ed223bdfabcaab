"""Serving pieces without a server: the placeholder fix, trace names/tags/metadata, the served graph's context,
the json_schema → json_object fallback (each with fakes; the real servers are in the slow tests)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.schemas import Run
from langchain_openai import ChatOpenAI
from pydantic import Field

from lclfqa import load_graph
from lclfqa.config import Settings
from lclfqa.graph import server
from lclfqa.graph.context import Resources
from lclfqa.llm import calls, parsing
from tests.fakes import ScriptedChat
from tests.test_graph import QUESTION, good_script

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("written", "clean"),
    [
        ("[n] No, a married couple filing separately can't [1].", "No, a married couple filing separately can't [1]."),
        ("No [n]. Married taxpayers must file jointly [1][n].", "No. Married taxpayers must file jointly [1]."),
        ("A rule [N], and [source] an exception [2].", "A rule, and an exception [2]."),
        ("- [n] first\n  [n][3] second", "- first\n  [3] second"),
        ("It [sic] binds [the taxpayer] [12].", "It [sic] binds [the taxpayer] [12]."),
        ("[n]", ""),
    ],
)
def test_citation_placeholders_are_stripped_and_real_citations_kept(written: str, clean: str):
    assert parsing.strip_placeholders(written) == clean
    assert parsing.clean_answer(f"Answer: {written}") == clean


def test_a_leaked_placeholder_never_reaches_the_answer(sample_index: Path):
    script = good_script(answer="[n] No. Married taxpayers must file a joint return [1][n].")
    graph = load_graph(
        sample_index,
        Settings(min_answer_support=0),
        llm=ScriptedChat(script=script),
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    result = graph.invoke({"question": QUESTION})
    # (the source's words may follow the model's sentence: what is checked here is that no placeholder shows)
    assert result.answer.startswith("No. Married taxpayers must file a joint return [1].")
    assert "[n]" not in result.answer
    assert result.citations[0]["n"] == 1 and not result.citations[0]["inferred"]
    assert "[n]" not in result["history"][-1]["content"]


class RunCollector(BaseTracer):
    """An in-memory tracer: the same run tree (names, tags, metadata, outputs) that LangSmith receives."""

    def __init__(self) -> None:
        super().__init__()
        self.roots: list[Run] = []

    def _persist_run(self, run: Run) -> None:
        self.roots.append(run)

    def all_runs(self) -> list[Run]:
        out, todo = [], list(self.roots)
        while todo:
            run = todo.pop()
            out.append(run)
            todo.extend(run.child_runs)
        return out


def test_runs_are_named_and_tagged_per_node_for_langsmith(sample_index: Path):
    llm = ScriptedChat(script=good_script())
    settings = Settings(pipeline="lclf", rewrites=1, chat_model="local-tiny")
    graph = load_graph(sample_index, settings, llm=llm, embeddings=DeterministicFakeEmbedding(size=32))
    collector = RunCollector()
    result = graph.invoke({"question": QUESTION}, {"callbacks": [collector]})
    assert result.answer
    [root] = collector.roots
    assert root.name == "lclf-qa"
    assert {"lclfqa", "pipeline:lclf", "model:local-tiny"} <= set(root.tags)
    meta = root.extra["metadata"]
    assert (meta["lclfqa_pipeline"], meta["lclfqa_chat_model"], meta["lclfqa_index"]) == (
        "lclf",
        "local-tiny",
        str(sample_index),
    )
    runs = collector.all_runs()
    nodes = {r.name: r for r in runs if r.parent_run_id == root.id}
    assert {"rewrite", "retrieve", "expand", "filter", "extract", "read"} <= set(nodes)
    for name, run in nodes.items():
        if name in ("rewrite", "retrieve", "expand", "filter", "extract", "read"):
            assert run.extra["metadata"]["langgraph_node"] == name
            assert run.extra["metadata"]["lclfqa_pipeline"] == "lclf" and "pipeline:lclf" in run.tags
    # every LLM call is named after its node, tagged with it, and sits under that node's run
    by_id = {r.id: r for r in runs}
    llm_runs = [r for r in runs if r.run_type == "llm"]
    assert len(llm_runs) == len(llm.calls) == 6  # passage, rewrites, verdicts, quotes, yes/no verdict, answer
    # the reader's verdict call (JSON) is kept out of the token stream; its answer call is streamed
    reads = sorted((r for r in llm_runs if r.name == "read.llm"), key=lambda r: r.extra["metadata"]["lclfqa_call"])
    assert ["nostream" in r.tags for r in reads] == [True, False]
    for run in llm_runs:
        node = run.name.removesuffix(".llm")
        assert run.name == f"{node}.llm" and f"node:{node}" in run.tags, (run.name, run.tags)
        assert run.extra["metadata"]["lclfqa_node"] == node
        assert run.extra["metadata"]["lclfqa_pipeline"] == "lclf"  # inherited from the graph's run
        parent = by_id[run.parent_run_id]
        while parent.name != node:  # a node's run may wrap the call in inner runs
            parent = by_id[parent.parent_run_id]
        generation = run.outputs["generations"][0][0]
        assert generation["message"]["kwargs"]["usage_metadata"]["input_tokens"] == 100  # tokens per call
    assert sorted(r.extra["metadata"]["lclfqa_call"] for r in llm_runs if r.name == "rewrite.llm") == [1, 2]
    # the node's output carries its totals
    assert nodes["read"].outputs["steps"]["read"]["prompt_tokens"] == 200  # the verdict call and the answer


def test_the_served_graph_takes_its_settings_from_the_environment_and_the_runs_context(
    sample_index: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("LCLFQA_INDEX", str(sample_index))
    monkeypatch.setenv("LCLFQA_TOP_K", "5")
    monkeypatch.setenv("LCLFQA_CHAT_MODEL", "local-tiny")
    llm = ScriptedChat(script=good_script())
    fake_embeddings = DeterministicFakeEmbedding(size=32)
    resources = Resources(sample_index, server.served_settings(), llm=llm, embeddings=fake_embeddings)
    monkeypatch.setattr(server, "served_resources", lambda: resources)

    # what the LangGraph server does: call the factory with the run's config, filter the context dict by
    # the graph's context JSON schema, and pass it to the graph
    graph = server.make_graph({"configurable": {"top_k": 3, "thread_id": "t", "assistant_id": "a"}})
    schema = graph.get_context_jsonschema()
    fields = {"pipeline", "rewrites", "reader", "top_k", "document_scope", "max_answer_tokens"}
    assert set(schema["properties"]) == fields
    assert graph.config["metadata"]["lclfqa_top_k"] == 3 and "model:local-tiny" in graph.config["tags"]
    assert server.ServedContext().settings.top_k == 5
    result = graph.invoke({"question": QUESTION}, context={"top_k": 2, "pipeline": "rag"})
    assert len(result["retrieved"]) == 2
    assert llm.routes() == ["answer"]  # the run's context chose rag: no rewriter, filter, extractor or verdict call
    assert result["answer"] and result["citations"]


def test_a_run_context_is_built_without_blocking_the_servers_event_loop(
    sample_index: Path, monkeypatch: pytest.MonkeyPatch
):
    """`langgraph dev` refuses blocking calls on its event loop (blockbuster), where it calls the factory and
    builds a run's context: a relative LCLFQA_INDEX (os.getcwd) once broke every run there."""
    blockbuster = pytest.importorskip("blockbuster")
    monkeypatch.chdir(sample_index.parent)
    monkeypatch.setenv("LCLFQA_INDEX", sample_index.name)
    monkeypatch.setenv("LCLFQA_TOP_K", "6")
    server.served_resources()  # what importing the module does, in the server's worker thread

    async def on_the_loop() -> tuple[Any, server.ServedContext]:
        return server.make_graph({"configurable": {}}), server.ServedContext(top_k=2)

    with blockbuster.blockbuster_ctx():
        graph, context = asyncio.run(on_the_loop())
    assert context.settings.top_k == 2 and context.resources.index_dir == sample_index
    assert graph.config["metadata"]["lclfqa_top_k"] == 6
    monkeypatch.setenv("LCLFQA_INDEX", "elsewhere")  # a new environment is read anew, off the loop
    with pytest.raises(FileNotFoundError, match="LCLFQA_INDEX"):
        server.ServedContext()


def test_the_server_says_which_index_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LCLFQA_INDEX", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="LCLFQA_INDEX"):
        server.ServedContext()


def test_langgraph_json_serves_the_factory():
    config = json.loads((ROOT / "langgraph.json").read_text())
    module, name = config["graphs"]["lclf"].split(":")
    assert (module, name) == ("lclfqa.graph.server", "make_graph") and config["dependencies"] == ["."]


class RejectsJsonSchema(ChatOpenAI):
    """A ChatOpenAI answering like llama-cpp-python's server (no network): ``response_format`` ``json_schema`` is
    an error, ``json_object`` with a schema works. Records the response formats it was asked for."""

    formats: list[str] = Field(default_factory=list)
    reply: str = '{"relevant": [true]}'

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        kind = (kwargs.get("response_format") or {}).get("type", "text")
        self.formats.append(kind)
        if kind == "json_schema":
            raise RuntimeError(  # what llama_cpp.server 0.3.36 answers, shortened
                "Error code: 500 - {'loc': ('body', 'response_format', 'type'), "
                "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
            )
        if self.reply == "boom":
            raise RuntimeError("boom")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])


def test_a_server_that_rejects_json_schema_is_asked_with_json_object(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(calls, "_JSON_OBJECT_ENDPOINTS", set())
    llm = RejectsJsonSchema(model="smol", base_url="http://127.0.0.1:9/v1", api_key="none", max_retries=0)
    schema = {"type": "object", "properties": {"relevant": {"type": "array", "items": {"type": "boolean"}}}}
    meter = calls.Meter("filter")
    assert calls.chat(llm, [HumanMessage("q")], meter, schema=schema) == '{"relevant": [true]}'
    assert calls.chat(llm, [HumanMessage("q")], meter, schema=schema) == '{"relevant": [true]}'
    assert llm.formats == ["json_schema", "json_object", "json_object"]  # asked again once, then remembered
    assert meter.llm_calls == 2
    other = RejectsJsonSchema(model="other", base_url="http://127.0.0.1:9/v1", api_key="none", reply="boom")
    with pytest.raises(RuntimeError, match="boom"):  # other errors are not retried
        calls.chat(other, [HumanMessage("q")], meter, schema=schema)
    assert other.formats == ["json_schema", "json_object"]
    with pytest.raises(RuntimeError, match="boom"):
        calls.chat(other, [HumanMessage("q")], meter)
    assert other.formats[-1] == "text"


def test_the_length_limit_also_goes_as_max_tokens_to_other_openai_compatible_servers():
    local = ChatOpenAI(model="smol", base_url="http://127.0.0.1:9/v1", api_key="none", extra_body={"top_k": 1})
    assert calls.token_limit_kwargs(local, 40) == {"max_tokens": 40, "extra_body": {"top_k": 1, "max_tokens": 40}}
    openai = ChatOpenAI(model="gpt-4o-mini", api_key="none")
    assert calls.token_limit_kwargs(openai, 40) == {"max_tokens": 40}  # sent as max_completion_tokens
    assert calls.token_limit_kwargs(ScriptedChat(), 40) == {"max_tokens": 40}


TRACED_RUN = """
import sys
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.tracers.langchain import wait_for_all_tracers
from lclfqa import load_graph
from lclfqa.config import Settings
from tests.fakes import ScriptedChat
from tests.test_graph import QUESTION, good_script

llm = ScriptedChat(script=good_script())
graph = load_graph(sys.argv[1], Settings(rewrites=1), llm=llm, embeddings=DeterministicFakeEmbedding(size=32))
print(graph.invoke({"question": QUESTION}).answer)
wait_for_all_tracers()
"""


class _Collector(BaseHTTPRequestHandler):
    """A stand-in LangSmith endpoint on loopback: records what is posted, answers every request with ``{}``."""

    received: list[tuple[str, bytes]] = []

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.received.append((self.path, self.rfile.read(length) if length else b""))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PATCH = do_PUT = _answer

    def log_message(self, *args: Any) -> None:
        pass


def _run_traced(sample_index: Path, env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LANGSMITH_", "LANGCHAIN_"))}
    done = subprocess.run(
        [sys.executable, "-c", TRACED_RUN, str(sample_index)],
        env={**clean, "PYTHONPATH": str(ROOT), **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_traces_reach_langsmith_only_when_its_variables_are_set(sample_index: Path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        _Collector.received.clear()
        _run_traced(sample_index, {"LANGSMITH_ENDPOINT": endpoint, "LANGSMITH_API_KEY": "test-key"})
        assert _Collector.received == []  # tracing not switched on: nothing is sent, not even to a set endpoint
        answer = _run_traced(
            sample_index,
            {"LANGSMITH_TRACING": "true", "LANGSMITH_ENDPOINT": endpoint, "LANGSMITH_API_KEY": "test-key"},
        )
        assert "joint return" in answer
        posted = b"".join(body for path, body in _Collector.received if "/runs" in path)
        for expected in (b"lclf-qa", b"pipeline:lclf", b"read.llm", b"node:read", b"lclfqa_node", b"langgraph_node"):
            assert expected in posted, (expected, [path for path, _ in _Collector.received])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
