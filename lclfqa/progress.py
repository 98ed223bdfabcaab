"""Progress bars for long work (ingest, synthetic QA): one bar per stage, elapsed time and ETA."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

StageCallback = Callable[[str, int, int], None]


@contextmanager
def stage_bars(console: Console, *, quiet: bool = False) -> Iterator[StageCallback]:
    """Yields ``progress(stage, done, total)``: the first call for a stage adds its bar, later ones move it."""
    columns = (
        TextColumn("{task.description:<10}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, disable=quiet, transient=False) as bars:
        tasks: dict[str, int] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bars.add_task(stage, total=max(total, 1))
            bars.update(tasks[stage], completed=done, total=max(total, 1))

        yield progress
