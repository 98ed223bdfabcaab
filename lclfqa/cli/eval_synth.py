"""``lclfqa eval synth``: synthetic QA pairs from an index (LCLF-QA, Appendix A), written as QA JSON Lines.

Only the command function lives here; the eval CLI registers it with ``eval_app.command("synth")(synth)``.
Heavy imports (numpy, models, the index) happen inside the function.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Annotated

import typer

from lclfqa.cli import common
from lclfqa.cli.common import BackendOption, ConfigOption, MilvusUriOption, backend_overrides, console, fail

_ALL_STYLES = "instruction,reason,evidence,comparison,list,domain-specific"


def synth(
    index: Annotated[Path, typer.Option("--index", "-i", help="Index directory (built by lclfqa ingest).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="JSON Lines file to write (replaced atomically).")],
    budget: Annotated[int, typer.Option("--budget", "-b", min=1, help="QA pairs to generate (b).")] = 20,
    clusters: Annotated[int, typer.Option("--clusters", "-k", min=1, help="k-means clusters of page summaries.")] = 5,
    chunks: Annotated[int, typer.Option("--chunks", "-n", min=1, help="Page chunks per generator call (n).")] = 2,
    styles: Annotated[str, typer.Option("--styles", help="Question styles, comma-separated.")] = _ALL_STYLES,
    model: Annotated[
        str | None,
        typer.Option("--model", help="Chat model: 'local', 'local-tiny' or 'openai:<model>' (default: settings)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every random choice (reproducible runs).")] = 0,
    max_pages: Annotated[
        int | None, typer.Option("--max-pages", min=1, help="Summarise at most this many pages (drawn at random).")
    ] = None,
    config: ConfigOption = None,
    llm_cache: Annotated[
        str | None, typer.Option("--llm-cache", help="SQLite file caching LLM responses (reruns cost nothing).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Generate synthetic QA pairs: summarise pages, cluster the summaries, ask for QA pairs in six styles."""

    from lclfqa.config import Settings
    from lclfqa.eval.synth.config import STYLES, SynthConfig, SynthError
    from lclfqa.eval.synth.generate import generate_synthetic_qa
    from lclfqa.eval.synth.jsonl import write_jsonl
    from lclfqa.index.errors import IndexStoreError
    from lclfqa.index.factory import open_index
    from lclfqa.progress import stage_bars

    names = [s.strip() for s in styles.split(",") if s.strip()]
    unknown = [s for s in names if s not in STYLES]
    if unknown or not names:
        fail(f"unknown question style(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(STYLES)}")
    if out.is_dir():
        fail(f"--out {out} is a directory; give a .jsonl file")
    try:
        overrides = backend_overrides(backend, milvus_uri)
        settings = common.checked_stores(Settings.load(config, chat_model=model, llm_cache=llm_cache, **overrides))
        cfg = SynthConfig(
            budget=budget,
            clusters=clusters,
            chunks_per_question=chunks,
            styles=tuple(dict.fromkeys(names)),
            seed=seed,
            max_pages=max_pages,
        )
    except (OSError, ValueError) as e:
        fail(f"settings: {e}")
    try:
        idx = open_index(settings, index)
    except IndexStoreError as e:
        fail(str(e), e.exit_code)

    from lclfqa.llm.models import get_chat_model, get_embeddings

    with closing(idx):
        try:
            llm = get_chat_model(settings.chat_model, settings=settings)
            embeddings = get_embeddings(idx.embedding_model, settings.openai_base_url)
        except (RuntimeError, ValueError, OSError) as e:
            fail(f"cannot load the models: {e}")
        with stage_bars(console, quiet=quiet) as progress:
            try:
                report = generate_synthetic_qa(idx, llm, embeddings, cfg, progress=progress)
            except SynthError as e:
                fail(str(e), 1)
            except KeyboardInterrupt:
                fail(f"interrupted: {out} was not written", 130)
    if not report.records:
        fail(
            f"no QA pairs generated ({report.generation_calls} calls: {report.malformed_outputs} malformed, "
            f"{report.failed_calls} failed, {report.dropped_pairs} duplicates); {out} was not written",
            1,
        )
    try:
        write_jsonl(report.records, out)
    except OSError as e:
        fail(f"cannot write {out}: {e}", 1)
    console.print(f"[green]wrote[/] {report.summary_line()} -> {out}", highlight=False)
    styles_line = ", ".join(f"{s} {c}" for s, c in sorted(report.style_counts.items()))
    console.print(f"[dim]styles: {styles_line}; cluster sizes: {report.cluster_sizes}[/]", highlight=False)
    if len(report.records) < budget:
        console.print(
            f"[yellow]warning:[/] {len(report.records)} of {budget} QA pairs: the call limit was reached "
            "(malformed or duplicate output); try another --seed or a stronger --model",
            highlight=False,
        )
