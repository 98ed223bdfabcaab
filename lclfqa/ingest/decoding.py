"""Decoding a text file's bytes the way Python's text mode reads them, so character offsets line up."""

from __future__ import annotations

import codecs
import logging
import unicodedata
from pathlib import Path

from lclfqa.ingest.document import UnreadableDocument

log = logging.getLogger("lclfqa.ingest")

_TEXT_CONTROLS = frozenset("\t\n\r\f\v")


def _bad_char_ratio(text: str) -> float:
    """Share of characters no text file holds: control characters, unassigned or private code points."""
    if not text:
        return 0.0
    bad = 0
    for ch in text:
        if ch in _TEXT_CONTROLS:
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cn", "Co", "Cs") or ch == "\ufffd":
            bad += 1
    return bad / len(text)


def decode_text(data: bytes, path: str | Path = "<bytes>") -> str:
    """Decode a text file's bytes the way Python's text mode reads them, so offsets line up.

    UTF-8 (a BOM stays as ``"\\ufeff"`` at offset 0, as ``open(path, encoding="utf-8").read()``
    keeps it), UTF-16 with a BOM, else Windows-1252 if that reads as text (logged as a warning).
    Line ends become ``"\\n"`` (universal newlines). Binary, empty or blank input raises.
    """
    if not data:
        raise UnreadableDocument(path, "empty file (0 bytes); re-export or re-download it")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise UnreadableDocument(
                path, f"has a UTF-16 byte-order mark but is not UTF-16 ({exc.reason}); re-save it as UTF-8"
            ) from exc
    elif b"\x00" in data[:65536]:
        raise UnreadableDocument(
            path,
            "looks binary (NUL bytes), not plain text; if it is a PDF, Word or other document, give it its real suffix",
        )
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            try:
                text = data.decode("cp1252")
            except UnicodeDecodeError:
                raise UnreadableDocument(path, "neither UTF-8 nor Windows-1252 text; re-save it as UTF-8") from exc
            if _bad_char_ratio(text) <= 0.01:
                log.warning(
                    "%s: not valid UTF-8 (byte 0x%02x at offset %d); read it as Windows-1252 (cp1252). "
                    "Re-save the file as UTF-8 if its accents or quotes look wrong.",
                    path,
                    data[exc.start],
                    exc.start,
                )
    if _bad_char_ratio(text) > 0.01:
        raise UnreadableDocument(
            path,
            "looks binary (control characters), not plain text; if it is a PDF, Word or other document, "
            "give it its real suffix",
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.replace("\ufeff", "").strip():
        raise UnreadableDocument(path, "holds only whitespace; there is no text to index")
    return text
