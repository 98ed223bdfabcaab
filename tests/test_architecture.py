"""The layering is a checked contract, not a hope (pyproject.toml's ``[tool.importlinter]``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_are_kept():
    """cli → repl → eval → graph → index → … → config, the graph's wiring above its nodes above state, the index
    room's search above its backends, nothing above the index naming a backend, and no import
    cycle between siblings at any depth (an upward import, e.g. textnorm importing eval, breaks two)."""
    lint = Path(sys.executable).with_name("lint-imports")
    done = subprocess.run([str(lint)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "6 kept, 0 broken" in done.stdout


def test_the_cli_starts_without_torch_langgraph_or_unstructured():
    """``lclfqa --help`` loads none of the heavy libraries (it must start in well under a second)."""
    probe = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from lclfqa.cli import app\n"
        "assert CliRunner().invoke(app, ['--help']).exit_code == 0\n"
        "heavy = [m for m in ('torch', 'langgraph', 'unstructured', 'sentence_transformers', 'llama_cpp')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
