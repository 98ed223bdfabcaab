"""The OpenAI-compatible path against a real server: llama-cpp-python's server (`python -m lclfqa.llm.llama`, i.e.
`python -m llama_cpp.server`) with the tiny model on a loopback port, then `--model openai:smol` with a base
URL. Structured outputs must parse through it as they do in-process. Slow; runs in CI."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from lclfqa import prompts
from lclfqa.config import Settings
from lclfqa.graph.evidence.reading import instruction
from lclfqa.graph.nodes.filter import FILTER_VERDICTS, THOUGHT_CHARS, verdict_schema
from lclfqa.graph.nodes.rewrite import rewrites_schema
from lclfqa.llm import calls, parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.models import get_chat_model
from lclfqa.llm.weights import smollm2_path
from tests.servers import free_port, serving

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("uvicorn") is None or importlib.util.find_spec("sse_starlette") is None,
        reason="llama-cpp-python[server] not installed (pip install -e '.[server]')",
    ),
]

ALIAS = "smol"
QUESTION = "Can a married couple filing separately claim the American Opportunity Tax Credit?"
PASSAGE = "No. Under section 25A(g)(6), married taxpayers must file a joint return to claim the credit."


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The tiny model behind llama-cpp-python's OpenAI-compatible server on a free loopback port."""
    port = free_port()
    log_dir = tmp_path_factory.mktemp("openai-server")
    command = [sys.executable, "-m", "lclfqa.llm.llama", "--model", str(smollm2_path()), "--model_alias", ALIAS]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "1"]
    url = f"http://127.0.0.1:{port}/v1"
    with serving(command, ready_url=f"{url}/models", log=log_dir / "server.log", env=dict(os.environ), cwd=log_dir):
        yield url


def _filter_messages() -> list:
    """The filter call as the filter node makes it: the reading prefix, then its instruction."""
    msgs = prompts.messages(
        "reading",
        references="<reference 1>\nNo credit for married taxpayers filing separately.\n</reference 1>\n\n"
        "<reference 2>\nThe weather was fine.\n</reference 2>\n\n<reference 3>\nA joint return is required.\n"
        "</reference 3>",
        question="Can a married taxpayer filing separately claim the credit?",
        translated_question="Can I get the credit if I file on my own?",
    )
    return [*msgs, HumanMessage(instruction("filter_cot", n=3))]


FILTER_TOKENS = THOUGHT_CHARS // 3 + 76


def _rewrite_messages() -> list:
    """The rewrite call as the rewrite node makes it, after a (fixed) query2doc passage."""
    asked = prompts.messages("query2doc", examples=prompts.query2doc_examples(), question=QUESTION)
    follow = prompts.render(prompts.template("rewrites")["user"], n=1, question=QUESTION)
    return [*asked, AIMessage(PASSAGE), HumanMessage(follow)]


def test_structured_outputs_parse_through_the_server_as_in_process(base_url: str):
    """Filter verdicts and the rewrite JSON, constrained by their schemas, through the server and in-process."""
    settings = Settings(n_ctx=4096, n_threads=1, llm_max_retries=1)
    served = get_chat_model(f"openai:{ALIAS}", base_url=base_url, settings=settings)
    local = get_chat_model("local-tiny", settings=settings)
    for llm in (served, local):
        meter = Meter("filter")
        raw = chat(llm, _filter_messages(), meter, max_tokens=FILTER_TOKENS, schema=verdict_schema(3))
        verdicts, ok = parsing.booleans(raw, 3)
        assert ok and len(verdicts) == 3, (llm, raw)
        assert parsing.choice(raw, "answered", FILTER_VERDICTS), raw  # the schema's enum
        assert meter.llm_calls == 1 and meter.prompt_tokens > 50 and 0 < meter.completion_tokens <= FILTER_TOKENS
        meter = Meter("rewrite")
        raw = chat(llm, _rewrite_messages(), meter, max_tokens=120, schema=rewrites_schema(1))
        obj = parsing.json_object(raw)
        assert obj is not None and isinstance(obj.get("rewrites"), list) and len(obj["rewrites"]) == 1, raw
        assert isinstance(obj["rewrites"][0], str) and isinstance(obj.get("translation"), str), raw
        assert meter.completion_tokens <= 120  # the length limit reached the server (max_tokens)
    # llama-cpp-python's server rejects response_format json_schema; the calls above went through as
    # json_object + schema (lclfqa.llm.calls)
    assert (base_url, ALIAS) in calls._JSON_OBJECT_ENDPOINTS


def test_lclfqa_ask_answers_through_the_server(base_url: str, local_sample_index: Path):
    """The graph (filter, extract, read; the rewriter's JSON is checked above) through `lclfqa ask --model
    openai:smol`, as the issue ran it."""
    env = {
        **os.environ,
        "OPENAI_BASE_URL": base_url,
        "LCLFQA_MAX_ANSWER_TOKENS": "100",
        "LCLFQA_CONTEXT_CHARS": "2000",
        "LCLFQA_LLM_MAX_RETRIES": "1",
    }
    env.pop("OPENAI_API_KEY", None)
    command = [sys.executable, "-m", "lclfqa.cli", "ask", QUESTION, "--index", str(local_sample_index), "--json"]
    command += ["--model", f"openai:{ALIAS}", "--rewrites", "0", "--top-k", "2"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["answer"].strip() and "[n]" not in out["answer"], out["answer"]
    assert out["citations"] and all(c["document"] and c["pages"] for c in out["citations"]), out["citations"]
    steps = out["steps"]
    for node in ("filter", "extract", "read"):
        assert "error" not in steps[node], (node, steps[node])  # an LLM error would degrade the node quietly
        assert steps[node]["llm_calls"] >= 1 and steps[node]["prompt_tokens"] > 0, (node, steps[node])
    assert steps["filter"]["well_formed"], steps  # the verdicts' JSON parsed
    print(out["answer"], out["citations"], {n: s["seconds"] for n, s in steps.items()}, sep="\n")
