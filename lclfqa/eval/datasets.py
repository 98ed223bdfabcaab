"""Evaluation data sets as small frozen records, loaded from the files in ``../shared/data``.

- LegalBench-RAG (``benchmarks/<name>.json``): retrieval queries with gold character spans
  (:func:`load_legalbench` -> :class:`RetrievalQuery`).
- Long-form QA in JSON Lines (``tax-qa/dev.jsonl``): question, terse gold answer, claims and verbatim
  evidence quotes (:func:`load_qa_jsonl` -> :class:`QAItem`).
- LegalBench-RAG long answers (``long-answers/privacy_qa.csv``): silver long answers joined on the query
  text to the benchmark's gold spans (:func:`load_long_answers` -> :class:`QAItem`).

Every loader raises :class:`DatasetError` naming the file (and line or query) and what is wrong.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DatasetError",
    "Evidence",
    "GoldSpan",
    "QAItem",
    "RetrievalQuery",
    "load_legalbench",
    "load_long_answers",
    "load_qa_jsonl",
]


class DatasetError(ValueError):
    """A data file is missing, malformed or refers to a corpus file that is not there."""


@dataclass(frozen=True)
class GoldSpan:
    """Characters ``[start, end)`` of ``file_path`` (relative to the corpus folder) hold the answer.

    Offsets index into the file as ``open(path, encoding="utf-8").read()`` returns it.
    """

    file_path: str
    start: int
    end: int
    answer: str = ""

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class RetrievalQuery:
    """A retrieval query and the gold spans a good retriever returns for it."""

    query: str
    snippets: tuple[GoldSpan, ...]

    @property
    def documents(self) -> frozenset[str]:
        """The gold documents (corpus-relative paths)."""
        return frozenset(s.file_path for s in self.snippets)


@dataclass(frozen=True)
class Evidence:
    """A verbatim quote that supports the answer, with where it is printed (1-based PDF page)."""

    document: str
    page: int | None
    quote: str


@dataclass(frozen=True)
class GradingKey:
    """A row's judge-free grading key (``key_facts``, ``verdict``, ``wrong_facts``, ``unanswerable``).

    Each fact is a tuple of accepted surface forms (any one counts); see :mod:`lclfqa.eval.key_facts`."""

    key_facts: tuple[tuple[str, ...], ...] = ()
    verdict: str | None = None
    wrong_facts: tuple[tuple[str, ...], ...] = ()
    unanswerable: bool = False


@dataclass(frozen=True)
class QAItem:
    """A long-form question with its reference answer and whatever gold evidence the set provides."""

    id: str
    question: str
    gold_answer: str
    necessary_claims: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    question_style: str | None = None
    documents: tuple[str, ...] = ()
    snippets: tuple[GoldSpan, ...] = ()
    key: GradingKey | None = None
    """The judge-free grading key, where the set has one (:mod:`lclfqa.eval.key_facts`)."""


# ------------------------------------------------------------------------------------------ LegalBench


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(f"{path}: benchmark file not found")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise DatasetError(f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from e


def _span(raw: Any, where: str) -> GoldSpan:
    if not isinstance(raw, dict):
        raise DatasetError(f"{where}: a snippet must be an object with file_path and span, got {raw!r:.80}")
    try:
        file_path, span = raw["file_path"], raw["span"]
    except KeyError as e:
        raise DatasetError(f"{where}: snippet lacks {e.args[0]!r}") from None
    if (
        not isinstance(file_path, str)
        or not isinstance(span, list | tuple)
        or len(span) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)
        or not 0 <= span[0] <= span[1]
    ):
        raise DatasetError(f"{where}: need a file_path string and span [start, end] with 0 <= start <= end")
    return GoldSpan(file_path, span[0], span[1], str(raw.get("answer", "")))


def load_legalbench(benchmark_json: str | Path, corpus_dir: str | Path | None = None) -> list[RetrievalQuery]:
    """Queries of a LegalBench-RAG benchmark file (``{"tests": [{"query", "snippets": [...]}]}``), in order.

    With ``corpus_dir`` every snippet's ``file_path`` must exist under it (else :class:`DatasetError`);
    the span text itself is not compared with ``answer``. Repeated queries are kept (PrivacyQA has two).
    """
    path = Path(benchmark_json)
    data = _read_json(path)
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, list):
        raise DatasetError(f"{path}: expected an object with a 'tests' list (LegalBench-RAG format)")
    corpus = Path(corpus_dir) if corpus_dir is not None else None
    if corpus is not None and not corpus.is_dir():
        raise DatasetError(f"{corpus}: corpus folder not found")
    queries: list[RetrievalQuery] = []
    checked: set[str] = set()
    for i, test in enumerate(tests):
        where = f"{path}: tests[{i}]"
        if not isinstance(test, dict) or not isinstance(test.get("query"), str) or "snippets" not in test:
            raise DatasetError(f"{where}: need a 'query' string and a 'snippets' list")
        snippets = tuple(_span(s, f"{where}.snippets[{j}]") for j, s in enumerate(test["snippets"]))
        if corpus is not None:
            for s in snippets:
                if s.file_path not in checked:
                    if not (corpus / s.file_path).is_file():
                        raise DatasetError(
                            f"{where}: gold file {s.file_path!r} is not in the corpus folder {corpus} "
                            "(file_path is relative to corpus/)"
                        )
                    checked.add(s.file_path)
        queries.append(RetrievalQuery(test["query"], snippets))
    return queries


# --------------------------------------------------------------------------------------- QA JSON Lines

_QA_REQUIRED = ("id", "question", "gold_answer")


def _str_tuple(value: Any, where: str, field: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise DatasetError(f"{where}: {field!r} must be a list of strings")
    return tuple(value)


def _facts(value: Any, where: str, field: str) -> tuple[tuple[str, ...], ...]:
    """A list of facts, each a non-empty list of surface forms (a bare string is one form)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise DatasetError(f"{where}: {field!r} must be a list of facts, each a list of accepted forms")
    facts = []
    for i, fact in enumerate(value, 1):
        forms = [fact] if isinstance(fact, str) else fact
        if not isinstance(forms, list) or not forms or not all(isinstance(f, str) and f.strip() for f in forms):
            raise DatasetError(f"{where}: {field!r} item {i} must be a non-empty list of non-empty strings")
        facts.append(tuple(forms))
    return tuple(facts)


_KEY_FIELDS = ("key_facts", "verdict", "wrong_facts", "unanswerable")


def _grading_key(row: dict[str, Any], where: str) -> GradingKey | None:
    """The row's grading key, or ``None`` when it has none of its fields."""
    if not any(k in row for k in _KEY_FIELDS):
        return None
    verdict = row.get("verdict")
    if verdict is not None and verdict not in ("yes", "no", "true", "false"):
        raise DatasetError(f'{where}: \'verdict\' must be "yes", "no", "true", "false" or null; got {verdict!r}')
    unanswerable = row.get("unanswerable", False)
    if not isinstance(unanswerable, bool):
        raise DatasetError(f"{where}: 'unanswerable' must be true or false; got {unanswerable!r}")
    return GradingKey(
        key_facts=_facts(row.get("key_facts"), where, "key_facts"),
        verdict=verdict,
        wrong_facts=_facts(row.get("wrong_facts"), where, "wrong_facts"),
        unanswerable=unanswerable,
    )


def _evidence(value: Any, where: str) -> tuple[Evidence, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise DatasetError(f"{where}: 'evidence' must be a list of {{document, page, quote}} objects")
    out = []
    for j, ev in enumerate(value):
        if not isinstance(ev, dict) or not isinstance(ev.get("quote"), str) or not isinstance(ev.get("document"), str):
            raise DatasetError(f"{where}: evidence[{j}] needs 'document' and 'quote' strings")
        page = ev.get("page")
        if page is not None and (not isinstance(page, int) or isinstance(page, bool)):
            raise DatasetError(f"{where}: evidence[{j}].page must be an integer (1-based PDF page)")
        out.append(Evidence(ev["document"], page, ev["quote"]))
    return tuple(out)


def load_qa_jsonl(path: str | Path) -> list[QAItem]:
    """Rows ``{"id", "question", "gold_answer", "necessary_claims"?, "evidence"?, "question_style"?,
    "documents"?, "key_facts"?, "verdict"?, "wrong_facts"?, "unanswerable"?}`` of a JSON Lines file, one per
    non-blank line. Unknown keys (``notes``) are ignored; a row without the grading-key fields still runs."""
    p = Path(path)
    if not p.is_file():
        raise DatasetError(f"{p}: QA file not found")
    items: list[QAItem] = []
    seen: set[str] = set()
    with open(p, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{p}, line {lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise DatasetError(f"{where}: not valid JSON ({e.msg}, column {e.colno})") from e
            if not isinstance(row, dict):
                raise DatasetError(f"{where}: expected a JSON object")
            missing = [k for k in _QA_REQUIRED if not isinstance(row.get(k), str)]
            if missing:
                raise DatasetError(f"{where}: missing or non-string field(s): {', '.join(missing)}")
            if not row["question"].strip():
                raise DatasetError(f"{where}: the question is empty")
            if row["id"] in seen:
                raise DatasetError(f"{where}: duplicate id {row['id']!r}")
            seen.add(row["id"])
            style = row.get("question_style")
            items.append(
                QAItem(
                    id=row["id"],
                    question=row["question"],
                    gold_answer=row["gold_answer"],
                    necessary_claims=_str_tuple(row.get("necessary_claims"), where, "necessary_claims"),
                    evidence=_evidence(row.get("evidence"), where),
                    question_style=style if isinstance(style, str) else None,
                    documents=_str_tuple(row.get("documents"), where, "documents"),
                    key=_grading_key(row, where),
                )
            )
    return items


# ------------------------------------------------------------------------------------- long answers

_LONG_COLUMNS = ("prompt", "expected completion", "source_file")


def load_long_answers(csv_path: str | Path, benchmark_json: str | Path) -> list[QAItem]:
    """Long reference answers (CSV ``prompt``, ``expected completion``, ``source_file``) joined on the query
    text to the benchmark's gold spans; ids are ``<benchmark stem>-<query index>``.

    A query that appears more than once in the benchmark gets the union of its snippets. A prompt with no
    matching benchmark query raises :class:`DatasetError` with its CSV line.
    """
    p = Path(csv_path)
    if not p.is_file():
        raise DatasetError(f"{p}: long-answer CSV not found")
    queries = load_legalbench(benchmark_json)
    by_text: dict[str, tuple[int, list[GoldSpan]]] = {}
    for i, q in enumerate(queries):
        _, spans = by_text.setdefault(q.query, (i, []))
        spans.extend(s for s in q.snippets if s not in spans)
    stem = Path(benchmark_json).stem
    items: list[QAItem] = []
    with open(p, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in _LONG_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise DatasetError(f"{p}: missing column(s) {', '.join(missing)}; found {reader.fieldnames}")
        for row in reader:
            where = f"{p}, record ending on line {reader.line_num}"
            match = by_text.get(row["prompt"])
            if match is None:
                raise DatasetError(f"{where}: prompt {row['prompt'][:80]!r} is not a query of {benchmark_json}")
            index, spans = match
            items.append(
                QAItem(
                    id=f"{stem}-{index}",
                    question=row["prompt"],
                    gold_answer=row["expected completion"],
                    documents=(row["source_file"],),
                    snippets=tuple(spans),
                    evidence=tuple(Evidence(s.file_path, None, s.answer) for s in spans if s.answer),
                )
            )
    return items
