"""``lclfqa serve``: one long-lived local process that has loaded the settings, the index, the embedder and
the chat model, and answers ``ask`` over HTTP, so a question pays none of that start-up.

Standard library HTTP (``ThreadingHTTPServer``) on 127.0.0.1 by default. Questions are answered one at a
time, behind a lock: llama.cpp runs one stream, and two on the same cores are each several times slower;
``GET /health`` answers at once, also while a question is being answered. The protocol is in
:mod:`lclfqa.cli.remote`. A question for another index, or with settings that are not per-question
(:data:`lclfqa.cli.remote.PER_QUESTION`: the models and their limits must be the server's), is refused
with ``409``, and ``ask`` answers it in-process.
"""

from __future__ import annotations

import errno
import json
import signal
import socketserver
import sys
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lclfqa.cli.common import (
    DEFAULT_INDEX,
    BackendOption,
    ConfigOption,
    IndexOption,
    MilvusUriOption,
    backend_overrides,
    console,
    fail,
    load_settings,
)
from lclfqa.cli.remote import PER_QUESTION, fingerprint, mismatch

if TYPE_CHECKING:
    from lclfqa.config import Settings
    from lclfqa.graph.build import QAGraph

DEFAULT_PORT = 8765
MAX_REQUEST = 1_000_000
"""Largest request body read, in bytes (a question and its settings are a few kB)."""


class QAServer(ThreadingHTTPServer):
    """The HTTP server over one loaded :class:`~lclfqa.graph.build.QAGraph` (its index, settings, models)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.graph: QAGraph | None = None
        self.index: Path = Path()
        self.settings: Settings | None = None
        self.answering = threading.Lock()
        self.questions = 0
        self.last_tokens = 0
        """Token events sent for the last question."""
        self.log = console
        """Where a line per question goes (stderr)."""

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks up the host's full name (reverse DNS: seconds without a network)
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def hold(self, graph: QAGraph, index: Path) -> None:
        """Answer with ``graph``, over the index at ``index`` (compared resolved with each question's)."""
        self.graph, self.index, self.settings = graph, Path(index).resolve(), graph.settings

    @property
    def url(self) -> str:
        return f"http://{self.server_name}:{self.server_port}"

    def health(self) -> dict[str, Any]:
        assert self.settings is not None
        return {
            "status": "ok",
            "index": str(self.index),
            "settings": fingerprint(self.settings.as_record()),
            "chat_model": self.settings.chat_model,
            "busy": self.answering.locked(),
            "questions": self.questions,
        }

    def settings_for(self, request: dict[str, Any]) -> tuple[Settings | None, str]:
        """The settings to answer ``request`` with, or ``None`` and why it is not this server's question."""
        assert self.settings is not None
        asked = Path(str(request.get("index") or "")).resolve()
        if asked != self.index:
            return None, f"it holds the index {self.index}, not {asked}"
        client = request.get("settings") or {}
        differ = mismatch(self.settings.as_record(), client)
        if differ:
            return None, f"it runs with other {', '.join(differ)} (restart it with the same settings)"
        return replace(self.settings, **{k: client[k] for k in PER_QUESTION if k in client}), ""


class _Handler(BaseHTTPRequestHandler):
    server: QAServer
    server_version = "lclfqa-serve"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # one line per question instead (QAServer answers them)

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path.rstrip("/") == "/health":
            self._json(200, self.server.health())
        else:
            self._json(404, {"error": "GET /health or POST /ask"})

    def do_POST(self) -> None:  # noqa: N802
        if self.path.rstrip("/") != "/ask":
            self._json(404, {"error": "POST /ask"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if not 0 < length <= MAX_REQUEST:
                raise ValueError(f"a body of 1 to {MAX_REQUEST} bytes is needed")
            request = json.loads(self.rfile.read(length))
            if not isinstance(request, dict):
                raise ValueError('the body must be a JSON object, {"question": "…"}')
            question = request.get("question")
            if not isinstance(question, str) or not question.strip():
                raise ValueError("question must be a non-empty string")
            settings, why = self.server.settings_for(request)
        except (ValueError, KeyError, TypeError) as exc:
            self._json(400, {"error": f"bad request: {exc}"})
            return
        if settings is None:
            self._json(409, {"error": why})
            return
        stream = bool(request.get("stream"))
        self._answer(question, settings, stream, tokens=stream and request.get("tokens", True) is not False)

    def _answer(self, question: str, settings: Settings, stream: bool, tokens: bool) -> None:
        from lclfqa.graph.build import QAGraph
        from lclfqa.graph.context import QAContext
        from lclfqa.graph.result import QAResult
        from lclfqa.repl import graph_events

        graph = self.server.graph
        assert graph is not None
        if stream:
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Connection", "close")
            self.end_headers()
        with self.server.answering:
            self.server.questions += 1
            number, started = self.server.questions, time.monotonic()
            qa = QAGraph(graph.graph, QAContext(settings, graph.context.resources))
            events = graph_events(qa, question, tokens=tokens)
            outcome = "answered"
            self.server.last_tokens = 0
            try:
                for kind, payload in events:
                    self.server.last_tokens += kind == "token"
                    if kind == "state":
                        result = QAResult(payload).to_json()
                        if stream:
                            self._line({"result": result})
                        else:
                            self._json(200, result)
                    elif stream:
                        self._line({kind: payload})
            except (BrokenPipeError, ConnectionResetError):
                outcome = "the client went away; stopped"
            except Exception as exc:  # the client is told; the server goes on with the next question
                outcome = f"failed: {type(exc).__name__}: {exc}"
                body = {"error": str(exc) or type(exc).__name__}
                try:
                    if stream:
                        self._line(body)
                    else:
                        self._json(500, body)
                except OSError:
                    pass
            finally:
                events.close()
            self.server.log.print(
                f"question {number}: {outcome} in {time.monotonic() - started:.1f} s",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )

    def _line(self, event: dict[str, Any]) -> None:
        self.wfile.write(json.dumps(event, ensure_ascii=False).encode() + b"\n")
        self.wfile.flush()


def open_server(host: str, port: int) -> QAServer:
    """Bind ``host:port`` (before anything loads, so a taken port is said at once); exits 2 if it cannot."""
    if not 0 <= port <= 65535:
        fail(f"--port must be between 0 and 65535 (0: any free port); got {port}")
    try:
        return QAServer((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            fail(f"port {port} on {host} is in use (another lclfqa serve?); stop that or pick another with --port")
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def warm_up(graph: QAGraph) -> None:
    """Load what the first question would: the index, the embedder (one query embedded) and the chat model
    (its weights checked and, for llama.cpp, loaded into memory)."""
    resources = graph.context.resources
    resources.embeddings.embed_query("warm-up")
    load = getattr(resources.llm, "_llama", None)  # llama.cpp loads the GGUF at the first call otherwise
    if callable(load):
        load()


def serve(
    index: IndexOption = DEFAULT_INDEX,
    config: ConfigOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on (127.0.0.1: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port to listen on (0: any free port).")] = DEFAULT_PORT,
    model: Annotated[
        str | None, typer.Option("--model", "--chat-model", help="'local' (default), 'local-tiny' or 'openai:<model>'.")
    ] = None,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Answer questions over one index from a process that loads the models once; `ask` uses it when
    LCLFQA_SERVER_URL (setting server_url) names it. Ctrl-C stops it."""
    import logging

    from lclfqa.graph.build import load_graph
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import open_index

    logging.basicConfig(level=logging.ERROR)
    settings = load_settings(config, chat_model=model, **backend_overrides(backend, milvus_uri))
    server = open_server(host, port)
    try:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as Ctrl-C does
        started = time.monotonic()
        with console.status(f"loading the index and the models ({settings.chat_model})", spinner="dots"):
            try:
                idx = open_index(settings, index)
            except IndexStoreError as exc:
                fail(str(exc), exc.exit_code)
            graph = load_graph(index, settings, index=idx)
            try:
                warm_up(graph)
            except Exception as exc:  # a model that cannot load: said in one line, as ask says it
                fail(f"cannot load the models: {exc}", 1)
        server.hold(graph, index)
        console.print(
            f"lclfqa serve: {server.url} answers over {server.index} "
            f"(loaded in {time.monotonic() - started:.1f} s; settings {server.health()['settings']}). "
            f"Use it: LCLFQA_SERVER_URL={server.url} lclfqa ask …  Ctrl-C stops it.",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        server.serve_forever()
    except KeyboardInterrupt:
        console.print("lclfqa serve: stopped", highlight=False, markup=False)
    finally:
        server.server_close()
    sys.stdout.flush()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
