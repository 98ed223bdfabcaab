"""The scoreboard: fair baselines, the model's words scored apart from the source words code adds, the stage
ablations and the expert-answer replay."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import HumanMessage, SystemMessage

from lclfqa import load_graph
from lclfqa.config import READ_STAGES, Settings
from lclfqa.eval.datasets import GradingKey, QAItem
from lclfqa.eval.key_facts import facts_found, model_words, score_answer, score_views, summarize_scores
from lclfqa.eval.report import render_report, summarize
from lclfqa.eval.variants import STAGE_ABLATIONS, select_variants
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.replay import ReplayChat, ReplayError, cited, load_answers
from tests.fakes import ScriptedChat
from tests.test_graph import QUESTION, good_script, graph_with


def _item(key_facts, verdict=None, wrong=(), unanswerable=False) -> QAItem:
    key = GradingKey(
        key_facts=tuple(tuple(f) for f in key_facts),
        verdict=verdict,
        wrong_facts=tuple(wrong),
        unanswerable=unanswerable,
    )
    return QAItem(id="T-1", question="An invented installment-sale question?", gold_answer="", key=key)


# ------------------------------------------------------------------------------------------- three views


def test_the_models_words_and_the_added_source_words_are_scored_apart():
    item = _item([["installment method"], ["$5,000"], ["second year"], ["related person"]])
    added = ["The source reads: “A disposition by a related person within two years …” [3]"]
    answer = "Yes. The seller may use the installment method for $5,000 [1]. " + added[0]
    views = score_views(item, answer, added, refused=False)
    assert views is not None
    assert views["model"].facts_hit == ["installment method", "$5,000"]  # 2 of 4
    assert views["added"].facts_hit == ["related person"]  # 1 of 4, only in the source's words
    assert views["whole"].facts_hit == ["installment method", "$5,000", "related person"]  # 3 of 4
    assert (views["model"].recall, views["added"].recall, views["whole"].recall) == (0.5, 0.25, 0.75)
    assert views["model"].verdict_given == "yes" and views["added"].verdict_given is None
    assert model_words(answer, added) == "Yes. The seller may use the installment method for $5,000 [1]."


def test_an_answer_that_is_all_source_words_has_no_fact_of_the_models_own():
    item = _item([["installment method"], ["related person"]])
    quoted = "The sources state: “The installment method applies unless a related person disposes …” [1]"
    views = score_views(item, quoted, [quoted], refused=False)
    assert views["model"].recall == 0.0 and views["added"].recall == 1.0 and views["whole"].recall == 1.0
    refused = score_views(item, "The documents provided do not answer this question.", [], refused=True)
    assert all(v.recall == 0.0 and v.refused for v in refused.values())


def test_a_true_or_false_statement_is_judged_by_the_answers_opening():
    for opening, right in (("False.", True), ("No, it is not.", True), ("True.", False), ("Yes.", False)):
        s = score_answer(f"{opening} The clause says otherwise.", key_facts=[["clause"]], verdict="false")
        assert s.verdict_correct is right, opening
    assert score_answer("True: it does.", verdict="true").verdict_correct is True
    assert score_answer("True.", verdict="true", refused=True).verdict_correct is False  # a refusal has none


def test_the_funnel_counts_the_facts_the_quotes_hold_and_the_answer_states():
    item = _item([["installment method"], ["$5,000"], ["second year"]])
    assert facts_found(item, "the installment method for the second year") == [True, False, True]
    assert facts_found(_item([]), "anything") == []


def _row(variant: str, answer: str, added: list[str], item: QAItem, seconds: float, tokens: int) -> dict:
    views = score_views(item, answer, added, refused=False)
    metrics = {
        "refusal": "answered",
        "key_facts": views["whole"].to_json(),
        "key_facts_model": views["model"].to_json(),
        "key_facts_added": views["added"].to_json(),
    }
    return {
        "id": item.id,
        "variant": variant,
        "run": 0,
        "answer": answer,
        "seconds": seconds,
        "tokens": {"prompt": tokens, "completion": 10},
        "metrics": metrics,
        "judge": {"by": "none"},
    }


def test_the_report_shows_the_three_views_the_tokens_and_each_stages_gain():
    item = _item([["installment method"], ["related person"]])
    quote = "The source reads: “a related person …” [2]"
    full = "The installment method applies [1]. " + quote
    rows = [
        _row("lclf", full, [quote], item, 50.0, 3000),
        _row("rag", "The installment method applies [1].", [], item, 15.0, 1500),
        _row("no-sources", "The installment method applies [1].", [], item, 49.0, 3000),
    ]
    variants = select_variants("lclf,rag", "no-sources")
    summary = summarize(rows, variants)
    lclf = summary["variants"]["lclf"]
    assert lclf["key_facts"]["key_fact_recall"] == 1.0 and lclf["key_facts_model"]["key_fact_recall"] == 0.5
    assert lclf["key_facts_added"]["key_fact_recall"] == 0.5 and lclf["tokens_p50"] == 3010
    report = render_report(summary, rows, {"dataset": "x.jsonl", "questions": 1})
    assert "| lclf | 1.000 (n=1) | 0.500 | 0.500 |" in report
    assert "| sources | 1 | 0 | 0 | 0 |" in report  # one fact, none of the model's, no tokens
    assert "tokens / question p50" in report and "| 3010 |" in report


def test_the_report_says_whose_words_state_a_wrong_fact():
    item = _item([["66 2/3"]], wrong=[("33 1/3",)])
    listed = "The source reads: “(ii) 66 2/3, if …; or (iii) 33 1/3, if …” [1]"
    rows = [
        _row("lclf", "It applies at 66 2/3 percent [1]. " + listed, [listed], item, 50.0, 3000),
        _row("rag", "It applies at 33 1/3 percent [1].", [], item, 15.0, 1500),
    ]
    summary = summarize(rows, select_variants("lclf,rag", ""))
    report = render_report(summary, rows, {"dataset": "x.jsonl", "questions": 1})
    assert "1.00 (1 answers: model's words 0, added 1)" in report  # the list the source prints, not the model
    assert "1.00 (1 answers: model's words 1, added 0)" in report


# ------------------------------------------------------------------------------------------ fair baselines


def _reader_instruction(llm: ScriptedChat) -> str:
    """The reader's instruction without its first line (what the evidence is), its units named alike."""
    msgs = next(m for key, m, _ in llm.calls if key == "answer")
    text = str(msgs[-1].content).split("\n", 1)[1]
    return text.replace("reference texts", "quotes").replace("reference text", "quote")


def test_rag_gets_lclfs_reader_and_answer_instruction(sample_index: Path):
    lclf_graph, lclf = graph_with(sample_index, good_script())
    lclf_graph.invoke({"question": QUESTION})
    rag_graph, rag = graph_with(sample_index, good_script(), pipeline="rag")
    rag_result = rag_graph.invoke({"question": QUESTION})
    assert rag.routes() == ["answer"]  # no filter, extractor or verdict call
    assert _reader_instruction(rag) == _reader_instruction(lclf)
    assert "checked and are relevant" in _reader_instruction(rag) and "Key legal phrases" in _reader_instruction(rag)
    assert rag_result["steps"]["read"]["filter_judged_relevant"] is True


def test_rag_plus_adds_the_source_words_lclf_adds_numbered_as_its_children(sample_index: Path, monkeypatch):
    # closeness by shared words (the fake embedder's vectors rank sentences at random)
    monkeypatch.setattr("lclfqa.graph.nodes.read.index_embeddings", lambda ctx: None)
    question = "Can a married couple filing MFS claim the AOTC, and what is the maximum credit per student?"
    # the answer cites the last child: a part's nearest sentence in a child the answer cites is not added
    script = good_script(answer="No. Married couples must file jointly [8].")
    rag_graph, rag = graph_with(sample_index, script, pipeline="rag")
    plus_graph, plus = graph_with(sample_index, script, pipeline="rag+")
    plain, more = rag_graph.invoke({"question": question}), plus_graph.invoke({"question": question})
    assert plus.calls[0][1][-1].content == rag.calls[0][1][-1].content  # the same one call: a cache hit
    assert plain["added"] == [] and plain.answer == "No. Married couples must file jointly [8]."
    assert more["added"] and more.answer == plain.answer + " " + " ".join(more["added"])
    assert more["steps"]["read"]["rule_quoted"] == len(more["added"][0].split("The source reads:")) - 1
    for piece in more["added"][0].split("The source reads:")[1:]:
        n = int(piece.rsplit("[", 1)[1].split("]")[0])
        quote = piece.split("“", 1)[1].split("”", 1)[0].rstrip(" …")
        assert quote[:40] in " ".join(more["retrieved"][n - 1]["text"].split())  # numbered as its child


def test_a_stage_switched_off_is_not_run(sample_index: Path, monkeypatch):
    monkeypatch.setattr("lclfqa.graph.nodes.read.index_embeddings", lambda ctx: None)
    question = "Can a married couple filing MFS claim the AOTC, and what is the maximum credit per student?"
    script = good_script(answer="No. Married couples must file jointly [8].")
    on, _ = graph_with(sample_index, script, pipeline="rag+")
    off, _ = graph_with(sample_index, script, pipeline="rag+", stages_off="sources")
    with_quotes, without = on.invoke({"question": question}), off.invoke({"question": question})
    assert with_quotes["added"] and "rule_quoted" in with_quotes["steps"]["read"]
    assert without["added"] == [] and "rule_quoted" not in without["steps"]["read"]
    graph, llm = graph_with(sample_index, good_script(yes_no=json.dumps({"answer": "no"})), stages_off="verdict")
    graph.invoke({"question": QUESTION})
    assert "yes_no" not in llm.routes()


def test_unknown_stages_are_refused_and_every_stage_has_an_ablation():
    with pytest.raises(ValueError, match="unknown stage"):
        Settings(stages_off="sources,spellcheck")
    assert [v.overrides["stages_off"] for v in select_variants("", "stages")] == list(READ_STAGES)
    assert set(STAGE_ABLATIONS) == {f"no-{s}" for s in READ_STAGES}
    names = [v.name for v in select_variants("lclf,rag,rag+", "no-cite")]
    assert names == ["lclf", "rag", "rag+", "no-cite"]


# ---------------------------------------------------------------------------------------------- replay


def test_replay_cites_each_gold_sentence_to_the_reference_holding_its_words():
    refs = ["A seller may report gain on the installment method.", "A related person's disposition accelerates gain."]
    gold = "The installment method is available. A disposition by a related person accelerates the gain. Thus."
    assert cited(gold, refs) == (
        "The installment method is available [1]. A disposition by a related person accelerates the gain [2]. Thus."
    )
    # a case name's "v." and a reporter's "U.S." end no sentence: the gold answer is cited whole, not in pieces
    cases = "The note cites Smith v. Jones, 401 U.S. 12 (1971), and Doe v. Roe, 402 U.S. 34 (1972)."
    assert cited(cases, ["Smith v. Jones, 401 U.S. 12 (1971); Doe v. Roe, 402 U.S. 34 (1972)."]) == cases[:-1] + " [1]."


def test_replay_answers_the_readers_call_and_passes_every_other_call_on(tmp_path: Path):
    path = tmp_path / "gold.jsonl"
    rows = [
        {"question": "When may a seller use the installment method?", "gold_answer": "When gain is deferred."},
        {"question": "Who is a related person?", "gold_answer": "A spouse or a child."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    inner = ScriptedChat(script={"other": "the real model"})
    model = ReplayChat(inner=inner, answers=load_answers(path))
    prompt = [
        SystemMessage("You answer."),
        HumanMessage(
            "<reference 1> (memo, p. 1)\nA related person includes a spouse or a child.\n</reference 1>\n\n"
            "Question: Who counts as a related person?"
        ),
    ]
    assert chat(model, prompt, Meter("read")) == "A spouse or a child [1]."
    assert inner.calls == []  # the reader's answer call is replayed
    assert chat(model, prompt, Meter("filter")) == "the real model"  # every other node's calls are real
    assert chat(model, prompt, Meter("read"), schema={"type": "object"}) == "the real model"  # the verdict call
    assert len(inner.calls) == 2
    with pytest.raises(ReplayError, match="no row"):
        (tmp_path / "empty.jsonl").write_text('{"question": "q"}\n', encoding="utf-8")
        load_answers(tmp_path / "empty.jsonl")
    with pytest.raises(ReplayError, match="cannot read"):
        load_answers(tmp_path / "missing.jsonl")


def test_a_replayed_gold_answer_goes_through_every_check(sample_index: Path, tmp_path: Path):
    path = tmp_path / "gold.jsonl"
    gold = "No. Married taxpayers must file a joint return to claim the education credits. The credit is $9,999."
    path.write_text(json.dumps({"question": QUESTION, "gold_answer": gold}) + "\n", encoding="utf-8")
    inner = ScriptedChat(script=good_script(answer="not used"))
    model = ReplayChat(inner=inner, answers=load_answers(path))
    settings = Settings(nearest_quotes=0, min_answer_support=0.0)
    graph = load_graph(sample_index, settings, llm=model, embeddings=DeterministicFakeEmbedding(size=32))
    result = graph.invoke({"question": QUESTION})
    assert "answer" not in inner.routes()  # the reader's call was the gold answer
    assert "$9,999" not in result.answer  # a figure no quote holds is removed, as for the model's own text
    assert result["removed"] and result["steps"]["read"]["removed_by"][0]["by"].startswith("support: figures")
    assert result.answer.startswith("No. Married taxpayers must file a joint return")


def test_the_eval_table_stays_the_same_for_sets_without_the_new_views():
    # rows written before the views existed summarise with dashes, not errors
    old = {
        "id": "T-1",
        "variant": "lclf",
        "run": 0,
        "seconds": 1.0,
        "metrics": {"refusal": "answered"},
        "judge": {"by": "none"},
    }
    summary = summarize([old], select_variants("lclf"))
    assert math.isnan(summary["variants"]["lclf"]["key_facts_model"]["key_fact_recall"])
    assert summarize_scores([])["rows"] == 0


def test_the_replay_retrieves_as_the_local_model_it_wraps():
    assert Settings(chat_model="replay:set.jsonl").query_rewrites == Settings(chat_model="local").query_rewrites == 0
