"""Start a real server on a loopback port for a test, and always stop it (and its children) again."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _log_tail(log: Path, chars: int = 3000) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")[-chars:]
    except OSError:
        return ""


@contextmanager
def serving(
    cmd: list[str], *, ready_url: str, log: Path, env: dict[str, str], cwd: Path, timeout: float = 180.0
) -> Iterator[subprocess.Popen]:
    """Run ``cmd`` in its own process group until ``ready_url`` answers 200, yield, then stop the group:
    SIGTERM, and SIGKILL after 15 s. Fails with the server's log when it exits or is not ready in time."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[0]} exited with {proc.returncode} before it was ready:\n{_log_tail(log)}")
            try:
                with urllib.request.urlopen(ready_url, timeout=5) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"{ready_url} not ready after {timeout:.0f} s:\n{_log_tail(log)}")
            time.sleep(0.5)
        yield proc
    finally:
        _signal_group(proc, signal.SIGTERM)  # the group: a server's workers go too, even if it died first
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait(timeout=15)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass
