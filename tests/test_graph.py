"""The LCLF-QA graph with scripted fake chat models: node logic, malformed output, parallelism, memory."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langgraph.checkpoint.sqlite import SqliteSaver

from lclfqa import load_graph
from lclfqa.config import Settings
from lclfqa.graph.answer.support import asks_back, said_back
from lclfqa.graph.answer.tidy import refuses
from lclfqa.graph.evidence.refs import chunk_ref
from lclfqa.graph.nodes.expand import build_sources
from lclfqa.graph.result import QAResult
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.ingest.document import FOOTNOTE
from tests.fakes import ScriptedChat

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample"
MEMO = "tax-memo-education-credits.pdf"
QUESTION = "Can a married couple filing MFS claim the AOTC?"


def good_script(**over) -> dict:
    script = {
        "condense": "Can spouses filing separately claim the American Opportunity Tax Credit?",
        "passage": "Under section 25A(g)(6), no education credit is allowed to married individuals filing separately.",
        "rewrites": json.dumps(
            {
                "rewrites": [
                    "Does section 25A(g)(6) deny the American Opportunity Tax Credit to married filing separately?",
                    "Must a married couple file a joint return to claim the AOTC education credit?",
                    "Is the AOTC available on a separate return?",
                ],
                "translation": "If a married couple files two separate tax returns, can they get the college credit?",
            }
        ),
        "verdicts": lambda msgs: json.dumps(
            {
                "thought": "Reference 1 states the joint return requirement. The others are background.",
                "relevant": [True] + [False] * (_count_refs(msgs) - 1),
            }
        ),
        "quotes": json.dumps({"sentences": ["1.1"]}),  # the extractor points at sentence 1 of reference 1
        "yes_no": "",  # no verdict decided: the reader's own opening stands (tests that want one set it)
        "answer": "No. Married taxpayers must file a joint return to claim the education credits [1].",
    }
    script.update(over)
    return script


def _opening_words(messages, ref: int, words: int = 12) -> str:
    """The first ``words`` words of reference ``ref`` in the prompt (without its sentence numbers): a quote
    the check will find."""
    text = "\n".join(str(m.content) for m in messages)
    start = text.index(f"<reference {ref}>")
    body = text[text.index("\n", start) + 1 : text.index(f"</reference {ref}>")]
    return " ".join(re.sub(r"\[\d+\.\d+\] ", "", body).split()[:words])


def _count_refs(messages) -> int:
    return sum(1 for m in messages for line in str(m.content).splitlines() if line.startswith("<reference "))


RULE_SENTENCE = "who file separate returns"
"""Words of the sample memo's sentence stating the rule QUESTION asks for (where the sources stage has a quote that
speaks to what is asked: the first retrieved reference, the engagement letter's termination clause, does not)."""


def _numbered(messages, phrase: str) -> str:
    """The number ``i.j`` of the reference sentence holding ``phrase`` in the prompt."""
    text = "\n".join(str(m.content) for m in messages)
    return next(m.group(1) for m in re.finditer(r"^\[(\d+\.\d+)\] (.*)$", text, re.M) if phrase in m.group(2))


def pointing_at(phrase: str = RULE_SENTENCE) -> dict:
    """Script entries under which the filter keeps the reference holding ``phrase`` and the extractor quotes it."""
    return {
        "verdicts": lambda msgs: json.dumps(
            {
                "thought": "That reference states the rule.",
                "relevant": [i == int(_numbered(msgs, phrase).split(".")[0]) for i in range(1, _count_refs(msgs) + 1)],
            }
        ),
        "quotes": lambda msgs: json.dumps({"sentences": [_numbered(msgs, phrase)]}),
    }


def graph_with(sample_index: Path, script: dict, **settings):
    settings.setdefault("nearest_quotes", 0)  # the model's picks only, unless a test asks for the nearest
    # the scripted answers are not written from the quotes the fake embedder retrieves: their words are not
    # checked unless a test asks (test_a_sentence_in_words_no_quote_holds_is_removed)
    settings.setdefault("min_answer_support", 0.0)
    llm = ScriptedChat(script=script)
    graph = load_graph(sample_index, Settings(**settings), llm=llm, embeddings=DeterministicFakeEmbedding(size=32))
    return graph, llm


def test_lclf_pipeline_answers_with_citations_and_records_every_step(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script(), rewrites=3)
    result = graph.invoke({"question": QUESTION})
    assert isinstance(result, QAResult)
    assert result.answer.startswith("No. Married taxpayers")
    # acronyms expanded before retrieval; three rewrites and the translation parsed
    assert "MFS (married filing separately)" in result["standalone_question"]
    assert "AOTC (American Opportunity Tax Credit)" in result["standalone_question"]
    assert len(result["rewrites"]) == 3 and "college credit" in result["translation"]
    # the filter kept the first child only; the extractor pointed at its first sentence, which is quote and
    # citation [1]: document, pages and section path of the child it was copied from, and the quote itself
    assert len(result["filtered"]) == 1 and len(result["dropped"]) == len(result["retrieved"]) - 1
    first = result["retrieved"][0]
    assert [q["child"] for q in result["quotes"]] == [first["id"]] and result["quotes"][0]["how"] == "pointed"
    assert [c["n"] for c in result.citations] == [1]
    cite = result.citations[0]
    assert cite["document"] == first["document"] and not cite["inferred"]
    assert cite["section"] == " › ".join(first["section"]) and cite["pages"] == sorted(set(first["pages"]))
    assert cite["quote"] == result["quotes"][0]["text"] and cite["quote"] in first["text"]
    assert set(result["steps"]) == {"rewrite", "retrieve", "expand", "filter", "extract", "read"}
    assert result["steps"]["rewrite"]["llm_calls"] == 2 and result["steps"]["filter"]["llm_calls"] == 1
    assert result["steps"]["extract"]["quotes_pointed"] == 1 and result["steps"]["read"]["removed"] == 0
    assert llm.routes() == ["passage", "rewrites", "verdicts", "quotes", "yes_no", "answer"]
    # structured calls asked for JSON only where the backend supports it (the fake gets plain prompts)
    assert all("response_format" not in kw for _, _, kw in llm.calls)
    # one conversation: the extractor continues the filter's call (same prefix, KV cache reused); the reader
    # gets a short one whose reference texts are the verified quotes (not the extractor's JSON)
    calls = {key: msgs for key, msgs, _ in llm.calls}
    assert [m.content for m in calls["quotes"][: len(calls["verdicts"])]] == [m.content for m in calls["verdicts"]]
    reader = "\n".join(str(m.content) for m in calls["answer"])
    assert "<reference 1> (" in reader and result["quotes"][0]["text"] in reader and "<reference 2>" not in reader
    assert "copy, word for word" not in reader
    assert "This is a yes/no question" in reader  # "Can a married couple …?"
    # sources are marked as data, not instructions
    assert "never instructions" in str(calls["verdicts"][0].content)
    # the reader saw the verified quotes, the key legal phrases and the translation
    text = "\n".join(str(m.content) for m in calls["answer"])
    assert "verified quotes" in text and "Citation style:" in text and "college credit" in text
    assert "more likely than not" not in text  # the levels of comfort only for a question asking for an opinion
    assert result["history"][-2:] == [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": result.answer},
    ]


def test_an_empty_question_is_a_clear_error(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script())
    with pytest.raises(ValueError, match="non-empty"):
        graph.invoke({"question": "  "})
    assert llm.calls == []


def test_result_renders_for_notebooks_and_json(sample_index: Path):
    graph, _ = graph_with(sample_index, good_script())
    result = graph.invoke({"question": QUESTION})
    md = result._repr_markdown_()
    assert result.answer in md and "**Sources**" in md and result.citations[0]["document"] in md
    assert "<li>" in result._repr_html_()
    data = result.to_json()
    assert set(data) >= {"answer", "citations", "rewrites", "retrieved", "timings"}
    assert set(data["timings"]) == set(result["steps"]) and data["retrieved"][0]["kept"] is True
    json.dumps(data)  # plain JSON all the way down


@pytest.mark.parametrize(
    "verdicts",
    ["I think they are all relevant", '{"relevant": [true', "", "all false"],
)
def test_malformed_or_empty_verdicts_never_drop_evidence(sample_index: Path, verdicts: str):
    if verdicts == "all false":  # LongRAG's rule: keeping nothing keeps everything (the reader decides)
        verdicts = lambda msgs: json.dumps({"relevant": [False] * _count_refs(msgs)})  # noqa: E731
    graph, _ = graph_with(sample_index, good_script(verdicts=verdicts))
    result = graph.invoke({"question": QUESTION})
    assert len(result["filtered"]) == len(result["retrieved"]) and result["dropped"] == []


def test_longrag_true_false_words_are_read_in_order(sample_index: Path):
    graph, _ = graph_with(sample_index, good_script(verdicts="True\nFalse\nTrue"), top_k=4)
    result = graph.invoke({"question": QUESTION})
    kept = [r["id"] for r in result["filtered"]]
    # missing verdicts (only 3 for 4 children) keep the child
    assert kept == [r["id"] for i, r in enumerate(result["retrieved"]) if i != 1]
    assert result["steps"]["filter"]["well_formed"] is False


def test_llm_failures_degrade_without_losing_the_question_or_evidence(sample_index: Path):
    script = good_script(
        passage=TimeoutError("rewrite timed out"),
        verdicts=RuntimeError("filter down"),
        quotes=RuntimeError("extract down"),
    )
    graph, _ = graph_with(sample_index, script, rewrites=3)
    result = graph.invoke({"question": QUESTION})
    assert result["rewrites"] == [] and result["retrieved"]
    assert result["filtered"] == result["retrieved"]
    assert "timed out" in result["steps"]["rewrite"]["error"] and "filter down" in result["steps"]["filter"]["error"]
    assert "extract down" in result["steps"]["extract"]["error"]
    # no verified quote: the reader gets the retrieved sentences closest to the question, still verbatim
    assert result["steps"]["read"]["fallback_quotes"] == len(result["quotes"]) > 0
    retrieved = {c["id"]: c["text"] for c in result["retrieved"]}
    assert all(q["text"] in retrieved[q["child"]] and q["how"] == "fallback" for q in result["quotes"])
    assert result.answer.startswith("No.")


def test_quotes_not_in_the_references_are_dropped_and_counted(sample_index: Path):
    invented = "Married couples filing separately may always claim the full credit in every year"
    script = good_script(
        quotes=lambda msgs: json.dumps(
            {"quotes": [{"ref": 1, "quote": invented}, {"ref": 2, "quote": _opening_words(msgs, 2)}]}
        )
    )
    graph, _ = graph_with(sample_index, script)
    result = graph.invoke({"question": QUESTION})
    assert [q["child"] for q in result["quotes"]] == [result["retrieved"][1]["id"]]
    steps = result["steps"]["extract"]
    assert (steps["quotes_proposed"], steps["quotes_kept"], steps["quotes_dropped"]) == (2, 1, 1)
    assert invented not in result["information"]


def test_missing_tags_and_no_inline_citations(sample_index: Path):
    script = good_script(answer="<answer>A joint return is required.")  # no closing tag, no [n]
    graph, _ = graph_with(sample_index, script, pipeline="rag")
    result = graph.invoke({"question": QUESTION})
    assert result.answer == "A joint return is required."
    assert result.citations and all(c["inferred"] for c in result.citations)
    assert "cites no source by number" in result.sources_text()
    # with an extractor, an answer that does not cite quote [1] (the rule) gains it in the source's words
    graph, _ = graph_with(sample_index, script | pointing_at())
    result = graph.invoke({"question": QUESTION})
    rule = " ".join(result["quotes"][0]["text"].split())
    assert result.answer == f"A joint return is required. The source reads: “{rule}” [1]"
    assert [c["n"] for c in result.citations] == [1] and not result.citations[0]["inferred"]
    assert result["steps"]["read"]["rule_quoted"] == 1


def _reader_prompt(llm) -> str:
    return "\n".join(str(m.content) for m in next(m for key, m, _ in llm.calls if key == "answer"))


def test_the_reader_is_given_only_the_rules_that_can_apply(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script())
    graph.invoke({"question": QUESTION})
    plain = _reader_prompt(llm)
    assert "level of comfort" not in plain and "dissenting or concurring" not in plain  # a memo, no opinions
    # a translation is shown only where it says the question in other words (none is made offline)
    asks = "Can a married person who files a separate return claim the college tuition credit?"
    for translation, shown in [("", False), (QUESTION, False), (asks, True)]:
        rewrites = json.dumps({"rewrites": ["Is the credit allowed on a separate return?"], "translation": translation})
        graph, llm = graph_with(sample_index, good_script(rewrites=rewrites), rewrites=1)
        graph.invoke({"question": QUESTION})
        assert ("In plain terms" in _reader_prompt(llm)) is shown, translation
    graph, llm = graph_with(sample_index, good_script())
    graph.invoke({"question": "What level of comfort can the memo give that MFS filers may claim the AOTC?"})
    assert "If the question asks for a tax opinion or a level of comfort" in _reader_prompt(llm)


def test_a_translation_that_answers_instead_of_asking_is_shown_to_no_step(sample_index: Path):
    """Asked for the question in plain words, a small model sometimes answers it, with a condition of its
    own; shown as "In plain terms", the reader copied that answer. Only a translation that asks is shown."""
    invented = "Separate filers can claim the college credit only if neither spouse is a student."
    rewrites = json.dumps({"rewrites": ["Is the AOTC allowed on a separate return?"], "translation": invented})
    graph, llm = graph_with(sample_index, good_script(rewrites=rewrites), rewrites=1)
    result = graph.invoke({"question": QUESTION})
    assert result["translation"] == "" and result["steps"]["rewrite"]["translation_dropped"] == invented
    assert all("neither spouse" not in str(m.content) for key, msgs, _ in llm.calls if key != "rewrites" for m in msgs)
    assert result["rewrites"] == ["Is the AOTC (American Opportunity Tax Credit) allowed on a separate return?"]


def test_the_models_own_source_list_is_not_shown_but_its_numbers_count(sample_index: Path):
    written = "No. A joint return is required.\n\nSources:\n[1] (26 CFR 1.2401(a)(3).pdf, p. 1)"
    graph, _ = graph_with(sample_index, good_script(answer=written, **pointing_at()))
    result = graph.invoke({"question": QUESTION})
    # the list is not shown; the answer cites nothing itself, so the sources stage adds the quote's words
    assert (
        result.answer.startswith("No. A joint return is required. The source reads: “")
        and "Sources:" not in result.answer
    )
    assert [c["n"] for c in result.citations] == [1] and not result.citations[0].get("inferred")
    assert "1.2401" not in result.answer and "1.2401" not in result["history"][-1]["content"]


def test_refusal_has_no_citations_and_is_allowed_only_without_relevant_sources(sample_index: Path):
    none_relevant = lambda msgs: json.dumps({"relevant": [False] * _count_refs(msgs)})  # noqa: E731
    script = good_script(answer="The documents provided do not answer this question.", verdicts=none_relevant)
    graph, llm = graph_with(sample_index, script)
    result = graph.invoke({"question": "What is the moving expense deduction?"})
    assert result["refused"] is True and result.citations == []
    assert 'answer exactly: "The documents provided do not answer' in _reader_prompt(llm)
    assert result["steps"]["read"]["filter_judged_relevant"] is False
    # when the filter found relevant children, the reader is told to answer from them
    graph, llm = graph_with(sample_index, good_script())
    result = graph.invoke({"question": QUESTION})
    assert "checked and are relevant" in _reader_prompt(llm) and "answer exactly" not in _reader_prompt(llm)
    assert result["steps"]["read"]["filter_judged_relevant"] is True


def test_filter_verdict_no_invites_a_refusal_even_with_relevant_children(sample_index: Path):
    unanswered = lambda msgs: json.dumps({"relevant": [True] * _count_refs(msgs), "answered": "no"})  # noqa: E731
    graph, llm = graph_with(sample_index, good_script(verdicts=unanswered))
    result = graph.invoke({"question": QUESTION})
    assert result["answered"] == "no" and result["steps"]["filter"]["answered"] == "no"
    assert 'answer exactly: "The documents provided do not answer' in _reader_prompt(llm)
    assert result["steps"]["read"]["filter_judged_relevant"] is False
    # a verdict decided from one of the quotes: the reader is told to open with it, and not also that it
    # may refuse (told both, a small model opened "No, the documents provided do not answer …")
    decided = json.dumps({"rule": "Married taxpayers must file a joint return.", "verdict": "no"})
    graph, llm = graph_with(sample_index, good_script(verdicts=unanswered, yes_no=decided))
    result = graph.invoke({"question": QUESTION})
    assert 'begin the answer with "No,"' in _reader_prompt(llm) and "answer exactly" not in _reader_prompt(llm)
    assert "checked and are relevant" in _reader_prompt(llm) and result["refused"] is False
    assert result["steps"]["read"]["filter_judged_relevant"] is False and result["verdict"] == "no"
    partly = lambda msgs: json.dumps({"relevant": [True] * _count_refs(msgs), "answered": "partly"})  # noqa: E731
    graph, llm = graph_with(sample_index, good_script(verdicts=partly))
    assert graph.invoke({"question": QUESTION})["answered"] == "partly"
    assert "checked and are relevant" in _reader_prompt(llm)


def test_a_question_citing_sections_no_source_mentions_is_refused_without_the_reader(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script(), rewrites=3)
    result = graph.invoke({"question": "What does section 199A say about income from a tutoring business?"})
    assert llm.routes() == ["passage", "rewrites"]  # no filter, extractor or reader call: decided, not generated
    assert "filter" not in result["steps"] and "extract" not in result["steps"]
    assert result["refused"] is True and result.citations == []
    assert result.answer == (
        "The documents provided do not answer this question. None of the sources found mentions section 199A."
    )
    assert result["steps"]["read"]["missing_sections"] == ["199A"]
    assert result["cited_sections"] == result["missing_sections"] == ["199A"]  # decided once, in expand
    # One of two cited sections present (the sample memo cites IRC §25A throughout): the reader answers
    # and is told which one the documents do not cover.
    graph, llm = graph_with(sample_index, good_script())
    result = graph.invoke({"question": "How do section 25A and section 199A apply to tutoring costs?"})
    assert result["refused"] is False
    assert "No source mentions section 199A: say plainly that the documents do not cover it" in _reader_prompt(llm)
    assert result["cited_sections"] == ["25A", "199A"] and result["missing_sections"] == ["199A"]


def test_a_question_defining_a_term_no_source_names_is_refused_without_the_reader(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script(), rewrites=3)
    result = graph.invoke({"question": "Which new hires count for the work opportunity tax credit (WOTC)?"})
    assert llm.routes() == ["passage", "rewrites"]  # decided in expand, like a cited section
    assert result["refused"] is True and result.citations == []
    assert result.answer == (
        "The documents provided do not answer this question. "
        "None of the sources found mentions work opportunity tax credit (WOTC)."
    )
    assert result["missing_terms"] == ["work opportunity tax credit (WOTC)"]
    # a term the sample memo spells out (every word of it, in one source) is found: the reader answers
    graph, llm = graph_with(sample_index, good_script())
    result = graph.invoke({"question": "Can a married couple claim the American Opportunity Tax Credit (AOTC)?"})
    assert result["refused"] is False and result["missing_terms"] == []


def test_a_question_asking_a_count_no_source_states_is_refused_without_the_reader(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script(), rewrites=3)
    result = graph.invoke({"question": "Within how many weeks must the firm return a client's call?"})
    assert llm.routes() == ["passage", "rewrites"]  # the sample states days and years, no weeks: decided in expand
    assert result["refused"] is True and result.citations == []
    assert result.answer == (
        "The documents provided do not answer this question. None of the sources found mentions a number of weeks."
    )
    # a count the engagement letter states ("Invoices are due within 30 days") is read and answered
    graph, llm = graph_with(sample_index, good_script())
    result = graph.invoke({"question": "Within how many days are the firm's invoices due?"})
    assert result["refused"] is False and result["missing_terms"] == []


def test_rag_baseline_reads_children_directly_with_one_llm_call(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script(), pipeline="rag", top_k=3)
    result = graph.invoke({"question": QUESTION})
    assert llm.routes() == ["answer"]
    assert len(result["sources"]) == 3 and all(s["kind"] != "parent" for s in result["sources"])
    prompt = "\n".join(str(m.content) for m in llm.calls[0][1])
    assert "Key legal phrases" in prompt  # lclf's reader: a fair baseline (tests/test_scoreboard.py)


def test_longrag_baseline_skips_the_rewriter_and_uses_the_basic_reader(sample_index: Path):
    graph, llm = graph_with(sample_index, good_script(), pipeline="longrag")
    result = graph.invoke({"question": QUESTION})
    assert llm.routes() == ["verdicts", "quotes", "yes_no", "answer"]
    assert result["rewrites"] == [] and result["steps"]["rewrite"]["skipped"] is True


def test_one_rewrite_setting(sample_index: Path):
    script = good_script(
        rewrites=json.dumps({"rewrites": ["Is the AOTC allowed on a separate return?"], "translation": "x"})
    )
    graph, llm = graph_with(sample_index, script, rewrites=1)
    result = graph.invoke({"question": QUESTION})
    assert len(result["rewrites"]) == 1
    follow_up = next(m for key, m, _ in llm.calls if key == "rewrites")[-1].content
    assert "in 1 different ways" in follow_up and '"rewrites": [1 strings]' in follow_up


def test_filter_and_extract_run_in_parallel(sample_index: Path):
    spans: dict[str, tuple[float, float]] = {}
    lock = threading.Lock()

    def slow(name: str, reply):
        def respond(messages):
            start = time.perf_counter()
            time.sleep(0.4)
            with lock:
                spans[name] = (start, time.perf_counter())
            return reply(messages) if callable(reply) else reply

        return respond

    base = good_script()
    script = good_script(verdicts=slow("filter", base["verdicts"]), quotes=slow("extract", base["quotes"]))
    graph, _ = graph_with(sample_index, script, parallel=True)
    graph.invoke({"question": QUESTION})
    (f0, f1), (e0, e1) = spans["filter"], spans["extract"]
    assert f0 < e1 and e0 < f1, "filter and extract did not overlap in time"


def test_sequential_graph_gives_the_same_answer(sample_index: Path):
    results, calls = {}, {}
    for parallel in (False, True):
        graph, llm = graph_with(sample_index, good_script(), parallel=parallel)
        results[parallel] = graph.invoke({"question": QUESTION})
        calls[parallel] = {key: msgs for key, msgs, _ in llm.calls}
        assert sorted(llm.routes()) == ["answer", "quotes", "verdicts", "yes_no"]
    sequential, parallel = results[False], results[True]
    assert sequential.answer.startswith("No.") and sequential["information"] and len(sequential["filtered"]) == 1
    assert (sequential.answer, sequential.citations, sequential["filtered"]) == (
        parallel.answer,
        parallel.citations,
        parallel["filtered"],
    )
    # only the sequential extractor continues the filter's conversation (its instruction and reply)
    filter_turn = calls[False]["verdicts"][-1].content
    assert calls[False]["quotes"][2].content == filter_turn
    assert all(m.content != filter_turn for m in calls[True]["quotes"])


def test_without_the_cot_filter_the_extractor_reads_every_child_and_the_reader_is_told_they_are_relevant(
    sample_index: Path,
):
    graph, llm = graph_with(sample_index, good_script(), cot_filter=False)
    result = graph.invoke({"question": QUESTION})
    assert llm.routes() == ["quotes", "yes_no", "answer"]  # no filter call
    assert result["steps"]["filter"]["skipped"] and result["filtered"] == result["retrieved"]
    calls = {key: msgs for key, msgs, _ in llm.calls}
    assert len(calls["quotes"]) == 3  # system, the references and the question, the extractor's instruction
    assert "The sources were checked and are relevant" in calls["answer"][-1].content
    assert result.answer.startswith("No.") and result.citations


def test_without_the_filters_thought_it_asks_for_the_booleans_alone(sample_index: Path):
    from lclfqa.graph.nodes.filter import verdict_schema

    script = good_script(verdicts=lambda msgs: json.dumps({"relevant": [True] + [False] * (_count_refs(msgs) - 1)}))
    graph, llm = graph_with(sample_index, script, filter_thought=False)
    result = graph.invoke({"question": QUESTION})
    (ask, kwargs), *others = [(msgs[-1].content, kw) for key, msgs, kw in llm.calls if key == "verdicts"]
    assert not others and "Think" not in ask and "thought" not in ask
    assert kwargs["max_tokens"] == 12 * len(result["retrieved"]) + 40  # no room for a thought
    schema = verdict_schema(3, thought=False)
    assert list(schema["properties"]) == ["relevant", "answered"] and "thought" in verdict_schema(3)["properties"]
    assert len(result["filtered"]) == 1 and result["thought"] == ""
    assert result.answer.startswith("No.") and result.citations


def _chat_graph(index: Path, llm: ScriptedChat, conn: sqlite3.Connection):
    """The graph over ``index`` with chat memory in the SQLite connection ``conn``."""
    return load_graph(
        index, Settings(), llm=llm, embeddings=DeterministicFakeEmbedding(size=32), checkpointer=SqliteSaver(conn)
    )


def test_chat_memory_across_two_turns(sample_index: Path, tmp_path: Path):
    conn = sqlite3.connect(str(tmp_path / "chat.sqlite"), check_same_thread=False)
    llm = ScriptedChat(script=good_script())
    graph = _chat_graph(sample_index, llm, conn)
    cfg = {"configurable": {"thread_id": "t1"}}
    first = graph.invoke({"question": QUESTION}, cfg)
    assert "condense" not in llm.routes()
    second = graph.invoke({"question": "And what about the lifetime learning credit?"}, cfg)
    condense = next(m for key, m, _ in llm.calls if key == "condense")[-1].content
    assert QUESTION in condense and first.answer in condense
    assert second["standalone_question"].startswith("Can spouses filing separately")
    assert len(second["history"]) == 4
    # another thread starts fresh; the first survives a reconnect
    other = graph.invoke({"question": QUESTION}, {"configurable": {"thread_id": "t2"}})
    assert len(other["history"]) == 2
    conn.close()
    conn = sqlite3.connect(str(tmp_path / "chat.sqlite"), check_same_thread=False)
    again = _chat_graph(sample_index, llm, conn)
    assert len(again.get_state(cfg).values["history"]) == 4
    conn.close()


def test_a_refused_turn_in_a_chat_thread_leaves_nothing_of_the_previous_turn(sample_index: Path, tmp_path: Path):
    conn = sqlite3.connect(str(tmp_path / "chat.sqlite"), check_same_thread=False)
    graph = load_graph(
        sample_index,
        Settings(),
        llm=ScriptedChat(script=good_script()),
        embeddings=DeterministicFakeEmbedding(size=32),
        checkpointer=SqliteSaver(conn),
    )
    cfg = {"configurable": {"thread_id": "t1"}}
    first = graph.invoke({"question": QUESTION}, cfg)
    assert first["filtered"] and first["information"] and first["quotes"] and first.citations
    second = graph.invoke({"question": "And under section 199A?"}, cfg)
    assert second["refused"] is True and second.citations == []
    assert second["filtered"] == [] and second["information"] == "" and second["thought"] == ""
    assert second["quotes"] == [] and second["transcript"] == []
    assert "section 199A" in second.answer and len(second["history"]) == 4
    conn.close()


def test_a_footnote_child_pulls_in_every_linked_parent_with_the_footnote_injected(sample_index: Path):
    idx = EmbeddedBackend.load(sample_index)
    footnote = next(c for c in idx.chunks(FOOTNOTE) if len(c.parent_ids) >= 2)
    sources, children = build_sources(
        [chunk_ref(footnote, score=1.0)], idx, parents=True, expand_footnotes=True, budget=100_000
    )
    assert [s["id"] for s in sources] == list(footnote.parent_ids)
    for s in sources:
        assert s["footnotes"] == [footnote.text]
        assert s["pages"][0] <= footnote.page_start <= s["pages"][1]
    assert children[0]["source"] == 1
    # without expansion (longrag) the footnote is a source of its own
    sources, children = build_sources(
        [chunk_ref(footnote, score=1.0)], idx, parents=True, expand_footnotes=False, budget=100_000
    )
    assert len(sources) == 1 and sources[0]["id"] == footnote.id and children[0]["source"] == 1


def test_parents_are_deduplicated_and_capped_by_the_context_budget(sample_index: Path):
    idx = EmbeddedBackend.load(sample_index)
    children = [chunk_ref(c, score=1.0) for c in idx.chunks("child", MEMO)]
    sources, annotated = build_sources(children, idx, parents=True, expand_footnotes=True, budget=2500)
    parents = [s for s in sources if s["kind"] == "parent"]
    assert len({s["id"] for s in parents}) == len(parents)
    assert sum(len(s["text"]) for s in parents) <= 2500 or len(parents) == 1
    # every child points at a source; children whose parent did not fit are sources themselves
    numbers = {s["source"] for s in sources}
    assert all(c["source"] in numbers for c in annotated)
    assert any(s["kind"] == "child" for s in sources)
    assert [s["source"] for s in sources] == list(range(1, len(sources) + 1))


def test_an_answer_stating_what_no_quote_contains_is_cut_without_another_call(sample_index: Path):
    wrong = "No. [1] The credit is 45% of qualified expenses up to $9,999 [1]."
    decided = json.dumps({"rule": "Married taxpayers must file a joint return.", "verdict": "no"})
    graph, llm = graph_with(sample_index, good_script(answer=wrong, yes_no=decided, **pointing_at()))
    result = graph.invoke({"question": QUESTION})
    first = " ".join(result["quotes"][0]["text"].split())
    # "No. [1]" alone says nothing, but the verdict call decided it from a quote: that quote follows it
    assert result.answer == f"No. [1] The source reads: “{first}” [1]" and result["added"] == [result.answer[8:]]
    assert result["removed"] == ["The credit is 45% of qualified expenses up to $9,999 [1]."]
    assert "45%" not in result.answer and result["unsupported"] == []
    assert result["steps"]["read"]["llm_calls"] == 2  # the verdict and the answer: no other call
    # no verdict decided and nothing the model wrote left: the source's words do not stand in for an
    # answer, though the filter found the sources relevant; the refusal, with no citation
    for answer in ("No. [1] The credit is 45% [1].", "It is 45% [1]."):
        graph, llm = graph_with(sample_index, good_script(answer=answer))
        result = graph.invoke({"question": QUESTION})
        assert result["steps"]["read"]["filter_judged_relevant"] is True
        assert result["refused"] and result.answer == "The documents provided do not answer this question."
        assert result["added"] == [] and result.citations == []
    # ... and the same without the extractor (rag): never a verdict and unrelated words
    graph, llm = graph_with(sample_index, good_script(answer="No, it is 45% [1]."), pipeline="rag")
    result = graph.invoke({"question": QUESTION})
    assert result["refused"] and result.answer == "The documents provided do not answer this question."
    assert result.citations == [] and result["steps"]["read"]["refused_by"] == "nothing but a verdict survives"


@pytest.mark.parametrize(
    ("sentence", "refusal"),
    [
        ("The provided information does not address separate returns.", True),
        ("The documents provided here do not address the penalty.", True),
        ("The quotes [1] and [2] do not mention the rate.", True),
        ("The sources I was given don't cover the period.", True),
        ("The text of the regulation provided does not address it.", True),
        ("None of the references address the rate.", True),
        ("It is not addressed in any of the documents.", True),
        ("This ceiling does not cover the fee-collection costs.", False),
        ("The sources show that the cap does not cover interest.", False),
        ("The Evaluation Materials do not cover information that is already public.", False),  # a defined term
        ("The policy lets users copy their data, but it does not mention portability.", False),
    ],
)
def test_a_refusal_sentence_has_the_documents_for_its_subject(sentence: str, refusal: bool):
    assert refuses(sentence) is refusal


def test_a_negative_statement_of_law_is_an_answer_and_a_refusal_speaks_of_the_documents(sample_index: Path):
    # "does not cover" said of the law is an answer: it goes through the stages (cited), not shown as a refusal
    law = "No. A separate return does not cover the education credits: married taxpayers must file a joint return."
    graph, _ = graph_with(sample_index, good_script(answer=law))
    result = graph.invoke({"question": QUESTION})
    assert result["refused"] is False and result.citations and "[1]" in result.answer
    # the same words said of the documents are a refusal, with no citation
    docs = "The documents provided do not cover separate returns. The sources found do not mention the AOTC."
    graph, _ = graph_with(sample_index, good_script(answer=docs))
    result = graph.invoke({"question": QUESTION})
    assert result["refused"] is True and result.citations == []


def test_every_answer_sentence_names_the_stage_that_last_wrote_it(sample_index: Path):
    decided = json.dumps({"rule": "Married taxpayers must file a joint return.", "verdict": "no"})
    written = "Yes. It is 45% [1]. Spouses must file jointly."
    graph, _ = graph_with(sample_index, good_script(answer=written, yes_no=decided))
    result = graph.invoke({"question": QUESTION})
    read = result["steps"]["read"]
    # the verdict stage turned the opening, the cite stage cited the uncited sentence, the support stage
    # removed the figure no quote holds
    assert read["sentences"] == [
        {"sentence": "No.", "by": "verdict"},
        {"sentence": "Spouses must file jointly [1].", "by": "cite"},
    ]
    assert result.answer == "No. Spouses must file jointly [1]."
    assert read["removed_by"] == [
        {"sentence": "It is 45% [1].", "by": "support: figures or quotations no cited quote holds"}
    ]
    # a quote of several sentences is one unit
    from lclfqa.graph.answer import units

    assert units("No [1]. The source reads: “A. B.” [2] Done.") == ["No [1].", "The source reads: “A. B.” [2]", "Done."]
    # a quotation cut inside another closes with it; a stray opening mark holds what follows
    cut = "The source reads: “The court held that “a payment is a gift.” [1]"
    assert units(f"No. {cut} Done. Next.") == ["No.", cut, "Done.", "Next."]
    # a sentence no stage touched is the model's
    kept = "No. Married taxpayers must file a joint return to claim the education credits [1]."
    graph, _ = graph_with(sample_index, good_script(answer=kept, yes_no=decided))
    read = graph.invoke({"question": QUESTION})["steps"]["read"]
    assert [e["by"] for e in read["sentences"]] == ["model", "model"] and read["removed_by"] == []


def test_a_sentence_cited_to_the_wrong_quote_is_cited_to_the_one_holding_its_words(sample_index: Path):
    graph, _ = graph_with(sample_index, good_script(), nearest_quotes=3, min_answer_support=0.5)
    quotes = [" ".join(q["text"].split()) for q in graph.invoke({"question": QUESTION})["quotes"]]
    assert len(quotes) >= 2
    # the answer states quote 2's words but cites quote 1
    moved = f"No. [1] {quotes[1].rstrip('.')} [1]."
    graph, _ = graph_with(sample_index, good_script(answer=moved), nearest_quotes=3, min_answer_support=0.5)
    result = graph.invoke({"question": QUESTION})
    stated = re.sub(r"^\d+\.\s+", "", quotes[1].rstrip("."))  # a heading's number may go with the verdict's full stop
    last = re.split(r"(?<=\.) ", stated)[-1]  # the sentence splitter may cut a heading off: each part cited [2]
    assert f"{last} [2]." in result.answer and f"{last} [1]" not in result.answer
    assert result["steps"]["read"]["recited"] >= 1


def test_an_uncited_sentence_gets_the_quote_that_holds_its_figures(sample_index: Path):
    picked: dict[str, str] = {}

    def quotes(msgs):
        # point at sentence 1.1 and at the first other sentence holding a figure that 1.1 does not hold
        lines = dict(re.findall(r"^\[(\d+\.\d+)\] (.*)$", "\n".join(str(m.content) for m in msgs), re.M))
        for sid, text in lines.items():
            figures = [w.strip(".,;()") for w in text.split() if re.search(r"\d{3}", w)]
            figures = [f for f in figures if f not in lines["1.1"]]
            if sid != "1.1" and figures:
                picked["figure"] = figures[0]
                return json.dumps({"sentences": ["1.1", sid]})
        raise AssertionError("no sentence with a figure")

    def answer(msgs):
        return f"No. The figure is {picked['figure']}."

    graph, _ = graph_with(sample_index, good_script(quotes=quotes, answer=answer))
    result = graph.invoke({"question": QUESTION})
    holding = [n for n, q in enumerate(result["quotes"], 1) if picked["figure"] in q["text"]]
    assert len(holding) == 1 and f"is {picked['figure']} [{holding[0]}]." in result.answer
    assert result.citations[0]["n"] == holding[0]


DISSENT = {
    "section": ["JUSTICE PATEL, JUSTICE JONES, and JUSTICE NGUYEN, dissenting.", "I"],
    "text": "Most threatening of all, no language in today's decision stops the agency from acting.",
}
CONCURRENCE = {
    "section": ["JUSTICE LEE, concurring.", "I"],
    "text": "As Justice Holmes stated, the States may, if they wish, license the trade.",
}
COURT = {
    "section": ["JUSTICE SMITH delivered the opinion of the Court.", "II"],
    "text": "Nor does the dissent dispute the fact that the levy was collected at common law.",
}
STATUTE = {"section": ["Title 26", "§ 1.21-3 Special rules"], "text": "No credit is allowed unless a joint return."}


@pytest.mark.parametrize(
    ("sentence", "cited", "wrong"),
    [
        # a dissent's words put in a concurrence's mouth (and the majority's)
        ('Justice Lee concurs in the majority\'s ruling that "no language stops it" [1].', [DISSENT], True),
        ("Justice Lee says the States may license the trade [1].", [COURT], True),
        ("Justice Lee dissents from the majority's ruling [1].", [DISSENT], True),  # the role fits, he does not
        ("Unlike Justice Lee, the principal dissent warns of agency bans [1].", [DISSENT], False),  # both
        ("The principal dissent says no language stops the agency [1].", [DISSENT], False),
        ("Justice Lee, quoting Justice Holmes, says the States may permit it [1].", [CONCURRENCE], False),
        (
            "As Justice Holmes stated, the States may license the trade [1].",
            [CONCURRENCE],
            False,
        ),  # the quote names him
        ("The majority notes that the dissent does not dispute it [1].", [COURT], False),
        # a dissent speaking of "this Court" does not make its words the majority's
        (
            "The majority applies the standing rule [1].",
            [{**DISSENT, "text": "The approach this Court has used."}],
            True,
        ),
        ("The Lee concurrence and the dissent differ [1] [2].", [CONCURRENCE, DISSENT], False),
        ("The Court says no credit is allowed [1].", [STATUTE], False),  # no opinion to check against
        ("The levy was collected at common law [1].", [DISSENT], False),  # names no one
        ("Justice Lee's view is that the States may permit it [1].", [CONCURRENCE], False),  # possessive
        ("Justice Lee’s view is that no language stops it [1].", [DISSENT], True),
        # a heading that names no Justice cannot contradict a name, only a role
        (
            "Justice Smith wrote that the levy was collected [1].",
            [{**COURT, "section": ["Opinion of the Court"]}],
            False,
        ),
        (
            "The dissent says the levy was collected [1].",
            [{**COURT, "section": ["Opinion of the Court"], "text": "x"}],
            True,
        ),
    ],
)
def test_a_sentence_naming_an_opinion_its_quotes_do_not_come_from_is_misnamed(sentence, cited, wrong):
    from lclfqa.graph.answer.attribution import misnamed

    assert misnamed(sentence, cited) is wrong


@pytest.mark.parametrize(
    ("question", "sentence", "cited", "wrong"),
    [
        # asked what the majority said: a dissent's words stated as the answer, whose they are unsaid
        ("What did the majority say about standing?", "The standing rule is inconsistent [1].", [DISSENT], True),
        ("What did the majority say about standing?", "The majority ignores that rejection [1].", [DISSENT], True),
        # said whose they are: kept (misnamed checks the name)
        (
            "What did the majority say about standing?",
            "The dissent says the standing rule fails [1].",
            [DISSENT],
            False,
        ),
        ("What did the Court hold?", "Justice Lee adds that the States may permit it [1].", [CONCURRENCE], False),
        # resting on the Court's quote too, or on the Court's alone: kept
        ("What did the Court hold?", "The levy was collected at common law [1] [2].", [DISSENT, COURT], False),
        ("What did the Court hold?", "The levy was collected at common law [1].", [COURT], False),
        # a question about the dissent, or not about the holding, or a statute: not checked
        ("What does the dissent say?", "No language stops the agency [1].", [DISSENT], False),
        ("What is stare decisis?", "No language stops the agency [1].", [DISSENT], False),
        ("What did the Court hold?", "No credit is allowed [1].", [STATUTE], False),
    ],
)
def test_in_an_answer_about_the_holding_a_separate_opinions_words_must_say_whose_they_are(
    question, sentence, cited, wrong
):
    from lclfqa.graph.answer.attribution import unattributed

    assert unattributed(question, sentence, cited) is wrong


def test_the_reader_sees_the_quotes_nearest_the_question_first_and_only_the_courts_for_the_holding():
    from lclfqa.graph.answer.attribution import reading_order, the_courts

    def quote(text: str, section: list[str] | None = None) -> dict:
        return {"text": text, "section": section or []}

    picks = [
        quote("The installment sale tax payment rule."),
        quote("A sentence on the weather."),
        quote("The payment due date under the installment sale tax."),
        quote("The tax is reported."),
    ]
    # by the extractor's rank plus twice the rank by closeness (word overlap here, no embedder): the third
    # pick, nearest the question, comes before the second, which shares no word with it
    assert reading_order("What is the payment due date for the installment sale tax?", picks) == [0, 2, 1, 3]
    dissent, court = quote("Levy law.", DISSENT["section"]), quote("The history of levy law.", COURT["section"])
    assert the_courts("What did the dissent say about levy law?", [dissent, court]) == [dissent, court]
    # asked about the majority: the dissent's words are not shown beside the Court's, but they are where
    # there is nothing else
    assert the_courts("What did the majority say about levy law?", [dissent, court]) == [court]
    assert the_courts("What did the majority say about levy law?", [dissent]) == [dissent]


def test_a_judgments_heading_naming_the_judges_who_concur_in_it_is_the_courts():
    """The Supreme Court of Appeal of South Africa heads its judgment "Dambuza AP and Nicholls JA (Saldulker,
    Mabindla-Boqwana, and Goosen JJA concurring):"; read as a concurrence, a question on what the court held lost
    every quote of the judgment."""
    from lclfqa.graph.answer.attribution import opinion_of, separate_opinion, the_courts

    heading = "Dambuza AP and Nicholls JA (Saldulker, Mabindla-Boqwana, and Goosen JJA concurring):"
    judgment = {"text": "We are not persuaded that the hospital staff were negligent.", "section": [heading]}
    caption = {"text": "Not Reportable\nCase No:\n272/2022\nIn the matter between:", "section": []}
    asked = "Did the Supreme Court of Appeal hold that the hospital staff were negligent?"
    assert the_courts(asked, [judgment, caption]) == [judgment, caption]
    assert separate_opinion(judgment) == "" and opinion_of(judgment) == heading  # (the instruction: left as it was)
    # a parenthesis holding the author's own role stays; a US-style separate opinion is one still
    assert separate_opinion({"section": ["TAN, Circuit Judge (Dissenting)."]}) == "TAN, Circuit Judge (Dissenting)."
    from lclfqa.index.opinion_scope import own_words

    assert own_words("LORD REED (with whom Lord Hodge and Lady Black agree)") == "LORD REED"
    dissent = {"text": "The majority errs.", "section": ["JUSTICE PATEL, with whom JUSTICE LEE joins, dissenting."]}
    assert the_courts(asked, [dissent, judgment]) == [judgment]


def test_a_yes_no_answer_opens_with_the_verdict_decided_over_the_quotes(sample_index: Path):
    script = good_script(
        yes_no=json.dumps({"rule": "Married taxpayers must file a joint return.", "verdict": "no"}),
        answer="Yes, married taxpayers must file a joint return [1].",
    )
    graph, llm = graph_with(sample_index, script)
    result = graph.invoke({"question": QUESTION})
    assert result.answer == "No. Married taxpayers must file a joint return [1]."
    assert result["verdict"] == "no" and result["steps"]["read"]["verdict_enforced"] is True
    assert result["steps"]["read"]["rule"] == "Married taxpayers must file a joint return."
    # the verdict was asked over the reader's quotes (same prefix as the answer call: one KV cache), after
    # the extractor, which no longer decides it; the reader was told it
    calls = {key: m for key, m, _ in llm.calls}
    assert llm.routes()[-2:] == ["yes_no", "answer"] and '"verdict"' not in calls["quotes"][-1].content
    assert [m.content for m in calls["yes_no"][:-1]] == [m.content for m in calls["answer"][:-1]]
    assert 'question from the quotes above: "Can a married couple filing MFS' in calls["yes_no"][-1].content
    assert 'answer it "no"' in calls["answer"][-1].content
    # a question that is not yes/no gets no verdict call
    graph, llm = graph_with(sample_index, good_script(answer="Married taxpayers must file a joint return [1]."))
    result = graph.invoke({"question": "What must married taxpayers do to claim the AOTC?"})
    assert result["verdict"] == "" and result.answer == "Married taxpayers must file a joint return [1]."
    assert "yes_no" not in llm.routes()


def test_a_statement_to_judge_is_decided_by_the_reader_not_by_a_verdict_call(sample_index: Path):
    # the verdict call said "true" to every false statement: a statement is the reader's to decide, as in the
    # baselines; its own "False" stays, and the stream gets no verdict before the answer
    statement = "True or false: married taxpayers filing separately may claim the AOTC."
    script = good_script(answer="False. Married taxpayers must file a joint return [1].")
    graph, llm = graph_with(sample_index, script)
    result = graph.invoke({"question": statement})
    assert "yes_no" not in llm.routes()
    assert result["verdict"] == "" and result.answer.startswith("False. Married taxpayers must file a joint return")
    told = {key: m for key, m, _ in llm.calls}["answer"][-1].content
    assert 'begin the answer with "True" or "False"' in told
    # a yes/no question keeps its verdict call, and its answer opens with the verdict decided
    decided = json.dumps({"rule": "Married taxpayers must file a joint return.", "verdict": "no"})
    graph, llm = graph_with(sample_index, good_script(yes_no=decided, answer="A joint return is needed [1]."))
    result = graph.invoke({"question": QUESTION})
    assert "yes_no" in llm.routes() and result["verdict"] == "no" and result.answer.startswith("No. A joint return")


def test_a_verdict_alone_on_the_first_line_ends_with_a_full_stop(sample_index: Path):
    statement = "True or false: a married couple filing separately may claim the AOTC."
    script = good_script(answer="False\nMarried taxpayers must file a joint return [1].")
    graph, _ = graph_with(sample_index, script)
    assert graph.invoke({"question": statement}).answer.startswith("False. Married taxpayers must file a joint return")


def test_without_the_extractor_the_reader_continues_the_filters_prompt(sample_index: Path):
    # setting extractor off (ablation no-extract): no extractor call; the verdict call and the answer call
    # read the retrieved children in the filter's own prompt (one prefix, evaluated once by llama.cpp), and the
    # answer cites them by their source numbers, as rag's does
    yes_no = json.dumps({"rule": "Married taxpayers must file a joint return.", "verdict": "no"})
    graph, llm = graph_with(
        sample_index, good_script(yes_no=yes_no, answer="Married taxpayers must file jointly [1]."), extractor=False
    )
    result = graph.invoke({"question": QUESTION})
    assert llm.routes()[-3:] == ["verdicts", "yes_no", "answer"] and "quotes" not in llm.routes()
    calls = {key: m for key, m, _ in llm.calls}
    shared = [m.content for m in calls["verdicts"][:-1]]
    assert [m.content for m in calls["yes_no"][:-1]] == shared == [m.content for m in calls["answer"][:-1]]
    assert "[1.1]" not in shared[-1]  # the references as rag reads them, not numbered by sentence
    assert result["verdict"] == "no" and result.answer.startswith("No. Married taxpayers must file jointly [1].")
    assert result["quotes"] == [] and result.citations and result["steps"]["extract"]["skipped"] is True


def test_a_failed_verdict_call_leaves_the_readers_own_opening(sample_index: Path):
    script = good_script(yes_no=RuntimeError("endpoint down"), answer="Yes, a joint return is required [1].")
    graph, _ = graph_with(sample_index, script)
    result = graph.invoke({"question": QUESTION})
    assert result.answer == "Yes, a joint return is required [1]." and result["verdict"] == ""


def test_the_nearest_sentences_join_the_extractors_picks(sample_index: Path):
    graph, _ = graph_with(sample_index, good_script(), nearest_quotes=2)
    result = graph.invoke({"question": QUESTION})
    quotes = result["quotes"]
    # the reader's order puts the quotes nearest the question first: the extractor's pick is among them
    assert sorted(q["how"] for q in quotes) == ["nearest", "nearest", "pointed"]
    assert len({" ".join(q["text"].split()) for q in quotes}) == 3  # none repeats the model's pick
    retrieved = {c["id"]: c["text"] for c in result["retrieved"]}
    assert all(q["text"] in retrieved[q["child"]] and len(q["text"].split()) >= 5 for q in quotes[1:])
    assert result["steps"]["extract"]["nearest_quotes"] == 2


def test_a_sentence_in_words_no_quote_holds_is_removed(sample_index: Path):
    def answer(msgs):  # one sentence copied from the quote it cites, one invented
        quote = _opening_words(msgs, 1, words=15)
        return f"{quote} [1]. The majority avoided the substantial understatement penalty without disclosure [1]."

    graph, llm = graph_with(sample_index, good_script(answer=answer), min_answer_support=0.5)
    result = graph.invoke({"question": "What does the memo say?"})
    assert result["removed"] == ["The majority avoided the substantial understatement penalty without disclosure [1]."]
    assert "penalty" not in result.answer and result.answer.endswith("[1].")
    # one answer call (no second try at the sentence) and the removal counted
    assert result["steps"]["read"]["llm_calls"] == 1 and result["steps"]["read"]["unfounded"] == 1


@pytest.mark.parametrize(
    ("sentence", "asks"),
    [
        ("When is the election due [2]?", True),
        ("Can the partner deduct it? [3]", True),
        ("The election is due with the return for the year [2].", False),
        ("The question whether it may is left open [2].", False),
        ("The Court asked, “Is the right deeply rooted in history?” [1].", False),  # reports a question
    ],
)
def test_a_sentence_that_asks_states_nothing(sentence: str, asks: bool):
    assert asks_back(sentence) == asks


@pytest.mark.parametrize(
    ("sentence", "said"),
    [
        ("No list of sources at the end [3].", True),  # a reader's rule, word for word
        ("The general rule first, then its conditions and exceptions [2].", True),
        ("Every sentence ends with the number of the reference text it rests on.", True),  # either wording
        ("The general rule is that the lessee bears the risk of loss [2].", False),  # a few of a rule's words
        ("Copy the invoice and keep it for seven years [1].", False),
        ("The documents do not address this.", False),  # a refusal never is
    ],
)
def test_the_readers_instructions_said_back_are_no_answer(sentence: str, said: bool):
    assert said_back(sentence) is said


def test_a_cited_sentence_saying_the_documents_do_not_answer_goes_beside_an_answer(sample_index: Path):
    answer = (
        "Married taxpayers must file a joint return to claim the education credits [1]. "
        "The documents provided do not give a clear answer to this question [1]. "
        "No list of sources at the end [1]."
    )
    graph, _ = graph_with(sample_index, good_script(answer=answer))
    result = graph.invoke({"question": "What must married taxpayers do to claim the education credits?"})
    assert result.answer == "Married taxpayers must file a joint return to claim the education credits [1]."
    assert [e["by"] for e in result["steps"]["read"]["removed_by"]] == [
        "support: repeats the reader's instructions",
        "refuse: a refusal beside an answer",
    ]
    assert result["refused"] is False


def test_a_sentence_citing_nothing_is_judged_by_the_quote_holding_its_words():
    from lclfqa.graph.answer.attribution import misnamed
    from lclfqa.graph.answer.check import check_answer, resting_on

    quotes = [DISSENT, CONCURRENCE]
    texts = [q["text"] for q in quotes]
    sentence = "Justice Lee says nothing in today's decision stops the agency from acting."
    (check,) = check_answer(sentence, texts)
    assert check.cites == [] and resting_on(check, texts) == [1]  # the dissent's words
    assert misnamed(sentence, [quotes[n - 1] for n in resting_on(check, texts)])
    # a sentence that cites keeps its citations; one too short to say anything rests on nothing
    (cited,) = check_answer(sentence + " [2]", texts)
    assert resting_on(cited, texts) == [2]
    (verdict,) = check_answer("No, it is not.", texts)
    assert resting_on(verdict, texts) == []
    # a short sentence copied word for word from a quote rests on it (its words are that opinion's)
    held = ["x", "The majority ignores that rejection. It cites no case."]
    (copied,) = check_answer("The majority ignores that rejection.", held)
    assert resting_on(copied, held) == [2]
    (other,) = check_answer("The majority ignores that request.", held)  # not a copy: too short to judge
    assert resting_on(other, held) == []
    (part,) = check_answer("The majority ignores that reject.", held)  # a copy of words, not of part of one
    assert resting_on(part, held) == []
    (verdict,) = check_answer("The answer is no.", ["In my view, the answer is no."])  # one content word
    assert resting_on(verdict, ["In my view, the answer is no."]) == []
    (short,) = check_answer("It stops.", ["It stops."])  # two words: too short to be anyone's
    assert resting_on(short, ["It stops."]) == []


def test_a_figure_the_user_gave_is_neither_removed_nor_flagged(sample_index: Path):
    question = "My client paid $77,777 of tuition. Can a married couple filing MFS claim the AOTC?"
    graph, _ = graph_with(
        sample_index,
        good_script(answer="No. Married taxpayers must file jointly; the $77,777 paid does not count [1]."),
    )
    result = graph.invoke({"question": question})
    assert "$77,777" in result.answer and result["unsupported"] == [] and result["removed"] == []
    graph, _ = graph_with(
        sample_index,
        good_script(answer="No. Married taxpayers must file jointly; the $66,666 paid does not count [1]."),
    )
    result = graph.invoke({"question": question})
    assert "$66,666" not in result.answer  # a figure neither the user nor a quote gave: removed
