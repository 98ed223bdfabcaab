"""The QA batch runner behind ``lclfqa eval qa``: every question × variant × run through the graph, judged,
one JSON line per row in ``<out>/results.jsonl``.

- **Resumable.** A row is appended (and fsync'd) as soon as it is judged; a rerun with the same ``--out``
  skips the rows already there and retries rows that failed. A half-written last line (a crash) is
  ignored. ``config.json`` records what the rows were made with; resuming with a different dataset,
  index, answerer, judge, settings or code (the package's ``.py`` and prompt files) is refused rather
  than mixed.
- **Cheap reruns.** Every LLM call goes through the SQLite response cache (``<out>/llm-cache.sqlite`` by
  default), so re-judging or re-reporting costs nothing. A temperature-0 model makes ``runs > 1`` repeats.
- **Order.** Rows run question by question, each question through every variant, so an interrupted run
  still holds paired rows for the significance test.
- **Judging** (:mod:`lclfqa.eval.judge`) may use another model than the answerer. The gold claims of a
  question are extracted once and kept in ``<out>/claims.json``. Questions the corpus does not answer are
  scored without a judge: a refusal is COMPLETE (recall 1), an answer INCORRECT (recall 0); a refusal of
  an answerable question is INCORRECT with recall 0.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from lclfqa.config import Settings, record_digest
from lclfqa.environment import machine
from lclfqa.eval import answer_metrics as am
from lclfqa.eval.datasets import QAItem
from lclfqa.eval.judge import POINTS, Claims, GoldAnswer, check_claims, extract_claims, judge_coverage
from lclfqa.eval.key_facts import facts_found, model_words, score_views
from lclfqa.eval.variants import Variant
from lclfqa.graph.result import QAResult
from lclfqa.llm.calls import Meter

log = logging.getLogger(__name__)

RESULTS = "results.jsonl"
CLAIMS = "claims.json"
CONFIG = "config.json"
CURVE_KS: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
NO_JUDGE = "none"


class EvalConfigMismatch(ValueError):
    """``--out`` holds rows made with another dataset, index or model."""


class DocumentsNotIndexed(ValueError):
    """Questions name documents the index does not hold: their answers would come from other documents and
    their retrieval would score zero, so the batch is refused before any question is asked."""


@dataclass
class QARunConfig:
    """What one ``lclfqa eval qa`` batch runs."""

    dataset: str
    index: Path
    out: Path
    variants: list[Variant]
    settings: Settings = field(default_factory=Settings)
    judge_model: str | None = None
    """Chat model of the judge; ``None``: the answerer's; ``"none"``: no judge, only the judge-free scores."""
    runs: int = 1
    concurrency: int = 1
    plain_index: Path | None = None
    """Index of the same documents with ``chunking="plain"`` (the ``no-layout`` ablation)."""
    ragas: tuple[str, ...] = ()
    """ragas metrics to add per answered question (:mod:`lclfqa.eval.ragas_metrics`); needs the extra."""

    @property
    def judge_name(self) -> str:
        return self.judge_model or self.settings.chat_model

    @property
    def judged(self) -> bool:
        """Whether an LLM judge scores the answers (``--judge none``: only key facts, refusals, evidence)."""
        return self.judge_name != NO_JUDGE

    def fingerprint(self) -> dict[str, Any]:
        """The fields a resumed run must share with the rows already written."""
        return {
            "dataset": str(self.dataset),
            "index": str(Path(self.index).resolve()),
            "chat_model": self.settings.chat_model,
            "judge_model": self.judge_name,
            "settings": record_digest(self.settings.as_record(), RUN_ONLY_SETTINGS),
            "code": code_fingerprint(),
        }


RUN_ONLY_SETTINGS = frozenset(
    {"llm_cache", "llm_timeout", "llm_max_retries", "server_url", "n_threads", "parallel", "embed_batch_size"}
    | {"max_file_mb", "max_pages", "max_chars"}
)
"""Settings that change how a batch runs, not its answers: a resumed batch may change them (a longer
``llm_timeout`` to retry the rows that timed out)."""


def _answer_settings(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in RUN_ONLY_SETTINGS}


@functools.cache
def code_fingerprint() -> str:
    """A short hash of the package's code and prompts (every ``.py`` and ``.toml`` file of ``lclfqa``): a
    batch resumed after the reader changed would mix two readers' answers in one figure."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml") and p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


Progress = Callable[[dict[str, Any]], None]


def row_key(row: dict[str, Any]) -> tuple[str, str, int]:
    return (str(row.get("id")), str(row.get("variant")), int(row.get("run", 0)))


def read_rows(path: Path, unreadable: list[int] | None = None) -> list[dict[str, Any]]:
    """The rows of a results file, the last row per key winning; unreadable lines (a line a crash cut off)
    are skipped, their 1-based numbers appended to ``unreadable`` when it is given."""
    if not path.exists():
        return []
    rows: dict[tuple[str, str, int], dict[str, Any]] = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            try:
                row = json.loads(line)
            except ValueError:
                row = None
            if isinstance(row, dict) and "id" in row and "variant" in row:
                rows[row_key(row)] = row
            elif line.strip() and unreadable is not None:
                unreadable.append(number)
    return list(rows.values())


class RowWriter:
    """Appends rows to ``results.jsonl`` one durable line at a time (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size:
            with open(path, "rb") as f:
                f.seek(-1, os.SEEK_END)
                torn = f.read(1) != b"\n"
            if torn:  # a crash cut the last line: start a fresh one
                with open(path, "a", encoding="utf-8") as f:
                    f.write("\n")

    def write(self, row: dict[str, Any]) -> None:
        line = json.dumps(finite(row), ensure_ascii=False, default=_json_default, allow_nan=False) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())


def finite(value: Any) -> Any:
    """``value`` with every NaN/inf float replaced by ``None`` (strict JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, set | tuple):
        return list(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def write_json_atomic(path: Path, data: Any) -> None:
    """``path`` holds the old or the new JSON, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp")
    text = json.dumps(finite(data), ensure_ascii=False, indent=2, default=_json_default, allow_nan=False)
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


class ClaimStore:
    """Gold claims per question, extracted once per (gold answer, judge) and kept in ``claims.json``."""

    def __init__(self, path: Path, judge: str) -> None:
        self.path = path
        self.judge = judge
        self._lock = threading.Lock()
        self._item_locks: dict[str, threading.Lock] = {}
        try:
            self._data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        except ValueError:
            self._data = {}

    def _stamp(self, item: QAItem) -> str:
        return hashlib.sha256(f"{self.judge}\0{item.question}\0{item.gold_answer}".encode()).hexdigest()[:16]

    def get(self, item: QAItem, make: Callable[[], Claims]) -> Claims:
        with self._lock:
            lock = self._item_locks.setdefault(item.id, threading.Lock())
        with lock:
            entry = self._data.get(item.id)
            if entry and entry.get("stamp") == self._stamp(item):
                return Claims.from_json(entry["claims"])
            claims = make()
            with self._lock:
                self._data[item.id] = {"stamp": self._stamp(item), "claims": claims.to_json()}
                write_json_atomic(self.path, self._data)
            return claims


def judge_row(
    item: QAItem,
    result: dict[str, Any],
    judge: BaseChatModel | None,
    claims: ClaimStore | None,
    ks: Sequence[int] = CURVE_KS,
    ragas: Sequence[str] = (),
) -> dict[str, Any]:
    """The metrics of one answered question (see the module docstring for the no-judge cases). With
    ``judge=None`` only the judge-free scores: key facts (where the set has a grading key), refusals,
    evidence and retrieval."""
    refused = bool(result.get("refused"))
    outcome = am.refusal_outcome(item, refused)
    metrics: dict[str, Any] = {"refusal": outcome, **am.evidence_scores(item, result)}
    metrics["retrieval"] = am.retrieval_curve(item, result, ks)
    views = score_views(item, result.get("answer", ""), result.get("added") or [], refused)
    if views is not None:  # the whole answer as shown, the model's own sentences, the source's words code added
        metrics["key_facts"] = views["whole"].to_json()
        metrics["key_facts_model"] = views["model"].to_json()
        metrics["key_facts_added"] = views["added"].to_json()
        quoted = " ".join(str(q.get("text", "")) for q in result.get("quotes") or [])
        if quoted and not refused:  # the funnel: of the key facts the quotes hold, those the answer states
            in_quotes, in_answer = facts_found(item, quoted), facts_found(item, result.get("answer", ""))
            own = facts_found(item, model_words(result.get("answer", ""), result.get("added") or []))
            metrics["quoted_facts"] = {
                "in_quotes": sum(in_quotes),
                "stated": sum(q and a for q, a in zip(in_quotes, in_answer, strict=True)),
                "stated_by_model": sum(q and a for q, a in zip(in_quotes, own, strict=True)),
            }
    meter = Meter("judge")
    judge_notes: dict[str, Any] = {}
    if judge is None or claims is None:
        return {"metrics": metrics, "judge": {"by": NO_JUDGE}}
    if outcome in ("correct_refusal", "missed_refusal", "wrong_refusal"):
        right = outcome == "correct_refusal"
        metrics |= {
            "coverage": "COMPLETE" if right else "INCORRECT",
            "coverage_claims": "COMPLETE" if right else "INCORRECT",
            "claims_total": 1,
            "claims_entailed": int(right),
            "claim_recall": float(right),
        }
        judge_notes = {"by": "refusal rule"}
    else:
        reference = GoldAnswer(item.question, item.gold_answer, item.necessary_claims)
        gold = claims.get(item, lambda: extract_claims(judge, reference, meter))
        recall = check_claims(judge, item.question, result.get("answer", ""), gold.texts, meter)
        coverage = judge_coverage(judge, reference, result.get("answer", ""), meter)
        if item.necessary_claims:  # the same categories, decided claim by claim (steadier with small judges)
            necessary = check_claims(judge, item.question, result.get("answer", ""), list(item.necessary_claims), meter)
            metrics["coverage_claims"] = am.coverage_from_labels(necessary.labels)
            judge_notes["necessary_labels"] = necessary.labels
        metrics |= {
            "coverage": coverage.category,
            "claims_total": recall.total,
            "claims_entailed": recall.entailed,
            "claim_recall": recall.recall,
        }
        judge_notes |= {
            "by": "judge",
            "claims_from": gold.source,
            "claims": gold.texts,
            "labels": recall.labels,
            "labels_well_formed": recall.well_formed,
            "coverage_thought": coverage.thought,
            "coverage_well_formed": coverage.well_formed,
        }
    if ragas and outcome == "answered":
        from lclfqa.eval.ragas_metrics import ragas_scores

        answer, contexts = result.get("answer", ""), am.context_texts(result)
        metrics["ragas"] = ragas_scores(item.question, answer, contexts, item.gold_answer, judge, ragas, meter)
    judge_notes |= {
        "llm_calls": meter.llm_calls,
        "prompt_tokens": meter.prompt_tokens,
        "completion_tokens": meter.completion_tokens,
    }
    metrics["points"] = POINTS[metrics["coverage"]]
    return {"metrics": metrics, "judge": judge_notes}


def _answer_fields(result: dict[str, Any]) -> dict[str, Any]:
    """The row's answer fields: the answer's one serialization (:meth:`QAResult.to_json`), without the question
    (the row has the item's). The nodes' ``steps`` stay: their figures (``nodes``) make the latency table, their
    notes (the decided verdict and its rule, quotes pointed and added, sentences removed) the per-question
    evidence."""
    return {k: v for k, v in QAResult(result).to_json().items() if k != "question"}


def run_qa_eval(
    items: Sequence[QAItem],
    config: QARunConfig,
    *,
    llm: BaseChatModel | None = None,
    judge: BaseChatModel | None = None,
    embeddings: Embeddings | None = None,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Run (or resume) the batch; returns every row in ``results.jsonl`` for these questions and variants.

    ``llm``/``judge``/``embeddings`` replace the models the settings name (tests pass fakes). ``progress``
    is called with each finished row (skipped rows included, with ``"skipped": True``).
    """
    from lclfqa.graph.build import load_graph
    from lclfqa.index.factory import open_index

    indexes = {"layout": open_index(config.settings, config.index)}
    try:  # every check and model before the first question; an index opened is closed on any failure
        absent = am.documents_not_indexed(items, indexes["layout"].documents)
        if absent:
            shown = ", ".join(f"{qid} ({doc})" for qid, doc in absent[:3])
            raise DocumentsNotIndexed(
                f"{len({q for q, _ in absent})} question(s) name documents that are not in {config.index}: {shown}"
                f"{' …' if len(absent) > 3 else ''}. Their answers would come from other documents and their retrieval "
                f"would score zero; ingest them first (`lclfqa ingest DOCS --index {config.index}`)."
            )
        out = Path(config.out)
        out.mkdir(parents=True, exist_ok=True)
        _check_config(out, config)
        settings = config.settings
        if settings.llm_cache is None:
            settings = settings.with_overrides(llm_cache=str(out / "llm-cache.sqlite"))
        if llm is None:
            from lclfqa.llm.models import get_chat_model

            llm = get_chat_model(settings.chat_model, settings=settings)
        if not config.judged:
            judge = None
        elif judge is None:
            if config.judge_name == settings.chat_model:
                judge = llm
            else:
                from lclfqa.llm.models import get_chat_model

                judge = get_chat_model(config.judge_name, settings=settings)

        if any(v.index == "plain" for v in config.variants):
            if config.plain_index is None:
                raise ValueError(
                    "the no-layout ablation needs --plain-index (the same documents ingested with --chunking plain)"
                )
            indexes["plain"] = open_index(settings, config.plain_index)
        if embeddings is None:
            from lclfqa.llm.models import get_embeddings

            embeddings = get_embeddings(indexes["layout"].embedding_model, settings.openai_base_url)
        graphs = {
            v.name: load_graph(
                config.plain_index if v.index == "plain" else config.index,
                settings.with_overrides(**v.overrides),
                llm=llm,
                embeddings=embeddings,
                index=indexes[v.index],
            )
            for v in config.variants
        }
    except BaseException:
        for opened in indexes.values():
            opened.close()
        raise

    results_path = out / RESULTS
    done = {row_key(r): r for r in read_rows(results_path) if not r.get("error")}
    writer = RowWriter(results_path)
    claims = ClaimStore(out / CLAIMS, config.judge_name) if config.judged else None
    tasks = [(item, v, run) for item in items for v in config.variants for run in range(config.runs)]

    def one(item: QAItem, variant: Variant, run: int) -> dict[str, Any]:
        key = (item.id, variant.name, run)
        if key in done:
            return done[key] | {"skipped": True}
        row: dict[str, Any] = {"id": item.id, "variant": variant.name, "run": run, "question": item.question}
        t = time.perf_counter()
        try:
            # no row starts from another row's KV cache: a pipeline's answers do not depend on the order
            # the rows run in (a reused prefix evaluates in other batches, so its logits differ slightly)
            forget = getattr(llm, "forget_prompt", None)
            if callable(forget):
                forget()
            result = dict(graphs[variant.name].invoke({"question": item.question}))
            row |= _answer_fields(result)
            row["seconds"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            row |= judge_row(item, result, judge, claims, ragas=config.ragas)
            row["judge"]["seconds"] = round(time.perf_counter() - t, 3)
        except Exception as exc:  # recorded on the row and retried by the next run
            log.warning("%s / %s / run %d failed: %s", item.id, variant.name, run, exc)
            row["error"] = f"{type(exc).__name__}: {exc}"
        writer.write(row)
        return row

    rows: list[dict[str, Any]] = []
    pool = ThreadPoolExecutor(max_workers=max(1, config.concurrency))
    try:
        futures = [pool.submit(one, *task) for task in tasks]
        for future in as_completed(futures):
            row = future.result()
            rows.append(row)
            if progress is not None:
                progress(row)
    finally:  # Ctrl-C: start nothing new; the rows written so far stay for the next run
        pool.shutdown(wait=False, cancel_futures=True)
    order = {(item.id, v.name, run): i for i, (item, v, run) in enumerate(tasks)}
    return sorted(rows, key=lambda r: order[row_key(r)])


_WHAT = {"settings": "set of settings (lclfqa.toml, --config, flags)", "code": "version of lclfqa's code or prompts"}


def _check_config(out: Path, config: QARunConfig) -> None:
    path = out / CONFIG
    fingerprint = config.fingerprint()
    if path.exists() and (out / RESULTS).exists():
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            record = {}
        old = record.get("fingerprint", {})
        # a key the old record lacks was not recorded then (an older version): not compared
        differ = [k for k in fingerprint if k in old and old[k] != fingerprint[k]]
        if old and differ:
            said = {k: f"{k}: {old.get(k)!r}" for k in differ}
            if "settings" in said:
                was, now = _answer_settings(record.get("settings") or {}), _answer_settings(config.settings.as_record())
                fields = [
                    f"{k} {was.get(k)!r} → {now.get(k)!r}"
                    for k in sorted(set(was) | set(now))
                    if was.get(k) != now.get(k)
                ]
                said["settings"] = ", ".join(fields) or said["settings"]
            raise EvalConfigMismatch(
                f"{out} holds rows made with another {', '.join(_WHAT.get(k, k) for k in differ)} "
                f"({'; '.join(said.values())}); use a new --out"
            )
    write_json_atomic(
        path,
        {
            "fingerprint": fingerprint,
            "variants": [asdict(v) for v in config.variants],
            "runs": config.runs,
            "settings": config.settings.as_record(),
            "plain_index": str(config.plain_index) if config.plain_index else None,
            "machine": machine(),
        },
    )
