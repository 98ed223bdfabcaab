"""The process environment lclfqa wants, set in one explicit step: :func:`configure`.

Nothing in the package changes the environment, or patches a library, when it is imported. The entry
points call :func:`configure` first: the ``lclfqa`` command (its Typer callback), the LangGraph server's
``make_graph``, :func:`lclfqa.index.ingest.ingest`; a script or notebook that imports the pieces
itself may call it too. Every variable is set with ``setdefault``, so a value the user exported wins.

The one library patch, the offline spaCy pipeline of unstructured, is applied by
:func:`lclfqa.ingest.unstructured_offline.configure` just before unstructured first runs (it needs
unstructured imported, which takes seconds; ``lclfqa --help`` must not).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

QUIET_ENV: dict[str, str] = {
    # unstructured pings an analytics service when it is imported and posts telemetry on every call unless
    # one of these is set; they must be set before anything imports it
    "DO_NOT_TRACK": "1",
    "SCARF_NO_ANALYTICS": "true",
    "UNSTRUCTURED_DISABLE_NOTICE": "1",
    # ragas' telemetry (``lclfqa eval qa --ragas``)
    "RAGAS_DO_NOT_TRACK": "true",
}
"""Telemetry and notices off: the variables :func:`configure` sets where the user has not."""


def configure(env: MutableMapping[str, str] | None = None) -> None:
    """Turn off the telemetry and notices of the libraries lclfqa uses (:data:`QUIET_ENV`) in ``env``
    (default ``os.environ``), keeping any value already set. Idempotent and cheap: imports nothing."""
    target = os.environ if env is None else env
    for key, value in QUIET_ENV.items():
        target.setdefault(key, value)


CPU_FLAGS = ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_int8", "amx_bf16", "fma", "f16c")
"""The CPU flags that decide which llama.cpp kernels run (and so its speed and its exact logits)."""


def machine(cpuinfo: str = "/proc/cpuinfo") -> dict[str, object]:
    """What an eval run ran on: the CPU model, its :data:`CPU_FLAGS` present, cores, and the platform. Tokens
    compare across machines; seconds only with this beside them. Empty fields where ``cpuinfo`` is unreadable."""
    import platform

    model, flags = "", set()
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and not model:
                    model = value.strip()
                elif key.strip() == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return {
        "cpu_model": model or platform.processor(),
        "cpu_flags": [f for f in CPU_FLAGS if f in flags],
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }
