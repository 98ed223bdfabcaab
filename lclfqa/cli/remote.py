"""``ask``'s fast path: one question sent to a running ``lclfqa serve``, its answer read back as events.

Standard library only, and nothing of the graph: a process that finds the server pays for no model, no
LangGraph and no torch. :func:`ask_server` raises :class:`ServerUnavailable` when the server cannot take the
question (none at ``server_url`` within :data:`CONNECT_TIMEOUT`, another index, settings it cannot honour,
the connection lost), and ``ask`` then answers in-process; :class:`ServerFailed` when the server took the
question and failed answering it, as an in-process run would have failed.

The protocol (``lclfqa/cli/serve.py`` is the other end): ``POST /ask`` with ``{"question", "index" (the
resolved path), "settings" (Settings.as_record())}``. Answered as one JSON object, the result ``ask --json``
prints; with ``"stream": true`` as JSON lines, one per :data:`lclfqa.repl.Event` (``{"node": …}``,
``{"verdict": …}``, ``{"token": …}`` unless ``"tokens": false``, last ``{"result": …}``) or
``{"error": …}``. ``409`` with ``{"error"}``: not this server's question. ``GET /health``: the index, the
settings' fingerprint.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lclfqa.config import record_digest

CONNECT_TIMEOUT = 0.5
"""Seconds to reach the server before ``ask`` answers in-process (a local server accepts in milliseconds)."""

PER_QUESTION = frozenset(
    {
        "pipeline",
        "rewrites",
        "reader",
        "stages_off",
        "top_k",
        "document_scope",
        "retrieval_depth",
        "rrf_k",
        "sparse_weight",
        "dense_weight",
        "context_chars",
        "nearest_quotes",
        "min_answer_support",
        "max_answer_tokens",
    }
)
"""Settings a question may set for itself on the server; every other one (the models, their limits, the
index backend, ``parallel``, which shapes the graph) must equal the server's, or the question is not its."""

NOT_COMPARED = frozenset({"server_url"})
"""Where the client finds the server is no concern of the server's."""


class ServerUnavailable(Exception):
    """The server cannot take this question; the message says why (``ask`` then answers in-process)."""


class ServerFailed(Exception):
    """The server took the question and failed answering it; the message is the server's."""


def fingerprint(record: dict[str, Any]) -> str:
    """A short hash of the settings a served answer depends on (``GET /health`` shows the server's)."""
    return record_digest(record, NOT_COMPARED)


def mismatch(server: dict[str, Any], client: dict[str, Any]) -> list[str]:
    """The settings of ``client`` that differ from ``server``'s and that a question may not set for itself."""
    names = (set(server) | set(client)) - PER_QUESTION - NOT_COMPARED
    return sorted(n for n in names if server.get(n) != client.get(n))


def _address(url: str) -> tuple[str, int, str]:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise ServerUnavailable(f"server_url {url!r} is not http://HOST:PORT")
    try:
        port = parts.port or 80
    except ValueError:
        raise ServerUnavailable(f"server_url {url!r} has no valid port") from None
    return parts.hostname, port, parts.path.rstrip("/")


def ask_server(
    url: str,
    question: str,
    index: Path,
    settings: dict[str, Any],
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
    tokens: bool = True,
) -> Iterator[tuple[str, Any]]:
    """The :data:`lclfqa.repl.Event` s of ``question`` answered by the server at ``url`` over ``index``
    with ``settings`` (:meth:`lclfqa.config.Settings.as_record`); ``tokens=False``: no ``token`` events (the
    answer only at the end, as ``ask --json`` wants it). Raises :class:`ServerUnavailable`
    before the first event when the server cannot take it, or later if the connection is lost, and
    :class:`ServerFailed` with the server's message when answering failed there."""
    host, port, prefix = _address(url)
    body = json.dumps(
        {
            "question": question,
            "index": str(Path(index).resolve()),
            "settings": settings,
            "stream": True,
            "tokens": tokens,
        }
    ).encode()
    conn = http.client.HTTPConnection(host, port, timeout=connect_timeout)
    try:
        try:
            conn.connect()
        except OSError as exc:
            raise ServerUnavailable(f"no server at {url} ({exc.strerror or exc})") from None
        conn.sock.settimeout(None)  # answering takes minutes; Ctrl-C ends the wait, and the server stops
        try:
            conn.request("POST", f"{prefix}/ask", body, {"Content-Type": "application/json"})
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            raise ServerUnavailable(f"the server at {url} did not answer ({exc})") from None
        if response.status != 200:
            raise ServerUnavailable(f"the server at {url} declined: {_error(response)}")
        done = False
        try:
            for line in response:
                event = json.loads(line)
                if "error" in event:
                    raise ServerFailed(str(event["error"]))
                if "result" in event:
                    done = True
                    yield "state", event["result"]
                    break
                for kind in ("node", "verdict", "token"):
                    if kind in event:
                        yield kind, event[kind]
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise ServerUnavailable(f"the connection to {url} was lost ({exc})") from None
        if not done:
            raise ServerUnavailable(f"the server at {url} stopped before the answer")
    finally:
        conn.close()


def _error(response: http.client.HTTPResponse) -> str:
    raw = response.read(65536)
    try:
        return str(json.loads(raw)["error"])
    except (ValueError, KeyError, TypeError):
        return f"HTTP {response.status} {response.reason}"
