"""Defensive parsing of LLM output, prompt data, offline weights and QA settings."""

from __future__ import annotations

import hashlib
import os

import pytest

from lclfqa import prompts
from lclfqa.config import Settings
from lclfqa.graph.context import plan_for
from lclfqa.graph.evidence.refusal import (
    asked_quantity,
    cited_sections,
    defined_terms,
    missing_sections,
    names_term,
    refusal_reason,
    state_missing_sections,
    state_missing_terms,
    states_quantity,
    subject_not_found,
    unstated_quantities,
)
from lclfqa.graph.nodes.filter import FILTER_VERDICTS
from lclfqa.llm import parsing
from lclfqa.llm.weights import SplitWeights, WeightsError, ensure_joined


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<information>a [1]</information>", "a [1]"),
        ("preamble <information>a\nb", "a\nb"),  # missing closing tag
        ("no tags at all", "no tags at all"),
        ("<INFORMATION> x </INFORMATION> trailing", "x"),
    ],
)
def test_tagged(text: str, expected: str):
    assert parsing.tagged(text, "information") == expected


def test_json_object_bare_fenced_and_in_prose():
    assert parsing.json_object('{"a": 1}') == {"a": 1}
    assert parsing.json_object('Sure!\n```json\n{"a": [1, 2]}\n```') == {"a": [1, 2]}
    assert parsing.json_object('Here: {"a": "}"} and more') == {"a": "}"}
    assert parsing.json_object("[1, 2]") is None and parsing.json_object("{broken") is None


@pytest.mark.parametrize(
    ("text", "n", "verdicts", "ok"),
    [
        ('{"relevant": [true, false, true]}', 3, [True, False, True], True),
        ("[false, true]", 2, [False, True], True),
        ("True\nFalse", 3, [True, False, True], False),  # a missing verdict keeps the chunk
        ('{"relevant": ["yes", "no"]}', 2, [True, False], False),
        ("garbage", 2, [True, True], False),
        ('{"relevant": [true, false, false, false]}', 2, [True, False], False),  # too many: first n
    ],
)
def test_booleans(text: str, n: int, verdicts: list[bool], ok: bool):
    assert parsing.booleans(text, n) == (verdicts, ok)


def test_rewrites_from_json_and_from_numbered_lines():
    found, translation, ok = parsing.rewrites('{"rewrites": ["1. A?", "B?"], "translation": "plain"}', 3)
    assert found == ["A?", "B?"] and translation == "plain" and ok
    found, translation, ok = parsing.rewrites("Here you go:\n1. Is A allowed?\n2) Is B?\n- Is C?\nthanks", 3)
    assert found == ["Is A allowed?", "Is B?", "Is C?"] and translation == "" and not ok


def test_cited_numbers():
    assert parsing.cited_numbers("Rule [2]. Exception [1][3], see [2, 4] and [5-7].") == [2, 1, 3, 4, 5, 6, 7]
    assert parsing.cited_numbers("section 25A(b)(1) and [a] are not citations") == []


@pytest.mark.parametrize(
    "case",
    [
        "Smith v Jones [2019] HCA 7",
        "Re Brown [1998] AC 20",
        "Doe v Roe [2012] 2 All ER 1",
        "R v Lee [1875] QB 9",
        "Ng v Ho [2019] 2 Qd R 123",
        "The Ship [1998] 2 Lloyd's Rep 114",
        "Fox v Hart [2019] EWCA Civ 7",
        "Ka v Lo [2021] ZZCA 3",  # a court nobody has named: the rule names none
    ],
)
def test_a_neutral_citations_year_is_part_of_the_case_not_a_marker(case):
    sentence = f"In {case}, the Court held the clause a penalty [2]."
    assert parsing.cited_numbers(sentence) == [2]
    assert parsing.CITATION_RE.sub("", sentence) == f"In {case}, the Court held the clause a penalty ."
    # a marker is still one where no law report follows, and a year-like marker before a sentence too
    assert parsing.cited_numbers("The rate is 5 percent [2019]. It rose [3] [1998].") == [2019, 3, 1998]
    assert parsing.cited_numbers("The rate is 5 percent [2020] The next.") == [2020]


def test_the_other_marker_patterns_know_a_neutral_citation_and_a_marker_list():
    # a marker between two full stops, a line of markers, a list of sources the model wrote at the end
    assert parsing.clean_answer("It is refundable. [2, 3].") == "It is refundable [2, 3]."
    assert parsing.collapse_citation_runs("It held so.\n[2, 3]\nNext.") == "It held so. [2, 3]\nNext."
    assert parsing.collapse_citation_runs("It is so [4], [4] and [5] and [5].") == "It is so [4] [5]."
    listed = "No.\nSources:\n[1] The credit is refundable.\n[2, 3] It phases out."
    assert parsing.strip_source_list(listed) == "No."
    kept = "No.\nSources:\n[2019] ABC 7 is the case."
    assert parsing.strip_source_list(kept) == kept


def test_citations_written_first_move_after_a_sentence_that_opens_with_a_neutral_citation():
    answer = "[1] The clause was a penalty. [2] [2019] HCA 7 so held. [3] The appeal was allowed."
    assert parsing.citations_last(answer) == (
        "The clause was a penalty [1]. [2019] HCA 7 so held [2]. The appeal was allowed [3]."
    )


def test_clean_answer():
    assert parsing.clean_answer("<answer>Yes [1].</answer>") == "Yes [1]."
    assert parsing.clean_answer("Answer: No [2]. <answer>") == "No [2]."
    assert parsing.clean_answer("**Answer:** Yes") == "Yes"


def test_render_fills_known_placeholders_and_keeps_literal_braces():
    assert prompts.render("{a} {{json}} {unknown}", a=1) == "1 {json} {unknown}"


def test_every_template_renders_with_the_values_nodes_pass():
    values = dict(
        question="q",
        history="h",
        examples="e",
        n=3,
        references="r",
        translated_question="t",
        plain_terms="",
        comfort_rule="",
        opinion_rule="",
        sources="s",
        vocabulary="v",
        context="c",
        refusal=prompts.refusal(),
        refusal_rule=prompts.reader_rule(False),
        evidence="q",
        unit="quote",
        unit_plural="quotes",
        problems="p",
        verdict_rule="",
        parts_rule="",
        max_quotes=6,
        verdict="",
        verdict_json="",
    )
    for name in (
        "condense",
        "query2doc",
        "rewrites",
        "reading",
        "filter_cot",
        "filter_direct",
        "extract",
        "read_domain",
        "read_basic",
    ):
        t = prompts.template(name)
        text = prompts.render(t.get("system", "") + t["user"], **values)
        assert "{" not in text.replace('{"', "").replace("{}", ""), name


def test_acronyms_are_expanded_once_as_whole_words():
    text = prompts.expand_acronyms("Can MFS filers claim the AOTC? The AOTC and E&P, not AOTCs or mfs.")
    assert text.startswith(
        "Can MFS (married filing separately) filers claim the AOTC (American Opportunity Tax Credit)?"
    )
    assert text.count("American Opportunity") == 1 and "AOTCs" in text and "mfs." in text
    assert "E&P (earnings and profits)" in text
    assert (
        prompts.expand_acronyms("the AOTC (American Opportunity Tax Credit)")
        == "the AOTC (American Opportunity Tax Credit)"
    )
    assert list(prompts.find_acronyms("PFIC and REMIC")) == ["PFIC", "REMIC"]


def test_reader_material_is_loaded():
    assert "more likely than not" in prompts.vocabulary("What level of comfort can the opinion give?")
    assert prompts.query2doc_examples().count("Query:") >= 2


@pytest.mark.parametrize(
    ("question", "comfort", "characterization"),
    [
        ("Can a married couple filing MFS claim the AOTC?", False, False),
        ("What level of comfort can we give that the spin-off is tax-free?", True, False),
        ("Should the opinion say the position has substantial authority?", True, False),
        ("What is the tax characterization of a return of capital?", False, True),
        ("Is the credit refundable?", False, True),
        ("In Dobbs, what did the majority say about stare decisis?", False, False),
        ("What is the maximum civil penalty for a breach of the duty?", False, False),  # a penalty is no level
        ("Was the statute sustained, and was the injunction upheld on appeal?", False, False),
        ("Does the return position give the client penalty protection?", True, False),
        ("Would the position be sustained if challenged?", True, False),
        ("", False, False),
    ],
)
def test_the_key_legal_phrases_are_the_groups_the_question_calls_for(question, comfort, characterization):
    text = prompts.vocabulary(question)
    assert ("Levels of comfort" in text, "more likely than not" in text) == (comfort, comfort)
    assert ("Tax characterization terms:" in text) == characterization
    assert text.count("Citation style:") == 1 and "opinion letter" not in text  # the `when` words are not shown


def _weights(tmp_path, parts: list[bytes], good: bytes | None = None) -> SplitWeights:
    good = b"".join(parts) if good is None else good
    return SplitWeights(
        "m.gguf", tuple(f"p{i}" for i in range(len(parts))), len(good), hashlib.sha256(good).hexdigest()
    )


def test_weights_are_joined_atomically_and_verified(tmp_path, monkeypatch):
    parts = [b"abc" * 1000, b"def" * 10, b"g"]
    files = []
    for i, data in enumerate(parts):
        f = tmp_path / f"part{i}.bin"
        f.write_bytes(data)
        files.append(f)
    monkeypatch.setattr("lclfqa.llm.weights.part_paths", lambda w: files)
    w = _weights(tmp_path, parts)
    path = ensure_joined(w, tmp_path / "cache")
    assert path.read_bytes() == b"".join(parts)
    # a corrupted cached file is rebuilt from the parts
    import lclfqa.llm.weights as weights

    weights._verified.clear()
    path.write_bytes(b"tampered")
    assert ensure_joined(w, tmp_path / "cache").read_bytes() == b"".join(parts)
    # a later process trusts the stamp of an unchanged file and does not hash it again; a changed file
    # (another size, mtime or inode) is hashed again
    weights._verified.clear()
    hashed = []
    real = weights._sha256
    monkeypatch.setattr("lclfqa.llm.weights._sha256", lambda p: hashed.append(p) or real(p))
    assert ensure_joined(w, tmp_path / "cache") == path and hashed == []
    weights._verified.clear()
    os.utime(path, ns=(1, 1))
    assert ensure_joined(w, tmp_path / "cache") == path and hashed == [path]
    weights._verified.clear()
    path.write_bytes(b"x" * len(b"".join(parts)))  # same size, other bytes, new mtime: refused and rebuilt
    assert ensure_joined(w, tmp_path / "cache").read_bytes() == b"".join(parts)
    # parts that are not the expected bytes are refused, and nothing is left behind
    weights._verified.clear()
    bad = _weights(tmp_path, parts, good=b"something else")
    with pytest.raises(WeightsError, match="not the official m.gguf"):
        ensure_joined(bad, tmp_path / "other")
    assert list((tmp_path / "other").iterdir()) == []


def test_qa_settings_validate_and_choose_the_plan():
    with pytest.raises(ValueError, match="pipeline must be one of"):
        Settings(pipeline="graph-rag")
    with pytest.raises(ValueError, match="rewrites must be 0, 1 or 3"):
        Settings(rewrites=2)
    assert Settings.load(env={"LCLFQA_TOP_K": "4", "LCLFQA_PIPELINE": "rag"}).top_k == 4
    assert plan_for(Settings(pipeline="rag")).parents is False
    longrag = plan_for(Settings(pipeline="longrag", rewrites=3, reader="domain"))
    assert (longrag.rewrites, longrag.reader, longrag.expand_footnotes) == (0, "basic", False)
    lclf = plan_for(Settings(rewrites=1, reader="basic"))
    assert (lclf.rewrites, lclf.reader, lclf.filter, lclf.extract) == (1, "basic", True, True)


def test_llm_cache_setting_makes_reruns_free(tmp_path):
    from langchain_community.cache import SQLiteCache

    from lclfqa.llm.models import get_chat_model
    from lclfqa.safe_load import strict_llm_cache
    from tests.fakes import ScriptedChat

    local = get_chat_model("local-tiny", settings=Settings(llm_cache=str(tmp_path / "cache" / "llm.sqlite")))
    assert isinstance(local.cache, SQLiteCache)  # the model file is not loaded until the first call
    # the cache class the setting installs, which reads entries back through an allow-list
    llm = ScriptedChat(script={"answer": "cached"}, cache=strict_llm_cache(tmp_path / "c.sqlite"))
    prompt = "Answer the question from the sources above"
    assert llm.invoke(prompt).content == llm.invoke(prompt).content == "cached"
    assert len(llm.calls) == 1


# --- refusal checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "cited"),
    [
        ("How does the memo treat depreciation of rental property under section 168?", ["168"]),
        ("Under §§ 1.25A-1 and 1.25A-2, who may claim the credit?", ["1.25A-1", "1.25A-2"]),
        ("Does 26 CFR 1.21-3(b)(2) apply to a nonresident alien?", ["1.21-3"]),
        ("Is sec. 45x limited by IRC 4501(c)(1)?", ["45X", "4501"]),
        ("See Treas. Reg. 1.21-4 and sections 21, 25A and 199A.", ["1.21-4", "21", "25A", "199A"]),
        ("Which rate applies to the PTC in 2023 under this section?", []),
        ("What does IRC §25A(g)(6) require?", ["25A"]),
        ("Did the regulation 2023 amendment change anything?", []),  # a year, not a regulation number
        # without dots, an Oxford comma, a span; not a rate after a comma
        ("What does 26 USC 25A say? Is sec 179 available?", ["25A", "179"]),
        ("Do section 179, 168(k), or 1031 apply?", ["179", "168", "1031"]),
        ("What do §§ 1.25A-1 through 1.25A-5 say?", ["1.25A-1", "1.25A-5"]),
        ("What does s 588G of the Corporations Act require?", []),  # see provisions.py
        ("Per 26 U.S.C. § 25A(i), is 40% refundable?", ["25A"]),
    ],
)
def test_cited_sections(question, cited):
    assert cited_sections(question) == cited


def test_missing_sections_match_whole_provision_numbers():
    texts = ["Under § 1.21-3(a) a joint return is required.", "Section 1199A and 199AB are other rules."]
    assert missing_sections("section 199A and § 1.21-3", texts) == (["199A", "1.21-3"], ["199A"])
    assert missing_sections("§ 1.21-30", texts) == (["1.21-30"], ["1.21-30"])
    assert missing_sections("What is a joint return?", texts) == ([], [])
    assert missing_sections("IRC §25A(d)(3)", ["IRC \u00a725A(d)(3)."]) == (["25A"], [])
    assert refusal_reason(["199A", "1.25A-1"]) == "None of the sources found mentions section 199A or § 1.25A-1."


def test_a_provision_is_the_same_with_any_dash():
    # the Federal Register prints "§ 1.1411–4" (en dash) where eCFR prints "§ 1.1411-4": a question typed
    # either way finds a source printed the other way, and is not refused as citing what no source mentions
    assert cited_sections("What does § 1.1411–4 say?") == ["1.1411-4"]
    en_dash = ["§ 1.1411–4 Definition of net investment income.", "See § 1.1411–10(c)."]
    assert missing_sections("What does § 1.1411-4(a) say?", en_dash) == (["1.1411-4"], [])
    assert missing_sections("What does § 1.1411–4 say?", ["§ 1.1411-4 Definition."]) == (["1.1411-4"], [])
    assert missing_sections("And § 1.1411-1?", en_dash) == (["1.1411-1"], ["1.1411-1"])  # not "1.1411–10"
    # a range ("§§ 671-679", "sections 3–5") is named by any number in it; a chained state-code number is not
    grantor = ["Section 671 provides that the grantor is treated as the owner."]
    assert missing_sections("How do §§ 671-679 apply?", grantor) == (["671-679"], [])
    assert missing_sections("What do sections 3–5 say?", ["4. Term."]) == (["3-5"], [])
    assert missing_sections("How do §§ 671-679 apply?", ["Section 680 applies."]) == (["671-679"], ["671-679"])
    # a regulation numbered with a parenthesis ("1.1(h)-1") is one number; a paragraph ("6011(a)") is not
    assert cited_sections("Do § 1.1(h)-1(b) and section 6011(a) apply?") == ["1.1(H)-1", "6011"]
    assert missing_sections("What does § 1.1(h)-1 say?", ["§ 1.1(h)-1 Capital gains."]) == (["1.1(H)-1"], [])
    # a state code's chained dashes, as an opinion cites it
    opinion = ["The Act, Miss. Code Ann. §41–41–191 (2018), generally prohibits it."]
    assert missing_sections("What does Miss. Code Ann. § 41-41-191 prohibit?", opinion) == (["41-41-191"], [])
    assert missing_sections("And § 41-41-19?", opinion) == (["41-41-19"], ["41-41-19"])


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('{"relevant": [true], "answered": "no"}', "no"),
        ('{"relevant": [true], "answered": " Partly "}', "partly"),
        ('{"relevant": [true]}', ""),
        ('{"relevant": [true], "answered": "maybe"}', ""),
        ("relevant: true, true\nanswered: yes", "yes"),
        ("", ""),
    ],
)
def test_choice_reads_a_verdict_defensively(raw, value):
    assert parsing.choice(raw, "answered", FILTER_VERDICTS) == value


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (
            "Yes [1].\n\nSources:\n[1] (treasury-regulations/26 CFR 1.2401(a)(3).pdf, p. 1)\n[2] (x, p. 3)",
            "Yes [1].",
        ),
        ("No [2].\n\n**References**\n- [2] memo, p. 3", "No [2]."),
        ("The requirements are:\n1. a joint return [1];\n2. a qualifying person [2].", None),  # a list, no sources
        ("See the following sources:\n[4] (ira.pdf, p. 30)\n\nThis source gives the rate.", None),  # text after
        ("[7] (statutes/ira.pdf, pp. 473-474)", None),  # nothing but the list: kept
    ],
)
def test_a_source_list_the_model_writes_at_the_end_is_dropped(written, shown):
    assert parsing.strip_source_list(written) == (written if shown is None else shown)


def test_a_cited_section_named_only_by_a_document_or_section_path_is_found():
    state = {
        "question": "Does § 1.21-3(b) apply to a nonresident alien, and what about section 199A?",
        "sources": [
            {"text": "(b) Married taxpayers living apart …", "document": "26 CFR 1.21-3 (2026).pdf", "section": []}
        ],
        "retrieved": [{"text": "(d) Death of a spouse …", "document": "memo.pdf", "section": ["§ 25A", "(d)"]}],
    }
    assert state_missing_sections(state) == (["1.21-3", "199A"], ["199A"])
    assert not subject_not_found({"cited_sections": ["1.21-3", "199A"], "missing_sections": ["199A"]})
    state["question"] = "What does section 199A say?"
    assert state_missing_sections(state) == (["199A"], ["199A"])
    assert subject_not_found({"cited_sections": ["199A"], "missing_sections": ["199A"]})
    assert not subject_not_found({"cited_sections": [], "missing_sections": []})
    assert subject_not_found({"cited_sections": [], "missing_sections": [], "missing_terms": ["x y (XY)"]})


@pytest.mark.parametrize(
    ("part", "unit"),
    [
        ("Within how many days must the notice be filed?", "day"),
        ("For how many calendar years does the election last?", "year"),
        ("How many hours of service count?", "hour"),
        ("What percentage of the basis may be deducted?", "percent"),
        ("What percent of the gain is taxed?", "percent"),
        ("How many employees does the employer have?", ""),  # a count, but of no unit the sources are read for
        ("How long does the election last?", ""),  # may be answered "until revoked"
    ],
)
def test_the_unit_a_part_asks_a_number_of(part, unit):
    assert asked_quantity(part) == unit


def test_a_count_no_source_states_is_found_only_when_every_part_asks_one():
    letter = ["Invoices are due within thirty (30) days.", "Records are kept for seven years.", "a 60-day period"]
    assert unstated_quantities("Within how many hours must the firm reply?", letter) == ["a number of hours"]
    assert unstated_quantities("Within how many days are invoices due?", letter) == []
    assert unstated_quantities("What percentage of the fee is refundable?", letter) == ["a percentage"]
    assert unstated_quantities("What percentage of the fee is refundable?", ["a fifteen per cent fee"]) == []
    # another part, of another kind, may still be answered: not refused
    assert unstated_quantities("Within how many hours must the firm reply, and by what means?", letter) == []
    assert states_quantity("day", "a 60-day period") and states_quantity("month", "twelve calendar months")
    assert not states_quantity("day", "the day on which payment is made") and not states_quantity("year", "2024")


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("Which employees count for the work opportunity tax credit (WOTC)?", ["work opportunity tax credit (WOTC)"]),
        ("Is Modified Adjusted Gross Income (MAGI) capped?", ["Modified Adjusted Gross Income (MAGI)"]),
        ("Does the Secretary of the Treasury (ST) decide?", ["Secretary of the Treasury (ST)"]),  # "of", "the" skipped
        ("Can filers claim the American opportunity tax credit (AOTCs)?", ["American opportunity tax credit (AOTC)"]),
        ("What does the credit (IRA) say?", []),  # no words spell IRA out
        ("What does section 45X(a) say?", []),  # a paragraph, not a term
        ("Is the AOTC refundable?", []),  # initials alone define nothing
    ],
)
def test_terms_a_question_defines_by_their_initials(question, terms):
    assert defined_terms(question) == terms


def test_a_defined_term_is_named_by_its_initials_or_all_its_words_in_one_text():
    term = "net operating loss (NOL)"
    assert names_term(term, ["The NOL was carried back."])
    assert names_term(term, ["losses net of tax", "the operating rules of the partnership…"]) is False
    assert names_term(term, ["Operating losses, net of income."])  # stems: "losses" / "loss"
    assert not names_term(term, ["TECHNOLOGY grants", "a net loss"])  # "NOL" inside a word
    state = {"question": f"What is the {term}?", "sources": [{"text": "a net loss"}], "retrieved": []}
    assert state_missing_terms(state) == [term]
    state["retrieved"] = [{"text": "x", "section": ["SEC. 1. NET OPERATING LOSS."]}]  # a section path names it
    assert state_missing_terms(state) == []


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        ("Can a married couple filing MFS claim the AOTC?", True),
        ("Is the WOTC refundable?", True),
        ("Does section 199A apply to a sole proprietor?", True),
        ("What must the engagement letter contain?", False),
        ("Under the lease, which repairs fall to the tenant? Does the landlord pay for the roof?", False),
        ("How did the majority treat stare decisis?", False),
        # facts first, then the question: the first interrogative sentence decides
        ("A client sold a rental at a loss. Is that deductible? Are there exceptions?", True),
        ("The lessee paid a fee on early termination. What did the court hold?", False),
        # an embedded yes/no question ("whether") with no wh-word before it
        ("Tell me whether the lessee owes the fee and what follows.", True),
        ("Explain how a court decides whether a fee is a penalty.", False),
        # a full stop inside the question ends no sentence: a case name, a section, a decimal, an initialism
        ("Did the court in Smith v. Jones hold the clause void?", True),
        ("Is a lessee eligible under Treas. Reg. § 1.168(i)-8?", True),
        ("Is the rate 2.5 percent?", True),
        ("Can a U.S. person elect out?", True),
        ("Under Treas. Reg. § 1.41-2, can a client count her own salary?", True),
        ("Under Treas. Reg. § 1.41-2, which wages count?", False),
        # negative questions, several opening phrases, a colon or a dash before the question
        ("Isn't the credit refundable?", True),
        ("Doesn't section 25A(g) bar a double benefit?", True),
        ("Won't the fee apply?", True),
        ("In Smith v. Comm'r, 123 T.C. 45 (2004), did the Tax Court allow the deduction?", True),
        ("If the client, a U.S. citizen, lives abroad, can she exclude the income?", True),
        ("Section 25A(i): is the credit refundable?", True),
        ("Quick question - can she claim it?", True),
        ("What is the rate, is it 15 percent?", False),  # a wh-question first
        # a fact sentence ending in an abbreviation or written in small letters, a question on a new line
        ("My client moved to the U.S. Can she claim the credit?", True),
        ("my client is 24. can she claim the credit?", True),
        ("The lease ended late\nCan the landlord terminate?", True),
        # a lead word or label before it, a tag after it
        ("And is it refundable for 2024?", True),
        ("Yes or no: is the loss deductible?", True),
        ("The credit is refundable, correct?", True),
        ("What is the rate, right?", False),
        # "when" or "who" may bring in a clause; "what" and "how" always ask
        ("When a partnership terminates, does its tax year close?", True),
        ("My client, who is married, can she claim the credit?", True),
        ("To what extent, if any, is the fee deductible?", False),
        ("When is it due, and can it be extended?", False),
        # which of two things holds is no yes/no question; "or not", or a choice after a preposition, is one
        ("Is the loss capital or ordinary?", False),
        ("Was the worker an employee or an independent contractor?", False),
        ("Should the payment be treated as a loan or as a distribution?", False),
        ("My client sold the stock at a loss. Is the loss capital or ordinary, and how is it reported?", False),
        ("Is the distribution taxable or not?", True),
        ("Is the credit available to trusts or estates?", True),
        ("Can she claim the AOTC or the LLC?", True),
    ],
)
def test_the_verdict_rule_is_given_for_yes_no_questions_only(question: str, yes_no: bool):
    assert prompts.is_yes_no(question) is yes_no
    assert bool(prompts.verdict_rule(question)) is yes_no
    # the extractor's verdict is named in the rule; "depends" leaves the general rule
    if yes_no:
        assert '"no"' in prompts.verdict_rule(question, "no") and 'begin the answer with "No,"' in prompts.verdict_rule(
            question, "no"
        )
        assert prompts.verdict_rule(question, "depends") == prompts.verdict_rule(question)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        (
            "[1] The partner may deduct the loss. [4] Annual returns are due in April.",
            "The partner may deduct the loss [1]. Annual returns are due in April [4].",
        ),
        (  # markers left at the very end join the last sentence's
            "[1] Notice is required. [2] The notice must state the rent. [4] [5]",
            "Notice is required [1]. The notice must state the rent [2] [4] [5].",
        ),
        (
            "No, a joint return is required [1]. Exceptions apply [2].",
            "No, a joint return is required [1]. Exceptions apply [2].",
        ),
        ("[2][3] Both rules apply; see § 1.21-3(b).", "Both rules apply; see § 1.21-3(b) [2][3]."),
    ],
)
def test_citations_written_before_their_sentences_move_after_them(written: str, expected: str):
    assert parsing.citations_last(written) == expected
    assert parsing.clean_answer(f"<answer>{written}</answer>") == expected


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What is the credit rate?", ["What is the credit rate?"]),
        ("Is it allowed? Are there exceptions?", ["Is it allowed?", "Are there exceptions?"]),
        # a statement of facts is not a part; a scene-setting phrase joins the question after it
        (
            "A client sold a rental at a loss. Is that deductible? And if the buyer is her son?",
            ["Is that deductible?", "And if the buyer is her son?"],
        ),
        (
            "Under the installment method, when is the gain taxed, when is the tax due, and how is it reported?",
            [
                "Under the installment method, when is the gain taxed",
                "when is the tax due",
                "how is it reported?",
            ],
        ),
        (
            "Why is the lease void, and in what other cases must a deposit be returned?",
            ["Why is the lease void", "in what other cases must a deposit be returned?"],
        ),
        # a list inside one question, and an instruction with no question mark, are one part
        (
            "What rent is due, in terms of amount, date and method?",
            ["What rent is due, in terms of amount, date and method?"],
        ),
        ("Explain the rule, and how it applies to trusts.", ["Explain the rule, and how it applies to trusts."]),
        # relative and leading clauses are no parts; abbreviations end no sentence
        (
            "Is the taxpayer, who is married, eligible for the credit?",
            ["Is the taxpayer, who is married, eligible for the credit?"],
        ),
        ("What is the credit, which is refundable, worth?", ["What is the credit, which is refundable, worth?"]),
        (
            "When a partnership terminates, how is the gain computed?",
            ["When a partnership terminates, how is the gain computed?"],
        ),
        ("In Dobbs v. Jackson, what did the Court hold?", ["In Dobbs v. Jackson, what did the Court hold?"]),
        (
            "What does Treas. Reg. § 1.21-3 provide, and who is a dependent?",
            ["What does Treas. Reg. § 1.21-3 provide", "who is a dependent?"],
        ),
        # "and", or a semicolon, before a question asked again; not before a clause ("and what the Act calls")
        ("What is taxed and when is it reported?", ["What is taxed", "when is it reported?"]),
        ("What is the base; how is it computed?", ["What is the base", "how is it computed?"]),
        (
            "What separates a credit from what the Act calls a deduction and what the courts call one?",
            ["What separates a credit from what the Act calls a deduction and what the courts call one?"],
        ),
        # numbered questions, and an order beside a question
        ("1. What is the rate? 2. Who pays it?", ["What is the rate?", "Who pays it?"]),
        ("How and when must the notice be given?", ["How and when must the notice be given?"]),
        ("Is the credit refundable and, if so, how much?", ["Is the credit refundable", "if so, how much?"]),
        (
            "Who qualifies, what expenses count, and how much is the credit?",
            ["Who qualifies", "what expenses count", "how much is the credit?"],
        ),
        ("Explain the phase-out. Also, what are the limits?", ["Explain the phase-out.", "Also, what are the limits?"]),
        ("State law caps the fee. What is the cap?", ["State law caps the fee. What is the cap?"]),  # facts, no order
        # a bare wh-word asking again: the clause of the part before it
        (
            "Within how many days must the issuer give notice, and where?",
            ["Within how many days must the issuer give notice?", "where must the issuer give notice?"],
        ),
        ("When is the return due, or why?", ["When is the return due?", "why is the return due?"]),
        ("Where does the taxpayer live, and the credit?", ["Where does the taxpayer live, and the credit?"]),
        # a preposition before the wh-word of a part
        (
            "How much is the grant, and until when does it remain available?",
            ["How much is the grant", "until when does it remain available?"],
        ),
        (
            "What does the lessee owe, and through what channel must it pay?",
            ["What does the lessee owe", "through what channel must it pay?"],
        ),
    ],
)
def test_a_question_is_split_into_the_things_it_asks(question: str, parts: list[str]) -> None:
    assert prompts.question_parts(question) == parts
    rule = prompts.parts_rule(question)
    assert (rule == "") == (len(parts) == 1)
    assert all(f"({i}) {p.rstrip('?')}" in rule for i, p in enumerate(parts, 1) if len(parts) > 1)


def test_the_plain_terms_line_is_given_only_when_it_says_something_new():
    assert prompts.plain_terms("Can MFS filers claim the AOTC?", "") == ""
    assert prompts.plain_terms("Can MFS filers claim the AOTC?", " can mfs filers claim  the AOTC? ") == ""
    line = prompts.plain_terms("Can MFS filers claim the AOTC?", "Can a married person filing alone get the credit?")
    assert line == "\nIn plain terms: Can a married person filing alone get the credit?"


@pytest.mark.parametrize(
    ("part", "asked"),
    [
        ("Under § 453, which payments count", "which payments count"),
        ("In that case, how did the court define 'residence'", "how did the court define 'residence'"),
        ("When a partnership terminates, what happens to its year?", "what happens to its year?"),
        ("What is the rate, and who pays it?", "What is the rate, and who pays it?"),  # opens by asking
        (
            "For the deduction, losses on sales to relatives don't count?",
            "For the deduction, losses on sales to relatives don't count?",
        ),
    ],
)
def test_a_part_is_read_without_the_scene_it_sets(part: str, asked: str) -> None:
    assert prompts.without_lead(part) == asked


@pytest.mark.parametrize(
    ("asked", "statement"),
    [
        ("True or false: a lessor must give 30 days' notice.", "a lessor must give 30 days' notice."),
        ("True/False: a lessor must give 30 days' notice.", "a lessor must give 30 days' notice."),
        ("T/F: the credit is refundable.", "the credit is refundable."),
        ("Is the following statement true or false? The credit is refundable.", "The credit is refundable."),
        (
            "In Smith v. Jones, the court held the clause void. True or False?",
            "In Smith v. Jones, the court held the clause void.",
        ),
        ("The rate is 2.5 percent, true or false?", "The rate is 2.5 percent"),
        ("Is it true or false that the credit is refundable?", "the credit is refundable?"),
        ("T or F: the credit is refundable.", "the credit is refundable."),
        ("Correct or incorrect: the court held the clause void.", "the court held the clause void."),
    ],
)
def test_a_statement_to_judge_is_found_in_its_usual_forms(asked: str, statement: str):
    assert prompts.is_statement(asked) and prompts.is_yes_no(asked)
    assert prompts.yes_no_question(asked) == statement
    # the reader decides a statement: it is told to open with "True" or "False", whatever verdict is passed
    assert 'begin the answer with "True" or "False"' in prompts.verdict_rule(asked, "no")


@pytest.mark.parametrize(
    ("question", "choice"),
    [
        ("Was the driver an employee or an independent contractor under the common-law test?", True),
        ("For 2024, is she a resident or a nonresident?", True),  # read from its auxiliary
        ("Is the $40,000 advance from the S corporation to its shareholder a loan or a distribution?", True),
        ("Is the obligation under clause 7.2 joint or several?", True),  # the preposition's object ends first
        ("Was the contract terminated for cause or for convenience?", True),  # the same preposition twice
        ("Is the transfer subject to gift tax or estate tax?", False),  # a preposition governs the choice
        ("Is the penalty waived for reasonable cause or good faith?", False),
        ("True or false: the fee is a penalty or a genuine pre-estimate.", False),  # a statement to judge
        ("The fee is a penalty or a pre-estimate, correct?", False),
    ],
)
def test_a_question_asking_which_of_two_things_holds_is_no_yes_no_question(question: str, choice: bool) -> None:
    assert prompts.asks_choice(question) is choice
    if choice:
        assert not prompts.is_yes_no(question)


@pytest.mark.parametrize(
    "question",
    [
        "Regardless of how the LLC is classified, must it file a partnership return?",
        "Notwithstanding what clause 7.2 says, can the buyer terminate early?",
        "Where, as here, the contract has no force majeure clause, can the supplier rely on frustration?",
    ],
)
def test_a_wh_word_inside_an_opening_clause_leaves_a_yes_no_question(question: str) -> None:
    assert prompts.is_yes_no(question)
    assert not prompts.is_yes_no("When, if ever, is the lender required to give notice?")
