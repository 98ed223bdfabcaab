"""Loading chat memory and the LLM cache without running code from the file.

Both are SQLite files on disk that anyone with write access can plant. LangGraph's checkpoint
serializer, by default, rebuilds any ``(module, name, args)`` it finds in a msgpack extension by
importing the module and calling the name: a planted ``chat.sqlite`` holding ``("os", "system",
"...")`` runs a shell command when the thread is loaded. LangChain's cache ``loads`` rebuilds any
class of its "core" mapping with the file's constructor arguments.

Here both load with allow-lists: checkpoints may hold only LangGraph's built-in safe types (our graph
state is plain JSON: str, list, dict), and a cache entry only chat generations and messages. Anything
else is refused with :class:`UnsafeData`, a clear error naming the file, before any of it is called.
No pickle is ever read (``pickle_fallback`` stays off).
"""

from __future__ import annotations

import contextvars
import re
import sqlite3
import warnings
from pathlib import Path
from typing import Any

from langgraph.checkpoint.serde.event_hooks import register_serde_event_listener
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

_GENERATION = re.compile(r"^gen-\d{6}(?:\.tmp)?$")
"""An index generation's folder name, as :func:`lclfqa.index.generations.is_generation` reads it (this module sits
below the index in the layers, so it cannot import it; tests/test_cli_misuse.py holds the two to the same names)."""
_BLOCKED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("lclfqa_blocked", default=None)
_SAFE_ENCODINGS = frozenset({"null", "bytes", "bytearray", "msgpack", "json"})


class UnsafeData(RuntimeError):
    """A data file asks to rebuild a type outside the allow-list (a planted or foreign file)."""


def _record_blocked(event: dict) -> None:
    found = _BLOCKED.get()
    if found is not None and event.get("kind", "").endswith("blocked"):
        method = f".{event['method']}" if event.get("method") else ""
        found.append(f"{event.get('module')}.{event.get('name')}{method}")


_unregister = register_serde_event_listener(_record_blocked)


class StrictSerializer(JsonPlusSerializer):
    """LangGraph's serializer in strict mode that raises :class:`UnsafeData` instead of returning the
    blocked object's raw arguments (which the library does, with a log line, to stay compatible)."""

    def __init__(self, source: str = "chat memory") -> None:
        super().__init__(pickle_fallback=False, allowed_json_modules=None, allowed_msgpack_modules=None)
        self.source = source

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        encoding = data[0]
        if encoding not in _SAFE_ENCODINGS:
            raise UnsafeData(
                f"{self.source}: a value is stored as {encoding!r}, which is never loaded (only JSON and msgpack)"
            )
        found: list[str] = []
        token = _BLOCKED.set(found)
        try:
            value = super().loads_typed(data)
        except UnsafeData:
            raise
        except Exception as exc:  # e.g. a JSON constructor outside allowed_json_modules
            raise UnsafeData(f"{self.source}: a stored value cannot be loaded safely ({exc})") from None
        finally:
            _BLOCKED.reset(token)
        if found:
            raise UnsafeData(
                f"{self.source}: refused to load {', '.join(sorted(set(found)))}: not a type lclfqa stores. The file "
                "was written by something else or tampered with; delete it (or pass another --memory) to start afresh"
            )
        return value


_SQLITE_MAGIC = b"SQLite format 3\x00"
STORE_TABLES: dict[str, frozenset[str]] = {
    "LLM cache": frozenset({"full_llm_cache", "full_md5_llm_cache"}),
    "chat memory": frozenset({"checkpoints", "writes"}),
}
"""The tables by which a SQLite file is known for each of the stores lclfqa writes (LangChain's SQLiteCache,
LangGraph's SqliteSaver)."""


def check_store(path: str | Path, kind: str) -> None:
    """Raise ``ValueError`` naming ``path`` unless it can hold ``kind`` (a key of :data:`STORE_TABLES`): a new
    path, an empty file, or a SQLite file that is a ``kind`` already or holds no tables. Checked before
    anything writes to it: a path inside an index folder, or another program's database, would be written
    into (an index's own ``chunks.sqlite`` given as ``--memory`` broke the index for good)."""
    path = Path(path)
    if _GENERATION.match(path.resolve().parent.name):  # an index generation's folder: its own files
        raise ValueError(
            f"{path} is inside the index {path.resolve().parent.parent}: give the {kind} a file of its own"
        )
    if not path.exists():
        return
    if not path.is_file():
        raise ValueError(f"{path} is not a file; give the {kind} the path of a SQLite file")
    try:
        with open(path, "rb") as f:
            head = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise ValueError(
            f"{path} cannot be read ({exc.strerror or exc}); give the {kind} a file you can write"
        ) from None
    if not head:
        return
    if head != _SQLITE_MAGIC:
        raise ValueError(f"{path} is not a SQLite file; give the {kind} a new path, or one lclfqa wrote")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.Error as exc:
        if "locked" in str(exc):  # a store another process is writing now: SQLite itself waits for it
            return
        raise ValueError(f"{path} cannot be read as a SQLite file ({exc})") from None
    if tables and not tables & STORE_TABLES[kind]:
        shown = ", ".join(sorted(tables)[:4]) + (", …" if len(tables) > 4 else "")
        raise ValueError(
            f"{path} holds other data (tables {shown}) and is no {kind}; give a new path, or one lclfqa wrote"
        )


def open_chat_memory(path: str | Path) -> Any:
    """A LangGraph ``SqliteSaver`` over ``path`` whose loads are strict (see module docstring); ``ValueError``
    for a file it must not write to (:func:`check_store`)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = Path(path)
    check_store(path, "chat memory")
    conn = sqlite3.connect(str(path), check_same_thread=False)
    return SqliteSaver(conn, serde=StrictSerializer(f"chat memory {path}"))


def _cache_classes() -> list[type]:
    from langchain_core.messages import AIMessage, AIMessageChunk
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, Generation, GenerationChunk

    return [AIMessage, AIMessageChunk, ChatGeneration, ChatGenerationChunk, Generation, GenerationChunk]


def strict_llm_cache(path: str | Path) -> Any:
    """LangChain's ``SQLiteCache`` at ``path``, reading entries back only as chat generations and messages;
    ``ValueError`` for a file it must not write to (:func:`check_store`)."""
    check_store(path, "LLM cache")
    from langchain_community.cache import SQLiteCache
    from langchain_core._api.beta_decorator import LangChainBetaWarning
    from langchain_core.load import loads
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    allowed = _cache_classes()

    class StrictSQLiteCache(SQLiteCache):
        def lookup(self, prompt: str, llm_string: str) -> Any:
            stmt = (
                select(self.cache_schema.response)
                .where(self.cache_schema.prompt == prompt)
                .where(self.cache_schema.llm == llm_string)
                .order_by(self.cache_schema.idx)
            )
            with Session(self.engine) as session:
                rows = session.execute(stmt).fetchall()
            if not rows:
                return None
            try:
                with warnings.catch_warnings():  # `loads` is marked beta; the allow-list is what matters here
                    warnings.simplefilter("ignore", LangChainBetaWarning)
                    return [loads(row[0], allowed_objects=allowed) for row in rows]
            except Exception as exc:
                raise UnsafeData(
                    f"LLM cache {path}: an entry is not a chat generation ({exc}); delete the file to start afresh"
                ) from None

    return StrictSQLiteCache(database_path=str(path))
