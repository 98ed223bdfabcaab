"""The parser on layouts it was not written against (issue 32): real prints and synthetic pages per class.

Real prints come from ``../shared/data`` (skipped with the reason when it is absent); the synthetic pages
are drawn here with reportlab, each isolating one class of layout.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from lclfqa.ingest.pdf import parse_pdf
from lclfqa.textnorm import matches, normalize

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
ECFR_30_1 = DATA / "pdfs" / "treasury-regulations" / "26 CFR 1.30-1 (up to date as of 6-26-2026).pdf"


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"the shared data is not at {path.resolve()} (the shared data checkout next to the repo)")
    return path


# --- fidelity: mixed fractions with a raised numerator ----------------------------------------------


def test_ecfr_mixed_fractions_read_as_printed():
    # 26 CFR 1.30-1(b)(3) prints the recapture percentages as 66²⁄₃ and 33¹⁄₃: a raised numerator after the
    # whole number. Read as the eye reads it, "66 2⁄3", not "662⁄3"; the numerator is no footnote marker.
    doc = parse_pdf(_need(ECFR_30_1))
    text = "\n".join(s.text for s in doc.sections)
    assert "(ii) 66 2⁄3, if the recapture date is within the second full year" in text
    assert "(iii) 33 1⁄3, if the recapture date is within the third full year" in text
    assert "($2,000 × 66 2⁄3 percent)" in text
    assert "662⁄3" not in text and "331⁄3" not in text
    assert not [s.footnote_refs for s in doc.sections if s.footnote_refs]


def test_mixed_fraction_with_a_raised_numerator_synthetic(tmp_path):
    # Vera (shipped with reportlab) has the division slash U+2215; the rule reads it like U+2044.
    pdfmetrics.registerFont(TTFont("Vera", os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")))
    path = tmp_path / "fractions.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    y = 700.0
    for whole, num, den, tail in (("66", "2", "3", " percent of the credit is recaptured."), ("", "1", "2", " of it")):
        t = c.beginText(72, y)
        t.setFont("Vera", 11)
        t.textOut(f"In the second year {whole}")
        t.setFont("Vera", 7)
        t.setRise(4)
        t.textOut(num)
        t.setRise(0)
        t.textOut("\u2215")
        t.setRise(-1)
        t.textOut(den)
        t.setRise(0)
        t.setFont("Vera", 11)
        t.textOut(tail)
        c.drawText(t)
        y -= 15
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [s.text for s in doc.sections] == [
        "In the second year 66 2\u22153 percent of the credit is recaptured.\nIn the second year 1\u22152 of it"
    ]
    assert doc.footnotes == () and doc.sections[0].footnote_refs == ()


def test_fraction_slash_normalises_to_a_slash():
    assert normalize("66 2⁄3 percent") == normalize("66 2/3 percent") == normalize("66 2\u22153 %")
    assert matches("66 2/3", normalize("recaptured at 66 2⁄3 percent"))


def test_printed_line_number_is_not_the_whole_part_of_a_fraction():
    from lclfqa.ingest.headings import strip_line_number

    assert strip_line_number("16 2⁄3 percent, but not more than", True) == "16 2⁄3 percent, but not more than"
    assert strip_line_number("12 than 16 2⁄3 percent", True) == "than 16 2⁄3 percent"


# --- markers drawn apart from their lines --------------------------------------------------------


def test_markers_drawn_apart_from_their_lines_join_them(tmp_path):
    # A word processor's print: each raised marker drawn after the line it sits in, and each note's own
    # number drawn apart from the note's text; notes a point smaller than the body, under no rule.
    path = tmp_path / "memo.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font, y = "Times-Roman", 700.0
    cites = {2: ("The Act (DMCA)", "1"), 6: ("as the Office", "2")}
    for i in range(12):
        c.setFont(font, 12)
        text = f"{cites[i][0]} was signed into law on the day, line {i}." if i in cites else f"Body line {i} of it."
        c.drawString(108, y, text)
        if i in cites:  # the marker after the line, at its place in the line
            c.setFont(font, 7)
            c.drawString(108 + c.stringWidth(cites[i][0], font, 12), y + 5, cites[i][1])
        y -= 14
    for number, note, ny in (("1", "Pub. L. No. 105-304, 112 Stat. 2860.", 110), ("2", "2830-34 (Oct. 27, 1998).", 96)):
        c.setFont(font, 11)
        c.drawString(112, ny, note)
        c.setFont(font, 7)
        c.drawString(108, ny + 5, number)
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, "Pub. L. No. 105-304, 112 Stat. 2860."),
        ("2", 1, "2830-34 (Oct. 27, 1998)."),
    ]
    text = doc.sections[0].text
    assert "The Act (DMCA)1 was signed" in text and "as the Office2 was signed" in text
    assert doc.sections[0].footnote_refs == ("1", "2")
    assert "Pub. L." not in text


# --- body-size notes found by their markers; no marker, no note ----------------------------------------


def _raised(t, font: str, size: float, marker: str) -> None:
    t.setFont(font, 0.6 * size)
    t.setRise(0.4 * size)
    t.textOut(marker)
    t.setRise(0)
    t.setFont(font, size)


def test_notes_in_body_size_type_found_by_their_raised_markers(tmp_path):
    # An appeals court's print: double-spaced 12 pt body, the notes in the same 12 pt single-spaced at the
    # foot; only the markers are small and raised, in the text and before each note. Page 2 cites note 2.
    path = tmp_path / "opinion.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Times-Roman"
    for page, (number, at) in enumerate((("1", 4), ("2", 2)), start=1):
        y = 700.0
        for i in range(9):
            t = c.beginText(72, y)
            t.setFont(font, 12)
            t.textOut(f"The district court denied the motion on page {page}, line {i}, for want of a hearing.")
            if i == at:
                _raised(t, font, 12, number)
            c.drawText(t)
            y -= 27
        y -= 30
        note = (f"Even if the order were appealable, note {number} says, the record", "is too sparse.")
        for k, text in enumerate(note):
            t = c.beginText(72, y - 14 * k)
            t.setFont(font, 12)
            if k == 0:
                _raised(t, font, 12, number)
                t.textOut(" ")
            t.textOut(text)
            c.drawText(t)
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, "Even if the order were appealable, note 1 says, the record is too sparse."),
        ("2", 2, "Even if the order were appealable, note 2 says, the record is too sparse."),
    ]
    text = "\n".join(s.text for s in doc.sections)
    assert "record" not in text and "for want of a hearing.1" in text
    assert [r for s in doc.sections for r in s.footnote_refs] == ["1", "2"]


def test_no_marker_no_note(tmp_path):
    # An Act: numbered sections in 11 pt and, at each page's foot, a numbered line in 9 pt (a
    # subsection set small, a table's row). The text cites no raised marker, so nothing is a note.
    path = tmp_path / "act.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    for page in (1, 2):
        y = 740.0
        for i in range(12):
            c.setFont("Times-Roman", 11)
            c.drawString(72, y, f"{page}{i} A person must keep the record of each contract for five years.")
            y -= 15
        c.setFont("Times-Roman", 9)
        foot = FOOT[page - 1]
        c.drawString(72, 100 + 20 * page, f"{page} {foot[0]}")
        c.drawString(72, 88 + 20 * page, foot[1])
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert doc.footnotes == ()
    text = "\n".join(s.text for s in doc.sections)
    assert all(line in text for foot in FOOT for line in foot)


FOOT = (
    ("This Act may be cited as the Record Keeping Act 2024, and it", "commences on the day after the Royal Assent."),
    ("In this Act, a record is a document kept in writing or in an", "electronic form from which it can be read."),
)


# --- two columns, notes at each column's foot, numbered afresh on each page ----------------------------


def test_two_columns_read_column_by_column_with_notes_at_each_columns_foot(tmp_path):
    # An official journal's page: two 11 pt columns drawn row by row (a left line and a right line on one
    # baseline), markers "(1)" with the number raised, each column's notes in 9 pt at its own foot, and
    # the notes numbered afresh on each page. The recitals are numbered "(1)" too, in body type: not notes.
    path = tmp_path / "journal.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    font = "Times-Roman"
    cites = {1: {("L", 3): "1", ("L", 8): "2", ("R", 5): "3"}, 2: {("R", 2): "1"}}
    notes = {1: {"L": ["1", "2"], "R": ["3"]}, 2: {"L": [], "R": ["1"]}}
    for page in (1, 2):
        y = 760.0
        for row in range(16):
            for side, x in (("L", 40), ("R", 310)):
                t = c.beginText(x, y)
                t.setFont(font, 11)
                t.textOut(f"({row + 1}) Recital {side}{row} on page {page} of the journal text" if row % 5 == 0 else "")
                if row % 5:
                    t.textOut(f"{side} column, page {page}, row {row}, text of the recital")
                if (side, row) in cites[page]:
                    t.textOut(" (")
                    _raised(t, font, 11, cites[page][(side, row)])
                    t.textOut(")")
                c.drawText(t)
            y -= 13
        for side, x in (("L", 40), ("R", 310)):
            for k, number in enumerate(notes[page][side]):
                t = c.beginText(x, 90 + 30 * page - 11 * k)  # not at one height on every page: not a footer
                t.setFont(font, 9)
                t.textOut("(")
                _raised(t, font, 9, number)
                t.textOut(f") OJ L {page}{number}{side}, 27.7.2012, p. {number}." + " Corrigendum." * (page - 1))
                c.drawText(t)
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, "OJ L 11L, 27.7.2012, p. 1."),
        ("2", 1, "OJ L 12L, 27.7.2012, p. 2."),
        ("3", 1, "OJ L 13R, 27.7.2012, p. 3."),
        ("1", 2, "OJ L 21R, 27.7.2012, p. 1. Corrigendum."),
    ]
    text = "\n".join(s.text for s in doc.sections)
    assert "OJ L" not in text
    page1 = text[: text.index("page 2")]
    # column by column: every left line of page 1 before any right line, rows in order, no line holds both
    assert page1.index("L column, page 1, row 14") < page1.index("Recital R0 on page 1")
    assert not re.search(r"L column[^\n]*R column", text)
    assert page1.index("row 1,") < page1.index("row 2,") < page1.index("row 14")


def test_one_column_page_with_margin_notes_is_not_two_columns(tmp_path):
    # An Act with a narrow margin-note column and numbered lines: one column of text, lines kept whole.
    path = tmp_path / "act.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    y = 760.0
    for row in range(30):
        c.setFont("Times-Roman", 11)
        c.drawString(150, y, f"{row + 1}. A person who keeps a record under this Act must keep it for five years.")
        if row % 6 == 0:
            c.setFont("Times-Roman", 8)
            c.drawString(40, y, "Keeping of records.")
        y -= 14
    c.showPage()
    c.save()
    lines = [ln for s in parse_pdf(path).sections for ln in s.text.split("\n")]
    assert sum("must keep it for five years." in ln for ln in lines) == 30


# --- the real prints: exact note counts -----------------------------------------------------------------

LEGAL = DATA / "legal-pdfs"
NOTE_COUNTS = {
    # the Australian prints (legal-pdfs/README.md; the ANZ print's 107, not the README's 81: see
    # test_pdf_parsing.test_au_footnotes_counted_numbered_and_short)
    "australia/Breach of Contract.pdf": 218,
    "australia/Employment contract law.pdf": 403,
    "australia/Contract scope of the penalty doctrine(ANZ Bank).pdf": 107,
    "australia/Penalties and consumer contract fairness(ANZ Bank).pdf": 394,
    "australia/Statutes_Insurance Contracts Act.pdf": 0,
    "australia/Statutes_Independent Contractors act.pdf": 0,
    # legal-pdfs/more/README.md: one print per layout class
    "more/scr2024-baude-fear-of-balancing.pdf": 104,  # 8 pt notes under 11 pt, running on across pages
    "more/za-sca-2024-mec-gauteng-v-m.pdf": 24,  # 10 pt under 14 pt, markers inside a quotation
    "more/eu-reg-650-2012-succession-oj.pdf": 10,  # two columns, "(N)" notes afresh on each page
    "more/us-ca1-2020-calvary-chapel-v-mills.pdf": 2,  # notes in the body's 12 pt, only markers small
    "more/us-copyright-office-dmca-summary.pdf": 3,  # markers drawn apart from their lines
    "more/mt-cap373-money-laundering-act.pdf": 0,  # margin notes, no markers: no footnotes
}


@pytest.fixture(scope="module")
def legal() -> dict:
    _need(LEGAL)
    return {name: parse_pdf(LEGAL / name) for name in NOTE_COUNTS}


@pytest.mark.parametrize("name", list(NOTE_COUNTS))
def test_legal_prints_note_counts_exact(legal, name):
    notes = legal[name].footnotes
    assert len(notes) == NOTE_COUNTS[name]
    assert max((len(f.text) for f in notes), default=0) <= 3000


def test_eu_regulation_articles_open_their_levels(legal):
    # the Official Journal prints "Article 21" on a line of its own above the article's title ("General rule"):
    # each article opens its level under its chapter, so a citation names the article; "CHAPTER II", after
    # the recitals' "(83)" and Article 3's items, opens its chapter too
    doc = legal["more/eu-reg-650-2012-succession-oj.pdf"]
    rule = next(s.path for s in doc.sections if "the deceased had his habitual residence at the" in s.text)
    assert [t for t in rule if t.startswith(("CHAPTER", "Article"))] == ["CHAPTER III", "Article 21"]
    articles = {t for s in doc.sections for t in s.path if t.startswith("Article ")}
    assert articles == {f"Article {n}" for n in range(1, 85)}
    # the label no longer ends the article before it as its last line of text
    assert not [s.path for s in doc.sections if s.text.rstrip().endswith("Article 5") and s.path[-1] != "Article 5"]
    chapters = {t for s in doc.sections for t in s.path if t.startswith("CHAPTER")}
    assert {"CHAPTER I", "CHAPTER II", "CHAPTER III"} <= chapters


def test_eu_regulation_notes_at_each_columns_foot_numbered_afresh(legal):
    doc = legal["more/eu-reg-650-2012-succession-oj.pdf"]
    assert [(f.number, f.page) for f in doc.footnotes] == [
        *[(str(n), 1) for n in range(1, 6)],
        ("1", 9),
        ("2", 9),
        ("1", 10),
        ("1", 13),
        ("1", 26),
    ]
    assert doc.footnotes[1].text == (
        "Position of the European Parliament of 13 March 2012 (not yet published in the Official Journal) "
        "and decision of the Council of 7 June 2012."
    )
    text = "\n".join(s.text for s in doc.sections)
    assert "OJ C 44, 11.2.2011" not in text and "Official Journal of the European Union L 201" not in text
    # read column by column: recital (4) runs on in the left column, not into the right column's lines
    assert "(4) A programme of measures for implementation of the\nprinciple of mutual recognition" in text


def test_court_of_appeals_opinion_and_bulleted_orders(legal):
    # the concurrence "BARRON, Circuit Judge, concurring in part …" opens an opinion of its own, not a heading
    # under "III. CONCLUSION"; the bulleted executive orders ("\uf0b7 Executive Order 14, …", the bullet's box
    # set lower than the letters) are body text of the background, not display headings holding the analysis
    ca1 = legal["more/us-ca1-2020-calvary-chapel-v-mills.pdf"]
    # the majority's "SELYA, Circuit Judge. This interlocutory appeal …" opens page 3 after the cover's centred
    # date line: a centred line ends its paragraph, so the opinion opens there
    majority = next(s.path for s in ca1.sections if "out of the chaotic early weeks of the COVID-19" in s.text)
    assert majority[0] == "SELYA, Circuit Judge."
    concurrence = next(s.path for s in ca1.sections if "I agree that the denial of the temporary" in s.text)
    assert concurrence[0].startswith("BARRON, Circuit Judge, concurring in part and concurring in the judgment")
    assert not [s.path for s in ca1.sections if any("Executive Order" in t for t in s.path)]
    analysis = next(s.path for s in ca1.sections if s.path[-1] == "II. ANALYSIS")
    assert analysis == ("SELYA, Circuit Judge.", "II. ANALYSIS")


def test_sentence_opening_with_a_titles_name_opens_no_title(legal):
    # the DMCA summary's "TITLE I: WIPO TREATY IMPLEMENTATION" is followed by the sentence "Title I implements
    # the WIPO treaties. …": a sentence about the title, so Title I's parts stay under its heading
    dmca = legal["more/us-copyright-office-dmca-summary.pdf"]
    paths = [s.path for s in dmca.sections]
    assert not [p for p in paths if any(t.startswith("Title I implements") for t in p)]
    remedies = next(s.path for s in dmca.sections if s.path[-1] == "Remedies")
    assert remedies[0] == "TITLE I: WIPO TREATY IMPLEMENTATION"


def test_body_size_and_apart_markers_notes_text(legal):
    ca1 = legal["more/us-ca1-2020-calvary-chapel-v-mills.pdf"]
    assert [(f.number, f.page) for f in ca1.footnotes] == [("1", 6), ("2", 10)]
    assert ca1.footnotes[1].text.startswith("Even if these circumstances qualified as a close call")
    assert ca1.footnotes[1].text.endswith("Morales Feliciano v. Rullan, 303 F.3d 1, 7 (1st Cir. 2002).")
    assert "Even if these circumstances" not in "\n".join(s.text for s in ca1.sections)
    dmca = legal["more/us-copyright-office-dmca-summary.pdf"]
    assert [(f.number, f.page, f.text[:29]) for f in dmca.footnotes] == [
        ("1", 1, "Pub. L. No. 105-304, 112 Stat"),
        ("2", 4, "“Copying” is used in this con"),
        ("3", 8, "The Fairness in Musical Licen"),
    ]
    assert "for the exercise of any of the exclusive rights of an author" in dmca.footnotes[1].text  # "exclus-"
    text = "\n".join(s.text for s in dmca.sections)
    assert "The Digital Millennium Copyright Act (DMCA)1 was signed" in text
    # the numbered items "3.", "4." of pp. 5-6 are body text
    assert "3. Storage of information on systems or networks at direction of users;" in text


# --- an ENDNOTES section after the appendices ----------------------------------------------------------


def test_endnotes_section_after_the_appendices(tmp_path):
    # A policy report: raised markers 1-4 in the text, an appendix with a numbered list ("1. Scope"), then
    # a section titled ENDNOTES whose notes open with raised numbers, one running over two lines.
    path = tmp_path / "report.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Helvetica"

    def lines(rows: list[tuple[str, str, str]], y: float = 700.0, size: float = 11) -> None:
        for before, marker, after in rows:
            t = c.beginText(72, y)
            t.setFont(font, size)
            t.textOut(before)
            if marker:
                _raised(t, font, size, marker)
            t.textOut(after)
            c.drawText(t)
            y -= 1.4 * size

    lines([(f"Finding {k}: the agency's rules were applied unevenly across the regions", m, ".") for k, m in
           ((1, "1"), (2, ""), (3, "2"), (4, ""), (5, "3"))])  # fmt: skip
    c.showPage()
    lines([("The recommendations follow from the findings", "4", "."), ("APPENDIX A", "", "")])
    lines([(f"{k}. Scope of review item {k} covered by the appendix", "", "") for k in range(1, 5)], y=600)
    c.showPage()
    lines(
        [
            ("ENDNOTES", "", ""),
            ("", "1", "See Government Accountability Office, Report 21-4 (2021)."),
            ("", "2", "Ibid."),
            ("", "3", "Agency rules, 12 C.F.R. 7.1 (as amended in 2020), read with the guidance issued"),
            ("to the regional offices.", "", ""),
            ("", "4", "Interviews with staff, March 2022."),
        ]
    )
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text, f.marker_page) for f in doc.footnotes] == [
        ("1", 3, "See Government Accountability Office, Report 21-4 (2021).", 1),
        ("2", 3, "Ibid.", 1),
        ("3", 3, "Agency rules, 12 C.F.R. 7.1 (as amended in 2020), read with the guidance issued to the regional "
         "offices.", 1),
        ("4", 3, "Interviews with staff, March 2022.", 2),
    ]  # fmt: skip
    text = "\n".join(s.text for s in doc.sections)
    assert "Ibid." not in text and "Government Accountability" not in text
    assert all(f"{k}. Scope of review item {k}" in text for k in range(1, 5))
    assert [r for s in doc.sections for r in s.footnote_refs] == ["1", "2", "3", "4"]


# --- notes in two sizes -----------------------------------------------------------------------------------


def test_notes_in_two_sizes_found_by_their_markers(tmp_path):
    # A court's print: 12 pt body; notes 1-6 in 10 pt on pages 1-3, notes 7-8 in 11 pt on page 4 (the
    # size cut half-way to the 10 pt notes leaves them out); the body cites every note with a raised number.
    path = tmp_path / "judgment.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    font = "Helvetica"
    for page in range(1, 5):
        first = 2 * page - 1
        y = 760.0
        for i in range(20):
            t = c.beginText(72, y)
            t.setFont(font, 12)
            t.textOut(f"Paragraph text of page {page}, line {i}, setting out the reasons of the court")
            if i in (6, 14):
                _raised(t, font, 12, str(first + (i == 14)))
            t.textOut(".")
            c.drawText(t)
            y -= 17
        size = 10 if page < 4 else 11
        y = 150.0 + 12 * page  # notes at a height of their own on each page (not a running footer)
        for number in (first, first + 1):
            note = f"{number} State v {NAMES[number - 1]} (1998) {number} SCC {page}0, at para {number}, where it"
            for text in (note, "was held."):
                c.setFont(font, size)
                c.drawString(72, y, text)
                y -= 1.2 * size
            y -= 4
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page) for f in doc.footnotes] == [(str(n), (n + 1) // 2) for n in range(1, 9)]
    assert doc.footnotes[-1].text == "State v Gupta (1998) 8 SCC 40, at para 8, where it was held."
    assert "SCC" not in "\n".join(s.text for s in doc.sections)


NAMES = ("Sharma", "Iyer", "Khan", "Das", "Menon", "Rao", "Bose", "Gupta")


# --- fidelity: words broken at a line's end by a printed hyphen ----------------------------------------


def test_printed_hyphen_at_a_lines_end_joined_where_the_documents_words_say_so():
    # PDFium marks some line-end hyphens as breaks, not all (the DMCA memo's note 2: "exclus-" / "ive", see
    # test_body_size_and_apart_markers_notes_text); a printed one joins the word when the document prints
    # the whole word elsewhere, keeps its hyphen when it prints the compound inline, and stays as printed
    # when nothing says (a suspended "paid- and unpaid", a number "12-" / "month").
    from lclfqa.ingest.textjoin import hyphen_break

    words, compounds = {"legislature", "exclusive", "paid", "and", "anti", "money"}, {"anti-money"}
    assert hyphen_break("The legisla-", "ture then found", compounds, words) == ""
    assert hyphen_break("any of the exclus-", "ive rights", compounds, words) == ""
    assert hyphen_break("set out the anti-", "money laundering", compounds, words) == "-"
    assert hyphen_break("both paid-", "and unpaid leave", compounds, words) is None
    assert hyphen_break("a period of 12-", "month duration", compounds, words | {"12month"}) is None
    assert hyphen_break("The legisla-", "Ture", compounds, words) is None  # a capital: a new word


def test_number_range_broken_at_its_dash_joins_as_printed():
    # a pinpoint range broken at a line's end reads as printed, "273–274", in a note and in the body alike; a
    # dash before a word, or a number after a word, is no range
    from lclfqa.ingest.textjoin import join_lines, range_break

    assert join_lines(["See 506 U. S. 263, 273–", "274 (1993); id., at 365-", "366."]) == (
        "See 506 U. S. 263, 273–274 (1993); id., at 365-366."
    )
    assert range_break("items 1–22, 30–", "40): the amendments")
    assert not range_break("the guarantor—", "who remains liable")
    assert not range_break("a period of 12-", "month duration")
    assert not range_break("the amount under section 4–", "the Secretary")


def test_figure_hyphenated_after_its_thousands_comma_reads_whole():
    # "$1,000,-" / "000, and costs" is one figure, $1,000,000; a hyphen after a comma and a shorter number is not
    from lclfqa.ingest.textjoin import figure_break, join_lines

    assert join_lines(["The penalty was fixed at $1,000,-", "000, and costs were assessed."]) == (
        "The penalty was fixed at $1,000,000, and costs were assessed."
    )
    assert not figure_break("items 1,-", "12 and 13")
    assert not figure_break("the sum of 1,000-", "000 units")


def test_self_broken_at_a_lines_end_keeps_its_hyphen():
    # English always hyphenates the prefix "self-": with no inline evidence it keeps its hyphen at a line's
    # end ("self-" / "interested", never "selfinterested"), caps included, but "self-" / "ish" is one word.
    from lclfqa.ingest.textjoin import hyphen_break, rejoin

    assert rejoin("A voluntary and self", "interested choice", set()) == "-"
    assert rejoin("SELF", "EMPLOYMENT TAX", set()) == "-"
    assert rejoin("Self", "Employed Persons", set()) == "-"  # a title in Title Case
    assert rejoin("a self", "ish motive", set()) == ""
    assert rejoin("him", "self alone", set()) == ""
    assert hyphen_break("The self-", "executing clause", set(), {"the", "clause"}) == "-"
    assert hyphen_break("The legisla-", "ture then found", set(), {"legislature"}) == ""


def test_three_columns_with_notes_at_a_columns_foot_mid_page(tmp_path):
    # A federal register's page: three 10 pt columns under a title; the middle column of the first
    # document ends mid-page with its two 8 pt notes, then a heading across the page opens the next
    # document, in three columns again. The notes are the middle column's, and no body line joins them.
    path = tmp_path / "register.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font, xs = "Times-Roman", (40, 222, 404)
    c.setFont("Times-Bold", 12)
    c.drawString(40, 740, "DEPARTMENT OF THE TREASURY  Rules and Regulations for the Year of the Register")

    def column(x: float, y: float, tag: str, n: int, cites: dict[int, str] | None = None) -> float:
        for i in range(n):
            t = c.beginText(x, y)
            t.setFont(font, 10)
            t.textOut(f"{tag} line {i:02d} of the agency's rule text")
            if cites and i in cites:
                _raised(t, font, 10, cites[i])
            c.drawText(t)
            y -= 12
        return y

    for x, tag in zip(xs, ("A1", "A2", "A3"), strict=True):
        y = column(x, 715, tag, 14 if tag != "A2" else 10, {3: "1", 7: "2"} if tag == "A2" else None)
        if tag == "A2":
            c.setFont(font, 8)
            c.drawString(x, y - 8, "1 See 12 CFR 7.1 (2020), as amended.")
            c.drawString(x, y - 18, "2 Id. at 7.2, read with the notice.")
    c.setFont("Times-Bold", 12)
    c.drawString(40, 520, "DEPARTMENT OF LABOR  Proposed Rules on Wage Records for the Register of the Year")
    for x, tag in zip(xs, ("B1", "B2", "B3"), strict=True):
        column(x, 495, tag, 14)
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, "See 12 CFR 7.1 (2020), as amended."),
        ("2", 1, "Id. at 7.2, read with the notice."),
    ]
    text = "\n".join(s.text for s in doc.sections)
    order = [text.index(f"{tag} line 00") for tag in ("A1", "A2", "A3", "B1", "B2", "B3")]
    assert order == sorted(order)
    assert text.index("A2 line 09") < text.index("A3 line 00") < text.index("DEPARTMENT OF LABOR")
    assert not re.search(r"A\d line[^\n]*A\d line", text)  # no line holds two columns' text


# --- a note exists because the text cites it -------------------------------------------------------------


def test_a_numbered_line_under_a_note_that_the_text_does_not_cite_continues_the_note(tmp_path):
    # A slip opinion: page 1 cites note 1, page 2 note 2. Note 1's citation wraps to a line that opens
    # with "2 F. 4th 118", flush with the note: the next number in sequence, but page 1 does not cite 2.
    path = tmp_path / "slip.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Times-Roman"
    notes = {
        1: ("1 See Smith v. Jones, 12 F. 4th 1, 5 (CA5 2021); Doe v. Roe,", "2 F. 4th 118, 120 (CA9 2021)."),
        2: ("2 Ibid. The rule is the same in every circuit that has decided", "the question since 2019."),
    }
    for page in (1, 2):
        y = 700.0
        for i in range(14):
            t = c.beginText(72, y)
            t.setFont(font, 12)
            t.textOut(f"The Court of Appeals held, on page {page}, line {i} of its opinion, that the statute applied")
            if i == 3 + page:
                _raised(t, font, 12, str(page))
            t.textOut(".")
            c.drawText(t)
            y -= 16
        c.line(72, 200 + 10 * page, 200, 200 + 10 * page)
        for k, text in enumerate(notes[page]):
            c.setFont(font, 9)
            c.drawString(72, 185 + 10 * page - 11 * k, text)
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, "See Smith v. Jones, 12 F. 4th 1, 5 (CA5 2021); Doe v. Roe, 2 F. 4th 118, 120 (CA9 2021)."),
        ("2", 2, "Ibid. The rule is the same in every circuit that has decided the question since 2019."),
    ]


def test_fraction_drawn_around_a_printed_line_number_is_read_whole(tmp_path):
    # An enrolled bill draws "12" and the raised "1", then the line's printed number "21" at the margin,
    # then "⁄2 per centum" where the numerator stopped: the line reads "21 … 12 1⁄2 per centum …".
    pdfmetrics.registerFont(TTFont("Vera", os.path.join(os.path.dirname(reportlab.__file__), "fonts", "Vera.ttf")))
    path = tmp_path / "bill.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    y = 700.0
    for n in range(20, 32):
        head = "striking ‘‘not less than 12" if n == 21 else f"the Secretary shall, on line {n} of the bill, report"
        t = c.beginText(178, y)
        t.setFont("Vera", 12)
        t.textOut(head)
        if n == 21:
            _raised(t, "Vera", 12, "1")
        c.drawText(t)
        c.setFont("Vera", 12)
        c.drawString(126, y, str(n))
        if n == 21:
            c.drawString(178 + c.stringWidth(head, "Vera", 12) + 4, y, "\u22152 per centum’’ each place")
        y -= 26
    c.showPage()
    c.save()
    text = parse_pdf(path).sections[0].text
    assert "striking ‘‘not less than 12 1\u22152 per centum’’ each place" in text
    assert "\n\u2215" not in text and "121" not in text


def test_notes_numbered_afresh_on_each_page(tmp_path):
    # A one-column print whose notes start again at 1 on every page, each cited on its own page.
    path = tmp_path / "afresh.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Times-Roman"
    for page in (1, 2, 3):
        y = 700.0
        for i in range(12):
            t = c.beginText(72, y)
            t.setFont(font, 12)
            t.textOut(f"The tribunal considered, on page {page} at line {i}, the parties' submissions")
            if i in (2, 8):
                _raised(t, font, 12, "1" if i == 2 else "2")
            t.textOut(".")
            c.drawText(t)
            y -= 16
        c.setFont(font, 9)
        c.drawString(72, 150 + 8 * page, f"1 Submission of the applicant, filed on day {page} of the hearing.")
        c.drawString(72, 139 + 8 * page, f"2 Reply of the respondent, annex {page}.")
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    expected = []
    for p in (1, 2, 3):
        expected += [("1", p, f"Submission of the applicant, filed on day {p} of the hearing.")]
        expected += [("2", p, f"Reply of the respondent, annex {p}.")]
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == expected


def test_markers_set_small_on_the_baseline_count_as_markers(tmp_path):
    # A print that sets its markers small but does not raise them ("statutory.1 On"): still markers, so
    # its notes are found; a small digit inside a word (CO2e) or a denominator is none.
    path = tmp_path / "small markers.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font, y = "Times-Roman", 700.0
    for i in range(12):
        t = c.beginText(72, y)
        t.setFont(font, 12)
        t.textOut(f"The claims were, on line {i}, both constitutional and statutory.")
        if i in (3, 7):
            t.setFont(font, 7)
            t.textOut("1" if i == 3 else "2")
            t.setFont(font, 12)
        t.textOut(" Emissions of CO")
        t.setFont(font, 7)
        t.textOut("2")
        t.setFont(font, 12)
        t.textOut("e were counted.")
        c.drawText(t)
        y -= 16
    c.setFont(font, 9)
    c.drawString(72, 120, "1 The complaint alleged ten counts under federal and state law.")
    c.drawString(72, 109, "2 Id., at 4.")
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.text) for f in doc.footnotes] == [
        ("1", "The complaint alleged ten counts under federal and state law."),
        ("2", "Id., at 4."),
    ]
    assert doc.sections[0].footnote_refs == ("1", "2")


# the running lines of each `more` print (legal-pdfs/more/README.md), none of them left in the text or notes
RUNNING = {
    "more/scr2024-baude-fear-of-balancing.pdf": r"THE SUPREME COURT REVIEW|FEAR OF BALANCING \d",
    "more/za-sca-2024-mec-gauteng-v-m.pdf": r"^\d{1,2}$",
    "more/eu-reg-650-2012-succession-oj.pdf": r"Official Journal of the European Union L 201|^EN$",
    "more/us-ca1-2020-calvary-chapel-v-mills.pdf": r"Case: 20-1507|Entry ID",
    "more/us-copyright-office-dmca-summary.pdf": r"December 1998\s+Page|^The Digital Millennium Copyright Act of 1998$",
    "more/mt-cap373-money-laundering-act.pdf": r"PREVENTION OF MONEY LAUNDERING \[|CAP\. 373\.\]",
}


@pytest.mark.parametrize("name", list(RUNNING))
def test_no_running_line_left_in_the_more_prints(legal, name):
    doc = legal[name]
    text = "\n".join(s.text for s in doc.sections) + "\n" + "\n".join(f.text for f in doc.footnotes)
    assert not re.findall(RUNNING[name], text, flags=re.M)


def test_older_act_side_notes_kept_out_of_its_sentences_and_its_sections_read(legal):
    # the Maltese Act prints each article's title and amendment history in 8.9 pt beside the text
    # ("Offences." / "Amended by:" / "III. 2002.166;"); read by height they fell between a sentence's lines
    # and their "XV. 2021.2." opened roman-numbered levels. They stay whole after the clause beside them, and
    # "3. (1) Any person …" opens article 3 and its sub-article (1)
    doc = legal["more/mt-cap373-money-laundering-act.pdf"]
    text = " ".join(" ".join(s.text.split()) for s in doc.sections)
    assert "Any person committing any act of money laundering shall be guilty of an offence" in text
    assert "Offences. Amended by: III. 2002.166;" in text
    assert not [s.path for s in doc.sections if any(re.match(r"[IVXL]+\. \d{4}", t) for t in s.path)]
    path = next(s.path for s in doc.sections if "Any person committing any act of money" in s.text)
    assert path[-2:] == ("3.", "(1) Any person committing any act of money laundering")
    # article 34's side note "Cap. 101." shares the baseline of its item (a): read apart, (a) opens its item
    assert "Cap. 101. (a)" not in text
    item = next(s.path for s in doc.sections if "22(2)(a)(1) of the Dangerous Drugs Ordinance" in s.text)
    assert item[-1] == "(a) any of the offences referred to in article"


# --- small caps split by the text layer --------------------------------------------------------------------


def _small_caps(c, x: float, y: float, words: list[tuple[str, str, float]], font: str = "Times-Roman") -> float:
    """Draw ``words`` in small caps at 12 pt: each word's ``(capitals, small letters, gap)`` — the capitals
    at 12 pt, the small letters (as the text layer carries them) at 9 pt, a string of their own ``gap``
    points after the capitals (a kerned run); words apart by a real space. Returns where the line ends."""
    space = c.stringWidth(" ", font, 12)
    for k, (big, small, gap) in enumerate(words):
        if k:
            x += space
        c.setFont(font, 12)
        c.drawString(x, y, big)
        x += c.stringWidth(big, font, 12) + (gap if big else 0)
        c.setFont(font, 9)
        c.drawString(x, y, small)
        x += c.stringWidth(small, font, 9)
    return x


def test_small_caps_split_by_the_text_layer_read_whole(tmp_path):
    # A law review's running title and a statute's name set in small caps drawn as a capital and smaller
    # letters, the smaller run kerned 1.5 pt after its capital: PDFium reads a space into each word
    # ("T HE S UPREME C OURT", "A ct"). Where the sizes say small caps and the gap is narrower than the
    # line's word spaces, the word is read whole; a word set all in small caps after a capital keeps its
    # space, kerned or not ("MA–PD PLANS": an acronym and a lower-case word; "A CONTRACT", the article).
    path = tmp_path / "small caps.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    _small_caps(c, 72, 720, [("T", "HE", 1.5), ("S", "UPREME", 1.5), ("C", "OURT", 1.5), ("R", "EVIEW", 1.5)])
    _small_caps(c, 72, 700, [("MA–PD", "", 0), ("", "PLANS", 0)])
    _small_caps(c, 72, 680, [("A", "", 0), ("", "CONTRACT", 0), ("", "OF", 0), ("S", "ALE", 1.5)])
    y = 650.0
    for i in range(10):
        c.setFont("Times-Roman", 12)
        head = f"Line {i} of the text: the insurer relied on the Insurance Contracts "
        c.drawString(72, y, head)
        x = _small_caps(c, 72 + c.stringWidth(head, "Times-Roman", 12), y, [("A", "ct", 1.5)])
        c.setFont("Times-Roman", 12)
        c.drawString(x, y, " 1984 (Cth).")
        y -= 15
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    lines = [ln for s in doc.sections for ln in s.text.split("\n")]
    assert lines[:3] == ["THE SUPREME COURT REVIEW", "MA–PD PLANS", "A CONTRACT OF SALE"]
    assert lines[3:] == [
        f"Line {i} of the text: the insurer relied on the Insurance Contracts Act 1984 (Cth)." for i in range(10)
    ]
    assert doc.footnotes == ()


# --- a page whose column layout changes part-way down ------------------------------------------------------


def test_full_width_abstract_above_two_columns_each_band_in_its_order(tmp_path):
    # An article's first page: a bold title and a 12-line abstract across the page (more lines cross the
    # gutter than a page of columns allows), then two columns drawn row by row. Each band is read in its own
    # order: the abstract line by line, then the left column, then the right; no line holds both columns.
    path = tmp_path / "article.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFont("Times-Bold", 14)
    c.drawString(72, 740, "Balancing Tests in the Law of Contract")
    abstract = [
        f"Abstract line {k}: the article asks how courts weigh the interests of the parties as they balance"
        for k in range(11)
    ]
    abstract.append("and what follows for the law.")
    y = 712.0
    for text in abstract:
        c.setFont("Times-Roman", 11)
        c.drawString(72, y, text)
        y -= 13
    y -= 16
    for row in range(24):
        for side, x in (("L", 72), ("R", 320)):
            c.drawString(x, y, f"{side} column, row {row:02d}, of the article's text")
        y -= 13
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [s.path for s in doc.sections] == [("Balancing Tests in the Law of Contract",)]
    assert doc.sections[0].text.split("\n") == [
        "Balancing Tests in the Law of Contract",
        *abstract,
        *[f"{side} column, row {row:02d}, of the article's text" for side in "LR" for row in range(24)],
    ]


def test_full_width_summary_above_three_columns(tmp_path):
    # A register's page: a heading and a 14-line summary across the page, then three 10 pt columns.
    path = tmp_path / "register.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFont("Times-Bold", 14)
    c.drawString(40, 750, "Rules and Regulations")
    summary = [
        f"Summary line {k}: the agency amends its rules on wage records to keep them for five years" for k in range(14)
    ]
    y = 725.0
    c.setFont("Times-Roman", 10)
    for text in summary:
        c.drawString(40, y, text)
        y -= 12
    y -= 10
    for row in range(22):
        for tag, x in (("A", 40), ("B", 222), ("C", 404)):
            c.drawString(x, y, f"{tag} line {row:02d} of the rule text")
        y -= 12
    c.showPage()
    c.save()
    text = "\n".join(s.text for s in parse_pdf(path).sections)
    assert text.split("\n") == [
        "Rules and Regulations",
        *summary,
        *[f"{tag} line {row:02d} of the rule text" for tag in "ABC" for row in range(22)],
    ]


def test_two_bands_of_columns_around_a_full_width_block(tmp_path):
    # A journal's page where one article ends in two columns, the next opens with a 10-line abstract across
    # the page, and its text goes on in two columns: three bands, each read in its own order.
    path = tmp_path / "journal.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFont("Times-Roman", 11)
    block = [
        f"Block line {k}: the next article's abstract, set across the page under the article's end" for k in range(10)
    ]
    y = 740.0
    for rows, first in ((12, True), (0, False), (12, False)):
        if not rows:
            for text in block:
                c.drawString(72, y, text)
                y -= 13
        for row in range(rows):
            for side, x in (("L", 72), ("R", 320)):
                c.drawString(x, y, f"{side} column, row {row:02d}, of the {'first' if first else 'second'} article")
            y -= 13
        y -= 10
    c.showPage()
    c.save()
    text = "\n".join(s.text for s in parse_pdf(path).sections)
    assert text.split("\n") == [
        *[f"{side} column, row {row:02d}, of the first article" for side in "LR" for row in range(12)],
        *block,
        *[f"{side} column, row {row:02d}, of the second article" for side in "LR" for row in range(12)],
    ]


def test_two_columns_above_a_full_width_block_of_notes(tmp_path):
    # A journal's page: two columns cite notes 1-3 with raised markers; the notes are set across the whole
    # page under both columns, ten 9 pt lines (too many crossings for the page's gutter alone), a note's short
    # last line inside one column's width. The columns are read one after the other, the notes whole.
    path = tmp_path / "journal.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Times-Roman"
    cites = {("L", 5): "1", ("R", 3): "2", ("R", 17): "3"}
    y = 740.0
    for row in range(20):
        for side, x in (("L", 72), ("R", 320)):
            t = c.beginText(x, y)
            t.setFont(font, 11)
            t.textOut(f"{side} column, row {row:02d}, of the journal text")
            if (side, row) in cites:
                _raised(t, font, 11, cites[(side, row)])
            c.drawText(t)
        y -= 13
    y -= 20
    for number, lines in JOURNAL_NOTES:
        for k, text in enumerate(lines):
            c.setFont(font, 9)
            c.drawString(72, y, f"{number} {text}" if k == 0 else text)
            y -= 11
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        (number, 1, " ".join(lines)) for number, lines in JOURNAL_NOTES
    ]
    rows = [f"{side} column, row {row:02d}, of the journal text" for side in "LR" for row in range(20)]
    rows = [
        r + {"L column, row 05": "1", "R column, row 03": "2", "R column, row 17": "3"}.get(r[:16], "") for r in rows
    ]
    assert "\n".join(s.text for s in doc.sections).split("\n") == rows
    assert [r for s in doc.sections for r in s.footnote_refs] == ["1", "2", "3"]


JOURNAL_NOTES = (
    (
        "1",
        [
            "See the Restatement (Second) of Contracts, section 356, comment a, and the cases collected in the",
            "reporter's note to it.",
        ],
    ),
    (
        "2",
        [
            "Id., at 12, where the rule is stated for liquidated damages that are a penalty, and for those that are",
            "not, in the same terms.",
        ],
    ),
    (
        "3",
        [
            "The same rule holds in the law of every State that has decided the question since the code was",
            "adopted, as the survey in the appendix shows with its tables of the cases, with two exceptions, both",
            "of them in States that have since amended their codes to follow the rule, one of them by a statute of",
            "the year after the decision, the other by a rule of court, and both of them with effect for contracts",
            "made after the amendment.",
        ],
    ),
)


# --- a note in the body's size that runs on to the next page --------------------------------------------


def test_body_size_note_running_on_to_the_next_page_joins_its_note(tmp_path):
    # An appeals court's print: a double-spaced 12 pt body, notes in the same 12 pt single-spaced at the foot,
    # only the markers small and raised. Note 1 runs on to page 2, where its last two lines stand at the
    # foot (at the margin, single-spaced, under a gap) above note 2; page 3 ends on a single-spaced block
    # quotation, indented: the body's, though note 2 ran to page 2's foot before it.
    path = tmp_path / "opinion.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Times-Roman"

    def body(page: int, rows: int, cite: dict[int, str]) -> float:
        y = 720.0
        for i in range(rows):
            t = c.beginText(72, y)
            t.setFont(font, 12)
            t.textOut(f"The district court, on page {page}, line {i}, denied the motion for want of a hearing")
            if i in cite:
                _raised(t, font, 12, cite[i])
            t.textOut(".")
            c.drawText(t)
            y -= 27
        return y

    def note_lines(y: float, lines: list[str], number: str = "", x: float = 72) -> float:
        for k, text in enumerate(lines):
            t = c.beginText(x + (36 if number and k == 0 else 0), y)
            t.setFont(font, 12)
            if number and k == 0:
                _raised(t, font, 12, number)
                t.textOut(" ")
            t.textOut(text)
            c.drawText(t)
            y -= 14
        return y

    y = body(1, 18, {3: "1"})
    note_lines(y - 40, NOTE_1[:4], "1")
    c.showPage()
    y = body(2, 18, {5: "2"})
    y = note_lines(y - 40, NOTE_1[4:])
    note_lines(y, NOTE_2, "2")
    c.showPage()
    y = body(3, 16, {})
    note_lines(y - 40, QUOTE, x=108)
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, " ".join(NOTE_1)),
        ("2", 2, " ".join(NOTE_2)),
    ]
    text = "\n".join(s.text for s in doc.sections)
    assert "record on appeal" not in text and "immediate appealability" not in text
    assert text.endswith("\n".join(QUOTE))
    assert [r for s in doc.sections for r in s.footnote_refs] == ["1", "2"]


NOTE_1 = [
    "The Chapel claimed violations of the Free Exercise Clause of the First",
    "Amendment (Count I); the First Amendment right to peaceful assembly",
    "(Count II); the Free Speech Clause of the First Amendment (Count III);",
    "and the Establishment Clause of the First Amendment (Count IV), all on",
    "the record on appeal, which holds no transcript of the telephone",
    "conference that the district court convened with the parties.",
]
NOTE_2 = [
    "Even if these circumstances qualified as a close call, our settled",
    "practice is to resolve borderline cases against immediate appealability.",
]
QUOTE = [
    "A court that grants or denies a temporary restraining order after a",
    "full adversarial hearing has, in substance, ruled on a preliminary",
    "injunction, and its order may be appealed as such.",
]


# --- markers in the body's own type, not raised -------------------------------------------------------------


@pytest.mark.parametrize("note_size", [12, 10])
def test_plain_markers_glued_to_their_words_paired_with_the_notes_below(tmp_path, note_size):
    # A typescript-like print: the markers set in the body's 12 pt on its baseline, glued to a word or its
    # punctuation ("statutory.1 On", "hearing,2 and"), the notes at the foot (in 12 pt, or in 10 pt) opening
    # with the same plain number. Each marker is the next in sequence and has its note start below it on its page: a
    # pairing. Numbers glued to a capital (Form W2), after an abbreviation (p.4, No.5) or in a decimal (2.5)
    # are no markers; nor is page 3's "appeal,5" (note 4 is next), so "4 Costs …" under it is the body's.
    path = tmp_path / "typescript.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFont("Times-Roman", 12)
    for page, (rows, notes) in enumerate(TYPESCRIPT, start=1):
        y = 720.0
        filler = [f"Page {page}, line {i}: the court sets out the history of the proceedings below." for i in range(14)]
        for text in filler + rows:
            c.drawString(72, y, text)
            y -= 24
        y -= 30
        c.setFont("Times-Roman", note_size)
        for text in notes:
            c.drawString(72, y, text)
            y -= 14
        c.setFont("Times-Roman", 12)
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, "The complaint alleged ten counts under federal and state law."),
        ("2", 1, "Id., at 4, where the hearing was set for the following day."),
        ("3", 2, "The record holds no transcript of the conference."),
    ]
    text = "\n".join(s.text for s in doc.sections)
    assert "statutory.1 On the heels" in text and "hearing,2 and" in text and "ten counts" not in text
    assert "4 Costs follow the event in the ordinary way." in text
    assert [r for s in doc.sections for r in s.footnote_refs] == ["1", "2", "3"]


TYPESCRIPT = (
    (
        [
            "The Chapel sued the Governor, and its verified complaint alleged that the",
            "orders transgressed ten provisions of law, both constitutional and",
            "statutory.1 On the heels of this filing the Chapel moved for a restraining",
            "order, which the court denied after a hearing,2 and it read Form W2 at p.4",
            "of the record, No.5 of the exhibits, with a ratio of 2.5 to the whole.",
        ],
        [
            "1 The complaint alleged ten counts under federal and state law.",
            "2 Id., at 4, where the hearing was set for the following day.",
        ],
    ),
    (
        [
            "The court had no transcript of that conference in the record3 in this",
            "appeal, and the parties dispute what was said at it in their briefs.",
            "The court of appeals therefore declined to reach the merits of the case.",
        ],
        ["3 The record holds no transcript of the conference."],
    ),
    (
        [
            "The court dismissed the appeal,5 and it made the following orders:",
            "1 The appeal is dismissed for want of jurisdiction in this court.",
            "2 The matter is remitted to the district court for a hearing.",
            "3 The injunction pending appeal is dissolved from today.",
        ],
        ["4 Costs follow the event in the ordinary way."],
    ),
)


def test_one_plain_number_glued_to_a_word_pairs_no_note(tmp_path):
    # An Act: "this Act,1 and" over a numbered section "1 Short title …" at the page's foot is one pairing
    # only; a plain marker needs the sequence (two pairings) behind it, so nothing is a note.
    path = tmp_path / "act.pdf"
    c = canvas.Canvas(str(path), pagesize=(595, 842))
    c.setFont("Times-Roman", 11)
    rows = [f"Line {i}: a person must keep the record of each contract for five years." for i in range(30)]
    rows[3] = "The Minister may make rules under this Act,1 and the rules bind the Crown."
    rows[27] = "1 Short title: this Act may be cited as the Records Act 2024."
    y = 780.0
    for text in rows:
        c.drawString(72, y, text)
        y -= 22
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert doc.footnotes == ()
    assert "\n".join(s.text for s in doc.sections).split("\n") == rows


def test_small_note_running_on_to_the_next_page_under_no_rule_joins_its_note(tmp_path):
    # A judgment's print: 9 pt notes under a 12 pt body, no rule above them. Note 1 stops mid-sentence at the
    # foot of page 1 ("which held that the"); page 2's foot opens with its last line, no number, then note 2.
    # Page 3's foot opens with a small line that is no note's start, under note 2, which ended a sentence:
    # the body's (a source credit), not note 2's.
    path = tmp_path / "judgment.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    font = "Times-Roman"
    feet = (
        ["1 See the decision of the court below, at 12, and the authorities there collected, in", RUN_ON[0]],
        [RUN_ON[1], "2 Id., at 14."],
        ["Source: the court's own print, as revised for publication."],
    )
    for page, foot in enumerate(feet, start=1):
        y = 720.0
        for i in range(25):
            t = c.beginText(72, y)
            t.setFont(font, 12)
            t.textOut(f"Body text of page {page}, line {i}, on the reasons of the court below")
            if (page, i) in ((1, 5), (2, 7)):
                _raised(t, font, 12, str(page))
            t.textOut(".")
            c.drawText(t)
            y -= 16
        c.setFont(font, 9)
        for k, text in enumerate(foot):
            c.drawString(72, 250 - 11 * k, text)
        c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert [(f.number, f.page, f.text) for f in doc.footnotes] == [
        ("1", 1, " ".join([feet[0][0][2:], *RUN_ON])),
        ("2", 2, "Id., at 14."),
    ]
    text = "\n".join(s.text for s in doc.sections)
    assert RUN_ON[1] not in text and text.endswith("Source: the court's own print, as revised for publication.")


RUN_ON = (
    "particular the decision of the full court in the earlier appeal, which held that the",
    "rule applies to every contract made after the commencement of the Act.",
)
