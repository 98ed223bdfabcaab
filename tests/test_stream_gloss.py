"""The streamed answer shows no glossary gloss, as the checked answer shows none (lclfqa.repl)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from lclfqa.repl import show_streaming

WRITTEN = (
    "No, a couple filing MFS (married filing separately) may not claim the AOTC (American Opportunity Tax "
    "Credit) [1]. Filing jointly is required [1]."
)
SHOWN = "No, a couple filing MFS may not claim the AOTC [1]. Filing jointly is required [1]."


@pytest.mark.parametrize("size", [1, 3, 7, 40, len(WRITTEN)])
def test_a_gloss_the_reader_echoes_is_not_streamed(size: int) -> None:
    tokens = [WRITTEN[i : i + size] for i in range(0, len(WRITTEN), size)]
    state = {"answer": SHOWN, "citations": [], "steps": {}}
    events = [*(("token", t) for t in tokens), ("state", state)]
    out = io.StringIO()
    show_streaming(iter(events), out=out, status=Console(file=io.StringIO()))
    # streamed without the glosses, and, the streamed text being the checked answer, no correction follows
    assert out.getvalue() == SHOWN + "\n"


def test_text_without_a_gloss_streams_unchanged_and_early() -> None:
    # the stream holds back only the last 80 characters: the first words appear long before the answer ends
    words = ("The credit phases out between $80,000 and $100,000 of modified adjusted gross income [2]. " * 4).split()
    consumed = 0

    def events():
        nonlocal consumed
        for w in words:
            consumed += 1
            yield "token", w + " "
        yield "state", {"answer": " ".join(words), "steps": {}}

    class Out(io.StringIO):
        first_at: int | None = None

        def write(self, text: str) -> int:
            if text and self.first_at is None:
                self.first_at = consumed
            return super().write(text)

    out = Out()
    show_streaming(events(), out=out, status=Console(file=io.StringIO()))
    assert " ".join(out.getvalue().split()) == " ".join(words)
    assert out.first_at is not None and out.first_at <= 20 < len(words)
