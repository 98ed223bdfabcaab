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
