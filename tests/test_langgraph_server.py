"""`langgraph dev` serves langgraph.json's graph on a loopback port; the LangGraph SDK asks two questions on
one thread, as a LangGraph user's client would. Slow (the real tiny model, SmolLM2-135M); runs in CI."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.servers import free_port, serving

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# `langgraph dev`, run as a module: the script may not be on PATH (pip install --user)
LANGGRAPH = [sys.executable, "-m", "langgraph_cli"]
DOCUMENTS = {"tax-memo-education-credits.pdf", "engagement-letter.txt"}
FIRST = "Can a married couple filing separately claim the American Opportunity Tax Credit?"
FOLLOW_UP = "And what about the lifetime learning credit?"


def _all_streamed(answer: str, streamed: str) -> bool:
    """Whether every sentence of ``answer`` is in ``streamed`` (letters and digits compared)."""
    return all(_norm(s) in _norm(streamed) for s in re.split(r"(?<=[.!?])\s+", answer) if _norm(s))


def _norm(text: str) -> str:
    """Letters and digits only, citation markers (``[n]`` placeholders, the ``[3]`` the cite stage gives a
    sentence that cited nothing) dropped: the streamed tokens and the checked answer compare equal when the
    answer came out of the stream."""
    return re.sub(r"[^0-9a-z]", "", re.sub(r"\[[\s\d,n–-]*\]", "", text.lower()))


def _ask(client: Any, thread_id: str, question: str, **kwargs: Any) -> tuple[str, dict[str, Any]]:
    """Stream one run: the reader's tokens as they came, and the final state."""
    tokens: list[str] = []
    final: dict[str, Any] = {}
    for part in client.runs.stream(
        thread_id, "lclf", input={"question": question}, stream_mode=["messages-tuple", "values"], **kwargs
    ):
        assert part.event != "error", part.data
        if part.event == "messages":
            message, metadata = part.data
            if metadata.get("langgraph_node") == "read" and isinstance(message.get("content"), str):
                tokens.append(message["content"])
        elif part.event == "values":
            final = part.data
    return "".join(tokens), final


@pytest.mark.skipif(
    importlib.util.find_spec("langgraph_cli") is None or importlib.util.find_spec("langgraph_runtime_inmem") is None,
    reason="langgraph-cli[inmem] not installed (pip install -e '.[server]')",
)
def test_langgraph_dev_serves_the_graph_to_the_sdk_two_turns_on_one_thread(local_sample_index: Path, tmp_path: Path):
    from langgraph_sdk import get_sync_client

    port = free_port()
    env = {
        **os.environ,
        "LCLFQA_INDEX": str(local_sample_index),
        "LCLFQA_CHAT_MODEL": "local-tiny",
        # the naive-RAG pipeline (one reader call a turn) keeps this test short; the full graph through a
        # server is in test_openai_server.py
        "LCLFQA_PIPELINE": "rag",
        "LCLFQA_TOP_K": "3",
        "LCLFQA_MAX_ANSWER_TOKENS": "80",
        "LCLFQA_N_CTX": "4096",
        "LCLFQA_N_THREADS": "1",  # llama.cpp slows down many times when its threads compete for the cores
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
    }
    command = [*LANGGRAPH, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--config", str(ROOT / "langgraph.json")]
    url = f"http://127.0.0.1:{port}"
    with serving(command, ready_url=f"{url}/ok", log=tmp_path / "server.log", env=env, cwd=tmp_path, timeout=240):
        client = get_sync_client(url=url, timeout=600)
        [assistant] = client.assistants.search(graph_id="lclf")
        context_schema = client.assistants.get_schemas(assistant["assistant_id"])["context_schema"]
        assert {"top_k", "pipeline", "rewrites"} <= set(context_schema["properties"])

        thread_id = client.threads.create()["thread_id"]
        streamed, first = _ask(client, thread_id, FIRST)
        answer = first["answer"]
        assert answer and "[n]" not in answer
        # it was streamed: every sentence of the checked answer came out of the stream (the check may remove one)
        assert streamed.strip() and _all_streamed(answer, streamed), (answer, streamed)
        assert len(first["retrieved"]) == 3
        assert first["citations"], first
        for cited in first["citations"]:
            assert cited["document"] in DOCUMENTS and cited["pages"] and all(p >= 1 for p in cited["pages"])
        assert first["steps"]["rewrite"]["llm_calls"] == 0  # no history yet: nothing to condense
        assert first["history"] == [{"role": "user", "content": FIRST}, {"role": "assistant", "content": answer}]

        # the follow-up: same thread, and a per-run setting through the run's context
        streamed, second = _ask(client, thread_id, FOLLOW_UP, context={"top_k": 2})
        assert second["answer"] and _all_streamed(second["answer"], streamed)
        assert len(second["retrieved"]) == 2
        # the server's checkpoint carried the first turn into the second: its history, and the condense call
        # that made the follow-up stand-alone from it
        assert second["history"][:2] == first["history"] and len(second["history"]) == 4
        assert second["steps"]["rewrite"]["llm_calls"] == 1 and second["standalone_question"]
        state = client.threads.get_state(thread_id)["values"]
        assert [t["content"] for t in state["history"]] == [FIRST, answer, FOLLOW_UP, second["answer"]]
        print(answer, first["citations"], second["standalone_question"], second["answer"], sep="\n")
