"""``lclfqa eval``: retrieval metrics here; ``qa`` (:mod:`lclfqa.cli.eval_qa`) and ``synth``
(:mod:`lclfqa.cli.eval_synth`) are registered at the bottom.

``eval_app`` is a Typer sub-app; the main CLI mounts it with ``app.add_typer(eval_app, name="eval")``.
"""

from __future__ import annotations

import json
import sys
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from lclfqa.cli import common
from lclfqa.cli.common import BackendOption, ConfigOption, MilvusUriOption, backend_overrides, console, fail, new_app
from lclfqa.cli.eval_qa import qa
from lclfqa.cli.eval_synth import synth
from lclfqa.eval.configs import CONFIGS, DEFAULT_CONFIGS, DEFAULT_KS, NEEDS_REWRITER

if TYPE_CHECKING:
    from lclfqa.eval.retrieval_eval import RetrievalTable

eval_app = new_app(
    "Evaluate LCLF-QA: retrieval (DRM, character P/R), QA batches (claim recall, coverage), synthetic QA."
)


@eval_app.callback()
def _eval() -> None:
    """Evaluate LCLF-QA on benchmark sets."""


def _int_list(raw: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        fail(f"{what} must be comma-separated integers, e.g. 1,2,4,8; got {raw!r}")
    if not values or min(values) < 1:
        fail(f"{what} must be positive integers; got {raw!r}")
    return values


def render_table(table: RetrievalTable) -> Table:
    """One row per configuration and k: DRM, character precision, character recall, document recall."""
    out = Table()
    for col in ("config", "k", "DRM", "char P", "char R", "doc R"):
        out.add_column(col, justify="left" if col == "config" else "right")
    out.add_column("ms/query", justify="right")
    for r in table.rows:
        if r.skipped:
            out.add_row(r.name, "", "", "", "", "", "", end_section=True)
            out.add_row("", f"[dim]{r.note}[/]", "", "", "", "", "", end_section=True)
            continue
        for i, (k, s) in enumerate(r.scores.items()):
            out.add_row(
                r.name if i == 0 else "",
                str(k),
                f"{s.drm:.3f}",
                f"{s.char_precision:.3f}",
                f"{s.char_recall:.3f}",
                f"{s.doc_recall:.3f}",
                f"{r.query_ms:.1f}" if i == 0 else "",
                end_section=i == len(r.scores) - 1,
            )
    return out


@eval_app.command()
def retrieval(
    corpus: Annotated[Path, typer.Option("--corpus", help="Corpus folder (gold file paths are relative to it).")],
    benchmark: Annotated[Path, typer.Option("--benchmark", help="LegalBench-RAG benchmark JSON.")],
    k: Annotated[str, typer.Option("--k", help="Cut-offs, comma-separated.")] = ",".join(map(str, DEFAULT_KS)),
    configs: Annotated[str, typer.Option("--configs", help=f"Comma-separated, from: {', '.join(CONFIGS)}.")] = ",".join(
        DEFAULT_CONFIGS
    ),
    index: Annotated[
        Path | None,
        typer.Option("--index", help="Build or reuse our index here (default: a temporary folder)."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N queries.")] = None,
    sample: Annotated[
        int | None,
        typer.Option(
            "--sample",
            min=1,
            help="A random N of the queries (seeded, in benchmark order): for the LLM configurations, whose "
            "cost is per query; --limit takes the first N, which in PrivacyQA are about two documents.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed for --sample.")] = 0,
    depth: Annotated[int, typer.Option("--depth", min=1, help="Candidates per list for hybrid fusion.")] = 50,
    embedding_model: Annotated[
        str | None, typer.Option("--embedding-model", help="Embedding model (default: the settings').")
    ] = None,
    config: ConfigOption = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="Chat model for +rewrites and +summaries (default: the settings').", metavar="NAME"
        ),
    ] = None,
    rewrites: Annotated[
        int | None, typer.Option("--rewrites", help="Rewrites per query for +rewrites: 1 or 3.")
    ] = None,
    summaries_index: Annotated[
        Path | None,
        typer.Option(
            "--summaries-index",
            help="For +summaries: an index built with document summaries, or where to build one (one LLM call "
            "per document; reused when it exists).",
        ),
    ] = None,
    llm_cache: Annotated[
        Path | None, typer.Option("--llm-cache", help="SQLite file caching LLM responses (reruns cost nothing).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
    per_query: Annotated[bool, typer.Option("--per-query", help="With --json: add every query's scores.")] = False,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Retrieval quality of naive RAG, BM25, dense, hybrid, +scope, +rewrites, +scope+rewrites (the graph's own
    search) and +summaries on a LegalBench-RAG benchmark (the last three call the chat model: the local
    default takes tens of seconds per call)."""
    from lclfqa.config import Settings
    from lclfqa.eval.datasets import DatasetError, load_legalbench
    from lclfqa.eval.retrieval_eval import GoldNotIndexed, run_retrieval_eval

    ks = _int_list(k, "--k")
    names = [c.strip() for c in configs.split(",") if c.strip()]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown or not names:
        fail(f"unknown configuration(s) {', '.join(unknown) or '(none given)'}; known: {', '.join(CONFIGS)}")
    try:
        queries = load_legalbench(benchmark, corpus)
    except DatasetError as e:
        fail(str(e))
    if index is not None and index.exists() and not index.is_dir():
        fail(f"--index {index} is a file, not an index folder; give a folder path")
    if not queries:  # before the corpus is indexed for an empty table
        fail(f"{benchmark}: no queries in its 'tests' list")
    if sample is not None and sample < len(queries):
        import random

        picked = sorted(random.Random(seed).sample(range(len(queries)), sample))
        queries = [queries[i] for i in picked]
    if limit is not None:
        queries = queries[:limit]
    try:
        overrides = {"chat_model": model, "rewrites": rewrites, "llm_cache": str(llm_cache) if llm_cache else None}
        overrides |= backend_overrides(backend, milvus_uri)
        settings = common.checked_stores(Settings.load(config, embedding_model=embedding_model, **overrides))
    except (OSError, ValueError) as e:
        fail(f"settings: {e}")
    wants_rewriter = bool(NEEDS_REWRITER & set(names))
    if wants_rewriter and settings.query_rewrites == 0:
        fail("+rewrites needs --rewrites 1 or 3")
    rewriter = summarizer = None
    if wants_rewriter or ("+summaries" in names and summaries_index is not None):
        from lclfqa.eval import retrieval_eval
        from lclfqa.eval.retrieval_eval import graph_rewriter
        from lclfqa.ingest.summaries import make_summarizer
        from lclfqa.llm.models import get_chat_model

        llm = get_chat_model(settings.chat_model, settings.openai_base_url, settings=settings)
        embedder = retrieval_eval.get_embeddings(settings.embedder(), settings.openai_base_url)
        rewriter = graph_rewriter(llm, settings.query_rewrites, embedder) if wants_rewriter else None
        summarizer = make_summarizer(settings, llm) if "+summaries" in names else None

    def progress(line: str) -> None:
        console.print(f"[dim]{line}[/]", highlight=False)

    from lclfqa.index.errors import IndexStoreError

    try:
        table = run_retrieval_eval(
            queries,
            corpus,
            configs=names,
            ks=ks,
            index_dir=index,
            settings=settings,
            depth=depth,
            rewriter=rewriter,
            summaries_index=summaries_index,
            summarizer=summarizer,
            progress=progress,
        )
    except IndexStoreError as e:
        fail(str(e), e.exit_code)
    except GoldNotIndexed as e:  # the corpus was read but its gold documents were not indexed: nothing to score
        fail(str(e), 1)
    if as_json:
        json.dump({"date": date.today().isoformat(), **table.to_json(per_query)}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return
    out = Console(width=max(100, Console().width))
    out.print(f"Retrieval on {table.corpus}: {table.queries} queries, {table.embedding_model}", highlight=False)
    out.print(render_table(table))
    for r in table.rows:
        if not r.skipped:
            extra = f", built in {r.build_seconds:.1f} s" if r.build_seconds else ""
            out.print(f"[dim]{r.name}: {r.chunks} chunks{extra}[/]", highlight=False)


eval_app.command("qa")(qa)
eval_app.command("synth")(synth)


def _results(path: Path) -> list[dict]:
    """The rows of an ``eval qa`` output folder (or its ``results.jsonl``); a clear error when there are none."""
    from lclfqa.eval.qa_runner import RESULTS, read_rows

    file = path / RESULTS if path.is_dir() else path
    if not file.is_file():
        fail(f"{path}: no {RESULTS} here; give an 'lclfqa eval qa --out' folder or its {RESULTS}")
    unreadable: list[int] = []
    rows = read_rows(file, unreadable)
    if not rows:
        fail(f"{file}: no result rows" + (f" ({len(unreadable)} line(s) that are not one)" if unreadable else ""))
    if unreadable:  # the figures leave these out: say so, not quietly
        shown = ", ".join(map(str, unreadable[:5])) + (", …" if len(unreadable) > 5 else "")
        left_out = f"{len(unreadable)} line(s) are not result rows and are left out (line {shown})"
        console.print(f"[yellow]warning:[/] {file}: {left_out}", highlight=False)
    return rows


@eval_app.command("diff")
def diff(
    before: Annotated[Path, typer.Argument(help="An 'eval qa --out' folder (or its results.jsonl): the run before.")],
    after: Annotated[Path, typer.Argument(help="The run after the change, of the same QA set.")],
    variants: Annotated[
        str | None, typer.Option("--variants", help="Comma-separated variants to compare (default: all both ran).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
    answers: Annotated[
        bool, typer.Option("--answers", help="Also print each changed answer as a word diff: [-old words-] {+new+}.")
    ] = False,
) -> None:
    """Compare two QA runs of one set: judge-free figures side by side, answers identical, a paired test on
    key facts, and every question whose answer changed (with --answers, what changed in its words)."""
    from dataclasses import asdict

    from lclfqa.eval.compare import compare_runs, render_comparison
    from lclfqa.eval.qa_runner import finite

    wanted = [v.strip() for v in (variants or "").split(",") if v.strip()]
    rows_before, rows_after = _results(before), _results(after)
    comparisons = compare_runs(rows_before, rows_after, wanted)
    if not comparisons:
        ran = [list(dict.fromkeys(r["variant"] for r in rows)) for rows in (rows_before, rows_after)]
        sides = [f"{path} ran {', '.join(names)}" for path, names in zip((before, after), ran, strict=True)]
        asked = set(wanted) or set(ran[0])
        if not asked & set(ran[0]) & set(ran[1]):  # nothing to pair: say which variants each run has
            fail(f"no variant{' ' + ', '.join(wanted) if wanted else ''} in both runs: {'; '.join(sides)}")
        fail(
            f"the two runs share no scored rows{' of ' + ', '.join(wanted) if wanted else ''}: are they of one QA set?"
        )
    if as_json:
        data = finite([asdict(c) for c in comparisons])  # nan (a view no row has) as null
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        return
    sys.stdout.write(render_comparison(comparisons, str(before), str(after), answers=answers))


@eval_app.command("pool")
def pool(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="'eval qa --out' folders (or their results.jsonl) of different QA sets; NAME=PATH names one."
        ),
    ],
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="The variant each is tested against (default: rag, if run).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the pooled figures as JSON.")] = False,
) -> None:
    """Pool runs of different QA sets: the judge-free figures of every variant they share over all their
    questions, a paired test against the baseline, and verdicts by the answer expected."""
    from dataclasses import asdict

    from lclfqa.eval.compare import pool_runs, render_pool
    from lclfqa.eval.qa_runner import finite

    named: list[tuple[str, list[dict]]] = []
    for run in runs:
        text = str(run)  # NAME=PATH, unless the whole text is a path that exists
        name, _, path = ("", "", text) if run.exists() or "=" not in text else text.partition("=")
        path_ = Path(path)
        named.append((name or (path_.name if path_.is_dir() else path_.parent.name), _results(path_)))
    if len(named) < 2:
        fail("give two runs or more, of different QA sets (one run's figures are in its report.md)")
    ran = list(dict.fromkeys(str(r["variant"]) for _, rows in named for r in rows))
    shared = set.intersection(*({str(r["variant"]) for r in rows} for _, rows in named))
    if baseline is None:  # rag where every run has it, else the first variant they share (as eval qa's report)
        baseline = "rag" if "rag" in shared else next((v for v in ran if v in shared), "rag")
    try:
        pooled = pool_runs(named, baseline)
    except ValueError as exc:
        fail(f"{exc}; name them NAME=PATH")
    if not pooled:
        fail("the runs share no variant: were they run with the same --pipeline?")
    if baseline not in {p.variant for p in pooled}:
        fail(
            f"--baseline {baseline!r} is not among the variants the runs share ({', '.join(p.variant for p in pooled)})"
        )
    if as_json:
        data = finite([asdict(p) for p in pooled])
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
        return
    sys.stdout.write(render_pool(pooled, [n for n, _ in named], baseline))
