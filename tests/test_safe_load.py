"""No code from data files: a planted chat memory or LLM cache is refused, not run (issue 16, point 3)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import ormsgpack
import pytest
from langchain_core.load import dumps
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.safe_load import StrictSerializer, UnsafeData, strict_llm_cache
from tests.fakes import ScriptedChat
from tests.test_graph import QUESTION

runner = CliRunner()
EXT_CONSTRUCTOR_SINGLE_ARG = 0  # langgraph.checkpoint.serde.jsonplus: (module, name, arg) -> module.name(arg)


def _as_ext(code: int, data: bytes) -> ormsgpack.Ext:
    return ormsgpack.Ext(code, data)


def _plant(memory: Path, marker: Path) -> None:
    """Rewrite every stored checkpoint so that loading it calls ``os.system("touch MARKER")``."""
    payload = ormsgpack.Ext(EXT_CONSTRUCTOR_SINGLE_ARG, ormsgpack.packb(["os", "system", f"touch {marker}"]))
    con = sqlite3.connect(memory)
    rows = con.execute("SELECT rowid, type, checkpoint FROM checkpoints").fetchall()
    assert rows
    for rowid, kind, blob in rows:
        assert kind == "msgpack"
        checkpoint = ormsgpack.unpackb(blob, ext_hook=_as_ext, option=ormsgpack.OPT_NON_STR_KEYS)
        checkpoint["channel_values"]["question"] = payload
        con.execute("UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?", (ormsgpack.packb(checkpoint), rowid))
    con.commit()
    con.close()


def test_a_planted_chat_memory_is_refused_with_a_clear_error(
    memo_index: Path,
    tmp_path: Path,
    fake_models: ScriptedChat,
):
    memory = tmp_path / "chat.sqlite"
    args = ["chat", "--index", str(memo_index), "--thread", "t1", "--memory", str(memory)]
    assert runner.invoke(app, args, input=f"{QUESTION}\n/quit\n").exit_code == 0
    marker = tmp_path / "PWNED"
    _plant(memory, marker)
    result = runner.invoke(app, args, input="And the lifetime learning credit?\n/quit\n")
    assert not marker.exists(), "loading the chat memory ran a shell command"
    assert result.exit_code == 1, result.output
    assert "refused to load os.system" in result.output and "Traceback" not in result.output


def test_the_strict_serializer_raises_instead_of_calling(tmp_path: Path):
    marker = tmp_path / "PWNED"
    blob = ormsgpack.packb(
        {"q": ormsgpack.Ext(EXT_CONSTRUCTOR_SINGLE_ARG, ormsgpack.packb(["os", "system", f"touch {marker}"]))}
    )
    with pytest.raises(UnsafeData, match="os.system"):
        StrictSerializer().loads_typed(("msgpack", blob))
    with pytest.raises(UnsafeData, match="pickle"):
        StrictSerializer().loads_typed(("pickle", b"cos\nsystem\n(S'true'\ntR."))
    assert not marker.exists()
    # what the graph stores (plain JSON types, messages, datetimes) still round-trips
    serde = StrictSerializer()
    value = {"question": "q", "history": [{"role": "user", "content": "hi"}], "m": AIMessage("a")}
    assert serde.loads_typed(serde.dumps_typed(value)) == value


def test_the_llm_cache_loads_only_generations(tmp_path: Path):
    cache = strict_llm_cache(tmp_path / "cache.sqlite")
    cache.update("p", "llm", [ChatGeneration(message=AIMessage("cached answer"))])
    assert cache.lookup("p", "llm")[0].message.content == "cached answer"
    cache.update("p2", "llm", [Generation(text="plain")])
    assert cache.lookup("p2", "llm")[0].text == "plain"
    # an entry that would build a chat model pointing anywhere (SSRF) is refused
    from langchain_openai import ChatOpenAI

    hostile = dumps(ChatOpenAI(model="x", base_url="http://attacker.invalid", api_key="k"))
    con = sqlite3.connect(tmp_path / "cache.sqlite")
    con.execute("UPDATE full_llm_cache SET response = ? WHERE prompt = 'p'", (hostile,))
    con.commit()
    con.close()
    with pytest.raises(UnsafeData, match="not a chat generation"):
        cache.lookup("p", "llm")


def test_no_pickle_anywhere_in_the_package():
    """Nothing in lclfqa may unpickle: the guard that keeps the allow-lists above meaningful."""
    package = Path(__file__).resolve().parents[1] / "lclfqa"
    banned = (
        "pickle.load",
        "allow_pickle=True",
        "allow_dangerous_deserialization",
        "torch.load",
        "pickle_fallback=True",
    )
    found = [
        f"{p.relative_to(package)}: {word}"
        for p in package.rglob("*.py")
        for word in banned
        if word in p.read_text(encoding="utf-8")
    ]
    assert found == []
