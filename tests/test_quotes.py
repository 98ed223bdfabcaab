"""Quotes checked against their source, and answers checked against their quotes (no LLM)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lclfqa.graph.answer.check import check_answer, keep_supported, recited, stated
from lclfqa.graph.evidence.quotes import check_quotes, locate
from lclfqa.llm.parsing import split_sentences as sentences

SOURCE = (
    "(a) No credit is allowed under section 21 for taxpayers who are married (within the meaning of section 7703 "
    "and the regulations thereunder) at the close of the taxable year unless the taxpayer and spouse file a joint "
    "return for the taxable year. (b) The requirements of para-\ngraph (a) of this section do not apply to a "
    "taxpayer who is legally separated under a decree of divorce or of separate maintenance. The credit phases "
    "out between $80,000 and $100,000 of modified adjusted gross income."
)


@pytest.mark.parametrize(
    ("quote", "how", "found"),
    [
        # is there: exact after whitespace, case, quote marks and line-end hyphens
        (
            "No credit is allowed under section 21 for taxpayers who are married",
            "exact",
            "No credit is allowed under section 21 for taxpayers who are married",
        ),  # fmt: skip
        (
            '"the requirements of paragraph (a) of this section do not apply"',
            "exact",
            "The requirements of para-\ngraph (a) of this section do not apply",
        ),  # fmt: skip
        (
            "The credit phases out between $80,000 and $100,000",
            "exact",
            "The credit phases out between $80,000 and $100,000",
        ),  # fmt: skip
        # almost there: a word dropped or changed; the kept text is the source's, not the model's
        (
            "unless the taxpayer and spouse file a joint return for the year",
            "fuzzy",
            "unless the taxpayer and spouse file a joint return for the taxable year",
        ),  # fmt: skip
        (
            "a taxpayer who is legally separated under a decree of divorce or separate maintenance",
            "fuzzy",
            "a taxpayer who is legally separated under a decree of divorce or of separate maintenance",
        ),  # fmt: skip
    ],
)
def test_quotes_that_are_or_almost_are_in_the_source_snap_to_its_words(quote: str, how: str, found: str) -> None:
    m = locate(quote, SOURCE)
    assert m is not None and m.how == how
    assert SOURCE[m.start : m.end] == found


@pytest.mark.parametrize(
    "quote",
    [
        "Married couples filing separately may always claim the credit in full",  # invented
        "The credit phases out between $150,000 and $450,000",  # a changed figure is a different claim
        # a parenthetical skipped: too many words off to be a copy
        "No credit is allowed under section 21 for taxpayers who are married at the close of the taxable year",
        "the credit",  # too short to check
        "",
    ],
)
def test_quotes_that_are_not_in_the_source_are_dropped(quote: str) -> None:
    assert locate(quote, SOURCE) is None


def test_check_quotes_counts_and_looks_in_the_other_references_before_dropping() -> None:
    refs = [
        {
            "id": "c1",
            "text": "An unrelated passage about farm land and its rental value.",
            "source": 1,
            "document": "a.pdf",
            "pages": [1, 1],
            "section": ["§ 1"],
            "kind": "child",
        },  # fmt: skip
        {
            "id": "c2",
            "text": SOURCE,
            "source": 2,
            "document": "b.pdf",
            "pages": [3, 3],
            "section": ["§ 2", "(a)"],
            "kind": "child",
        },  # fmt: skip
    ]
    checked = check_quotes(
        [
            (2, "No credit is allowed under section 21 for taxpayers who are married"),
            (1, "The credit phases out between $80,000 and $100,000"),  # named the wrong reference
            (2, "No credit is allowed under section 21 for taxpayers who are married"),  # the same span again
            (2, "The credit is refundable for every taxpayer in all cases"),
        ],
        refs,
    )
    assert [q["text"] for q in checked.kept] == [
        "No credit is allowed under section 21 for taxpayers who are married",
        "The credit phases out between $80,000 and $100,000",
    ]
    assert [q["ref"] for q in checked.kept] == [2, 2] and checked.kept[0]["section"] == ["§ 2", "(a)"]
    assert checked.record() == {
        "quotes_proposed": 4,
        "quotes_kept": 2,
        "quotes_exact": 2,
        "quotes_fuzzy": 0,
        "quotes_moved": 1,
        "quotes_dropped": 1,
    }


def test_sentences_keep_their_citations_and_skip_abbreviations() -> None:
    answer = (
        "No. [1] Under Treas. Reg. § 1.21-3(a), spouses must file jointly, e.g. on Form 1040 [1]. "
        'The credit "phases out between $80,000 and $100,000." [2] See U.S. v. Smith for more.'
    )
    assert sentences(answer) == [
        "No. [1]",
        "Under Treas. Reg. § 1.21-3(a), spouses must file jointly, e.g. on Form 1040 [1].",
        'The credit "phases out between $80,000 and $100,000." [2]',
        "See U.S. v. Smith for more.",
    ]
    # citation forms: a memo decision, a public law, the Federal Register, a capital "Cf."
    cites = "See T.C. Memo. 2004-45 and Pub. L. No. 117-169. Cf. Rev. Rul. 2004-1 and 88 Fed. Reg. 1234. No. It is not."
    assert sentences(cites) == [
        "See T.C. Memo. 2004-45 and Pub. L. No. 117-169.",
        "Cf. Rev. Rul. 2004-1 and 88 Fed. Reg. 1234.",
        "No.",
        "It is not.",
    ]
    # a court or an editor cited with an initial in brackets, a reporter's "F. Supp."; a schedule's letter still ends
    courts = "Held, 12 F. Supp. 3d 45 (D. Me. 2020). See Bracton 9 (L. Downer ed. 1972). It is on Schedule D. Then."
    assert sentences(courts) == [
        "Held, 12 F. Supp. 3d 45 (D. Me. 2020).",
        "See Bracton 9 (L. Downer ed. 1972).",
        "It is on Schedule D.",
        "Then.",
    ]


def test_a_figure_written_another_way_is_found_in_its_quote() -> None:
    from lclfqa.graph.answer.check import figures, occurs

    quote = figures(
        "The return is due for the 1st day through the 15th day of the month. The fee is $35.00, the rate 8.00%, "
        "or .2 of the amount, for 10,001–15,000 units."
    )
    for item in ("1-15", "$35", "8%", "0.2", "10,001–15,000", "15,000"):
        assert occurs(item, quote), item
    for item in ("1-16", "$36", "9%", "0.3", "10,001–16,000"):  # other values stay missing
        assert not occurs(item, quote), item
    assert stated("the rate for the 10,001–15,000 tier is 8.00% [2]") == ["10,001–15,000", "8.00%"]
    # a provision with its paragraph: the section's number above the quote, the subsection's in it
    subsection = figures(
        "54 Insurer may not refuse to pay claims (3) Where the insured proves that no part of the loss"
    )
    assert occurs("54(3)", subsection) and not occurs("54(4)", subsection) and not occurs("55(3)", subsection)


def test_what_a_sentence_states() -> None:
    assert stated("Under § 1.25A-1(g), the phase-out is $80,000 to $100,000 (20%) in 2024 [3].") == [
        "1.25A-1(g)",
        "$80,000",
        "$100,000",
        "20%",
        "2024",
    ]
    assert stated('The Court "declined to resolve" that question.') == ["declined to resolve"]
    assert stated("One of the conditions is a joint return [1].") == []  # a number word is no figure


def test_each_sentence_must_rest_on_the_quotes_it_cites() -> None:
    quotes = [
        "No credit is allowed under section 21 for taxpayers who are married",
        "The credit phases out between $80,000 and $100,000 of modified adjusted gross income",
    ]
    answer = (
        "No. [1] No credit is allowed under section 21 unless they file jointly [1]. "
        "The credit phases out between $150,000 and $450,000 [2]. "
        "It phases out from $80,000 [1]. "  # the figure is in a quote, but not in the one cited
        'The rule is "no credit is allowed" for married taxpayers [1]. '
        "Joint filers phase out at 80,000 dollars."  # cites nothing: any quote may hold it
    )
    checks = check_answer(answer, quotes, "When do joint filers phase out of the credit?")
    assert [c.ok for c in checks] == [True, True, False, False, True, True]
    assert checks[2].missing == ["$150,000", "$450,000"] and checks[3].missing == ["$80,000"]
    kept, removed = keep_supported(checks)
    assert [c.text for c in kept] == [checks[i].text for i in (0, 1, 4, 5)]
    assert removed == [checks[2].text, checks[3].text]
    # a sentence with an invented citation fails with it: nothing cuts the citation out to save it
    invented = check_answer(
        "No credit is allowed to married taxpayers [IRC § 25A(b)(1)(ii)] under the rule [1].", quotes
    )
    assert keep_supported(invented, quotes)[0] == []
    invented = check_answer("The phase-out ends at $150,000 (section 25A(d)) [2].", quotes)
    assert keep_supported(invented, quotes) == ([], ["The phase-out ends at $150,000 (section 25A(d)) [2]."])


def test_a_count_in_words_is_a_figure() -> None:
    """ "seven years" is checked as "7 years" is (the shipped sample's engagement letter): a sentence citing a quote
    that lacks it is cited to the one that holds it. An ordinal names a position and a lone number word counts no
    unit: neither is a figure. A figure doubled in brackets ("ten (10) days") reads once."""
    assert stated("Kept for seven years, due within twenty-one days, at fifteen per cent [1].") == [
        "seven years",
        "twenty-one days",
        "fifteen per cent",
    ]
    assert stated("A three-year period runs from the first month after the quarter.") == ["three-year"]
    assert stated("One of the conditions is that the two spouses file jointly.") == []
    quotes = [
        "4.3 Payment. Invoices are due within 30 days.",
        "5.2 Our files. Our workpapers are the property of the Firm and will be kept for seven years.",
        "The order ceases to be operative on the expiration of six (6) months from the date on which it is made.",
    ]
    asked = "How long will the firm keep its workpapers?"
    check = check_answer("The firm will keep its workpapers for seven years [1].", quotes, asked)
    assert check[0].missing == ["seven years"]
    assert recited(check[0], quotes, asked) == "The firm will keep its workpapers for seven years [2]."
    assert check_answer("Invoices are due within thirty days [1].", quotes)[0].ok
    assert check_answer("The order lapses after six months [3].", quotes)[0].ok
    # a provision's paragraph that repeats its number is not a doubled figure
    assert not check_answer("Section 2(2) applies [1].", ["Section 2 applies to invoices."])[0].ok


def test_the_questions_words_do_not_say_which_quote_a_sentence_rests_on() -> None:
    """A sentence that restates the question and adds words of its own is cited to the quote holding those words:
    the question's words count for every quote alike."""
    quotes = [
        "4.3 Payment. Invoices are due within 30 days.",
        "5.2 Our files. Our workpapers are the property of the Firm and are kept in its archive under seal.",
    ]
    asked = "Where will the firm keep its workpapers after the returns are filed?"
    sentence = "The firm will keep its workpapers after the returns are filed"
    sentence += " as property of the Firm, in its archive under seal"
    check = check_answer(f"{sentence} [1].", quotes, asked)[0]
    assert check.misattributed and not check.unfounded  # its words are in the quotes, not in the one it cites
    assert recited(check, quotes, asked) == f"{sentence} [2]."
    assert not check_answer(f"{sentence} [2].", quotes, asked)[0].misattributed


def test_a_pointer_phrase_goes_with_its_marker_when_a_sentence_is_re_cited() -> None:
    quotes = [
        "Invoices are due within 30 days.",
        "Rent paid to a landlord that is a related party is not taken into account.",
    ]
    asked = "Can the tenant count the rent it pays to its parent company?"
    opening = check_answer("According to [1], rent paid to a related landlord is not taken into account.", quotes)
    assert recited(opening[0], quotes, asked) == "Rent paid to a related landlord is not taken into account [2]."
    inside = check_answer("Rent paid to the landlord, as stated in [1], is not taken into account for rent.", quotes)
    assert recited(inside[0], quotes, asked) == "Rent paid to the landlord, is not taken into account for rent [2]."
    ending = check_answer("Rent paid to a related landlord is not taken into account, as set out in [1].", quotes)
    assert recited(ending[0], quotes, asked) == "Rent paid to a related landlord is not taken into account [2]."


def test_a_quotation_mark_whose_partner_was_removed_goes_too() -> None:
    quotes = ["As first enacted the credit was limited to the first two years of study."]
    answer = (
        'No [1]. The rule is in section 99, which states: "The credit began in 2009. '
        'As first enacted the credit was limited to the first two years of study [1]." It applies [1].'
    )
    kept, removed = keep_supported(check_answer(answer, quotes), quotes)
    assert removed == ['The rule is in section 99, which states: "The credit began in 2009.']
    assert [c.text for c in kept] == [
        "No [1].",
        "As first enacted the credit was limited to the first two years of study [1].",
        "It applies [1].",
    ]
    # the other end may be sentences away
    far = check_answer('As section 99 states: "It began in 2009. It was limited [1]. It ended [1]." No [1].', quotes)
    assert [c.text for c in keep_supported(far, quotes)[0]][-2:] == ["It ended [1].", "No [1]."]
    # a quotation closed within its sentence, or whose other end is kept, is left as written
    both = check_answer('He wrote: "The credit began. It was limited to two years [1]."', quotes)
    assert [c.text for c in keep_supported(both, quotes)[0]] == [c.text for c in both if c.ok]


def test_a_sentence_citing_nothing_is_held_to_one_quote() -> None:
    """Pieces of a figure found in different quotes hold no sentence: one that cites nothing must be holdable by
    one quote, as re-citing would cite it (a provision's number in one quote, its paragraph in another)."""
    quotes = [
        "Section 88 sets the period for which interest is payable on a withheld claim.",
        "(2) The rate is the rate prescribed by the regulations for that day.",
        "The excise rate rises to 95 percent after 270 days of noncompliance.",
    ]
    answer = (
        "Section 88(2) requires the insurer to pay interest on a withheld claim. "  # 88 in one quote, (2) in another
        "The excise rate rises to 95 percent after 270 days of noncompliance. "  # one quote holds both figures
        "Section 88 sets the period for which interest is payable."
    )
    checks = check_answer(answer, quotes, "At what rate must an insurer pay interest on a withheld claim?")
    assert [c.missing for c in checks] == [["88(2)"], [], []]
    assert [recited(c, quotes) for c in checks[1:]] == [
        "The excise rate rises to 95 percent after 270 days of noncompliance [3].",
        "Section 88 sets the period for which interest is payable [1].",
    ]
    # cited to both quotes, the sentence is checked against both, as before
    assert check_answer("Section 88(2) requires interest on a withheld claim [1] [2].", quotes)[0].missing == []


def test_a_sentence_claiming_no_exception_no_quote_claims_is_unfounded() -> None:
    quotes = [
        "No deduction is allowed for moving expenses unless the new workplace is at least 50 miles farther away",
        "(c) Armed Forces. If the employee is on active duty and moves under orders, the distance test does not apply",
    ]
    asked = "Can an employee who moved 30 miles deduct the expenses? What if the employee is in the Armed Forces?"
    answer = (
        "No, the 50-mile distance test applies [1]. "
        "This applies regardless of whether the employee is in the Armed Forces or moves under orders. "
        "An employee on active duty who moves under orders may still deduct the expenses [2]."
    )
    checks = check_answer(answer, quotes, asked)
    assert [c.unfounded for c in checks] == [False, True, False]
    # a quote that says so itself lets the answer say it; with the word check off (0) nothing is judged
    always = [*quotes, "The deduction is always denied to a nonresident alien, regardless of the return filed"]
    assert not check_answer("It is always denied to a nonresident alien [3].", always, asked)[0].unfounded
    assert not check_answer(answer, quotes, asked, min_support=0)[1].unfounded
    # the same claim in other words: "does not have any exceptions" beside a quote that opens "Except as provided"
    fees = ["Except as provided in paragraph (d)(3), a fee required for enrollment is a qualified expense"]
    claim = "A fee required for enrollment is a qualified expense; it does not have any exceptions [1]."
    assert check_answer(claim, fees, "Is a required fee a qualified expense?")[0].unfounded
    assert not check_answer(claim.replace("; it does not have any exceptions", ""), fees)[0].unfounded


@pytest.mark.parametrize(
    ("sentence", "pointer"),
    [
        ("This is stated in [2] and [4].", True),
        ("See also [1], [2].", True),
        ("As stated in the sources [3].", True),
        ("This is stated in reference text [4] and [8].", True),  # the basic reader's own word for its evidence
        ("This is stated in the passages [2] and [3].", True),  # a name a refusal is read under too
        ("This is stated in reference 3 [3] [2].", True),  # the evidence named by a bare number
        ("This is stated in references 2 and 3.", True),
        ("This is set out in 6013 [1].", False),  # a bare number names no reference
        ("This is the rule [2].", False),  # says something
        ("See section 6013 [1].", False),  # names a provision
    ],
)
def test_a_sentence_that_only_points_at_sources_is_dropped(sentence, pointer):
    from lclfqa.graph.answer.check import is_pointer

    assert is_pointer(sentence) is pointer
    quotes = ["No credit is allowed unless the spouses file a joint return under section 6013, the rule"] * 4
    checks = check_answer(f"No, a joint return is required [1]. {sentence}", quotes)
    kept, removed = keep_supported(checks, quotes)
    assert (removed == [sentence]) is pointer and len(kept) == (1 if pointer else 2)


def test_a_marker_between_two_full_stops_moves_inside_the_sentence():
    from lclfqa.llm.parsing import clean_answer

    assert clean_answer("It must be paid in cash. [2]. It is not income. [3].") == (
        "It must be paid in cash [2]. It is not income [3]."
    )
    assert clean_answer("It must be paid in cash [2]. Rules: [1].") == "It must be paid in cash [2]. Rules: [1]."


def test_a_runaway_list_of_citations_is_stopped_and_cut():
    from langchain_core.messages import HumanMessage

    from lclfqa.llm.calls import Meter, chat
    from lclfqa.llm.parsing import collapse_citation_runs, runaway

    assert not runaway("No, a joint return is required [1] [2].")
    assert runaway("No, the education credit [1] [2][3] [4] [5] [6]")
    assert collapse_citation_runs("No, the credit [1] [2][3] [4] [5]. It applies [2].") == (
        "No, the credit [1] [2][3]. It applies [2]."
    )
    moved = collapse_citation_runs("The partner cannot deduct it.\n\n[2] [3] [4]")
    assert moved == "The partner cannot deduct it. [2] [3] [4]"
    assert collapse_citation_runs("First [1].\n[2]\nSecond [3].") == "First [1]. [2]\nSecond [3]."
    # a marker repeated in a run is said once
    assert collapse_citation_runs("It is €5 [4] [4]. Posted [7] [8] [8]. Allowed [4][8] [4].") == (
        "It is €5 [4]. Posted [7] [8]. Allowed [4] [8]."
    )
    assert collapse_citation_runs("See [1]; [2]; [3]; [4]. Next [1] [2] [3] [4] and more.") == (
        "See [1]; [2]; [3]. Next [1] [2] [3] and more."
    )
    # a neutral citation's year after a run is no fourth marker to cut
    assert collapse_citation_runs("Held [1] [2] [3] [2019] HCA 7 so.") == "Held [1] [2] [3] [2019] HCA 7 so."
    # the pattern goes to backends that can stop on it (llama.cpp), as a string the cache can key on
    from lclfqa.llm.parsing import RUNAWAY
    from tests.fakes import ScriptedChat

    class Stoppable(ScriptedChat):
        supports_stop_pattern: bool = True

    llm, plain = Stoppable(script={"other": "No."}), ScriptedChat(script={"other": "No."})
    for model in (llm, plain):
        assert chat(model, [HumanMessage("q")], Meter("read"), stop_pattern=RUNAWAY) == "No."
    assert llm.calls[0][2]["stop_pattern"] == RUNAWAY and "stop_pattern" not in plain.calls[0][2]


def test_source_sentences_are_spans_split_at_sentence_paragraph_and_enumeration_ends():
    from lclfqa.graph.evidence.sentences import spans

    text = (
        "(c) Limitation.\n"  # a heading fragment joins the sentence after it
        "The credit is allowed only on a joint return. See Treas. Reg. § 1.21-3(a) e.g. for rules.\n"
        "(1) In general. A married individual living apart is treated as not married; or\n"
        "(2) the spouse died.\n\n"
        "7. Term and Termination\n\n"  # a paragraph break ends a span even without a full stop
        "Either of us may end this engagement"
    )
    assert [text[a:b] for a, b in spans(text)] == [
        "(c) Limitation.\nThe credit is allowed only on a joint return.",
        "See Treas. Reg. § 1.21-3(a) e.g. for rules.",
        "(1) In general. A married individual living apart is treated as not married; or",
        "(2) the spouse died.",
        "7. Term and Termination\n\nEither of us may end this engagement",
    ]
    # a very long enumeration is cut after semicolons, never inside a clause
    long = "; ".join(f"item {i} is a long clause of the statute with several words" for i in range(12)) + "."
    pieces = [long[a:b] for a, b in spans(long)]
    assert len(pieces) > 1 and "".join(p if p.endswith(".") else p + " " for p in pieces) == long
    assert all(len(p.split()) <= 80 for p in pieces) and all(p.endswith((";", ".")) for p in pieces)
    assert spans("") == [] and [(0, 4)] == spans("Tiny")


def test_a_us_reports_citation_with_spaces_ends_no_sentence():
    from lclfqa.graph.evidence.sentences import spans
    from lclfqa.llm.parsing import split_sentences as split

    text = (
        "Planned Parenthood of Southeastern Pa. v. Casey, 505 U. S. 833, 979 (1992) (concurring in part). "
        "The Court in Roe, 410 U. S. 113, and in Dobbs, 142 S. Ct. 2228, spoke to it. A third sentence here."
    )
    assert [text[a:b] for a, b in spans(text)] == [
        "Planned Parenthood of Southeastern Pa. v. Casey, 505 U. S. 833, 979 (1992) (concurring in part).",
        "The Court in Roe, 410 U. S. 113, and in Dobbs, 142 S. Ct. 2228, spoke to it.",
        "A third sentence here.",
    ]
    held = "Barron v. Baltimore, 7 Pet. 243 (1833) (opinion for the Court by Marshall, C. J.), but this Court held it."
    assert [held[a:b] for a, b in spans(held)] == [held]  # "C. J." is a Chief Justice, not a sentence's end
    assert split("Roe was decided, 410 U. S. 113 [1]. Dobbs overruled it [2].") == [
        "Roe was decided, 410 U. S. 113 [1].",
        "Dobbs overruled it [2].",
    ]


def test_a_citation_sentence_travels_with_the_sentence_it_supports():
    from lclfqa.graph.evidence.sentences import citing, spans

    text = (
        "A student may be claimed for one credit only in a year. Treas. Reg. § 1.25A-5(a).\n"
        "A married taxpayer must file a joint return to claim either credit. IRC § 25A(g)(6); Treas. Reg. "
        "§ 1.25A-1(g). The Court later said so again. Roe, 410 U. S., at 153. See id., at 160 (plurality opinion)."
    )
    # before, the short citation opened the next span: a quote of the married rule began with the authority
    # for the sentence before it, and a reader attributed the rule to that section
    assert [text[a:b] for a, b in spans(text)] == [
        "A student may be claimed for one credit only in a year. Treas. Reg. § 1.25A-5(a).",
        "A married taxpayer must file a joint return to claim either credit. IRC § 25A(g)(6); Treas. Reg. "
        "§ 1.25A-1(g).",
        "The Court later said so again. Roe, 410 U. S., at 153. See id., at 160 (plurality opinion).",
    ]
    assert citing("Smith v Jones (1990) 170 CLR 1 at 5.") and citing("[2019] HCA 12 at [45].")
    assert citing("Pub. L. 117-169, 136 Stat. 1818.") and citing("Ibid.")
    # a heading, a cross-reference in words and a short rule are sentences of their own
    assert not citing("(II) § 4.954-1 Foreign Base Company Income.")
    assert not citing("§ 1.21-4 Payments to certain related individuals.")
    assert not citing("See Treas. Reg. § 1.21-3(a) for the rules.")
    assert not citing("Section 21 allows a credit.") and not citing("The rate is 21 percent.")
    # a citation that opens a text has no sentence before it to support: it is split as before
    lone = "Ibid. A student may be claimed for one credit only."
    assert [lone[a:b] for a, b in spans(lone)] == [lone]


def test_the_sample_memos_rule_is_numbered_with_its_own_authority():
    """On the shipped memo as the parser reads it: the married-filing rule's sentence is followed by the
    citation for it and preceded by the citation for the sentence before; the reader is shown the rule with
    the former, never opening with the latter."""
    from pathlib import Path

    from lclfqa.graph.evidence.sentences import spans
    from lclfqa.ingest.chunking import chunk_document
    from lclfqa.ingest.pdf import parse_pdf

    memo = Path(__file__).parents[1] / "examples" / "sample" / "tax-memo-education-credits.pdf"
    children = [c for c in chunk_document(parse_pdf(memo)) if c.kind != "parent" and "claim neither credit" in c.text]
    assert children
    for child in children:
        (rule,) = [child.text[a:b] for a, b in spans(child.text) if "claim neither credit" in child.text[a:b]]
        assert rule.startswith("Married taxpayers who file separately"), rule
        assert " ".join(rule.split()).endswith("IRC §25A(g)(6); Treas. Reg. §1.25A-1(g)."), rule


def test_a_span_that_is_its_sections_own_title_joins_the_rule_after_it():
    from lclfqa.graph.evidence.reading import passages
    from lclfqa.graph.evidence.sentences import spans

    title = "(3) Period during which tax is considered as collected."
    text = f"{title} For purposes of this section, the tax is considered as collected during the first seven days."
    assert [text[a:b] for a, b in spans(text)] == [title, text[len(title) + 1 :]]  # too long for a bare heading
    assert [text[a:b] for a, b in spans(text, ["§ 40.6302(c)-3 Deposits.", title])] == [text]
    child = {"text": text, "section": ["§ 40.6302(c)-3 Deposits.", title]}
    assert [(p.start, p.end) for p in passages([child]).values()] == [(0, len(text))]


def _child(cid: str, document: str, page: int, section: str, text: str, kind: str = "child") -> dict:
    """A retrieved child as the state carries it."""
    return {"id": cid, "kind": kind, "document": document, "pages": [page, page], "section": [section], "text": text}


def test_the_extractor_quotes_by_pointing_at_numbered_sentences():
    from lclfqa.graph.evidence.reading import passages, references
    from lclfqa.graph.nodes.extract import pointed_quotes, proposed, quotes_schema

    children = [
        _child(
            "a:c1",
            "memo.pdf",
            1,
            "§ 1",
            "Married taxpayers filing separately may claim neither credit. The rule is in § 1.25A-1(g).",
            kind="child",
        ),
        _child(
            "a:f1",
            "memo.pdf",
            2,
            "§ 1",
            "The AOTC began as a temporary expansion of the Hope Scholarship Credit.",
            kind="footnote",
        ),
    ]
    shown = references(children, numbered=True)
    assert "[1.1] Married taxpayers filing separately may claim neither credit.\n[1.2] The rule is in" in shown
    assert "[2.1] The AOTC began" in shown and "footnotes" in shown.split("<reference 2>")[1].splitlines()[0]
    numbered = passages(children)
    assert list(numbered) == ["1.1", "1.2", "2.1"]
    schema = quotes_schema(list(numbered))
    assert schema["properties"]["sentences"]["items"]["enum"] == ["1.1", "1.2", "2.1"]
    assert schema["required"] == ["sentences"] and schema["properties"]["sentences"]["maxItems"] == 6
    ids, texts = proposed('{"sentences": ["2.1", "1.1", "2.1", "9.9"], "verdict": "no"}')
    quotes, unknown = pointed_quotes(ids, numbered, children)
    # the source's own words, in the order named, each once; a number not shown is counted, not quoted
    assert [q["text"] for q in quotes] == [children[1]["text"], children[0]["text"].split(" The rule")[0]]
    assert [(q["child"], q["ref"], q["kind"], q["how"]) for q in quotes] == [
        ("a:f1", 2, "footnote", "pointed"),
        ("a:c1", 1, "child", "pointed"),
    ]
    assert unknown == ["9.9"] and texts == []
    # a reply that quotes text (an endpoint without grammars) goes to the quote check instead
    assert proposed('{"quotes": [{"ref": 1, "quote": "claim neither credit"}]}') == ([], [(1, "claim neither credit")])


@pytest.mark.parametrize(
    ("answer", "verdict", "expected"),
    [
        ("No, married taxpayers must file jointly [1].", "no", "No, married taxpayers must file jointly [1]."),
        ("Yes, they may claim it [1].", "no", "No. They may claim it [1]."),  # only the verdict word changes
        ("Married taxpayers must file jointly [1].", "no", "No. Married taxpayers must file jointly [1]."),
        ("Generally, no. A joint return is required [1].", "yes", "Yes. A joint return is required [1]."),
        ("Yes.", "yes", "Yes."),
    ],
)
def test_the_answer_opens_with_the_extractors_verdict(answer: str, verdict: str, expected: str):
    from lclfqa.graph.answer.verdict import opening_verdict

    assert opening_verdict(answer, verdict)[0] == expected
    assert opening_verdict(answer, verdict)[1] is (answer != expected)


def test_headings_and_lead_ins_travel_with_the_sentence_after_them():
    from lclfqa.graph.evidence.sentences import spans

    text = (
        "§ 1.21-4 Payments to certain related individuals.\n"
        "(a) In general. A credit is not allowed for any amount paid to an individual—\n"
        "(1) For whom a deduction under section 151(c) is allowable; or\n"
        "(2) Who is a child of the taxpayer.\n"
        "(b) Taxpayers treated as not married.\n"
        "The requirements of paragraph (a) do not apply to a taxpayer who is legally separated.\n\n"
        "(c) Limitation —\n\n"  # a heading printed as a paragraph of its own
        "Text after a break follows here."
    )
    assert [text[a:b] for a, b in spans(text)] == [
        "§ 1.21-4 Payments to certain related individuals.\n(a) In general. A credit is not allowed for any"
        " amount paid to an individual—\n(1) For whom a deduction under section 151(c) is allowable; or",
        "(2) Who is a child of the taxpayer.",
        "(b) Taxpayers treated as not married.\nThe requirements of paragraph (a) do not apply to a taxpayer"
        " who is legally separated.",
        "(c) Limitation —\n\nText after a break follows here.",
    ]


def test_angle_bracket_placeholders_copied_from_the_prompt_are_dropped():
    from lclfqa.llm.parsing import strip_placeholders

    assert (
        strip_placeholders("No, <the rule> [2]. A joint return is required [1].")
        == "No, [2]. A joint return is required [1]."
    )
    assert strip_placeholders("Income under section 61 <= 5 [1].") == "Income under section 61 <= 5 [1]."


def test_amounts_with_a_scale_word_are_checked_whole():
    quote = "the excess credit amount is $4 million ($24 million—$20 million); the correction amount is $20 million"
    ok = check_answer("The excess is $4 million ($24 million—$20 million) [1].", [quote])
    assert ok[0].missing == [] and stated(ok[0].text)[:2] == ["$4 million", "$24 million"]
    wrong = check_answer("The excess is $5 million [1].", [quote])
    assert wrong[0].missing == ["$5 million"]


def test_each_part_gets_its_nearest_quote_unless_the_answer_cites_or_gives_it():
    from lclfqa.graph.answer.sources import RULE_QUOTE_CHARS, with_part_quotes

    quotes = [
        {"text": "A partnership must file a return for each year."},
        {"text": "The requirement does not apply to a partnership with no income or deductions."},
        {"text": "If the partnership terminates during the year, its final return is due on the usual date."},
    ]
    question = "Must a partnership file a return? Are there exceptions when the partnership terminates during the year?"
    answer = "Yes, a partnership must file a return for each year."
    # part 1's nearest quote: its words are in the answer (given); part 2's nearest (by shared words) is added
    out, added = with_part_quotes(answer, question, quotes)
    assert added == 1 and out == f"{answer} The source reads: “{quotes[2]['text']}” [3]"
    # a quote the answer cites is not added again
    assert with_part_quotes(answer + " [3]", question, quotes) == (answer + " [3]", 0)
    # a decided rule (quote 2) answers the first part
    out, added = with_part_quotes(answer, question, quotes, rule=1)
    assert added == 2 and out.index("no income") < out.index("terminates")
    # shortened at a word boundary
    long_rule = "No credit is allowed under section 21 " + "unless the spouses file jointly and " * 20 + "end."
    out, added = with_part_quotes("No.", "Can the spouses claim the credit?", [{"text": long_rule}])
    quoted = out.split("“", 1)[1].split("”", 1)[0]
    assert added == 1 and quoted.endswith(" …") and len(quoted) <= RULE_QUOTE_CHARS + 2
    assert long_rule.startswith(quoted[:-2])
    assert with_part_quotes("No.", "Can they?", []) == ("No.", 0)


def test_a_separate_opinions_words_are_added_only_when_asked_for_and_say_whose():
    from lclfqa.graph.answer.sources import part_quotes, with_part_quotes

    quotes = [
        {
            "text": "The decision overrules nothing: the statute reaches only knowing conduct.",
            "section": ["JUSTICE ROE delivered the opinion of the Court."],
        },
        {"text": "The majority overrules Smith today.", "section": ["JUSTICE DOE, dissenting."]},
    ]
    # about the holding, or a question naming no opinion: never the dissent's words as "the source"
    assert part_quotes("What did the Court hold about Smith?", quotes, "It held … [1].") == []
    assert part_quotes("Did the decision overrule Smith?", quotes, "Yes [1].") == [0]  # a bare verdict shows no words
    # a question about the dissent gets them, saying whose they are
    out, added = with_part_quotes("It dissented [1].", "What did the dissent say about Smith?", quotes)
    assert added == 1 and out.endswith("JUSTICE DOE, dissenting, reads: “The majority overrules Smith today.” [2]")


def test_a_sentence_saying_the_question_back_cites_the_quote_holding_its_words() -> None:
    from lclfqa.graph.answer.sources import part_quotes

    asked = "Can a partnership elect out of the centralized audit regime?"
    quotes = [
        "Whether the partnership may elect for its 2024 year under the regime;",
        "A partnership that has another partnership as a partner may not elect out of the centralized audit regime;"
        " the reviewed year's imputed underpayment is then assessed against it and collected from its members.",
    ]
    verdict = "No, a partnership may not elect out of the centralized audit regime."
    # the question holds all its words, so every quote ties with it: the one holding them by itself is cited
    assert recited(check_answer(verdict, quotes, asked)[0], quotes, asked) == f"{verdict[:-1]} [2]."
    # and citing it says none of the quote's words: the source's words are still added to such an answer
    pieces = [{"text": q} for q in quotes]
    assert part_quotes(asked, pieces, f"{verdict[:-1]} [2].", rule=1) == [1]
    assert part_quotes(asked, pieces, "No, a partner that is a partnership bars the election [2].", rule=1) == []


def test_an_answer_gives_a_quote_holding_half_its_words_and_a_cited_quote_is_not_added():
    from lclfqa.graph.answer.sources import given, part_quotes

    quote = "The credit is $2,500 per eligible student for each year."
    assert given(quote, "The credit is $2,500 for each eligible student per year [1].")
    assert not given(quote, "It depends on the school.")
    quotes = [{"text": quote}]
    assert part_quotes("How much is the credit?", quotes, "It depends.") == [0]
    assert part_quotes("How much is the credit?", quotes, "It depends [1].") == []


def test_a_heading_alone_is_never_added_as_the_sources_words():
    from lclfqa.graph.answer.sources import heading_only, part_quotes

    heading = "PART 4—HOUSING CREDITS SEC. 20101. EXTENSION OF THE LOW-INCOME HOUSING CREDIT."
    rule = "SEC. 20101. (a) IN GENERAL.—The credit is 9 percent of the qualified basis."
    assert heading_only(heading) and not heading_only(rule) and not heading_only("§ 42 — 9")
    quotes = [{"text": heading}, {"text": rule}]
    # the heading is nearest the question's words, but states nothing: the rule is added instead
    assert part_quotes("What does the housing credit extension in section 20101 provide?", quotes, "It applies.") == [1]
    # nor when the verdict call chose the heading as the quote stating the rule
    asked = "True or false: the housing credit extension in section 20101 sets the credit at 9 percent."
    assert part_quotes(asked, quotes, "True.", rule=0) == [1]


_CFR_32_2 = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "data"
    / "pdfs"
    / "treasury-regulations"
    / "26 CFR 32.2 (up to date as of 6-26-2026).pdf"
)


@pytest.mark.skipif(not _CFR_32_2.exists(), reason="../shared/data not present")
def test_a_prints_block_of_headings_is_never_added_as_the_sources_words():
    from lclfqa.graph.answer.sources import heading_block, part_quotes
    from lclfqa.ingest.chunking import chunk_document
    from lclfqa.ingest.document import CHILD
    from lclfqa.ingest.pdf import parse_pdf

    children = [c for c in chunk_document(parse_pdf(_CFR_32_2)) if c.kind == CHILD]
    records = [{"text": c.text, "section": list(c.section_path)} for c in children]
    block = next(r for r in records if r["text"].startswith("Title 26"))  # the eCFR's title, chapter, part, authority
    rule = next(r for r in records if "(a) General rule." in r["text"])
    assert "Authority:" in block["text"] and heading_block(block) and not heading_block(rule)
    item = {"text": "(B) The certificate credit rate.", "section": ["SEC. 25.", "(B) The certificate credit rate."]}
    assert not heading_block(item)  # a statute's item, one line: its own path's last entry, and it states something
    # the block shares the question's words (part, title, chapter), but states nothing: the rule is added instead
    asked = "What does Part 32 of Title 26, chapter I, subchapter C provide about employment taxes?"
    assert part_quotes(asked, [block, rule], "It applies.") == [1]


def test_a_parts_numeral_on_the_first_line_is_not_shown_as_the_sources_words():
    from lclfqa.graph.answer.sources import with_part_quotes, words_of

    part = {"text": "II\nThe covenant binds the tenant for three years.", "section": ["Opinion of the Court", "II"]}
    assert words_of(part) == "The covenant binds the tenant for three years."
    item = {"text": "2\nThe tenant shall pay rent.", "section": ["Lease", "1"]}  # not one of its own headings
    assert words_of(item) == item["text"]
    answer, added = with_part_quotes("It binds the landlord [2].", "Whom does the covenant bind?", [part])
    assert added == 1 and answer.endswith("“The covenant binds the tenant for three years.” [1]")


def test_no_quote_states_a_rule_sharing_no_word_with_any():
    from lclfqa.graph.answer.sources import stating

    assert stating("zebras graze", ["The credit is $2,500."]) is None


def test_a_sentence_citing_the_wrong_quote_is_cited_to_the_one_that_holds_it():
    from lclfqa.graph.answer.check import with_recitations

    quotes = [
        "At least 90 days prior to the issuance, the issuer must give public notice.",
        "The notice must describe the 3-year requirement and the purchase price requirement.",
        "The amount is $24 million.",
    ]
    answer = (
        "The notice describes the 3-year requirement [1]. It comes 90 days before and states $24 million [1]. "
        "The penalty is $400,000 [1]."
    )
    fixed, count = with_recitations(check_answer(answer, quotes), quotes)
    assert fixed == (
        "The notice describes the 3-year requirement [2]. It comes 90 days before and states $24 million [1] [3]. "
        "The penalty is $400,000 [1]."  # held by no quote: left for the support stage to remove
    )
    assert count == 2 and [c.ok for c in check_answer(fixed, quotes)] == [True, True, False]


def test_a_marker_with_no_quote_beside_the_right_one_goes_and_the_sentence_stays():
    # "[9]" cites no quote (there are two); the sentence rests on the quote it also cites, so only the stray
    # marker goes, where before the whole sentence was removed as "a marker with no quote behind it"
    from lclfqa.graph.answer.check import with_recitations

    quotes = ["The tenant must give written notice within 30 days.", "The lease runs for five years."]
    answer = "The tenant must give written notice within 30 days [1] [9] [1]."
    fixed, count = with_recitations(check_answer(answer, quotes), quotes)
    assert (fixed, count) == ("The tenant must give written notice within 30 days [1].", 1)
    assert [c.ok for c in check_answer(fixed, quotes)] == [True]


def test_a_source_sentence_opening_with_a_neutral_citation_keeps_its_year():
    # the extractor's numbered sentences: "[2022]" opens the sentence it belongs to, not the end of the one before
    from lclfqa.graph.evidence.sentences import spans

    text = "The appeal was allowed with costs. [2019] ABC 7 is the leading case. The respondent must pay the costs."
    assert [text[a:b] for a, b in spans(text, ())] == [
        "The appeal was allowed with costs.",
        "[2019] ABC 7 is the leading case.",
        "The respondent must pay the costs.",
    ]


def test_a_number_with_no_quote_inside_the_sentence_is_not_dropped_as_a_stray_marker():
    # a paragraph pinpoint ("at [45]", "[45]-[47]") is not a marker the check may drop: the sentence is left to
    # fail as written rather than shown as "… HCA 7 at, the clause …"
    from lclfqa.graph.answer.check import with_recitations

    quotes = ["The agreed damages clause was a penalty and unenforceable.", "The appeal was allowed."]
    for answer in [
        "In Smith v Jones [2019] HCA 7 at [45], the agreed damages clause was held a penalty and unenforceable [1].",
        "The agreed damages clause was held a penalty and unenforceable (see at [45]-[47]) [1].",
        "At [2]-[45], the agreed damages clause was held a penalty and unenforceable [1].",
        "The agreed damages clause was, in paragraph [45], held a penalty and unenforceable [1].",
    ]:
        assert with_recitations(check_answer(answer, quotes), quotes) == (answer, 0)
    closing = "The agreed damages clause was held a penalty and unenforceable. [1] [9]"
    assert with_recitations(check_answer(closing, quotes), quotes) == (
        "The agreed damages clause was held a penalty and unenforceable [1].",
        1,
    )
    # the model's own range of markers, one with no quote, goes whole
    ranged = "The agreed damages clause was a penalty and unenforceable [1]-[4]."
    assert with_recitations(check_answer(ranged, quotes), quotes) == (
        "The agreed damages clause was a penalty and unenforceable [1].",
        1,
    )
    # a list item's marker the model wrote inside a sentence is no pinpoint: dropped, the sentence cited again
    listed = "The clause, as the parties agreed:\n[7] the agreed damages clause was a penalty and unenforceable [1]."
    assert with_recitations(check_answer(listed, quotes), quotes) == (
        "The clause, as the parties agreed:\n the agreed damages clause was a penalty and unenforceable [1].",
        1,
    )


def test_a_neutral_citation_the_question_gives_keeps_its_year_when_the_sentence_is_cited():
    # "[2019]" in "Smith v Jones [2019] HCA 7" is the case's year, not a marker to a 2,019th quote: citing the
    # sentence to the quote that holds it keeps the citation whole
    from lclfqa.graph.answer.check import with_recitations

    quotes = ["The agreed damages clause was a penalty and unenforceable.", "The appeal was allowed."]
    question = "In Smith v Jones [2019] HCA 7, was the agreed damages clause held to be a penalty?"
    answer = "In Smith v Jones [2019] HCA 7, the agreed damages clause was held a penalty and unenforceable."
    fixed, count = with_recitations(check_answer(answer, quotes, question), quotes, question)
    assert count == 1
    assert fixed == "In Smith v Jones [2019] HCA 7, the agreed damages clause was held a penalty and unenforceable [1]."
    assert [c.ok for c in check_answer(fixed, quotes, question)] == [True]


def test_a_question_naming_a_provision_leads_with_a_sentence_that_names_it():
    from lclfqa.graph.evidence.reading import passages
    from lclfqa.graph.nodes.extract import naming_quote, pointed_quotes

    children = [
        _child(
            "a:c1",
            "1.25A-1.pdf",
            9,
            "(g)",
            "If a taxpayer is married, no education tax credit is allowed unless they file jointly.",
            kind="child",
        ),
        _child(
            "b:c1",
            "1.21-3.pdf",
            1,
            "(a)",
            "See § 1.21-3 for rules. No credit is allowed under section 21 unless the spouses file jointly.",
            kind="child",
        ),
    ]
    numbered = passages(children)
    quotes, _ = pointed_quotes(["1.1"], numbered, children)
    named = naming_quote(["21"], quotes, numbered, children)
    # "§ 1.21-3" does not name section 21; the sentence that does leads
    assert named is not None and named["text"].startswith("No credit is allowed under section 21")
    assert (named["child"], named["how"]) == ("b:c1", "named")
    assert naming_quote([], quotes, numbered, children) is None  # the question names nothing
    chosen, _ = pointed_quotes(["2.2"], numbered, children)
    assert naming_quote(["21"], chosen, numbered, children) is None  # a chosen sentence names it already
    assert naming_quote(["199A"], quotes, numbered, children) is None  # no reference names it


def test_the_nearest_sentences_are_ranked_by_the_question_and_skip_fragments_and_repeats():
    from lclfqa.graph.evidence.nearest import nearest_quotes
    from lclfqa.graph.evidence.reading import passages

    married = "Married taxpayers who file separately may claim neither education credit."
    children = [
        _child(
            "a:c1", "memo.pdf", 1, "§ 1", "The weather was mild in spring this year. Compare post, at 12.", kind="child"
        ),
        _child("a:c2", "memo.pdf", 2, "§ 2", f"{married} The credit is $2,500 per student.", kind="child"),
        _child("a:f1", "memo.pdf", 2, "§ 2", married, kind="footnote"),  # the same sentence again
    ]
    numbered = passages(children)
    picked = [{"child": "a:c2", "text": "The credit is $2,500 per student."}]
    question = "May married taxpayers who file separately claim the education credit?"
    got = nearest_quotes(question, numbered, children, picked, k=3)  # no embedder: shared content words
    # nearest first; the repeated sentence once; the model's pick and the 4-word fragment never
    assert [q["text"] for q in got] == [married, "The weather was mild in spring this year."]
    assert [(q["child"], q["ref"], q["how"]) for q in got] == [("a:c2", 2, "nearest"), ("a:c1", 1, "nearest")]
    assert nearest_quotes(question, numbered, children, picked, k=1) == got[:1]
    assert nearest_quotes(question, numbered, children, picked, k=0) == []


def test_the_rule_quote_is_the_one_stating_the_decided_rule():
    from lclfqa.graph.answer.sources import stating

    texts = ["The credit is $2,500.", "Married taxpayers who file separately may claim neither credit."]
    assert stating("married taxpayers filing separately may claim neither credit", texts) == 1
    assert stating(None, texts) is None and stating("anything", []) is None


@pytest.mark.parametrize(
    ("sentence", "ok"),
    [
        # a paraphrase of the quote: its words are the quote's
        ("Married taxpayers who file separately may claim neither credit [1].", True),
        ("A married couple filing separately cannot claim the education credits [1].", True),  # the question's words
        # invented: the words are nobody's (the 1.5B default wrote this into an answer about Dobbs)
        ("The majority avoided the substantial understatement penalty without disclosure [1].", False),
        ("The credit is phased out at a higher rate for married couples than for individuals [1].", False),
        ("No, it is not allowed.", True),  # too short to judge: a bare verdict
    ],
)
def test_a_sentence_must_rest_on_the_quotes_in_its_words(sentence: str, ok: bool):
    from lclfqa.graph.answer.check import MIN_SUPPORT

    quotes = ["Married taxpayers who file separately may claim neither credit: no education credit is allowed."]
    question = "Can a married couple filing separately claim the education credits?"
    [check] = check_answer(sentence, quotes, question)
    assert check.ok is ok and check.missing == [] and (check.support >= MIN_SUPPORT) is ok
    kept, removed = keep_supported([check], quotes, question)
    assert (removed == []) is ok


def test_a_sentence_that_quotes_a_quote_inside_an_invented_lead_in_keeps_the_quote():
    quotes = [
        "No credit is allowed under section 21 for married taxpayers.",
        "If a taxpayer is married, no education tax credit is allowed unless the spouses file a joint return.",
    ]
    answer = (
        "The rule is § 25A(b) of the Code, which states: "
        '"If a taxpayer is married, no education tax credit is allowed unless the spouses file a joint return." [2]'
    )
    checks = check_answer(answer, quotes)
    assert len(checks) == 1 and checks[0].missing == ["25A(b)"]  # the marker after the closing quote stays on
    kept, removed = keep_supported(checks, quotes)
    assert [c.text for c in kept] == [
        "The source reads: “If a taxpayer is married, no education tax credit is allowed unless the spouses file a "
        "joint return.” [2]"
    ]
    assert removed == [] and kept[0].ok
    # a short quoted phrase is not enough to stand alone, and a phrase no quote holds saves nothing
    for bad in (
        'The rule is § 25A(b), "no credit is allowed" [1].',
        'Under § 25A(b) "a made up rule that no quote has" [1].',
    ):
        assert keep_supported(check_answer(bad, quotes), quotes) == ([], [bad])


def test_a_prompt_label_names_the_file_without_folder_or_extension_and_keeps_the_opinion():
    from lclfqa.graph.evidence.refs import label

    ref = _child("x", "treasury-regulations/26 CFR 1.21-3.pdf", 3, "§ 1.21-3", "text")
    assert label(ref) == "26 CFR 1.21-3, p. 3, § 1.21-3"
    deep = _child("y", "court-opinions/dobbs.pdf", 90, "", "text", kind="footnote")
    deep["section"] = ["JUSTICE BREYER, dissenting", "II", "B", "1"]
    assert label(deep) == "dobbs, p. 90, JUSTICE BREYER, dissenting › … › B › 1, footnotes"


def test_the_verdict_call_may_only_copy_a_quote_as_its_rule():
    from lclfqa.graph.answer.verdict import RULE_WORDS, verdict_schema

    long = " ".join(f"w{i}" for i in range(60))
    texts = [
        "No credit is allowed unless the spouses\nfile a joint return.",
        long,
        "No credit is allowed unless the spouses file a joint return.",
    ]
    schema = verdict_schema(texts)
    assert schema["required"] == ["rule", "verdict"] and schema["properties"]["verdict"]["enum"] == ["yes", "no"]
    rules = schema["properties"]["rule"]["enum"]
    # whitespace normalised, a long quote cut to its first RULE_WORDS words, a repeated quote once
    assert rules == [
        "No credit is allowed unless the spouses file a joint return.",
        " ".join(long.split()[:RULE_WORDS]),
    ]


def test_the_verdict_call_is_offered_every_quote_exceptions_too():
    from lclfqa.graph.answer.verdict import rule_choices

    texts = ["If, however, the surviving spouse remarries, a credit may be allowed.", "  ", "No credit is allowed."]
    assert rule_choices(texts) == [texts[0], texts[2]]


def test_a_sentence_citing_a_quote_that_does_not_hold_its_words_is_cited_to_the_one_that_does():
    from lclfqa.graph.answer.check import with_recitations

    quotes = [
        "The student has no felony drug conviction as of the end of the year. IRC §25A(b)(2).",
        "Married taxpayers who file separately may claim neither credit unless the spouses file a joint return.",
    ]
    question = "Can a married couple filing separately claim the AOTC?"
    answer = (
        "Married taxpayers who file separately may claim neither credit unless they file a joint return [1]. "
        "The student has no felony drug conviction [1]. "
        "Under § 25A(b), spouses who file separately may claim neither education credit unless the spouses file "
        "a joint return [1]."
    )  # [1] holds § 25A(b), [2] the words
    checks = check_answer(answer, quotes, question)
    assert [(c.ok, c.misattributed) for c in checks] == [(True, True), (True, False), (True, True)]
    fixed, count = with_recitations(checks, quotes, question)
    assert count == 2 and fixed == (
        "Married taxpayers who file separately may claim neither credit unless they file a joint return [2]. "
        "The student has no felony drug conviction [1]. "
        "Under § 25A(b), spouses who file separately may claim neither education credit unless the spouses file "
        "a joint return [2] [1]."
    )  # [2] holds the words, [1] the § 25A(b): both cited


def test_two_sentences_salvaged_to_the_same_quote_are_kept_once():
    quotes = ["a principle of justice so rooted in the traditions and conscience of our people as to be fundamental"]
    answer = (
        'Smith, decided in 1937, held "a principle of justice so rooted in the traditions and conscience" [1]. '
        'Jones, decided in 1968, applied "a principle of justice so rooted in the traditions and conscience" [1].'
    )
    kept, removed = keep_supported(check_answer(answer, quotes), quotes)
    assert [c.text for c in kept] == [
        "The source reads: “a principle of justice so rooted in the traditions and conscience” [1]"
    ] and removed == [answer.split(" [1]. ")[1]]  # the second, as written, recorded


EXAMPLE = (
    "Example 1. During 2030, A pays $5,000 to her brother for repairs to A's rental house, which is held for "
    "investment. The repairs otherwise qualify as ordinary and necessary expenses. A's brother is not her employee. "
    "A may deduct under section 212 the amounts paid to her brother for the repairs to A's house. "
    "Example 2. B pays $6,000 to C, who is B's employee, for the repairs to the house. B may not deduct "
    "the amounts paid to C because C is B's employee. The relationship alone decides Example 2. "
    "The facts of Example 3 are otherwise the same."
)
NOTE = (
    "24 The exact scope of the term is subject to some debate. One reading limits it to cash. Another "
    "extends it to property of every kind. We need not resolve this debate."
)


def _section_child(cid: str, text: str, kind: str = "section") -> dict:
    return {"id": cid, "text": text, "kind": kind, "document": "d.pdf", "pages": [1, 1], "section": [], "source": 1}


def _quote(child: dict, sentence: str, number: int = 1, how: str = "pointed") -> dict:
    from lclfqa.graph.evidence.quotes import quote_record

    start = child["text"].index(sentence)
    return quote_record(child, number, start, start + len(sentence), how)


def test_quotes_of_one_passage_are_joined_with_the_sentences_between_and_footnotes_quoted_whole():
    from lclfqa.graph.evidence.widen import widened

    example, note = _section_child("a:c1", EXAMPLE), _section_child("a:f1", NOTE, kind="footnote")
    other = _section_child("b:c2", SOURCE)
    first = "During 2030, A pays $5,000 to her brother"
    rule = "A may deduct under section 212"
    far = "The facts of Example 3 are otherwise the same."
    quotes = [
        _quote(example, EXAMPLE[EXAMPLE.index(first) : EXAMPLE.index("The repairs")].strip()),
        _quote(other, "The credit phases out between $80,000 and $100,000 of modified adjusted gross income.", 3),
        _quote(note, "24 The exact scope of the term is subject to some debate.", 2),
        _quote(example, EXAMPLE[EXAMPLE.index(rule) : EXAMPLE.index("Example 2.")].strip(), how="nearest"),
        _quote(example, far),
    ]
    out, changed = widened(quotes, [example, note, other])
    texts = [q["text"] for q in out]
    # the two picks of Example 1 are one quote holding the sentence between them (the fact they skipped)
    assert texts[0].startswith("Example 1. During 2030") and "A's brother is not her employee." in texts[0]
    assert texts[0].rstrip().endswith("for the repairs to A's house.") and out[0]["how"] == "pointed"
    assert texts[1] == quotes[1]["text"]  # alone in its child: unchanged, in its place
    assert texts[2] == NOTE  # the footnote whole
    assert texts[3] == far  # three sentences away from the joined quote: stays apart
    assert len(out) == 4 and changed == 3  # Example 1 grew, its second pick was absorbed, the footnote grew
    # every quote is still one span of its child's own text
    assert all(q["text"] in {"a:c1": EXAMPLE, "a:f1": NOTE, "b:c2": SOURCE}[q["child"]] for q in out)


def test_joining_stops_at_the_passage_limit_and_a_quote_not_in_its_child_is_left_alone():
    from lclfqa.graph.evidence import widen

    long = " ".join(f"Sentence number {i} states one more rule of this long section in full." for i in range(40))
    child = _section_child("c:c1", long)
    a = _quote(child, "Sentence number 0 states one more rule of this long section in full.")
    b = _quote(child, "Sentence number 2 states one more rule of this long section in full.")
    loose = {**a, "text": "a fuzzy quote in the model's words", "how": "fuzzy"}
    out, changed = widen.widened([a, b, loose], [child])
    # a, b and the sentence between them: one quote well within the limit; the loose quote stays as it was
    assert len(out) == 2 and out[0]["text"].count("Sentence number") == 3 and out[1] == loose and changed == 2
    phrase = _quote(child, "states one more rule")  # part of a sentence, alone in its child: left as it is
    assert widen.widened([phrase], [child]) == ([phrase], 0)
    far = _quote(child, "Sentence number 30 states one more rule of this long section in full.")
    out, changed = widen.widened([a, far], [child])
    assert [q["text"] for q in out] == [a["text"], far["text"]] and changed == 0


def test_a_question_the_source_asks_is_quoted_with_its_answer():
    from lclfqa.graph.evidence import widen

    text = (
        "Some questions are not hard. For example, may the partner deduct the loss in the first year? "
        "In our view, the answer is no. May the partner carry it back? Could it go forward? In our view, yes. "
        "The rest is history."
    )
    child = _section_child("q:c1", text)
    asked = _quote(child, "For example, may the partner deduct the loss in the first year?")
    out, changed = widen.widened([asked], [child])
    assert (
        out[0]["text"]
        == "For example, may the partner deduct the loss in the first year? In our view, the answer is no."
    )
    assert changed == 1
    twice = _quote(child, "May the partner carry it back?")  # questions in a row: up to the first answer
    assert widen.widened([twice], [child])[0][0]["text"].endswith("Could it go forward? In our view, yes.")
    stated = _quote(child, "In our view, the answer is no.")  # no question: as it was
    assert widen.widened([stated], [child]) == ([stated], 0)
    part = _quote(child, "may the partner deduct the loss")  # a piece of the question: as it was
    assert widen.widened([part], [child]) == ([part], 0)
    last = _quote(child, "The rest is history.")
    assert widen.widened([last], [child]) == ([last], 0)
    long = "May a State tax it at all? The answer" + " runs on" * 100 + "."  # past the passage limit: as it was
    lone = _quote(_section_child("q:c2", long), "May a State tax it at all?")
    assert widen.widened([lone], [_section_child("q:c2", long)]) == ([lone], 0)
    asks = "May a State tax it at all? May it tax it twice?" + " Or thrice?" * 80  # no answer in reach
    open_ = _quote(_section_child("q:c3", asks), "May a State tax it at all?")
    assert widen.widened([open_], [_section_child("q:c3", asks)]) == ([open_], 0)


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        ("The majority cites Smith [1]. These decisions are", "The majority cites Smith [1]."),
        ("No [1]. It is allowed only on a joint return [2].", "No [1]. It is allowed only on a joint return [2]."),
        ('The rule "applies to all" [1].', 'The rule "applies to all" [1].'),
        ("A single unfinished sentence stays", "A single unfinished sentence stays"),  # nothing finished to keep
    ],
)
def test_a_last_sentence_cut_off_by_the_token_limit_is_dropped(answer: str, kept: str) -> None:
    from lclfqa.graph.answer.tidy import finished

    assert finished(answer) == (kept, "")


def test_a_cut_off_sentence_copying_a_quote_is_finished_in_its_words_and_one_copying_none_is_dropped() -> None:
    from lclfqa.graph.answer.tidy import finished

    quotes = [
        "The lessee pays rent monthly.",
        "(3) Surrender. A tenant who leaves before the term ends must give notice in writing to the landlord "
        "at least 30 days before leaving (or, where the lease is periodic, one full period). Other words.",
    ]
    # the model put each marker before its sentence, so the cut words end in a marker once it is moved
    raw = (
        "[1] Rent is paid monthly. [2] A tenant who leaves before the term ends must give notice in writing "
        "to the landlord at least 30 days before leaving (or, where the lease is"
    )
    answer = (
        "Rent is paid monthly [1]. A tenant who leaves before the term ends must give notice in writing to "
        "the landlord at least 30 days before leaving (or, where the lease is [2]"
    )
    done, added = finished(answer, raw, quotes)
    assert done.endswith("(or, where the lease is periodic, one full period) [2].")
    assert added == "periodic, one full period) [2]"
    # copied words with most of the quote's sentence still to come: marked as cut (finishing would quote a passage)
    early = "Rent is paid monthly [1]. A tenant who leaves before the term [2]"
    assert finished(early, "[1] Rent is paid monthly. [2] A tenant who leaves before the term", quotes) == (
        "Rent is paid monthly [1]. A tenant who leaves before the term … [2].",
        "",
    )
    # words found in no quote: the cut sentence goes, the finished one stays
    invented = "Rent is paid monthly [1]. A tenant owes a penalty of three months' rent unless the [2]"
    assert finished(
        invented, "[1] Rent is paid monthly. [2] A tenant owes a penalty of three months' rent unless the", quotes
    ) == (
        "Rent is paid monthly [1].",
        "",
    )


def test_a_citation_marker_with_no_quote_behind_it_fails_its_sentence() -> None:
    checks = check_answer("It cites: [1], [539], [427]. The rate is 5% [1].", ["The rate is 5 percent of the base."])
    assert [c.unknown for c in checks] == [["[539]", "[427]"], []] and [c.missing for c in checks] == [[], []]
    assert [c.ok for c in checks] == [False, True]
    # it fails, and no listed clause or quotation of it can be kept: it is removed
    kept, removed = keep_supported(checks, ["The rate is 5 percent of the base."])
    assert removed == ["It cites: [1], [539], [427]."] and [c.text for c in kept] == ["The rate is 5% [1]."]
    # a stray marker beside a real one fails the sentence too: nothing strips the marker to save it
    quotes = ["Married taxpayers must file a joint return to claim the credit."]
    sentence = "Married taxpayers must file a joint return to claim the credit [1] [2]."
    assert keep_supported(check_answer(sentence, quotes), quotes) == ([], [sentence])


SEMIMONTHLY = (
    "the tax included in amounts billed or tickets sold during the first semimonthly period of a calendar month is "
    "considered as collected during the period of the 1st day through the 7th day of the following month"
)


@pytest.mark.parametrize(
    ("answer", "kept_count"),
    [
        # the model restating its sentence with "Thus," in front: said once
        (f"The rule: {SEMIMONTHLY} [1]. Thus, {SEMIMONTHLY} [1].", 1),
        # the same words with another figure: a new statement, kept
        (f"The rule: {SEMIMONTHLY} [1]. For the second period, {SEMIMONTHLY.replace('1st', '16th')} [1].", 2),
        # the converse of the sentence before (as many words, another count of negations): both kept;
        # an opening "No," counts for nothing
        (
            "Not if the payee is the child's parent: the payments are not taken into account [1]. If the payee is "
            "not the child's parent, the payments are taken into account [1].",
            2,
        ),
        (f"The rule: {SEMIMONTHLY} [1]. No, {SEMIMONTHLY} [1].", 1),
        # different sentences sharing a few words: both kept
        (
            "A first return is also a final return if it is a one-time filing [1]. A person does not make a final "
            "return if only a temporary cessation of operations occurs [1].",
            2,
        ),
    ],
)
def test_a_repeated_sentence_is_kept_once(answer, kept_count):
    quotes = [
        "Payments to the child's parent are not taken into account; payments to others are taken into account. "
        f"Thus, {SEMIMONTHLY}; the second period's tax is collected during the 16th day through the 22nd day. A first "
        "return is also a final return if it is a one-time filing. A person does not make a final return if only a "
        "temporary cessation of operations occurs."
    ]
    checks = check_answer(answer, quotes)
    kept, removed = keep_supported(checks, quotes)
    assert len(kept) == kept_count and removed == [c.text for c in checks if c not in kept]  # a repeat is recorded


class _KeywordEmbeddings:
    """Vectors by keyword: (paid, sent, other) — what each text is about, exactly."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float("paid" in t), float("sent" in t), float("other" in t)] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_closeness_to_a_question_is_closeness_to_one_of_the_things_it_asks():
    from lclfqa.graph.evidence.nearest import rank_by_question

    texts = ["other rules on rent paid and notices sent", "rent paid on signing", "notices sent by mail"]
    question = "When is the rent paid, and where must the notice be sent?"
    # by the whole question the text touching both comes first (cosine 0.82 vs 0.71); by its parts, the two
    # texts that each answer one part do (1.0 vs 0.58)
    assert rank_by_question(question, texts, _KeywordEmbeddings()) == [1, 2, 0]
    assert rank_by_question("When is the rent paid and the notice sent?", texts, _KeywordEmbeddings())[0] == 0


REPURCHASE = [
    "The term covered corporation means any domestic corporation the stock of which is traded on an established "
    "securities market.",
    "(2) in any case in which the stock repurchased is contributed to an employer-sponsored retirement plan, employee "
    "stock ownership plan, or similar plan, (3) in any case in which the total value of the stock repurchased",
]


@pytest.mark.parametrize(
    ("sentence", "kept"),
    [
        # the list's last item holds a figure no quote has: the item goes, the rest stays, cited to its quote
        (
            "Exceptions apply where the stock repurchased is contributed to an employer-sponsored retirement plan, "
            "employee stock ownership plan, or similar plan, or when the repurchases do not exceed $1,000,000 [1].",
            "Exceptions apply where the stock repurchased is contributed to an employer-sponsored retirement plan, "
            "employee stock ownership plan, or similar plan [2].",
        ),
        (
            "A covered corporation's stock is traded on an established securities market; the rate is 4 percent [1].",
            "A covered corporation's stock is traded on an established securities market [1].",
        ),
        # the figure in the first clause, or in a "but" clause: nothing is left that can stand
        ("The rate is 4 percent, and the stock is traded on an established securities market [1].", None),
        ("Stock contributed to a retirement plan is excepted, but not above $1,000,000 [2].", None),
    ],
)
def test_a_listed_clause_holding_an_unsupported_figure_is_cut_from_its_sentence(sentence, kept):
    got, removed = keep_supported(check_answer(sentence, REPURCHASE), REPURCHASE)
    assert [c.text for c in got] == ([kept] if kept else []) and removed == ([] if kept else [sentence])


def test_a_later_listed_clause_holding_the_missing_figure_is_cut():
    quotes = ["A lessee may deduct rent paid for property used in a trade or business."]
    sentence = "A lessee may deduct rent paid for property used in a trade or business, and up to $9,000 a year [1]."
    got, removed = keep_supported(check_answer(sentence, quotes), quotes)
    assert [c.text for c in got] == ["A lessee may deduct rent paid for property used in a trade or business [1]."]
    assert removed == []


@pytest.mark.parametrize(
    "sentence",
    [
        # an exception or a limit in the clause that would go: cutting it would make the exception the rule
        "Stock contributed to a retirement plan is excepted; but not above $1,000,000 [2].",
        "Stock contributed to a retirement plan is excepted; unless the repurchases exceed $1,000,000 [2].",
        "Stock contributed to a retirement plan is excepted, and except where its value exceeds $1,000,000 [2].",
    ],
)
def test_a_clause_stating_an_exception_is_never_cut(sentence):
    assert keep_supported(check_answer(sentence, REPURCHASE), REPURCHASE) == ([], [sentence])


def test_a_cut_clause_takes_its_own_marker_with_it():
    quotes = [*REPURCHASE, "The rate is 1 percent of the fair market value of the stock repurchased."]
    sentence = "The rate is 1 percent of the fair market value of the stock repurchased [3], and a floor of $5 [1]."
    got, _ = keep_supported(check_answer(sentence, quotes), quotes)
    assert [c.text for c in got] == ["The rate is 1 percent of the fair market value of the stock repurchased [3]."]


def test_a_negated_sentence_is_no_repeat_of_the_same_words_without_the_negation():
    from lclfqa.graph.answer.check import repeats

    said = "The credit is refundable for married taxpayers who file a joint return [1]."
    assert not repeats("The credit is not refundable for married taxpayers who file a joint return [1].", said)
    assert repeats("Thus, the credit is refundable for married taxpayers who file a joint return [1].", said)


class _SceneEmbeddings:
    """Three dimensions: the scene a question sets ("installment method"), "gain", "received"."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[2.0 * ("installment method" in t), float("gain" in t), float("received" in t)] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def test_a_question_setting_the_scene_is_also_read_without_it():
    from lclfqa.graph.evidence.nearest import rank_by_question

    texts = [
        "This section sets forth the installment method for reporting sales.",  # only the scene
        "Gain is reported in the year a payment is received.",  # the answer
    ]
    question = "Under the installment method, when is gain on a payment received reported?"
    # as asked, the overview is nearer (cosine 0.82 against 0.58); without the scene, only the answer is near
    # (0 against 1.0): summed, the answer comes first
    assert rank_by_question(question, texts, _SceneEmbeddings()) == [1, 0]
    # by shared words: as asked the overview is nearer (five shared, 1.58 against 0.82); without the scene it
    # shares none: summed, 1.58 against 1.63
    texts = [
        "This section sets forth the installment method for computing property sales income.",
        "Gain is reported when payments are received.",
    ]
    question = "Under the installment method for computing gain on property sales, when is gain reported?"
    assert rank_by_question(question, texts, None) == [1, 0]


def test_a_caption_or_a_long_title_sharing_only_names_with_the_question_is_not_the_sources_words():
    """The First Circuit's Calvary Chapel opinion and Malta's Prevention of Money Laundering Act (Cap. 373), as the
    extractor quoted them: the caption, the bench and the long title repeat what the question names, not what it
    asks."""
    from lclfqa.graph.answer.sources import part_quotes

    court = ["United States Court of Appeals", "For the First Circuit"]
    quotes = [
        {
            "text": "United States Court of Appeals\nFor the First Circuit\n\nNo. 20-1507\nCALVARY CHAPEL OF BANGOR,\n"
            "Plaintiff, Appellant,\nv.\nJANET T.",
            "section": court,
        },
        {"text": "Before\nHoward, Chief Judge,\nSelya and Barron, Circuit Judges.", "section": court},
        {
            "text": "We have no transcript of that\nconference, but Governor Mills apparently agreed to file an\n"
            "expedited response to the Chapel's request for some sort of interim\ninjunctive relief.",
            "section": ["SELYA, Circuit Judge.", "I. BACKGROUND"],
        },
    ]
    asked = "In Calvary Chapel of Bangor v. Mills, what did the First Circuit decide, and on what ground?"
    assert part_quotes(asked, quotes, "The court found the Chapel's contentions wanting [3].") == []
    act = [
        {
            "text": "CHAPTER 373\nPREVENTION OF MONEY LAUNDERING ACT\nTo make provision for the prevention and "
            "prohibition of the laundering\nof money in Malta.",
            "section": ["CHAPTER 373", "PREVENTION OF MONEY LAUNDERING ACT"],
        },
        {
            "text": "(1) Any person committing any act of money laundering shall be guilty of an offence and shall, on "
            "conviction, be liable to a fine (multa) not exceeding two million and five hundred thousand euro.",
            "section": ["CHAPTER 373", "PART I", "3."],
        },
    ]
    fine = "What fine is a person liable to on conviction under the Maltese Prevention of Money Laundering Act?"
    assert part_quotes(fine, act, "It is an offence.") == [1]
    cash = "Under the Maltese Prevention of Money Laundering Act, what amount of cash must a traveller declare?"
    assert part_quotes(cash, act, "The Act says nothing of it.") == []


def test_a_question_asking_many_things_gets_at_most_three_quotes_and_700_characters():
    from lclfqa.graph.answer.sources import MAX_ADDED_CHARS, MAX_PART_QUOTES, part_quotes

    topics = ["deposits", "returns", "refunds", "penalties", "interest"]
    quotes = [{"text": f"The rules on {t} are set out in this paragraph in full."} for t in topics]
    question = "What about deposits, what about returns, what about refunds, what about penalties, what about interest?"
    assert len(part_quotes(question, quotes, "It depends.")) == MAX_PART_QUOTES == 3
    long = [{"text": f"The rules on {t} are " + "set out in this long paragraph " * 12} for t in topics]
    assert len(part_quotes(question, long, "It depends.")) == 2 and MAX_ADDED_CHARS == 700  # 2 × 320 fit


# ------------------------------------------------------------------------------- the answer stages


def test_a_figure_the_sentence_computes_from_its_quote_is_held_but_a_shifted_year_is_not():
    quotes = ["The penalty is 1.5 times the unpaid amount of $20 million."]
    derived = "The penalty is 1.5 times the unpaid amount, or $30 million [1]."
    assert check_answer(derived, quotes)[0].ok  # 1.5 × $20 million, and the sentence says so
    assert not check_answer("The penalty is $31 million [1].", quotes)[0].ok
    dated = ["It applies to sales after December 31, 2030, under paragraph (1)."]
    assert not check_answer("Under paragraph (1) it applies after December 31, 2031 [1].", dated)[0].ok


def test_a_count_of_time_in_digits_is_held_only_with_its_unit():
    """An unanswerable question on the DMCA's limitation period: "3 years" passed the check on the "3" of the EU
    Succession Regulation's "Regulation (EEC, Euratom) No 1182/71 of the Council of 3 June 1971"."""
    eu = [
        "Regulation (EEC, Euratom) No 1182/71 of the Council of 3 June 1971 determining the rules applicable to "
        "periods, dates and time limits."
    ]
    assert check_answer("The limitation period is 3 years from the date of the violation [1].", eu)[0].missing == [
        "3 years"
    ]
    assert stated("File within 30 days, in a 14-day window, at 5% [2].") == ["30 days", "14 day", "5%"]
    # the same count, however the quote writes it: a hyphen, the singular, in words, "thirty (30)"
    quotes = ["The election is made within a 3-year period beginning on the date of sale.", "within thirty (30) days"]
    assert check_answer("It is due within 3 years of the sale [1].", quotes)[0].ok
    assert check_answer("Notice is due in 30 days [2].", quotes)[0].ok
    assert not check_answer("It is due within 36 months of the sale [1].", quotes)[0].ok
    # a qualifier between number and unit, in the sentence or the quote
    # a range: the DMCA summary's put-back period
    dmca = [
        "the service provider must put the material back up within 10-14 business days after receiving the counter"
        " notification."
    ]
    assert check_answer("The provider must put it back within 10-14 business days [1].", dmca)[0].missing == []
    notice = ["The plan must pass the notice on within six business days."]
    assert check_answer("The plan must pass the notice on within 6 business days [1].", notice)[0].ok
    assert check_answer("The plan must pass the notice on within 6 days [1].", notice)[0].ok


def test_a_sentence_is_recited_to_the_quotes_that_hold_its_figures_one_each():
    from lclfqa.graph.answer.check import with_recitations

    quotes = [
        "Married taxpayers must file a joint return to claim the credit.",
        "The credit is phased out between $80,000 and $90,000 of modified adjusted gross income.",
        "For a joint return the phase-out runs from $160,000 to $180,000.",
    ]
    answer = "The phase-out runs from $80,000 to $90,000, and from $160,000 to $180,000 on a joint return [1]."
    fixed, count = with_recitations(check_answer(answer, quotes), quotes)
    assert count == 1 and fixed.endswith("on a joint return [3] [2].") and check_answer(fixed, quotes)[0].ok
    uncited = "The credit is phased out between $80,000 and $90,000."
    assert with_recitations(check_answer(uncited, quotes), quotes)[0] == uncited[:-1] + " [2]."


def test_a_marker_the_model_used_as_a_word_is_not_cut_out_of_its_sentence():
    """The Insurance Contracts Act 1984's s 58(4) printed "by virtue of subsection (3)" and "subsection (5) or (6)";
    a model made the paragraph numbers markers, one of a quote that does not exist. Re-citing took them out and left
    "by virtue of, no premium …" and "in accordance with  or, as the case requires"."""
    from lclfqa.graph.answer.check import with_recitations

    quotes = [
        "(2) Not later than 14 days before the day on which renewable insurance cover provided under a contract of "
        "general insurance expires, the insurer shall give to the insured a notice in writing.",
        "39 Instalment contracts of general insurance. Where a provision included in an instalment contract of "
        "general insurance has the effect of limiting the liability of the insurer …",
        "(4) Where a contract of insurance is in force by virtue of subsection (3): (a) except in a case to which "
        "paragraph (b) applies, no premium is payable in respect of the contract; but (b) if a claim is made under "
        "the contract, there is payable by the insured to the insurer, as a premium in respect of the contract, an "
        "amount worked out in accordance with subsection (5) or (6), as the case requires.",
    ]
    written = (
        "If the contract is in force by virtue of [2], no premium is payable in respect of the contract; but if a "
        "claim is made under the contract, there is payable by the insured an amount worked out in accordance "
        "with [3] or [4], as the case requires."
    )
    fixed, count = with_recitations(check_answer(written, quotes), quotes)
    assert count == 0 and fixed == written
    # the same sentence with its markers where markers go is re-cited to the quote that holds it
    at_the_end = written.replace("of [2],", "of subsection (3),").replace(
        "with [3] or [4],", "with subsection (5) or (6),"
    )
    fixed, count = with_recitations(check_answer(at_the_end[:-1] + " [2].", quotes), quotes)
    assert count == 1 and fixed == at_the_end[:-1] + " [3]."


def test_a_sentence_naming_the_provision_the_question_names_is_cited_to_the_quote_holding_its_rule():
    from lclfqa.graph.answer.check import with_recitations

    quotes = ["Consideration for the transfer of a lease shall be paid in cash.", "Rent is due monthly."]
    asked = "Under clause 14.2 of the lease, how must a transferee pay for the transfer?"
    uncited = "Under clause 14.2, consideration for the transfer shall be paid in cash."
    # no quote prints 14.2: the user named it, and the quote on payment holds the rule
    fixed, count = with_recitations(check_answer(uncited, quotes, asked), quotes, asked)
    assert count == 1 and fixed == uncited[:-1] + " [1]."
    # the user's figure vouches for nothing the user did not say
    assert with_recitations(check_answer(uncited, quotes), quotes)[1] == 0


@pytest.mark.parametrize(
    ("answer", "verdict", "expected"),
    [
        ("Generally not. The rule is X [1].", "no", "Generally not. The rule is X [1]."),
        ("Generally, yes [1].", "no", "No. [1]."),
        ("The credit is allowed [1].", "yes", "Yes. The credit is allowed [1]."),
        ("No, it is not [2].", "no", "No, it is not [2]."),
    ],
)
def test_the_answer_opens_with_the_decided_verdict(answer, verdict, expected):
    from lclfqa.graph.answer.verdict import opening_verdict

    assert opening_verdict(answer, verdict)[0] == expected


def test_statements_to_judge_and_questions_after_an_opening_phrase_get_a_verdict():
    from lclfqa import prompts

    statement = "True or false: under the Act, a lessor must give 30 days' notice."
    assert prompts.is_statement(statement) and prompts.is_yes_no(statement)
    assert prompts.yes_no_question(statement) == "under the Act, a lessor must give 30 days' notice."
    assert 'begin the answer with "True" or "False"' in prompts.verdict_rule(statement, "no")  # the reader decides
    assert prompts.is_yes_no("Under the lease and its schedules, can the tenant sublet the premises?")
    assert prompts.is_yes_no("After the 2012 decision, is that fee a penalty?")
    assert not prompts.is_yes_no("Under the lease, what notice must the tenant give?")


def test_a_glossary_gloss_never_reaches_the_answer_and_a_sense_follows_the_sources():
    from lclfqa import prompts

    asked = prompts.expand_acronyms("Does the IRA change the LLC rules for an MFS filer?")
    assert "(or " in asked  # retrieval looks for every sense
    sources = "Section 13401 of the Inflation Reduction Act amends the rules; the lifetime learning credit"
    shown = prompts.expand_acronyms(prompts.unexpand(asked), sources)
    assert "IRA (Inflation Reduction Act)" in shown and "LLC (Lifetime Learning Credit)" in shown
    assert "LLC (Lifetime Learning Credit)" not in prompts.expand_acronyms("the LLC", "a limited company")
    answer = "Yes, the LLC (Lifetime Learning Credit (or limited liability company)) and MFS (married filing "
    answer += "separately) [1]."
    assert prompts.unexpand(answer) == "Yes, the LLC and MFS [1]."


@pytest.mark.parametrize(
    ("answer", "refused", "shown"),
    [
        ("No. [1]", True, "The documents provided do not answer this question."),  # a bare verdict says nothing
        ("Generally, yes.", True, "The documents provided do not answer this question."),
        (
            "The documents provided do not answer this question. The credit requires a joint return [1].",
            False,
            "The credit requires a joint return [1].",
        ),
        ("The sources do not say whether the election is revocable [2].", False, None),  # a part left open: kept
    ],
)
def test_an_answer_is_a_refusal_or_an_answer_never_both(answer, refused, shown):
    from lclfqa.graph.answer.draft import Draft
    from lclfqa.graph.answer.tidy import refuse

    draft = Draft(answer=answer, written=answer)
    refuse(draft, None)  # type: ignore[arg-type]  # the stage reads only the draft
    assert draft.refused is refused and draft.answer == (shown or answer)


def test_the_questions_own_figures_a_list_items_number_and_the_section_above_a_quote_are_held():
    from lclfqa.graph.evidence.refs import section_labels, with_section_labels

    quote = "A credit is not allowed for any amount paid to the taxpayer's spouse."
    question = "A client's fund raised $90 million against a $75 million cap. What follows?"
    assert check_answer("It raised $90 million, $15 million over the cap [1].", [quote], question)[0].ok
    assert not check_answer("It raised $95 million [1].", [quote], question)[0].ok
    listed = "No credit is allowed for amounts paid to: (1) a dependant; (2) the spouse [1]."
    assert stated(listed) == [] and check_answer(listed, [quote])[0].ok  # "(2)" counts items, states nothing
    path = ["Title 26", "§ 1.21-4 Payments to certain related individuals.", "(a) In general.", "(2) Who is a child"]
    assert section_labels(path) == ["§ 1.21-4", "§ 1.21-4(a)", "§ 1.21-4(a)(2)"]
    assert section_labels(["IV. Discussion", "B. The credit"]) == []
    held = with_section_labels(quote, {"section": path})
    assert check_answer("Under § 1.21-4(a), no credit is allowed for amounts paid to a spouse [1].", [held])[0].ok
    assert not check_answer("Under § 1.21-5(a), no credit is allowed for amounts paid to a spouse [1].", [held])[0].ok


def test_a_sentence_that_only_says_the_question_back_must_rest_on_the_quotes_alone():
    from lclfqa.graph.answer.check import echoes

    asked = "What did the tribunal say about whether the lessor's holding fee was a penalty under s 42?"
    quotes = [
        "The lessee took possession of the premises on 1 March and paid the first month's rent.",
        "The holding fee was a genuine pre-estimate of the lessor's loss, and so was not a penalty.",
    ]
    echo = "The tribunal said that the lessor's holding fee was a penalty under s 42 [1]."
    assert echoes(echo, asked)
    check = check_answer(echo, quotes, asked)[0]
    assert check.missing == ["42"] and check.misattributed  # neither the question's "s 42" nor its words vouch
    bare = "The tribunal said the lessor's holding fee was a penalty [1]."
    assert check_answer(bare, quotes[:1], asked)[0].unfounded
    about = "What did the tribunal say about the lessor's holding fee?"  # the sentence adds to what was asked:
    assert not check_answer("The tribunal held the holding fee unenforceable as a penalty [1].", quotes[:1], about)[
        0
    ].unfounded  # the question's words still count for it
    # a sentence that adds what the quotes say keeps the question's words as support
    answer = "The fee was a genuine pre-estimate of the lessor's loss, so it was not a penalty under s 42 [2]."
    assert not echoes(answer, asked) and check_answer(answer, quotes, asked)[0].ok
    # a yes/no question's restatement carries the verdict, which the verdict stage decides
    whether = "Was the lessor's holding fee a penalty under s 42?"
    assert check_answer("No, the lessor's holding fee was not a penalty under s 42 [2].", quotes, whether)[0].ok


def test_a_tied_sentence_is_not_re_cited_to_another_provisions_quote():
    from types import SimpleNamespace

    from lclfqa.graph.answer.draft import Draft, Reading
    from lclfqa.graph.answer.support import cite

    asked = "Under § 6418, does the buyer escape the penalty if it shows reasonable cause?"
    refs = [
        {"document": "26 CFR 1.6418-5", "section": ["§ 1.6418-5 Special rules"], "text": "The buyer is liable."},
        {
            "document": "26 CFR 1.6050-1",
            "section": ["§ 1.6050-1 Returns"],
            "text": "A buyer that shows reasonable cause escapes the penalty for a late return.",
        },
    ]
    texts = [r["text"] for r in refs]
    verdict = "Yes, the buyer escapes the penalty if it shows reasonable cause."
    # every quote holds all its words with the question's help; the one holding most by itself is another provision's
    assert recited(check_answer(verdict, texts, asked)[0], texts, asked) == f"{verdict[:-1]} [2]."
    ctx = SimpleNamespace(settings=SimpleNamespace(min_answer_support=0.5))
    draft = Draft(answer=verdict, written=verdict)
    cite(draft, Reading(ctx=ctx, question=asked, texts=texts, references=refs, retrieved=[]))  # type: ignore[arg-type]
    assert draft.answer == f"{verdict[:-1]} [1]."  # the quote the `support` stage lets it rest on


def test_a_sentence_resting_on_another_documents_provision_answers_another_question():
    from lclfqa.graph.answer.support import elsewhere, provisions_named

    reg = {
        "document": "26 CFR 1.25A-1",
        "section": ["§ 1.25A-1 Calculation of education tax credit", "(c) Limitation based on MAGI"],
        "text": "The credit is reduced ratably for a joint return with modified adjusted gross income over $160,000.",
    }
    act = {
        "document": "inflation-reduction-act-2022",
        "section": ["SEC. 13401. CLEAN VEHICLE CREDIT"],
        "text": "in the case of a joint return, $300,000, in the case of a head of household, $225,000",
    }
    asked = "What is the MAGI phase-out for joint filers under § 25A?"
    assert "25A" in provisions_named(reg) and "25A" not in provisions_named(act)  # a regulation: its section
    assert elsewhere(asked, [act], [act, reg]) and not elsewhere(asked, [reg], [act, reg])
    assert not elsewhere("What is the phase-out for joint filers?", [act], [act, reg])  # no provision cited
    assert not elsewhere(asked, [act], [act])  # no quote concerns it: nothing to tell the sentence apart by
    lease = {"document": "Lease", "section": ["4. Rent"], "text": "Rent is due within 45 days of the invoice."}
    assert "45" not in provisions_named(lease) and "4" in provisions_named(lease)  # a bare number names none
    paragraphs = {**reg, "document": "26 CFR 1.263(a)-3", "section": ["§ 1.263(a)-3 Amounts paid to improve"]}
    assert "263" in provisions_named(paragraphs)
    assert not elsewhere("Must a roof be capitalized under section 263(a)?", [paragraphs], [act, paragraphs])
    opinion = {"document": "Dobbs slip opinion", "section": ["Opinion of the Court"], "text": "The Act bars it."}
    cited = {**opinion, "text": "Miss. Code Ann. §41–41–191 (2018) bars abortions after 15 weeks."}
    assert not elsewhere("What does § 41-41-191 bar?", [opinion], [opinion, cited])  # the same document


def test_a_sentence_naming_the_authority_the_source_cites_for_another_sentence_is_misplaced():
    from lclfqa.graph.answer.support import misplaced

    quote = {
        "section": ["Memorandum", "Discussion"],
        "text": (
            "A donor may exclude a gift to one donee up to the annual amount. Treas. Reg. § 25.2503-2(a).\n"
            "A payment of tuition made directly to a school is not a gift at all. IRC § 2503(e)(2)(A); "
            "Treas. Reg. § 25.2503-6(b)(2). The exclusion therefore does not cap it."
        ),
    }
    tuition = "a payment of tuition made directly to a school is not a gift [1]."
    # the words of the tuition sentence, with the citation the source gives for the sentence before it
    assert misplaced(f"Under Treas. Reg. § 25.2503-2(a), {tuition}", [quote])
    # its own authority, or the section without the paragraph, or words of the sentence the citation is for
    assert not misplaced(f"Under IRC § 2503(e)(2)(A), {tuition}", [quote])
    assert not misplaced(f"Under Treas. Reg. § 25.2503-6, {tuition}", [quote])
    donor = "Under § 25.2503-2(a), a donor may exclude a gift to one donee up to the annual amount [1]."
    assert not misplaced(donor, [quote])
    # the section the quote is printed under is its own, whatever its sentences cite
    own = {"section": ["§ 25.2503-2 Exclusions from gifts", "(a) In general"], "text": quote["text"]}
    assert not misplaced(f"Under Treas. Reg. § 25.2503-2(a), {tuition}", [own])
    # a provision the source names in a sentence's text, not in a citation sentence, is that sentence's
    inline = {
        "text": "Under section 2503(e), tuition paid to a school is excluded. Treas. Reg. § 25.2503-6(a). "
        "The payment must go to the school itself. Treas. Reg. § 25.2503-6(c)."
    }
    assert not misplaced("Under section 2503(e), tuition paid to a school is excluded [1].", [inline])
    assert misplaced("Under Treas. Reg. § 25.2503-6(a), the payment must go to the school itself [1].", [inline])
    # "Id." or a case cited for the words names no provision: the check has no say
    short = {
        "text": "A taxpayer may deduct ordinary and necessary business expenses. IRC § 162(a). Such expenses "
        "must be paid or incurred during the taxable year. Id. Commuting costs are personal expenses. "
        "Fausner v. Commissioner, 413 U.S. 838 (1973)."
    }
    assert not misplaced("Under § 162(a), the expenses must be paid or incurred during the taxable year [1].", [short])
    assert not misplaced("Under § 162(a), commuting costs are personal expenses [1].", [short])
    # one quote at a time: a sentence joining two quotes names each one's authority
    married = {"text": "Married taxpayers who file separately may claim neither credit. IRC § 25A(g)(6)."}
    refund = {"text": "Forty percent of the American opportunity credit is refundable. IRC § 25A(i)(5)."}
    both = "Married taxpayers filing separately may claim neither credit, and under § 25A(i)(5) part is refundable."
    assert not misplaced(both, [married, refund])
    # words two source sentences hold alike decide nothing
    tied = "Under § 2503(e)(2)(A), a donor may exclude tuition paid directly to a school, which is not a gift [1]."
    assert not misplaced(tied, [quote])


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("The rule in section 1.21-3 of the Code bars it [1].", "The rule in section 1.21-3 bars it [1]."),
        ("It is in § 40.6302(c)-3 of the Internal Revenue Code (IRC) [2].", "It is in § 40.6302(c)-3 [2]."),
        ("Under IRC § 1.25A-1(c), the credit is reduced [2].", "Under § 1.25A-1(c), the credit is reduced [2]."),
        ("Section 21 of the Code allows it [1].", "Section 21 of the Code allows it [1]."),  # a Code section
    ],
)
def test_a_regulations_number_is_not_said_to_be_the_codes(written: str, shown: str) -> None:
    from lclfqa.graph.answer.tidy import regulations_unclaimed

    assert regulations_unclaimed(written) == shown


def test_an_answer_naming_one_of_two_things_asked_or_a_figure_of_its_own_is_no_echo():
    from lclfqa.graph.answer.check import echoes

    quote = "A loss from the sale of property used in a trade or business is an ordinary loss."
    which = "Is the loss on the sale of the rental duplex capital or ordinary?"
    assert check_answer("The loss on the sale of the rental duplex is ordinary [1].", [quote], which)[0].ok
    asked = "What is the maximum credit per student for 2024?"
    assert not echoes("For 2024, the maximum credit per student is $2,500 [1].", asked)  # $2,500 is its own
