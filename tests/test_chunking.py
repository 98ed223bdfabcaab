"""Chunking invariants: sizes, the overlap rule, children inside parents, footnote links, offsets."""

from __future__ import annotations

from pathlib import Path

import pytest

from lclfqa.ingest.chunking import chunk_document, group_parents, header_text, split_spans
from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Footnote, ParsedDocument, Section

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _doc(sections, footnotes=(), source_text=None, name="memo.pdf") -> ParsedDocument:
    return ParsedDocument(name, name, "0" * 64, 3, tuple(sections), tuple(footnotes), source_text=source_text)


@pytest.mark.parametrize(
    ("sizes", "L", "expected"),
    [
        ([], 100, []),
        ([30, 30, 30, 30], 100, [(0, 4)]),  # never reaches L: one parent
        ([60, 60, 60, 60], 100, [(0, 2), (1, 3), (2, 4)]),  # last section < L opens the next parent
        ([120, 50, 60], 100, [(0, 1), (1, 3)]),  # a parent of one big section: no overlap
        ([100, 100, 100], 100, [(0, 1), (1, 2), (2, 3)]),  # sections of exactly L are not < L: no overlap
        ([40, 70, 10], 100, [(0, 2), (1, 3)]),
    ],
)
def test_group_parents_follows_the_papers_merge_and_overlap_rule(sizes, L, expected):
    assert group_parents(sizes, L) == expected


def test_split_spans_prefers_sentences_and_respects_size():
    text = "First sentence here. Second sentence is here too. Third one ends it.\n\nNew paragraph starts."
    spans = split_spans(text, 40)
    pieces = [text[a:b] for a, b in spans]
    assert all(len(p) <= 40 for p in pieces)
    assert pieces[0] == "First sentence here."
    assert "".join(p.replace(" ", "") for p in pieces) == "".join(text.split())  # nothing lost
    assert split_spans("x" * 90, 40) == [(0, 90)]  # one unbreakable word stays whole


def test_header_text_keeps_innermost_levels():
    path = (
        "Title 26",
        "Chapter I",
        "Part 1",
        "§ 1.25A-1 Education credits.",
        "(b) Coordination",
        "(1) In general.",
    )
    assert header_text(path) == (
        "<section-header>Part 1 › § 1.25A-1 Education credits. › (b) Coordination › (1) In general.</section-header>"
    )
    assert header_text(()) == ""


def test_header_text_keeps_the_innermost_section_title_when_the_path_runs_deeper():
    path = (
        "SEC. 13801. ELECTIVE PAYMENT…",
        "(b) TRANSFER OF CERTAIN CREDITS.",
        "SEC. 6418. TRANSFER OF CERTAIN CREDITS.",
        "(g) SPECIAL RULES.",
        "(3) BASIS REDUCTION.",
        "(B) if, during any taxable year,",
        "(i) such eligible taxpayer",
    )
    assert header_text(path) == (
        "<section-header>SEC. 6418. TRANSFER OF CERTAIN CREDITS. › (3) BASIS REDUCTION. › "
        "(B) if, during any taxable year, › (i) such eligible taxpayer</section-header>"
    )
    # a judgment's opinion stays too: the footnote of the majority's Part II.A.2
    note = ("JUSTICE ALITO delivered the opinion of the Court.", "II", "A", "2", "Footnote 19 (page 20)")
    assert header_text(note) == (
        "<section-header>JUSTICE ALITO delivered the opinion of the Court. › A › 2 › Footnote 19 (page 20)"
        "</section-header>"
    )
    assert header_text(note[:4]) == "<section-header>" + " › ".join(note[:4]) + "</section-header>"  # fits whole
    # no section title anywhere: just the innermost levels
    assert header_text(("A", "B", "C", "D", "E")) == "<section-header>B › C › D › E</section-header>"


def _sections():
    body = "The credit is allowed. " * 30  # 690 characters
    return [
        Section(("I. Facts",), "I. Facts\n" + body, 1, 1, footnote_refs=("1",)),
        Section(("II. Law",), "II. Law", 1, 1),  # a heading-only section
        Section(
            ("II. Law", "A. Credit"),
            "A. Credit\n" + body + "See note 2.",
            1,
            2,
            footnote_refs=("2",),
            page_breaks=(300,),
        ),
        Section(("III. Conclusion",), "III. Conclusion\n" + body, 2, 2),
    ]


def test_children_sit_inside_every_parent_they_name_and_carry_their_section():
    chunks = chunk_document(_doc(_sections()), parent_size=800, child_size=300, prefix="Document: memo.pdf.")
    parents = {c.id: c for c in chunks if c.kind == PARENT}
    children = [c for c in chunks if c.kind == CHILD]
    assert len(parents) >= 2 and children
    for c in children:
        assert c.parent_ids, c
        for pid in c.parent_ids:
            for line in c.text.split("\n"):
                assert line in parents[pid].text
        assert c.indexed_text.startswith("Document: memo.pdf.\n<section-header>")
        assert c.text in c.indexed_text
        assert len(c.text) <= 300 * 1.5
    # the heading-only section "II. Law" does not stand alone: it is glued to its first body child
    assert not any(c.text == "II. Law" for c in children)
    assert any(c.text.startswith("II. Law\nA. Credit") for c in children)
    # a section in two parents (overlap rule) yields children linked to both
    assert any(len(c.parent_ids) == 2 for c in children)
    # page precision inside a section that crosses a page break
    credit = [c for c in children if c.section_path == ("II. Law", "A. Credit")]
    assert credit[0].page_start == 1 and credit[-1].page_end == 2


def test_small_items_join_their_lead_in_and_a_heading_joins_the_section_after_it():
    lead = ("SEC. 6418.", "(b) TREATMENT OF PAYMENTS.")
    lead_text = "(b) TREATMENT OF PAYMENTS.—With respect to any amount paid as consideration for a transfer, " * 2
    sections = [
        Section(lead, lead_text + "such consideration—", 1, 1),
        Section(lead, "(1) shall be required to be paid in cash,", 1, 1),  # items: pathless, the lead-in's path
        Section(lead, "(2) shall not be includible in gross income, and", 1, 1),
        Section(("SEC. 6418.", "(c) PARTNERSHIPS."), "(c) PARTNERSHIPS.—", 1, 1),  # a heading: joins what follows
        Section(("SEC. 6418.", "(c) PARTNERSHIPS.", "(1) IN GENERAL."), "(1) IN GENERAL.—" + "Text. " * 40, 1, 1),
    ]
    children = [c for c in chunk_document(_doc(sections), child_size=300) if c.kind == CHILD]
    paid = next(c for c in children if "paid in cash" in c.text)
    assert paid.text.startswith("(b) TREATMENT") and "gross income, and" in paid.text
    assert paid.section_path == lead and "PARTNERSHIPS" not in paid.text  # was carried into (c) before
    general = next(c for c in children if "PARTNERSHIPS" in c.text)
    assert general.text.startswith("(c) PARTNERSHIPS.—\n(1) IN GENERAL.")
    assert general.section_path == sections[-1].path
    # two sibling items carried with their lead-in take the lead-in's path, not the last item's
    siblings = [
        Section(("A",), "Body text of A. " * 20, 1, 1),
        Section(("A", "(5) TAX."), "(5) TAX.—such payment—", 1, 1),
        Section(("A", "(5) TAX.", "(A) not included"), "(A) not included, and", 1, 1),
        Section(("A", "(5) TAX.", "(B) not deducted"), "(B) not deducted.", 1, 1),
        Section(("B",), "Body text of B. " * 20, 1, 1),
    ]
    children = [c for c in chunk_document(_doc(siblings), child_size=300) if c.kind == CHILD]
    items = next(c for c in children if "(B) not deducted" in c.text)
    assert "(5) TAX.—such payment—\n(A) not included, and\n(B) not deducted." in items.text
    assert "Body text of B" not in items.text and items.section_path in {("A",), ("A", "(5) TAX.")}
    assert next(c for c in children if "Body text of B" in c.text).section_path == ("B",)


def test_no_child_ends_on_a_lead_in_when_its_items_fit_with_it():
    # Pub. L. 117-169, § 13403 (IRC § 45W(b)(1)), as the enrolled print sets it: an item over 0.3 × child_size
    sec = ("SEC. 45W.", "(b) PER VEHICLE AMOUNT.", "(1) IN GENERAL.")
    sections = [
        Section(sec[:2], "‘‘(b) PER VEHICLE AMOUNT.—", 1, 1),
        Section(
            sec,
            "‘‘(1) IN GENERAL.—Subject to paragraph (4), the amount determined under this subsection with respect "
            "to any qualified commercial clean vehicle shall be equal to the lesser of—",
            1,
            1,
        ),
        Section(
            (*sec, "(A)"),
            "‘‘(A) 15 percent of the basis of such vehicle (30 percent in the case of a vehicle not powered by a "
            "gasoline or diesel internal combustion engine), or",
            1,
            1,
        ),
        Section((*sec, "(B)"), "‘‘(B) the incremental cost of such vehicle.", 1, 1),
        Section(
            (*sec[:2], "(2) INCREMENTAL COST."),
            "‘‘(2) INCREMENTAL COST.—For purposes of paragraph (1)(B), the incremental cost of any qualified "
            "commercial clean vehicle is an amount equal to the excess of the purchase price for such vehicle over "
            "such price of a comparable vehicle." * 2,
            1,
            1,
        ),
    ]
    children = [c for c in chunk_document(_doc(sections), child_size=500) if c.kind == CHILD]
    rule = next(c for c in children if "the lesser of—" in c.text)
    assert "(A) 15 percent of the basis" in rule.text and rule.text.endswith("the incremental cost of such vehicle.")
    assert rule.section_path == sec and "INCREMENTAL COST" not in rule.text
    assert all(len(c.text) <= 650 for c in children)
    # inside one section's text: the lead-in opens the next span with its items instead of ending the one before
    body = "The Secretary shall prescribe rules for the program in general. " * 5
    items = "(A) $1,000,000 for each project carried out by an eligible entity under this section, or\n\n(B) the "
    text = body + "\n\nThe amount of the grant shall be the lesser of—\n\n" + items + "cost of the project as approved."
    spans = [text[a:b] for a, b in split_spans(text, 400)]
    assert len(spans) == 2 and spans[0].endswith("in general.") and spans[1].startswith("The amount of the grant")
    assert spans[1].endswith("(B) the cost of the project as approved.")
    plain = text.replace("lesser of—", "lesser of the following.")  # no lead-in: packed as before
    assert [plain[a:b] for a, b in split_spans(plain, 400)][0].endswith("lesser of the following.")


def test_footnote_chunks_link_page_parents_and_the_marker_parent():
    sections = _sections()
    notes = [Footnote("1", 1, "Treas. Reg. § 1.25A-1."), Footnote("2", 2, "Form 8863 instructions.")]
    chunks = chunk_document(_doc(sections, notes), parent_size=800, child_size=300)
    parents = [c for c in chunks if c.kind == PARENT]
    fns = [c for c in chunks if c.kind == FOOTNOTE]
    assert [f.footnote_numbers for f in fns] == [("1",), ("2",)]
    assert fns[0].text == "1 Treas. Reg. § 1.25A-1."
    on_page_2 = {p.id for p in parents if p.page_start <= 2 <= p.page_end}
    assert on_page_2 <= set(fns[1].parent_ids)
    marker_parent = next(p for p in parents if "See note 2" in p.text)
    assert marker_parent.id in fns[1].parent_ids
    assert "Footnote 2 (page 2)" in fns[1].indexed_text
    per_page = chunk_document(
        _doc(sections, [notes[0], Footnote("3", 1, "Another note.")]),
        parent_size=800,
        child_size=300,
        footnote_chunks="page",
    )
    assert [c.footnote_numbers for c in per_page if c.kind == FOOTNOTE] == [("1", "3")]


def test_plain_text_offsets_reproduce_the_source():
    text = "1. Scope\n\n" + "This policy applies to all users. " * 40 + "\n\n2. Data\n\n" + "We collect data. " * 50
    s1_end = text.index("2. Data") - 2
    sections = [
        Section(("1. Scope",), text[:s1_end], 1, 1, start=0, end=s1_end),
        Section(("2. Data",), text[s1_end + 2 :], 1, 1, start=s1_end + 2, end=len(text)),
    ]
    chunks = chunk_document(_doc(sections, source_text=text, name="p.txt"), parent_size=900, child_size=250)
    assert sum(c.kind == CHILD for c in chunks) >= 4  # ~2,300 characters in 250-character children
    for c in chunks:
        if c.kind == FOOTNOTE:
            continue
        assert c.start is not None and text[c.start : c.end] == c.text


def test_bad_settings_are_rejected():
    with pytest.raises(ValueError, match="footnote_chunks"):
        chunk_document(_doc(_sections()), footnote_chunks="chapter")
    with pytest.raises(ValueError, match="child_size"):
        chunk_document(_doc(_sections()), parent_size=100, child_size=500)


@pytest.mark.skipif(not (DATA / "pdfs").exists(), reason="../shared/data not present")
def test_real_regulation_chunks_cite_paragraph_paths():
    from lclfqa.ingest.pdf import parse_pdf

    doc = parse_pdf(DATA / "pdfs" / "treasury-regulations" / "26 CFR 1.25A-1 (up to date as of 6-26-2026).pdf")
    chunks = chunk_document(doc, parent_size=2000, child_size=500)
    children = [c for c in chunks if c.kind == CHILD]
    hit = next(
        c for c in children if "modified adjusted gross income between $40,000 and $50,000" in " ".join(c.text.split())
    )
    assert hit.page_start == 2
    assert any(p.startswith("(c) Limitation based on modified adjusted gross income") for p in hit.section_path)


def test_endnote_links_to_the_parent_of_its_marker_pages_away():
    # An endnote printed on p. 9 is cited on p. 1: the marker link follows marker_page, not the note's page.
    cited = Section(
        ("Reasons",), "The fees are set out in the reasons of the primary judge[1].", 1, 1, footnote_refs=("1",)
    )
    later = Section(("Orders",), "The appeal is dismissed. " * 40, 2, 9)
    note = Footnote("1", 9, "At [308]-[311].", marker_page=1)
    doc = ParsedDocument("web.pdf", "web.pdf", "0" * 64, 9, (cited, later), (note,))
    chunks = chunk_document(doc, parent_size=400, child_size=200)
    (fn,) = [c for c in chunks if c.kind == FOOTNOTE]
    (first_parent,) = [c for c in chunks if c.kind == PARENT and c.page_start == 1]
    assert first_parent.id in fn.parent_ids
    assert fn.section_path[0] == "Reasons"
