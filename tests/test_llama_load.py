"""Loading llama.cpp models: AMX detection and the switch that keeps its AMX kernels out (no model needed)."""

from __future__ import annotations

from pathlib import Path

import llama_cpp
import llama_cpp.llama_cpp as native
import pytest

from lclfqa.llm import llama

XEON_AMX = "processor\t: 0\nflags\t\t: fpu sse avx2 avx512f amx_bf16 amx_tile amx_int8\n"
PLAIN = "processor\t: 0\nflags\t\t: fpu sse avx2 fma\nbugs\t\t: amx_tile_in_a_bug_line\n"


def test_cpu_has_amx_reads_the_flags_line(tmp_path: Path):
    (tmp_path / "amx").write_text(XEON_AMX)
    (tmp_path / "plain").write_text(PLAIN)
    assert llama.cpu_has_amx(tmp_path / "amx") is True
    assert llama.cpu_has_amx(tmp_path / "plain") is False
    assert llama.cpu_has_amx(tmp_path / "missing") is False


@pytest.mark.parametrize("amx", [True, False])
def test_models_load_without_extra_buffers_only_where_amx_is_advertised(monkeypatch, amx: bool):
    seen: list[bool] = []

    class FakeLlama:
        def __init__(self, **kwargs):
            # what llama-cpp-python does while loading: read the default model params
            seen.append(native.llama_model_default_params().use_extra_bufts)
            self.kwargs = kwargs

    monkeypatch.setattr(llama_cpp, "Llama", FakeLlama)
    monkeypatch.setattr(llama, "cpu_has_amx", lambda: amx)
    defaults = native.llama_model_default_params
    model = llama._llama("model.gguf", 2048, 2)
    assert model.kwargs["model_path"] == "model.gguf" and model.kwargs["n_ctx"] == 2048
    assert seen == [not amx]  # off where AMX is advertised, llama.cpp's default (on) elsewhere
    assert native.llama_model_default_params is defaults  # restored
    assert native.llama_model_default_params().use_extra_bufts is True


def test_a_failed_load_restores_the_defaults(monkeypatch):
    class Broken:
        def __init__(self, **kwargs):
            raise ValueError("bad model file")

    monkeypatch.setattr(llama_cpp, "Llama", Broken)
    monkeypatch.setattr(llama, "cpu_has_amx", lambda: True)
    defaults = native.llama_model_default_params
    with pytest.raises(ValueError, match="bad model file"):
        llama._llama("model.gguf", 2048, 2)
    assert native.llama_model_default_params is defaults


_CONSTRAINED = """
import sys
from langchain_core.messages import HumanMessage
from lclfqa.graph.answer.verdict import verdict_schema
from lclfqa.llm.llama import ChatLlama
from lclfqa.llm.weights import smollm2_path
model = ChatLlama(model_path=str(smollm2_path()), n_ctx=1024, n_threads=1, max_tokens=60)
schema = verdict_schema(sys.argv[1:])
fmt = {"type": "json_object", "schema": schema}
reply = model.invoke([HumanMessage("Which rule decides it? Yes or no?")], response_format=fmt)
print("REPLY", reply.content)
"""


def test_a_quote_with_double_quotes_and_a_backslash_is_a_choice_the_grammar_can_hold(tmp_path: Path):
    # llama-cpp-python's schema-to-grammar escapes a straight double quote in an enum string so that llama.cpp's
    # parser ends the literal there, and the process aborts at the first token: the verdict call's choices are
    # made safe (lclfqa.graph.answer.verdict.rule_choices). Run in a subprocess, since the failure is an abort.
    import subprocess
    import sys

    quotes = ['the general rule was that "damages for breach of contract" were limited', "a C:\\path and a rule"]
    done = subprocess.run(
        [sys.executable, "-c", _CONSTRAINED, *quotes], capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0 and "REPLY {" in done.stdout, done.stderr[-2000:]


def test_a_prompt_prefix_held_in_the_kv_cache_is_counted_as_reused():
    # The hardware-free token count (benchmarks/README.md) counts what llama.cpp evaluates: a second call that
    # continues the first call's conversation reuses its prefix, a call on another text only the template's opening.
    from langchain_core.messages import HumanMessage

    from lclfqa.llm.llama import ChatLlama
    from lclfqa.llm.weights import smollm2_path

    model = ChatLlama(model_path=str(smollm2_path()), n_ctx=1024, n_threads=1, max_tokens=4)
    model.forget_prompt()
    shared = [HumanMessage("The lease runs for five years from 1 July 2020 and the rent is paid monthly. " * 4)]

    def details(messages):
        usage = model.invoke(messages).usage_metadata
        return usage["input_tokens"], usage["input_token_details"]["cache_read"]

    first_in, first_reused = details([*shared, HumanMessage("How long does it run?")])
    second_in, second_reused = details([*shared, HumanMessage("How is the rent paid?")])
    other_in, other_reused = details([HumanMessage("Zebras are striped. " * 10)])
    assert first_reused < 10 < first_in
    assert 60 < second_reused < second_in  # the shared passage was not evaluated again
    assert other_reused < 40 < other_in  # the chat template's opening only
    assert other_reused + 40 < second_reused
