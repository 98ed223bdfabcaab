"""Figures and quotations of an answer that no source contains: lookup rules and the graph's warning.

(What ``lclfqa ask`` prints is tested in ``test_cli_qa.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

from lclfqa.graph.evidence.grounding import dollar_amounts, percentages, quotations, unsupported
from lclfqa.graph.result import QAResult
from tests.test_graph import QUESTION, _count_refs, good_script, graph_with

SOURCE = (
    "‘‘(a) GENERAL RULE.—There is hereby imposed on each covered corporation a tax equal to 1 percent of the\n"
    "fair market value of any stock of the corporation which is repurchased. The credit amount is $24 million\n"
    "(.2 × $120 million); the limit is $1,500,000 and 2.5 percentage points. Any such election, once made, shall be "
    "irre-\nvocable."
)


def test_figures_are_read_with_their_values():
    assert percentages("20% and 1 percent, 2.5 percentage points, per cent 7") == {
        20.0: "20%",
        1.0: "1 percent",
        2.5: "2.5 percentage points",
    }
    assert dollar_amounts("$15,000, $1.5 million, $ 24 million and $3.50") == {
        15000.0: "$15,000",
        1500000.0: "$1.5 million",
        24000000.0: "$ 24 million",
        3.5: "$3.50",
    }
    assert quotations('He said "five words are not enough" and “this one has six words in it”.') == [
        "this one has six words in it"
    ]


def test_figures_and_quotations_found_in_no_source_are_listed_as_written():
    answer = (
        "The tax is 1% of the fair market value [1], the limit is $1.5 million and the credit $24 million. "
        'The statute says: "a tax equal to 1 percent of the fair market value of any stock". '
        'An election "once made, shall be irrevocable" applies. The WOTC rate is 40% and the cap $6,000; '
        '"The credit rate for the work opportunity tax credit is 40 percent."'
    )
    assert unsupported(answer, [SOURCE]) == [
        "40%",
        "$6,000",
        "“The credit rate for the work opportunity tax credit is 40 percent.”",
    ]
    assert unsupported(answer, [SOURCE, "a work opportunity tax credit of 40%, capped at $6,000"]) == [
        "“The credit rate for the work opportunity tax credit is 40 percent.”"
    ]
    assert unsupported("No figures here.", [SOURCE]) == []
    assert unsupported("The rate is 20%.", []) == ["20%"]


def test_an_invented_figure_never_reaches_the_user_and_a_flagged_one_is_shown(sample_index: Path):
    invented = "No. The credit is 45% of qualified expenses, up to $9,999 [1]."
    graph, _ = graph_with(sample_index, good_script(answer=invented))
    result = graph.invoke({"question": QUESTION})
    assert "45%" not in result.answer and "$9,999" not in result.answer and result.unsupported == []
    assert result["removed"] == ["The credit is 45% of qualified expenses, up to $9,999 [1]."]
    # the warning still renders for anything the sources lack (figures of a source-less answer, say)
    flagged = QAResult({"answer": invented, "unsupported": ["45%", "$9,999"], "citations": []})
    assert flagged.to_json()["unsupported"] == ["45%", "$9,999"]
    assert "Warning." in flagged._repr_markdown_() and "45%; $9,999" in flagged._repr_html_()
    assert flagged.warning_text() == "Not found in any source; check before relying on it: 45%; $9,999"
    graph, _ = graph_with(sample_index, good_script())  # the scripted answer has no figures
    clean = graph.invoke({"question": QUESTION})
    assert clean.unsupported == [] and clean.warning_text() == "" and "Warning" not in clean._repr_markdown_()


def test_a_quotation_from_a_footnote_is_quoted_as_the_footnote_and_supported(sample_index: Path):
    # The extractor quotes footnote 1, a reference of its own (not the parent it was injected into).
    question = "When did the AOTC begin as a temporary expansion of the Hope Scholarship Credit?"
    quote = "The AOTC began as a temporary expansion of the Hope Scholarship Credit"

    def quotes(msgs):
        text = "\n".join(str(m.content) for m in msgs)
        ref = next(i for i in range(1, _count_refs(msgs) + 1) if quote in text.split(f"<reference {i}>")[1])
        return json.dumps({"quotes": [{"ref": ref, "quote": quote}]})

    script = good_script(
        verdicts=lambda msgs: json.dumps({"relevant": [True] + [False] * (_count_refs(msgs) - 1)}),
        quotes=quotes,
        answer=f'The memo says: "{quote}" [1].',
    )
    graph, _ = graph_with(sample_index, script)
    result = graph.invoke({"question": question})
    # a footnote is quoted whole (lclfqa/graph/nodes/widen.py): the quote is the footnote, marker and all
    note = result["quotes"][0]["text"]
    assert result["quotes"][0]["kind"] == "footnote" and note.startswith(f"1 {quote},") and "uses the Hope name" in note
    assert result.answer == f'The memo says: "{quote}" [1].' and result["removed"] == []
    assert result.citations[0]["quote"] == note and result.unsupported == []


def test_a_citation_marker_inside_a_quotation_is_not_part_of_it():
    from lclfqa.graph.evidence.grounding import unsupported

    source = "The indictment ended: against the peace of our Lady the Queen, her crown and dignity."
    answer = "It ended “against the peace of our Lady the Queen, her crown and dignity [4].”"
    assert unsupported(answer, [source]) == []
    assert unsupported("It ended “against the peace of our Lord the King, his crown [4].”", [source]) != []
