"""``lclfqa eval qa``: the QA batch — answers, judges, ``results.jsonl``, ``summary.json``, ``report.md``.

A Typer command function; :mod:`lclfqa.cli.evaluate` registers it. Heavy imports happen inside the function so
``lclfqa --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from lclfqa.cli import common
from lclfqa.cli.common import BackendOption, ConfigOption, MilvusUriOption, backend_overrides, console, fail

_JUDGE_HELP = (
    "Judge chat model (default: the answering one); 'none': only the judge-free scores (key facts, verdicts, "
    "wrong facts, refusals; seconds, deterministic)."
)
_RAGAS_HELP = 'Add ragas faithfulness, context recall, factual correctness (pip install -e ".[ragas]").'
_REPORT_ONLY_HELP = "Rewrite summary.json and report.md from results.jsonl; answer nothing."


def qa(
    dataset: Annotated[
        Path,
        typer.Option(
            "--dataset",
            help="QA set: JSON Lines (id, question, gold_answer, necessary_claims?, evidence?) or a long-answer CSV.",
        ),
    ],
    index: Annotated[Path, typer.Option("--index", help="Index folder made by `lclfqa ingest`.")],
    out: Annotated[Path, typer.Option("--out", help="Output folder; a rerun with the same folder resumes.")],
    benchmark: Annotated[
        Path | None,
        typer.Option("--benchmark", help="With a LegalBench-RAG long-answer CSV as --dataset: its benchmark JSON."),
    ] = None,
    pipeline: Annotated[
        str,
        typer.Option(
            "--pipeline",
            help="Comma-separated pipelines: lclf, longrag, rag (lclf's reader and instruction, no filter or "
            "extractor), rag+ (rag with the source's words lclf adds).",
        ),
    ] = "lclf,longrag,rag",
    ablations: Annotated[
        str,
        typer.Option(
            "--ablations",
            help="Comma-separated: no-rewriter, 1-rewrite, no-layout (needs --plain-index), basic-reader, "
            "no-filter, no-thought, no-extract, "
            "no-<stage> for a read stage switched off (cite, support, verdict, sources, refuse), 'stages' "
            "for every one of them; "
            "or all.",
        ),
    ] = "",
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs per question and variant.")] = 1,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Answering chat model (default: settings); replay:FILE.jsonl returns each row's gold answer as "
            "the reader's answer, every other call and check real (the expert-answer replay).",
        ),
    ] = None,
    judge: Annotated[str | None, typer.Option("--judge", help=_JUDGE_HELP)] = None,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="Variant the others are tested against (default: rag).")
    ] = None,
    plain_index: Annotated[
        Path | None, typer.Option("--plain-index", help="The same documents ingested with --chunking plain.")
    ] = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Questions answered at once (API models; local runs one).")
    ] = 1,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="Only the first N questions.")] = None,
    ids: Annotated[
        str | None, typer.Option("--ids", help="Only these question ids, comma-separated, in this order.")
    ] = None,
    top_k: Annotated[int | None, typer.Option("--top-k", min=1, help="Children retrieved per question.")] = None,
    llm_cache: Annotated[
        Path | None, typer.Option("--llm-cache", help="SQLite response cache (default: OUT/llm-cache.sqlite).")
    ] = None,
    config: ConfigOption = None,
    ragas: Annotated[bool, typer.Option("--ragas", help=_RAGAS_HELP)] = False,
    report_only: Annotated[bool, typer.Option("--report-only", help=_REPORT_ONLY_HELP)] = False,
    backend: BackendOption = None,
    milvus_uri: MilvusUriOption = None,
) -> None:
    """Answer a QA set with each pipeline and ablation, judge the answers, and write a report.

    Scores: without an LLM, key-fact recall, verdict accuracy, wrong-fact rate and refusals (rows with a grading
    key: key_facts, verdict, wrong_facts, unanswerable), evidence recall and latency; with a judge also
    claim-triple recall and coverage (COMPLETE / PARTIAL / INCORRECT → score); paired permutation tests against
    the baseline. Every LLM call is cached, so a rerun costs nothing.
    """
    import logging
    import time
    from datetime import date

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from lclfqa.config import Settings
    from lclfqa.environment import machine
    from lclfqa.eval.datasets import DatasetError, load_long_answers, load_qa_jsonl
    from lclfqa.eval.qa_runner import EvalConfigMismatch, QARunConfig, read_rows, run_qa_eval
    from lclfqa.eval.report import write_report
    from lclfqa.eval.variants import select_variants
    from lclfqa.index.errors import IndexStoreError

    try:
        variants = select_variants(pipeline, ablations)
    except ValueError as e:
        fail(str(e))
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file; give a folder for the run's rows and report")
    names = [v.name for v in variants]
    if baseline is not None and baseline not in names:  # before hours of answering, not after
        fail(f"--baseline {baseline!r} is not among the variants this run answers ({', '.join(names)})")
    if dataset.suffix.lower() == ".csv" and benchmark is None:
        fail("a long-answer CSV needs --benchmark (the LegalBench-RAG JSON it was drawn from)")
    try:
        items = load_long_answers(dataset, benchmark) if benchmark is not None else load_qa_jsonl(dataset)
    except DatasetError as e:
        fail(str(e))
    if ids:
        wanted = [i.strip() for i in ids.split(",") if i.strip()]
        missing = sorted(set(wanted) - {item.id for item in items})
        if missing:
            fail(f"no question(s) {', '.join(missing)} in {dataset}")
        by_id = {item.id: item for item in items}
        items = [by_id[i] for i in dict.fromkeys(wanted)]  # in the order given
    if limit is not None:
        items = items[:limit]
    if not items:
        fail(f"{dataset}: no questions in it")
    try:
        settings = Settings.load(
            config,
            chat_model=model,
            top_k=top_k,
            llm_cache=str(llm_cache) if llm_cache else None,
            **backend_overrides(backend, milvus_uri),
        )
        common.checked_stores(settings)
    except (OSError, ValueError) as e:
        fail(f"settings: {e}")
    if settings.index_backend == "embedded" and not (index / "CURRENT").exists() and not report_only:
        fail(f"{index} is not an index (no CURRENT file); build one with `lclfqa ingest DOCS --index {index}`")
    if any(v.index == "plain" for v in variants) and plain_index is None and not report_only:
        fail("the no-layout ablation needs --plain-index: `lclfqa ingest DOCS --index DIR --chunking plain`")
    ragas_metrics: tuple[str, ...] = ()
    if ragas:
        from lclfqa.eval.ragas_metrics import RAGAS_METRICS, ragas_available

        if not ragas_available():
            fail('--ragas needs ragas: pip install -e ".[ragas]"')
        ragas_metrics = RAGAS_METRICS
    run_config = QARunConfig(
        dataset=str(dataset),
        index=index,
        out=out,
        variants=variants,
        settings=settings,
        judge_model=judge,
        runs=runs,
        concurrency=concurrency,
        plain_index=plain_index,
        ragas=ragas_metrics,
    )
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    total = len(items) * len(variants) * runs
    started = time.perf_counter()
    if report_only:
        keys = {(item.id, v.name) for item in items for v in variants}
        rows = [r for r in read_rows(out / "results.jsonl") if (r["id"], r["variant"]) in keys]
        if not rows:
            fail(f"no rows for these questions and variants in {out / 'results.jsonl'}")
    else:
        console.print(
            f"{len(items)} questions × {len(variants)} variants × {runs} run(s) = {total} rows → {out}",
            highlight=False,
        )
        columns = (
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        with Progress(*columns, console=console, transient=False) as bar:
            task = bar.add_task("answering and judging", total=total)

            def progress(row: dict) -> None:
                m = row.get("metrics", {})
                what = "skipped (done)" if row.get("skipped") else row.get("error") or m.get("coverage", "")
                kf = m.get("key_facts")
                if kf and not row.get("skipped") and not row.get("error"):
                    what = f"{what} key facts {len(kf['key_facts_hit'])}/{kf['key_facts_total']}".strip()
                bar.console.print(f"[dim]{row['id']} {row['variant']} run {row['run']}: {what}[/]", highlight=False)
                bar.advance(task)

            refused = ""
            try:
                rows = run_qa_eval(items, run_config, progress=progress)
            except (EvalConfigMismatch, ValueError, IndexStoreError) as e:  # IndexStoreError: a refused index
                refused = str(e)
                bar.update(task, visible=False)  # no empty bar left under the error
            except KeyboardInterrupt:
                console.print(
                    f"[yellow]interrupted: the finished rows are in {out / 'results.jsonl'}; rerun to resume[/]"
                )
                raise typer.Exit(130) from None
        if refused:
            fail(refused)
    meta = {
        "date": date.today().isoformat(),
        "dataset": str(dataset),
        "dataset_name": dataset.stem,
        "questions": len(items),
        "index": str(index),
        "chat_model": settings.chat_model,
        "judge_model": judge or settings.chat_model,
        "runs": runs,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "machine": machine(),
    }
    try:
        summary = write_report(rows, variants, out, meta, baseline=baseline)
    except ValueError as e:
        fail(str(e))
    failed = sum(s["failed"] for s in summary["variants"].values())
    for name, s in summary["variants"].items():
        k = s["key_facts"]
        line = f"{name:<13} "
        if k["rows"]:
            model, added = s["key_facts_model"], s["key_facts_added"]
            line += (
                f"key facts {k['key_fact_recall']:.3f} (model's words {model['key_fact_recall']:.3f}, source "
                f"words added {added['key_fact_recall']:.3f})  verdicts {k['verdict_accuracy']:.2f}  "
                f"wrong {k['wrong_fact_rate']:.2f} (model's words {model['wrong_fact_rate']:.2f})  "
                f"refused {k['unanswerable_refused']:.2f} / "
                f"over-refused {k['over_refusals']}  "
            )
        if s["complete"] + s["partial"] + s["incorrect"]:
            line += (
                f"score {s['coverage_score']:.3f}  recall {s['claim_recall']:.3f}  "
                f"C/P/I {s['complete']}/{s['partial']}/{s['incorrect']}  "
            )
        line += f"p50 {s['seconds_p50']:.1f} s, {s['tokens_p50']:,.0f} tokens  failed {s['failed']}"
        console.print(line, highlight=False)
    console.print(f"report: {out / 'report.md'}", highlight=False)
    if failed:
        console.print(f"[yellow]{failed} row(s) failed; rerun the same command to retry them[/]")
        raise typer.Exit(1)
