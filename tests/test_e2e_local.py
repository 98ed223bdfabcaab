"""End to end on the real offline models (llama.cpp), over real PDFs. Slow (minutes on 2 cores); run in CI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lclfqa import load_graph
from lclfqa.config import Settings
from lclfqa.graph.evidence.reading import instruction, passages, references
from lclfqa.graph.nodes.extract import pointed_quotes, proposed, quotes_schema
from lclfqa.graph.nodes.filter import THOUGHT_CHARS, verdict_schema
from lclfqa.index.ingest import ingest
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.models import get_chat_model
from lclfqa.prompts import messages

REGS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "pdfs" / "treasury-regulations"
# the effective date of these temporary regulations: no dev or validation question asks it
CFC_RULES = "26 CFR 4.954-0 (up to date as of 6-26-2026).pdf"

pytestmark = pytest.mark.slow


TINY_REFERENCES = [
    "No credit is allowed for married taxpayers filing separately.",
    "The weather was fine.",
    "A joint return is required to claim the credit.",
]


def test_tiny_model_follows_the_json_schemas_through_the_grammar():
    """SmolLM2-135M ignores formats when asked in words; the grammar makes it emit exactly n booleans, and
    sentence numbers in the extractor's shape (only numbers it was shown), which become verbatim quotes."""
    from langchain_core.messages import AIMessage, HumanMessage

    llm = get_chat_model("local-tiny", settings=Settings(n_ctx=2048))
    refs = [
        {"id": f"c{i}", "text": t, "document": "d", "pages": [1, 1], "section": [], "source": i}
        for i, t in enumerate(TINY_REFERENCES, 1)
    ]
    msgs = messages(
        "reading",
        references=references(refs, numbered=True),
        question="Can a married taxpayer filing separately claim the credit?",
        translated_question="Can I get the credit if I file on my own?",
    )
    msgs.append(HumanMessage(instruction("filter_cot", n=3)))
    meter = Meter("t")
    raw = chat(llm, msgs, meter, max_tokens=THOUGHT_CHARS // 3 + 76, schema=verdict_schema(3))
    verdicts, ok = parsing.booleans(raw, 3)
    assert ok, raw
    assert meter.llm_calls == 1 and meter.prompt_tokens > 50 and meter.completion_tokens > 0
    numbered = passages(refs)
    msgs += [AIMessage(raw), HumanMessage(instruction("extract", max_quotes=3, verdict="", verdict_json=""))]
    raw = chat(llm, msgs, meter, max_tokens=60, schema=quotes_schema(list(numbered)))
    ids, _ = proposed(raw)
    quotes, unknown = pointed_quotes(ids, numbered, refs)
    assert 1 <= len(quotes) <= 6 and unknown == [], raw
    assert all(q["text"] in TINY_REFERENCES[q["ref"] - 1] for q in quotes)


@pytest.mark.skipif(not REGS.exists(), reason="../shared/data not present")
def test_the_offline_default_answers_from_a_real_regulation_and_cites_its_page(tmp_path: Path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in (CFC_RULES, "26 CFR 1.25A-1 (up to date as of 6-26-2026).pdf"):
        shutil.copy(REGS / name, docs / name)
    settings = Settings(rewrites=1, top_k=4, context_chars=3000, max_answer_tokens=200, n_ctx=4096, llm_timeout=1800)
    ingest([docs], tmp_path / "index", settings)
    graph = load_graph(tmp_path / "index", settings)
    question = "For which taxable years of a CFC do the temporary regs under §§ 4.954-1 and 4.954-2 apply?"
    result = graph.invoke({"question": question})
    assert result.answer and not result["refused"], result.answer
    cited = {c["document"] for c in result.citations}
    assert CFC_RULES in cited, (result.answer, result.citations)
    cfc = next(c for c in result.citations if c["document"] == CFC_RULES)
    assert cfc["pages"] == [1], (result.answer, cfc)  # the effective-date paragraph, on the first page
    assert "1986" in result.answer, result.answer
    steps = result["steps"]
    assert steps["rewrite"]["llm_calls"] == 2 and steps["read"]["completion_tokens"] > 0
    print({node: s["seconds"] for node, s in steps.items()}, result.answer, result.citations, sep="\n")


def test_a_small_eval_run_on_the_offline_default_answers_and_judges(tmp_path: Path):
    """`lclfqa eval qa` end to end on the real local model as answerer and judge: one question, naive RAG."""
    from lclfqa.eval.datasets import load_qa_jsonl
    from lclfqa.eval.qa_runner import QARunConfig, run_qa_eval
    from lclfqa.eval.report import write_report
    from lclfqa.eval.variants import select_variants

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample"
    settings = Settings(top_k=4, context_chars=3000, max_answer_tokens=200, n_ctx=4096, llm_timeout=1800)
    ingest([sample], tmp_path / "index", settings)
    dataset = tmp_path / "set.jsonl"
    row = {
        "id": "S1",
        "question": "Can a married couple filing separately claim the American Opportunity Tax Credit?",
        "gold_answer": "No. Married taxpayers must file a joint return to claim the education credits.",
        "necessary_claims": ["A married taxpayer must file a joint return to claim the education credits."],
        "documents": ["tax-memo-education-credits.pdf"],
    }
    dataset.write_text(json.dumps(row) + "\n", encoding="utf-8")
    variants = select_variants("rag")
    config = QARunConfig(str(dataset), tmp_path / "index", tmp_path / "out", variants, settings=settings)
    rows = run_qa_eval(load_qa_jsonl(dataset), config)
    assert len(rows) == 1 and "error" not in rows[0], rows
    m, judged = rows[0]["metrics"], rows[0]["judge"]
    summary = write_report(rows, variants, tmp_path / "out", {"dataset": str(dataset)})
    assert summary["variants"]["rag"]["rows"] == 1 and (tmp_path / "out" / "report.md").exists()
    if not rows[0]["refused"]:  # the judge scored the model's answer
        assert judged["by"] == "judge" and m["coverage"] in ("COMPLETE", "PARTIAL", "INCORRECT")
        assert judged["claims_from"] == "triples" and judged["labels_well_formed"], judged  # grammar-constrained
        print(rows[0]["answer"], m, judged, sep="\n")
        return
    # the 1.5B reader sometimes refuses here: the refusal rule scores it, so judge a fixed answer instead
    assert (m["refusal"], m["coverage"], judged["by"]) == ("wrong_refusal", "INCORRECT", "refusal rule")
    from lclfqa.eval.judge import GoldAnswer, check_claims, extract_claims, judge_coverage

    llm = get_chat_model("local", settings=settings)
    gold = GoldAnswer(row["question"], row["gold_answer"], tuple(row["necessary_claims"]))
    claims = extract_claims(llm, GoldAnswer(row["question"], row["gold_answer"]))
    assert claims.source == "triples" and claims.triples, claims  # grammar-constrained JSON
    answer = "No. Married taxpayers must file a joint return to claim the education credits, including the AOTC."
    recall = check_claims(llm, row["question"], answer, claims.texts)
    assert recall.well_formed and recall.entailed >= 1, (claims.texts, recall.labels)
    coverage = judge_coverage(llm, gold, answer)
    assert coverage.category in ("COMPLETE", "PARTIAL") and coverage.well_formed, coverage
    print(rows[0]["answer"], claims.texts, recall.labels, coverage, sep="\n")


def test_readmes_demo_is_answered_no_from_the_memo(tmp_path: Path):
    """README's run command on the offline default: the sample memo says married taxpayers filing separately
    may claim neither credit; the answer must say No, state that rule from the memo's quotes, rest on the
    memo and state nothing unsupported. (Before the nearest sentences joined the extractor's picks and the
    verdict was decided over the final quotes, the 1.5B default quoted the eligible-student passages and
    answered "Yes".)"""
    from lclfqa.eval.key_facts import verdict_of
    from lclfqa.llm.parsing import split_sentences as split

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample"
    settings = Settings(llm_timeout=1800)
    ingest([sample], tmp_path / "index", settings)
    result = load_graph(tmp_path / "index", settings).invoke(
        {"question": "Can a married couple filing MFS claim the AOTC?"}
    )
    print(result.answer, result.citations, result["steps"], sep="\n")
    assert verdict_of(result.answer) == "no", result.answer
    assert result.citations and all(c["document"] == "tax-memo-education-credits.pdf" for c in result.citations)
    assert all(c["quote"] for c in result.citations), result.citations  # each citation shows its verified quote
    # the memo's rule is among the quotes the answer rests on, and the answer states it; which number the
    # model cites it by is not asserted: in 1 of 3 runs on this machine it cited the memo's "Question
    # Presented" sentence for it, which also names § 25A(b) (benchmarks/README.md)
    married = "Married taxpayers who file separately may claim neither credit"
    assert any(married in " ".join(q["text"].split()) for q in result["quotes"]), result["quotes"]
    cited = any(married in " ".join(c["quote"].split()) for c in result.citations)
    assert cited or "claim neither credit" in result.answer, result.answer
    assert result["unsupported"] == []
    # the rule is never given the authority the memo cites for the sentence before it (an AVX-512 build
    # wrote "Treas. Reg. §1.25A-1(b)(1) states that married taxpayers who file separately …")
    said = split(result.answer[: len(result.answer) - sum(len(a) for a in result["added"])])
    assert not any("1.25A-1(b)" in s and "separately" in s for s in said), result.answer
