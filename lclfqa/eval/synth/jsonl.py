"""Writing synthetic QA records: QA JSON Lines, atomically."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def write_jsonl(records: Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write ``records`` as JSON Lines to ``path`` atomically (a temporary file next to it, then
    ``os.replace``): a crash leaves the old file or none, never half of one. Creates the parent folder."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
