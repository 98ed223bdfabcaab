"""Answer metrics (triples, claim check, coverage, evidence, refusals, statistics) and the QA batch runner,
with scripted fake models: hand-computed cases, malformed judge output, resume, retries, report files."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.config import READ_STAGES
from lclfqa.eval import answer_metrics as am
from lclfqa.eval import qa_runner
from lclfqa.eval.datasets import Evidence, QAItem, load_qa_jsonl
from lclfqa.eval.judge import (
    GoldAnswer,
    check_claims,
    extract_claims,
    judge_coverage,
    parse_category,
    parse_labels,
)
from lclfqa.eval.qa_runner import DocumentsNotIndexed, EvalConfigMismatch, QARunConfig, read_rows, run_qa_eval
from lclfqa.eval.report import summarize, write_report
from lclfqa.eval.stats import bootstrap_ci, paired_permutation_test
from lclfqa.eval.triples import Triple, parse_triples
from lclfqa.eval.variants import select_variants
from tests.fakes import ScriptedChat
from tests.test_graph import _opening_words

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample"

# ------------------------------------------------------------------------------------------- triples


def test_line_format_triples_with_bullets_quotes_and_nesting():
    text = """KG:
 - ("Married taxpayer", "must file", "joint return")
 * ('Exceptions', 'exist for', 'taxpayers living apart'),
 (("Married taxpayer", "must file", "joint return"), "does not apply to",
   "taxpayer treated as not married under section 7703(b)")
 ("Credit", "limited to", "$2,000, per return")
"""
    triples = parse_triples(text)
    assert triples[0] == Triple("Married taxpayer", "must file", "joint return")
    assert triples[1] == Triple("Exceptions", "exist for", "taxpayers living apart")
    assert triples[2].subject == Triple("Married taxpayer", "must file", "joint return")
    assert triples[2].object == "taxpayer treated as not married under section 7703(b)"
    assert triples[3].object == "$2,000, per return"  # a comma inside quotes stays in the term
    assert len(triples) == 4


def test_unquoted_curly_quoted_and_apostrophe_terms():
    triples = parse_triples("(taxpayer's spouse, is treated as, not married)\n(“AOTC”, “is”, “a credit”)")
    assert triples == [Triple("taxpayer's spouse", "is treated as", "not married"), Triple("AOTC", "is", "a credit")]
    assert parse_triples("('the taxpayer's spouse', 'files', 'separately')") == [
        Triple("the taxpayer's spouse", "files", "separately")
    ]


def test_malformed_lines_are_skipped_and_duplicates_dropped():
    text = """Here are the triples (as requested):
("only", "two")
("a", "b", "c", "d")
("unclosed", "triple", "here"
("x", "y", "z")
("x", "y", "z")
"""
    assert parse_triples(text) == [Triple("x", "y", "z")]
    assert parse_triples("") == [] and parse_triples("no triples at all") == []


def test_json_triples_nested_and_round_trip():
    raw = json.dumps(
        {"triples": [["A", "requires", "B"], [["A", "requires", "B"], "except", "C"], ["bad"], [1, "p", 2]]}
    )
    triples = parse_triples(raw)
    assert triples == [
        Triple("A", "requires", "B"),
        Triple(Triple("A", "requires", "B"), "except", "C"),
        Triple("1", "p", "2"),
    ]
    assert [Triple.from_json(t.to_json()) for t in triples] == triples
    assert parse_triples('[["s", "p", "o"]]') == [Triple("s", "p", "o")]
    assert str(triples[1]) == '(("A", "requires", "B"), "except", "C")'


# ------------------------------------------------------------------------------------- judge parsing


def test_labels_parse_json_words_and_pad_missing_as_neutral():
    assert parse_labels('{"labels": ["Entailment", "contradiction", "Neutral"]}', 3) == (
        ["Entailment", "Contradiction", "Neutral"],
        True,
    )
    assert parse_labels("1. entailed\n2. Neutral", 3) == (["Entailment", "Neutral", "Neutral"], False)
    assert parse_labels('{"labels": ["yes", "Entailment"]}', 2) == (["Neutral", "Entailment"], False)


def test_category_is_the_last_one_named():
    assert parse_category("Not COMPLETE because a claim is missing, so PARTIAL") == "PARTIAL"
    assert parse_category("incorrect") == "INCORRECT"
    assert parse_category("no verdict") is None


def test_claims_extracted_checked_and_counted():
    llm = ScriptedChat(
        script={
            "triples": '("Married taxpayer", "must file", "joint return")\n'
            '("Exception", "applies to", "spouses apart")',
            "labels": '{"labels": ["Entailment", "Neutral"]}',
        }
    )
    claims = extract_claims(llm, GoldAnswer("Q?", "Gold."))
    assert claims.source == "triples" and len(claims.texts) == 2
    recall = check_claims(llm, "Q?", "An answer.", claims.texts)
    assert (recall.entailed, recall.total, recall.recall) == (1, 2, 0.5)
    prompt = llm.calls[-1][1][-1].content
    assert "1. (" in prompt and "2. (" in prompt and "exactly 2 labels" in prompt


def test_claim_extraction_falls_back_to_the_necessary_claims():
    llm = ScriptedChat(script={"triples": "I cannot do that."})
    claims = extract_claims(llm, GoldAnswer("Q?", "Gold.", ("Claim one.", "Claim two.")))
    assert claims.source == "necessary_claims" and claims.texts == ["Claim one.", "Claim two."]
    assert extract_claims(llm, GoldAnswer("Q?", "Gold.")).source == "none"


def test_coverage_reads_the_decision_tag_or_asks_a_second_time():
    one_call = ScriptedChat(
        script={"coverage": "<thought_process>all there</thought_process><decision>COMPLETE</decision>"}
    )
    cov = judge_coverage(one_call, GoldAnswer("Q?", "Gold.", ("Claim A.",)), "Answer.")
    assert (cov.category, cov.points, cov.thought, cov.well_formed) == ("COMPLETE", 2, "all there", True)
    assert len(one_call.calls) == 1 and "NECESSARY CLAIMS:\n- Claim A." in one_call.calls[0][1][-1].content

    two_calls = ScriptedChat(
        script={"coverage": "<thought_process>one claim missing", "decision": '{"decision": "PARTIAL"}'}
    )
    assert judge_coverage(two_calls, GoldAnswer("Q?", "Gold."), "Answer.").category == "PARTIAL"
    assert two_calls.routes() == ["coverage", "decision"]

    garbage = ScriptedChat(script={"coverage": "hmm", "decision": "no idea"})
    cov = judge_coverage(garbage, GoldAnswer("Q?", "Gold."), "Answer.")
    assert cov.category == "INCORRECT" and not cov.well_formed


# ---------------------------------------------------------------------------------- no-LLM metrics


def test_coverage_from_the_necessary_claims_labels():
    assert am.coverage_from_labels(["Entailment", "Entailment"]) == "COMPLETE"
    assert am.coverage_from_labels(["Entailment", "Neutral"]) == "PARTIAL"
    assert am.coverage_from_labels(["Entailment", "Contradiction"]) == "INCORRECT"
    assert am.coverage_from_labels(["Neutral", "Neutral"]) == "INCORRECT"


def test_coverage_score_arithmetic():
    cats = ["COMPLETE", "COMPLETE", "PARTIAL", "INCORRECT"]
    assert am.coverage_score(cats) == (2 * 2 + 1) / (2 * 4)
    assert am.category_counts(cats) == {"COMPLETE": 2, "PARTIAL": 1, "INCORRECT": 1}
    assert math.isnan(am.coverage_score([]))


def _item(**over) -> QAItem:
    base = dict(
        id="Q1",
        question="Q?",
        gold_answer="Married taxpayers must file jointly.",
        evidence=(Evidence("a.pdf", 1, "must file  a joint\nreturn"), Evidence("a.pdf", 2, "unless separated")),
        documents=("dir/a.pdf",),
    )
    return QAItem(**(base | over))


def _chunk(doc: str, text: str, cid: str = "c") -> dict:
    return {"id": cid, "kind": "child", "document": doc, "pages": [1, 1], "section": [], "text": text}


def test_evidence_recall_in_the_context_and_the_top_k():
    result = {
        "retrieved": [_chunk("a.pdf", "They must file a joint return."), _chunk("b.pdf", "unrelated")],
        "sources": [{**_chunk("a.pdf", "They must file a joint return."), "footnotes": ["unless separated."]}],
        "filtered": [],
    }
    assert am.evidence_scores(_item(), result) == {"evidence_recall_context": 1.0, "evidence_recall_topk": 0.5}
    assert math.isnan(am.evidence_scores(_item(evidence=()), result)["evidence_recall_topk"])


def test_retrieval_curve_drm_by_document_name():
    result = {"retrieved": [_chunk("a.pdf", "x"), _chunk("b.pdf", "y"), _chunk("b.pdf", "must file a joint return")]}
    curve = am.retrieval_curve(_item(), result, (1, 2, 3, 8))
    assert curve["drm"] == {1: 0.0, 2: 0.5, 3: 2 / 3}  # no @8: only three children were retrieved
    assert curve["evidence_recall"] == {1: 0.0, 2: 0.0, 3: 0.5}


def test_refusal_outcomes_and_unanswerable_detection():
    unanswerable = _item(documents=(), evidence=(), gold_answer="The documents do not address this.")
    assert not am.answerable(unanswerable) and am.answerable(_item())
    assert am.refusal_outcome(unanswerable, True) == "correct_refusal"
    assert am.refusal_outcome(unanswerable, False) == "missed_refusal"
    assert am.refusal_outcome(_item(), True) == "wrong_refusal"
    assert am.refusal_outcome(_item(), False) == "answered"


def test_bootstrap_and_exact_paired_permutation_test():
    assert bootstrap_ci([0.5, 0.5, 0.5]) == (0.5, 0.5)
    lo, hi = bootstrap_ci([0.0, 1.0] * 10)
    assert 0.2 < lo < 0.5 < hi < 0.8
    # three +1 differences: of the 8 sign patterns, 2 reach |sum| = 3
    assert paired_permutation_test([1, 1, 1], [0, 0, 0]) == pytest.approx(0.25)
    assert paired_permutation_test([1, 2], [1, 2]) == 1.0
    assert paired_permutation_test([1, math.nan], [0, 5]) == 1.0  # one pair left: both signs reach it
    with pytest.raises(ValueError):
        paired_permutation_test([1], [1, 2])


def test_variant_selection():
    names = [v.name for v in select_variants("lclf,rag", "basic-reader,no-rewriter")]
    assert names == ["lclf", "rag", "basic-reader", "no-rewriter"]
    # the four, no-filter, no-extract, no-thought, each read stage
    assert len(select_variants("", "all")) == 7 + len(READ_STAGES)
    with pytest.raises(ValueError, match="unknown pipeline.*known: lclf"):
        select_variants("lclf,gpt")


# ------------------------------------------------------------------------------------------- runner


def _dataset(path: Path) -> Path:
    rows = [
        {
            "id": "T1",
            "question": "Can a married couple filing MFS claim the AOTC?",
            "gold_answer": "No; spouses must file a joint return to claim the education credits.",
            "necessary_claims": ["A joint return is required."],
            "evidence": [{"document": "tax-memo-education-credits.pdf", "page": 1, "quote": "joint return"}],
            "documents": ["tax-memo-education-credits.pdf"],
        },
        {
            "id": "T2",
            "question": "What does the memo say about the moving expense deduction?",
            "gold_answer": "The documents do not address this.",
            "necessary_claims": ["the documents do not address this"],
        },
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _answering(fail_on: str | None = None) -> ScriptedChat:
    def answer(msgs):
        text = str(msgs[-1].content)
        if fail_on and fail_on in text:
            raise TimeoutError("the model timed out")
        if "moving expense" in text:
            return "The documents do not address this question."
        if "verified quotes" not in text:  # rag (the retrieved children, not verified quotes) invents a figure
            return "No. Married taxpayers must file a joint return to claim the credit [1]. The credit is 45% [1]."
        return "No. Married taxpayers must file a joint return to claim the credit [1]."

    return ScriptedChat(
        script={
            "condense": "Can spouses filing separately claim the American Opportunity Tax Credit?",
            "passage": "Section 25A(g)(6) denies the credit to married individuals filing separately.",
            "rewrites": json.dumps({"rewrites": ["a", "b", "c"], "translation": "Can we get the college credit?"}),
            "verdicts": '{"thought": "Reference 1 is relevant.", "relevant": [true]}',
            "quotes": lambda msgs: json.dumps({"quotes": [{"ref": 1, "quote": _opening_words(msgs, 1)}]}),
            "answer": answer,
        }
    )


def _judge() -> ScriptedChat:
    return ScriptedChat(
        script={
            "triples": '("Spouses", "must file", "joint return to claim the education credits")',
            "labels": '{"labels": ["Entailment"]}',
            "coverage": "<thought_process>The joint return rule is stated.</thought_process>"
            "<decision>COMPLETE</decision>",
        }
    )


def _config(sample_index: Path, out: Path, dataset: Path, pipelines: str = "lclf,rag", **over) -> QARunConfig:
    return QARunConfig(dataset=str(dataset), index=sample_index, out=out, variants=select_variants(pipelines), **over)


def test_runner_writes_judged_rows_summary_report_and_plots(sample_index: Path, tmp_path: Path):
    dataset = _dataset(tmp_path / "set.jsonl")
    items = load_qa_jsonl(dataset)
    out = tmp_path / "run"
    answering, judge = _answering(), _judge()
    config = _config(sample_index, out, dataset)
    rows = run_qa_eval(items, config, llm=answering, judge=judge, embeddings=DeterministicFakeEmbedding(size=32))
    assert [(r["id"], r["variant"]) for r in rows] == [("T1", "lclf"), ("T1", "rag"), ("T2", "lclf"), ("T2", "rag")]
    t1 = rows[0]
    assert t1["metrics"]["coverage"] == "COMPLETE" and t1["metrics"]["claim_recall"] == 1.0
    assert t1["metrics"]["refusal"] == "answered" and t1["citations"] and t1["retrieved"]
    assert t1["judge"]["claims_from"] == "triples" and t1["seconds"] > 0
    assert t1["metrics"]["coverage_claims"] == "COMPLETE" and t1["judge"]["necessary_labels"] == ["Entailment"]
    t2 = rows[2]
    assert t2["metrics"]["refusal"] == "correct_refusal" and t2["metrics"]["coverage"] == "COMPLETE"
    assert t2["judge"]["by"] == "refusal rule"
    # the gold triples were extracted once for T1 and kept; T2 needed no judge
    assert judge.routes().count("triples") == 1
    assert json.loads((out / "claims.json").read_text())["T1"]["claims"]["source"] == "triples"
    assert len(read_rows(out / "results.jsonl")) == 4

    meta = {"dataset": str(dataset), "questions": 2, "chat_model": "fake", "judge_model": "fake", "runs": 1}
    summary = write_report(rows, config.variants, out, meta)
    lclf = summary["variants"]["lclf"]
    assert (lclf["complete"], lclf["partial"], lclf["incorrect"], lclf["coverage_score"]) == (2, 0, 0, 1.0)
    assert lclf["necessary_recall"] == 1.0 and lclf["coverage_score_claims"] == 1.0
    assert lclf["correct_refusals"] == 1 and lclf["unanswerable"] == 1 and lclf["wrong_refusals"] == 0
    # rag's invented figure never reaches the answer: the check removed its sentence
    assert "45%" not in rows[1]["answer"] and rows[1]["unsupported"] == t1["unsupported"] == []
    assert rows[1]["removed"] == ["The credit is 45% [1]."]
    assert (lclf["unsupported_answers"], summary["variants"]["rag"]["unsupported_answers"]) == (0, 0)
    assert summary["baseline"] == "rag" and lclf["vs_baseline"]["p_score"] == 1.0
    report = (out / "report.md").read_text()
    assert (
        "| lclf | 1.000 / 1.000 | 2 | 0 | 0 | 1.000 [1.00, 1.00] | 1.000 |" in report
        and "| T2 | C 1.00 | C 1.00 |" in report
    )
    assert "| 1/1 | 0/1 | 0/1 |" in report  # refusals right, wrong refusals, unsupported figures
    assert "| lclf | " in report.split("## Latency and tokens per node")[1]
    # what the answers are made of, sentence by sentence (a refusal is one sentence too)
    made_of = report.split("## What the answers are made of")[1].split("##")[0]
    assert "| variant | sentences | model | tidy | cite | support | verdict | sources | refuse |" in made_of
    counts = {
        n: sum(len(r["steps"]["read"].get("sentences") or []) for r in rows if r["variant"] == n)
        for n in ("lclf", "rag")
    }
    assert (
        counts["lclf"] > 0 and f"| lclf | {counts['lclf']} | " in made_of and f"| rag | {counts['rag']} | " in made_of
    )
    assert (out / "score.png").stat().st_size > 1000 and (out / "retrieval.png").exists()
    assert json.loads((out / "summary.json").read_text())["variants"]["rag"]["rows"] == 2


def test_rerun_resumes_skips_finished_rows_and_retries_failed_ones(sample_index: Path, tmp_path: Path):
    dataset = _dataset(tmp_path / "set.jsonl")
    items = load_qa_jsonl(dataset)
    out = tmp_path / "run"
    emb = DeterministicFakeEmbedding(size=32)
    config = _config(sample_index, out, dataset, pipelines="rag")
    first = run_qa_eval(items, config, llm=_answering(fail_on="moving expense"), judge=_judge(), embeddings=emb)
    assert first[1]["error"].startswith("TimeoutError") and "metrics" not in first[1]
    summary = summarize(first, config.variants)
    assert summary["variants"]["rag"]["failed"] == 1 and summary["variants"]["rag"]["rows"] == 1
    # a crash mid-write leaves a torn last line
    with open(out / "results.jsonl", "a", encoding="utf-8") as f:
        f.write('{"id": "T9", "variant": "ra')
    answering, judge = _answering(), _judge()
    second = run_qa_eval(items, config, llm=answering, judge=judge, embeddings=emb)
    assert second[0]["skipped"] and not second[1].get("skipped") and "error" not in second[1]
    assert second[1]["metrics"]["refusal"] == "correct_refusal"
    assert judge.calls == []  # T1 was already judged; T2 needs no judge
    # the torn line stays a line of its own: the retried row after it is whole and read back
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[-2] == '{"id": "T9", "variant": "ra' and json.loads(lines[-1])["id"] == "T2"
    assert sorted((r["id"], "metrics" in r) for r in read_rows(out / "results.jsonl")) == [("T1", True), ("T2", True)]
    third = run_qa_eval(items, config, llm=answering, judge=judge, embeddings=emb)
    assert all(r["skipped"] for r in third) and len(answering.calls) == 1 + 0  # only T2's read ran, once


def test_resuming_with_another_judge_is_refused(sample_index: Path, tmp_path: Path):
    dataset = _dataset(tmp_path / "set.jsonl")
    items = load_qa_jsonl(dataset)[:1]
    emb = DeterministicFakeEmbedding(size=32)
    out = tmp_path / "run"
    run_qa_eval(items, _config(sample_index, out, dataset, "rag"), llm=_answering(), judge=_judge(), embeddings=emb)
    other = _config(sample_index, out, dataset, "rag", judge_model="openai:gpt-4o")
    with pytest.raises(EvalConfigMismatch, match="judge_model"):
        run_qa_eval(items, other, llm=_answering(), judge=_judge(), embeddings=emb)


def test_resuming_with_other_settings_or_code_is_refused(
    sample_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    dataset = _dataset(tmp_path / "set.jsonl")
    items = load_qa_jsonl(dataset)[:1]
    emb = DeterministicFakeEmbedding(size=32)
    out = tmp_path / "run"
    config = _config(sample_index, out, dataset, "rag")
    run_qa_eval(items, config, llm=_answering(), judge=_judge(), embeddings=emb)
    assert all(r["skipped"] for r in run_qa_eval(items, config, llm=_answering(), judge=_judge(), embeddings=emb))
    other = _config(sample_index, out, dataset, "rag")
    other.settings = other.settings.with_overrides(top_k=3)
    with pytest.raises(EvalConfigMismatch, match="settings .*top_k 8 → 3"):
        run_qa_eval(items, other, llm=_answering(), judge=_judge(), embeddings=emb)
    longer = _config(sample_index, out, dataset, "rag")  # how the batch runs, not what it answers: resumes
    longer.settings = longer.settings.with_overrides(llm_timeout=900.0)
    assert all(r["skipped"] for r in run_qa_eval(items, longer, llm=_answering(), judge=_judge(), embeddings=emb))
    monkeypatch.setattr(qa_runner, "code_fingerprint", lambda: "0123456789ab")
    with pytest.raises(EvalConfigMismatch, match="code or prompts"):
        run_qa_eval(items, config, llm=_answering(), judge=_judge(), embeddings=emb)
    # a record from before the code was fingerprinted resumes as it did
    record = json.loads((out / "config.json").read_text())
    del record["fingerprint"]["code"]
    (out / "config.json").write_text(json.dumps(record))
    assert all(r["skipped"] for r in run_qa_eval(items, config, llm=_answering(), judge=_judge(), embeddings=emb))


def test_a_wrong_refusal_scores_incorrect_without_the_judge(sample_index: Path, tmp_path: Path):
    dataset = _dataset(tmp_path / "set.jsonl")
    items = load_qa_jsonl(dataset)[:1]
    refuser = _answering()
    refuser.script["answer"] = "The documents do not address this question."
    judge = _judge()
    rows = run_qa_eval(
        items,
        _config(sample_index, tmp_path / "run", dataset, "rag"),
        llm=refuser,
        judge=judge,
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    m = rows[0]["metrics"]
    assert (m["refusal"], m["coverage"], m["claim_recall"]) == ("wrong_refusal", "INCORRECT", 0.0)
    assert judge.calls == []


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_question_naming_a_document_the_index_lacks_refuses_the_batch_before_any_call(
    sample_index: Path, tmp_path: Path
):
    dataset = _dataset(tmp_path / "set.jsonl")
    items = load_qa_jsonl(dataset)
    strays = [replace(items[0], id="X1", documents=("other/an-agreement-never-ingested.pdf",)), *items]
    answering = _answering()
    out = tmp_path / "run"
    with pytest.raises(DocumentsNotIndexed, match=r"1 question\(s\) .*X1 \(other/an-agreement-never-ingested.pdf\)"):
        run_qa_eval(strays, _config(sample_index, out, dataset), llm=answering, judge=_judge())
    assert not out.exists() and answering.routes() == []  # nothing written, no model called
    # matched by file name: a set's path relative to another folder is the same document
    moved = replace(items[0], documents=("elsewhere/tax-memo-education-credits.pdf",))
    assert am.documents_not_indexed([moved], ["memos/tax-memo-education-credits.pdf"]) == []
    assert am.documents_not_indexed([moved], ["other.pdf"]) == [(moved.id, "elsewhere/tax-memo-education-credits.pdf")]


def test_cli_report_only_and_input_errors(sample_index: Path, tmp_path: Path):
    dataset = _dataset(tmp_path / "set.jsonl")
    out = tmp_path / "run"
    run_qa_eval(
        load_qa_jsonl(dataset),
        _config(sample_index, out, dataset),
        llm=_answering(),
        judge=_judge(),
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    (out / "report.md").unlink(missing_ok=True)
    runner = CliRunner()
    base = ["eval", "qa", "--dataset", str(dataset), "--index", str(sample_index), "--out", str(out)]
    res = runner.invoke(app, [*base, "--pipeline", "lclf,rag", "--report-only"])
    assert res.exit_code == 0, res.output
    assert "| lclf |" in (out / "report.md").read_text()
    res = runner.invoke(app, [*base, "--pipeline", "lclf,gpt"])
    assert res.exit_code == 2 and "unknown pipeline" in _flat(res.output)
    res = runner.invoke(app, [*base, "--ablations", "no-layout"])
    assert res.exit_code == 2 and "--plain-index" in _flat(res.output)
    res = runner.invoke(app, [*base[:4], "--index", str(tmp_path), "--out", str(out)])
    assert res.exit_code == 2 and "is not an index" in _flat(res.output)
    res = runner.invoke(app, [*base, "--ids", "T1,T7"])
    assert res.exit_code == 2 and "T7" in _flat(res.output)
    # the same --out for another set: refused with one error, and no empty progress bar printed after it
    other = tmp_path / "other.jsonl"
    other.write_text(dataset.read_text(encoding="utf-8").replace('"T1"', '"U1"'), encoding="utf-8")
    res = runner.invoke(app, ["eval", "qa", "--dataset", str(other), "--index", str(sample_index), "--out", str(out)])
    assert res.exit_code == 2 and "use a new --out" in _flat(res.output), res.output
    assert "answering and judging" not in res.output.split("error:")[-1]


def test_judge_none_scores_the_grading_key_without_any_llm_judge(
    sample_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    rows = [
        {
            "id": "K1",
            "question": "Can a married couple filing MFS claim the AOTC?",
            "gold_answer": "No; spouses must file a joint return.",
            "key_facts": [["joint return", "jointly"], ["section 25A"]],
            "verdict": "no",
            "wrong_facts": [["45%"]],
        },
        {
            "id": "K2",
            "question": "What does the memo say about the moving expense deduction?",
            "gold_answer": "The documents do not address this.",
            "unanswerable": True,
        },
        {"id": "K3", "question": "Is the AOTC refundable?", "gold_answer": "Partly."},  # no key: still runs
    ]
    dataset = tmp_path / "keyed.jsonl"
    dataset.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    answering = _answering()
    monkeypatch.setattr("lclfqa.llm.models.get_chat_model", lambda *a, **k: answering)
    monkeypatch.setattr("lclfqa.llm.models.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=32))
    out = tmp_path / "run"
    args = ["eval", "qa", "--dataset", str(dataset), "--index", str(sample_index), "--out", str(out)]
    res = CliRunner().invoke(app, [*args, "--pipeline", "lclf,rag", "--judge", "none"])
    assert res.exit_code == 0, res.output
    # the answering model only: no claim, label or coverage prompt was sent
    assert not {"triples", "labels", "coverage", "decision"} & set(answering.routes())
    summary = json.loads((out / "summary.json").read_text())
    lclf = summary["variants"]["lclf"]["key_facts"]
    # lclf: "No. Married taxpayers must file a joint return to claim the credit [1]." — verdict right,
    # 1 of 2 key facts; the moving expense question refused
    assert (lclf["key_fact_recall"], lclf["verdict_accuracy"], lclf["wrong_fact_rate"]) == (0.5, 1.0, 0.0)
    assert (lclf["unanswerable_refused"], lclf["over_refusals"], lclf["rows"]) == (1.0, 0, 2)
    result_rows = read_rows(out / "results.jsonl")
    k1 = next(r for r in result_rows if r["id"] == "K1" and r["variant"] == "lclf")
    assert k1["metrics"]["key_facts"]["key_facts_hit"] == ["joint return"]
    assert k1["metrics"]["key_facts"]["key_facts_missed"] == ["section 25A"] and "coverage" not in k1["metrics"]
    assert k1["nodes"]["read"]["llm_calls"] == 2 and k1["judge"]["by"] == "none"  # the verdict, the answer
    # the nodes' notes stay in the row: the per-question evidence of what each step did
    assert k1["steps"]["extract"]["quotes_pointed"] == 0 and k1["steps"]["read"]["verdict"] == ""
    report = (out / "report.md").read_text()
    assert "## Judge-free scores" in report and "## Pipelines" not in report
    # whole answer, the model's own words (all of it: nothing added), the source words added (none)
    assert "| lclf | 0.500 (n=1) | 0.500 | 0.000 | 1.00 (n=1) | 1/1 | 0.00 (0 answers) | 1/1 | 0/1 | 0/1 |" in report
    assert "| K1 | facts 1/2, verdict ✓ |" in report
    assert (out / "key_facts.png").stat().st_size > 1000 and not (out / "score.png").exists()
    assert "key facts 0.500" in _flat(res.output)


# -------------------------------------------------------------------------------------------- ragas


def _instance(schema: dict, defs: dict | None = None):
    """A minimal value valid for ``schema`` (what a grammar-constrained model would at least produce)."""
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return _instance(defs[schema["$ref"].split("/")[-1]], defs)
    kind = schema.get("type")
    if kind == "object":
        return {k: _instance(schema["properties"][k], defs) for k in schema.get("required", [])}
    if kind == "array":
        return [_instance(schema["items"], defs)]
    if kind == "integer":
        return 1
    return "A married taxpayer must file a joint return."


class _SchemaBackend(ScriptedChat):
    supports_json_schema: bool = True  # like ChatLlama: takes response_format with a schema


def test_ragas_metrics_run_offline_on_a_schema_following_model():
    from lclfqa.eval.ragas_metrics import prompt_schema, ragas_scores

    def reply(msgs):
        schema = prompt_schema(str(msgs[-1].content))
        assert schema is not None, str(msgs[-1].content)[:200]
        return json.dumps(_instance(schema))

    llm = _SchemaBackend(script={k: reply for k in ("other", "answer", "passage", "labels", "coverage")})
    scores = ragas_scores(
        "Can MFS claim the credit?",
        "No. A married taxpayer must file a joint return.",
        ["A married taxpayer must file a joint return."],
        "A married taxpayer must file a joint return.",
        llm,
    )
    assert scores["errors"] == {}
    assert scores["faithfulness"] == 1.0 and scores["context_recall"] == 1.0
    assert scores["factual_correctness"] == 1.0  # the minimal replies agree with every claim
    # the schema in each ragas prompt went to the backend as a constrained-decoding request
    assert all(kw.get("response_format", {}).get("schema") for _, _, kw in llm.calls)


def test_ragas_failures_are_recorded_not_raised():
    from lclfqa.eval.ragas_metrics import prompt_schema, ragas_scores

    assert prompt_schema('as specified in JSON Schema:\n{"type": "object"}Do not use single quotes') == {
        "type": "object"
    }
    assert prompt_schema("no schema here") is None
    llm = ScriptedChat(script={"other": "not json at all"})
    scores = ragas_scores("Q?", "A.", ["ctx"], "ref", llm, metrics=("faithfulness",))
    assert scores["faithfulness"] is None and "faithfulness" in scores["errors"]


def test_runner_adds_ragas_scores_to_answered_rows_and_the_report(sample_index: Path, tmp_path: Path):
    from lclfqa.eval.ragas_metrics import prompt_schema

    dataset = _dataset(tmp_path / "set.jsonl")
    judge = _judge()
    judge.script["other"] = lambda msgs: json.dumps(_instance(prompt_schema(str(msgs[-1].content)) or {}))
    config = _config(sample_index, tmp_path / "run", dataset, "rag", ragas=("context_recall",))
    rows = run_qa_eval(
        load_qa_jsonl(dataset), config, llm=_answering(), judge=judge, embeddings=DeterministicFakeEmbedding(size=32)
    )
    assert rows[0]["metrics"]["ragas"]["context_recall"] == 1.0
    assert "ragas" not in rows[1]["metrics"]  # a refusal of an unanswerable question: nothing to score
    summary = write_report(rows, config.variants, tmp_path / "run", {})
    assert summary["variants"]["rag"]["ragas"] == {"context_recall": 1.0}
    assert "| rag | 1.000 |" in (tmp_path / "run" / "report.md").read_text()


def test_judges_disagree_flags_contradicting_verdicts():
    from lclfqa.eval.report import judges_disagree

    def row(coverage, labels, by="judge"):
        recall = labels.count("Entailment") / len(labels)
        return {"judge": {"by": by, "labels": labels}, "metrics": {"coverage": coverage, "claim_recall": recall}}

    assert judges_disagree(row("COMPLETE", ["Contradiction", "Entailment"]))
    assert judges_disagree(row("COMPLETE", ["Neutral", "Neutral"]))
    assert judges_disagree(row("INCORRECT", ["Entailment", "Entailment"]))
    assert not judges_disagree(row("COMPLETE", ["Entailment", "Neutral"]))
    assert not judges_disagree(row("PARTIAL", ["Neutral", "Neutral"]))
    assert not judges_disagree(row("COMPLETE", ["Neutral"], by="refusal rule"))


LEGALBENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "legalbench-rag"


@pytest.mark.skipif(not LEGALBENCH.exists(), reason="../shared/data not present")
def test_cli_reads_the_long_answer_csv_with_its_benchmark(sample_index: Path, tmp_path: Path):
    csv_path = LEGALBENCH / "long-answers" / "privacy_qa.csv"
    base = ["eval", "qa", "--dataset", str(csv_path), "--index", str(sample_index), "--out", str(tmp_path / "o")]
    res = CliRunner().invoke(app, base)
    assert res.exit_code == 2 and "needs --benchmark" in _flat(res.output)
    res = CliRunner().invoke(
        app, [*base, "--benchmark", str(LEGALBENCH / "benchmarks" / "privacy_qa.json"), "--report-only"]
    )
    assert res.exit_code == 2 and "no rows for these questions" in _flat(res.output)  # loaded; nothing ran yet
