"""Write ``examples/sample/tax-memo-education-credits.pdf``, the sample the README's run command ingests.

A four-page tax memorandum on the American Opportunity Tax Credit and the Lifetime Learning Credit
(law as of the 2024 tax year), laid out like the documents lclfqa is for: a running header and a
``Page N of 4`` footer on every page, numbered bold headings in three sizes (``I.``, ``A.``, ``1.``),
11-point body text, and eight 8-point footnotes below a short rule at the foot of the page that cites
them, with raised markers in the body. Some facts are only in footnotes (the Hope credit's history, the
Form 1098-T exception) and one paragraph runs across a page break.

The output is byte-for-byte reproducible (``invariant=1``: fixed dates and document id)::

    python examples/make_sample_pdf.py            # writes the PDF and prints where paragraphs split
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_LEFT
from reportlab.lib.pagesizes import letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen import canvas
from reportlab.platypus import Paragraph

OUT = Path(__file__).resolve().parent / "sample" / "tax-memo-education-credits.pdf"

PAGE_W, PAGE_H = letter
LEFT = 72.0
WIDTH = PAGE_W - 2 * LEFT
TOP = PAGE_H - 78.0  # body starts below the running header
BOTTOM = 78.0  # body and footnotes end well above the footer band (bottom 8 % of the page)
HEADER = "PRIVILEGED & CONFIDENTIAL \u2014 Tax Memorandum"

BODY = ParagraphStyle("body", fontName="Times-Roman", fontSize=11, leading=14.4, alignment=TA_JUSTIFY)
FACTS = ParagraphStyle("facts", parent=BODY, alignment=TA_LEFT, leftIndent=54, firstLineIndent=-54)
TITLE = ParagraphStyle("title", fontName="Helvetica-Bold", fontSize=16, leading=20, alignment=TA_CENTER)
H1 = ParagraphStyle("h1", fontName="Helvetica-Bold", fontSize=13, leading=16)
H2 = ParagraphStyle("h2", fontName="Helvetica-Bold", fontSize=12, leading=15)
H3 = ParagraphStyle("h3", fontName="Times-Bold", fontSize=11, leading=14.4)
NOTE = ParagraphStyle("note", fontName="Times-Roman", fontSize=8, leading=9.6, alignment=TA_JUSTIFY)

SPACE = {"title": (0, 10), "h1": (12, 5), "h2": (9, 4), "h3": (7, 3), "body": (0, 7), "facts": (0, 3)}
STYLES = {"title": TITLE, "h1": H1, "h2": H2, "h3": H3, "body": BODY, "facts": FACTS}


def fn(key: str) -> str:
    """A footnote marker in the body; :func:`numbered` turns it into a raised number."""
    return "{fn:" + key + "}"


FOOTNOTES = {
    "hope": "The AOTC began as a temporary expansion of the Hope Scholarship Credit, enacted by the American "
    "Recovery and Reinvestment Act of 2009, and was made permanent by the Protecting Americans from Tax "
    "Hikes (PATH) Act of 2015. As enacted in 1997, the Hope credit was limited to $1,500 per student and to "
    "the first two years of postsecondary education; Treas. Reg. \u00a71.25A-1 still uses the Hope name.",
    "1098t": "The IRS will not disallow the credit for lack of a Form 1098-T where the institution is not required "
    "to furnish one\u2014for example, where the student is a qualified nonresident alien, where the "
    "expenses are paid entirely with scholarships, or where the courses carry no academic credit\u2014"
    "provided the taxpayer can show that the student was enrolled at an eligible educational institution "
    "and can substantiate the payments.",
    "magi": "MAGI is adjusted gross income increased by amounts excluded under \u00a7911 (foreign earned income) "
    "and \u00a7\u00a7931 and 933 (income from certain U.S. possessions and Puerto Rico). "
    "IRC \u00a725A(d)(3).",
    "indexing": "These thresholds are not indexed for inflation. The Taxpayer Certainty and Disaster Tax Relief Act of "
    "2020 raised the LLC phase-out range to match the AOTC's for taxable years beginning after December 31, "
    "2020, and repealed the deduction for tuition and fees under former \u00a7222.",
    "felony": "A felony drug conviction means a conviction of a federal or state felony offense consisting of the "
    "possession or distribution of a controlled substance. IRC \u00a725A(b)(2)(D).",
    "prepay": "Tuition paid in 2024 for an academic period that begins in January, February or March 2025 is "
    "treated as paid for 2024. IRC \u00a725A(g)(4). Emma's spring 2025 tuition was paid in January 2025 "
    "and is therefore a 2025 expense.",
    "kiddie": "The refundable portion is not available to a taxpayer who is a child subject to the \u201ckiddie "
    "tax\u201d of \u00a71(g) for the year. IRC \u00a725A(i)(5). The rule does not affect the Taxpayers.",
    "penalty": "A taxpayer whose AOTC claim is disallowed because of reckless or intentional disregard of the rules "
    "may not claim it for the next two taxable years, or ten years in the case of fraud. IRC \u00a725A(b)(4). "
    "Paid preparers must also complete Form 8867 due diligence for AOTC claims. IRC \u00a76695(g).",
}

CONTENT: list[tuple[str, str]] = [
    ("title", "MEMORANDUM"),
    ("facts", "<b>TO:</b>\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0Maria and David Chen"),
    ("facts", "<b>FROM:</b>\u00a0\u00a0\u00a0Harborview Tax Advisors LLP, Individual Tax Planning Group"),
    ("facts", "<b>DATE:</b>\u00a0\u00a0\u00a0\u00a0February 14, 2025"),
    (
        "facts",
        "<b>RE:</b>\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0\u00a0Education tax credits for "
        "the 2024 tax year: the American Opportunity Tax Credit and the Lifetime Learning Credit",
    ),
    ("h1", "I. Question Presented"),
    (
        "body",
        "(1) Whether Maria and David Chen (the \u201cTaxpayers\u201d), who will file a joint 2024 Form "
        "1040, may claim the American Opportunity Tax Credit (\u201cAOTC\u201d) under Internal Revenue Code "
        "(\u201cIRC\u201d) \u00a725A(b) and (i) for the tuition they paid for their daughter, Emma, and in what "
        "amount; (2) whether David may claim the Lifetime Learning Credit (\u201cLLC\u201d) under "
        "\u00a725A(c) for his own graduate coursework; and (3) how Emma's scholarship and the 2024 "
        "distributions from her \u00a7529 qualified tuition program account affect both credits.",
    ),
    ("h1", "II. Short Answer"),
    (
        "body",
        "Yes to both credits. Emma should be an eligible student for 2024, and the Taxpayers should be "
        "entitled to an American Opportunity Tax Credit of $1,500 after the income phase-out, of which $600 is "
        "refundable. David should be entitled to a Lifetime Learning Credit of $432. The scholarship reduces "
        "the expenses that count toward the credits, but the Taxpayers paid more than enough tuition from "
        "their own funds, and the $12,000 \u00a7529 distribution should be excluded from income in full. "
        "Neither credit is available to married taxpayers who file separate returns, so the Taxpayers should "
        "file jointly.",
    ),
    ("h1", "III. Facts"),
    (
        "body",
        "The Taxpayers are married and will file a joint return for 2024. Their modified adjusted gross "
        "income (\u201cMAGI\u201d) for 2024 is $168,000. They claim Emma, age 19, as a dependent. During 2024 "
        "Emma completed the spring semester of her first year and began the fall semester of her second year "
        "as a full-time student in a bachelor's degree program at Lakeshore State University, an eligible "
        "educational institution. She has no felony drug conviction. The Taxpayers claimed the AOTC for Emma "
        "for 2023, and for no earlier year.",
    ),
    (
        "body",
        "In 2024 the Taxpayers paid $14,200 of tuition and required fees billed for the spring and fall "
        "2024 semesters and $800 for textbooks required for Emma's courses, bought from an online retailer. "
        "Emma received a $5,000 merit scholarship that, under its terms, must be applied to tuition. Lakeshore "
        "State furnished Emma a 2024 Form 1098-T, Tuition Statement, reporting $14,200 of payments received in "
        "box 1 and $5,000 of scholarships in box 5. In 2024 the Taxpayers' \u00a7529 plan account, of which "
        "Maria is the owner and Emma the designated beneficiary, distributed $12,000: $9,800 paid Emma's "
        "on-campus room and board and $2,200 paid part of her fall tuition.",
    ),
    (
        "body",
        "David, age 47, is an operations manager. In 2024 he enrolled part-time, one course per "
        "semester, in a graduate certificate program in supply chain analytics at Midwest Technical "
        "University to improve his job skills, and paid $3,600 of tuition. He also received a Form 1098-T.",
    ),
    ("h1", "IV. Discussion"),
    ("h2", "A. The American Opportunity Tax Credit"),
    ("h3", "1. Emma is an eligible student"),
    (
        "body",
        "The AOTC is a per-student credit for the first four years of postsecondary education."
        + fn("hope")
        + " A student is an eligible student for a taxable year only if, for at least one academic period "
        "beginning in that year, the student is enrolled at least half-time in a program leading to a degree, "
        "certificate or other recognized educational credential; has not completed the first four years of "
        "postsecondary education as of the beginning of the year; has not had the AOTC claimed for any four "
        "earlier taxable years; and has no felony drug conviction as of the end of the year."
        + fn("felony")
        + " IRC \u00a725A(b)(2), (i)(2). Emma was a full-time second-year student in 2024, and the AOTC was "
        "claimed for her only once before. She should therefore be an eligible student. Because the Taxpayers "
        "claim Emma as a dependent, only they may claim a credit for her expenses, including any she pays "
        "herself. Treas. Reg. \u00a71.25A-1(f).",
    ),
    ("h3", "2. Qualified tuition and related expenses"),
    (
        "body",
        "Qualified tuition and related expenses are tuition and fees required for enrollment or "
        "attendance at an eligible educational institution. For the AOTC, but not the LLC, they also include "
        "course materials\u2014books, supplies and equipment needed for a course of study\u2014whether or not "
        "bought from the institution. IRC \u00a725A(i)(3). They never include room and board, insurance, "
        "medical expenses, transportation or similar personal expenses. Treas. Reg. \u00a71.25A-2(d)(3). The "
        "expenses are reduced by tax-free educational assistance such as a scholarship. IRC \u00a725A(g)(2). "
        "Emma's qualified expenses for 2024 are therefore $10,000 ($14,200 of tuition and fees plus $800 of "
        "textbooks, less the $5,000 scholarship), well above the $4,000 needed for the maximum credit." + fn("prepay"),
    ),
    ("h3", "3. Amount of the credit and the MAGI phase-out"),
    (
        "body",
        "The AOTC equals 100 percent of the first $2,000 of qualified expenses plus 25 percent of the "
        "next $2,000, for a maximum of $2,500 per eligible student. IRC \u00a725A(i)(1). The credit is "
        "reduced ratably as MAGI rises from $80,000 to $90,000, or from $160,000 to $180,000 on a joint "
        "return." + fn("magi") + " IRC \u00a725A(d)." + fn("indexing") + " The Taxpayers' MAGI of $168,000 exceeds "
        "$160,000 by $8,000, which is 40 percent of the $20,000 range, so the $2,500 credit is reduced by "
        "$1,000 to $1,500. Forty percent of the allowable AOTC, up to $1,000 per student, is refundable: "
        "$600 of the Taxpayers' credit is refundable and the remaining $900 offsets their income tax." + fn("kiddie"),
    ),
    ("h2", "B. The Lifetime Learning Credit"),
    (
        "body",
        "The LLC equals 20 percent of up to $10,000 of qualified tuition and related expenses paid for "
        "all students on the return, for a maximum of $2,000 per return, and it is nonrefundable. "
        "IRC \u00a725A(c). Unlike the AOTC, the Lifetime Learning Credit has no limit on the number of years "
        "it may be claimed, requires no half-time enrollment, and covers courses taken to acquire or improve "
        "job skills. David's $3,600 of tuition yields a tentative credit of $720, which the same 40 percent "
        "phase-out reduces by $288 to $432. The Taxpayers may claim the AOTC for Emma and the LLC for David "
        "on the same return, but they may not claim both credits for the same student in the same year. "
        "Treas. Reg. \u00a71.25A-1(b)(1).",
    ),
    (
        "body",
        "Married taxpayers who file separately may claim neither credit: if a taxpayer is married, no "
        "education credit is allowed unless the spouses file a joint return. IRC \u00a725A(g)(6); Treas. Reg. "
        "\u00a71.25A-1(g). Filing jointly is therefore a condition of both credits discussed here.",
    ),
    ("h2", "C. Coordination with the \u00a7529 distribution and the scholarship"),
    (
        "body",
        "A distribution from a \u00a7529 qualified tuition program is excluded from gross income to the "
        "extent it does not exceed the beneficiary's adjusted qualified higher education expenses for the year. "
        "IRC \u00a7529(c)(3)(B). For this purpose, and unlike for the credits, qualified higher education "
        "expenses include room and board of a student enrolled at least half-time, up to the allowance in the "
        "institution's cost of attendance. The Code forbids a double benefit, however: those expenses are "
        "reduced by tax-free scholarships and by the expenses taken into account in determining an AOTC or "
        "LLC. IRC \u00a7529(c)(3)(B)(v). Emma's qualified higher education expenses are $24,800 ($14,200 of "
        "tuition and fees, $800 of books and $9,800 of room and board). Reduced by the $5,000 scholarship and "
        "by the $4,000 taken into account for the AOTC, they are $15,800, which exceeds the $12,000 "
        "distribution. The distribution should therefore be excluded from gross income in full. Nor does the "
        "$2,200 of \u00a7529 money applied to tuition reduce the AOTC: after the scholarship and that "
        "distribution, the Taxpayers paid $7,000 of Emma's tuition from other funds, more than the $4,000 the "
        "credit requires.",
    ),
    (
        "body",
        "Where a scholarship may by its terms be used for room and board, a student may include part of "
        "it in gross income so that more tuition counts toward the AOTC. Emma's scholarship must be applied to "
        "tuition, so it is more likely than not that such an allocation would not be respected here; no "
        "allocation is needed in any event, because the Taxpayers' own payments already exceed $4,000.",
    ),
    ("h2", "D. Claiming the credits: Form 8863 and Form 1098-T"),
    (
        "body",
        "Both credits are claimed on Form 8863, Education Credits (American Opportunity and Lifetime "
        "Learning Credits), attached to Form 1040, with a separate Part III for each student. For the AOTC "
        "the form requires the institution's employer identification number, and each student must have a "
        "taxpayer identification number by the due date of the return. Generally, no credit is allowed unless "
        "the taxpayer has received a Form 1098-T from the institution. IRC \u00a725A(g)(8)."
        + fn("1098t")
        + " Both Emma and David received one, and the Taxpayers should keep the forms, the billing statements "
        "and proof of payment, including the textbook receipts, with their 2024 records." + fn("penalty"),
    ),
    ("h2", "E. Later years"),
    (
        "body",
        "Because the AOTC was claimed for Emma for 2023 and 2024, it remains available for 2025 and 2026 if "
        "she stays enrolled at least half-time; a claim for 2027 would be barred by the four-year limit even if "
        "she has not finished her degree, and the LLC would then be the only education credit for her "
        "remaining expenses. The LLC has no such limit for David. Each year the Taxpayers should test their "
        "MAGI first: on a joint return, neither credit is allowed once MAGI reaches $180,000.",
    ),
    ("h1", "V. Conclusion"),
    (
        "body",
        "On the facts provided, the Taxpayers should be entitled to an American Opportunity Tax Credit of "
        "$1,500 for Emma, $600 of it refundable, and a Lifetime Learning Credit of $432 for David, for total "
        "education credits of $1,932 on their 2024 joint return, and the $12,000 \u00a7529 distribution "
        "should be excluded from gross income. This memorandum addresses only the federal income tax issues "
        "stated above, relies on the facts the Taxpayers provided, and may not be relied on if those facts "
        "are incomplete or change.",
    ),
]


@dataclass
class Page:
    items: list[tuple[Paragraph, float]] = field(default_factory=list)  # (paragraph, top y)
    notes: list[int] = field(default_factory=list)


def numbered() -> tuple[list[tuple[str, str]], dict[int, str]]:
    """Number the footnotes in the order their markers appear, as a printed memo does."""
    order: dict[str, int] = {}

    def marker(m: re.Match) -> str:
        n = order.setdefault(m.group(1), len(order) + 1)
        return f'<super rise="4" size="7">{n}</super>'

    content = [(kind, re.sub(r"\{fn:(\w+)\}", marker, markup)) for kind, markup in CONTENT]
    assert set(order) == set(FOOTNOTES), "every footnote is cited once in the text"
    return content, {n: FOOTNOTES[key] for key, n in order.items()}


def _markers(part: Paragraph) -> list[int]:
    """Footnote numbers raised in a laid-out paragraph (what a split part actually holds)."""
    found = []
    for line in part.blPara.lines:
        for frag in getattr(line, "words", []):
            if getattr(frag, "rise", 0) and str(getattr(frag, "text", "")).strip().isdigit():
                found.append(int(frag.text))
    return found


def _notes_height(numbers: list[int], notes: dict[int, str]) -> float:
    if not numbers:
        return 0.0
    h = 12.0  # space and rule above the notes
    for n in numbers:
        _, nh = _note(n, notes).wrap(WIDTH, PAGE_H)
        h += nh + 2.0
    return h


def _note(n: int, notes: dict[int, str]) -> Paragraph:
    """A footnote: its number (smaller, raised) then the text, at 8 points."""
    return Paragraph(f'<super rise="3" size="6">{n}</super>\u00a0{notes[n]}', NOTE)


def layout(content: list[tuple[str, str]], notes: dict[int, str]) -> tuple[list[Page], list[str]]:
    """Place paragraphs on pages, keeping each footnote on the page of its marker; report splits."""
    pages = [Page()]
    y = TOP
    splits: list[str] = []
    queue = [(kind, Paragraph(markup, STYLES[kind])) for kind, markup in content]
    i = 0
    while i < len(queue):
        kind, para = queue[i]
        before, after = SPACE[kind]
        page = pages[-1]
        top = y - (before if page.items else 0)
        _, h = para.wrap(WIDTH, PAGE_H)
        marks = _markers(para)
        room = top - BOTTOM - _notes_height(page.notes + marks, notes)
        if kind.startswith("h"):  # keep a heading with two lines of what follows
            _, nxt_h = queue[i + 1][1].wrap(WIDTH, PAGE_H)
            need = h + SPACE[queue[i + 1][0]][0] + min(nxt_h, 2 * BODY.leading)
            fits = need <= room
        else:
            fits = h <= room
        if fits:
            page.items.append((para, top))
            page.notes.extend(marks)
            y = top - h - after
            i += 1
            continue
        if kind == "body" and room > 3 * BODY.leading:
            parts = para.split(WIDTH, room)
            if len(parts) == 2:
                first, rest = parts
                _, fh = first.wrap(WIDTH, room)
                first_marks = _markers(first)
                if fh + _notes_height(page.notes + first_marks, notes) <= top - BOTTOM:
                    page.items.append((first, top))
                    page.notes.extend(first_marks)
                    splits.append(f"page {len(pages)}->{len(pages) + 1}: {para.getPlainText()[:70]}…")
                    queue[i] = (kind, rest)
                    pages.append(Page())
                    y = TOP
                    continue
        pages.append(Page())
        y = TOP
    return pages, splits


def draw(pages: list[Page], notes: dict[int, str], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    c = canvas.Canvas(str(out), pagesize=letter, invariant=1, pageCompression=1)
    c.setTitle("Tax Memorandum: Education Tax Credits for 2024 (AOTC and LLC)")
    c.setAuthor("Harborview Tax Advisors LLP (fictional sample)")
    c.setSubject("American Opportunity Tax Credit, Lifetime Learning Credit, IRC 25A, Form 8863")
    c.setCreator("lclfqa examples/make_sample_pdf.py")
    total = len(pages)
    for number, page in enumerate(pages, start=1):
        c.setFont("Helvetica", 9)
        c.drawString(LEFT, PAGE_H - 44, HEADER)
        c.drawRightString(PAGE_W - LEFT, PAGE_H - 44, "Chen \u2014 Education Credits")
        c.setLineWidth(0.5)
        c.line(LEFT, PAGE_H - 50, PAGE_W - LEFT, PAGE_H - 50)
        for para, top in page.items:
            _, h = para.wrap(WIDTH, PAGE_H)
            para.drawOn(c, LEFT, top - h)
        if page.notes:
            paras = [_note(n, notes) for n in page.notes]
            heights = [p.wrap(WIDTH, PAGE_H)[1] for p in paras]
            y = BOTTOM + sum(heights) + 2.0 * len(paras)
            c.setLineWidth(0.5)
            c.line(LEFT, y + 6, LEFT + 108, y + 6)
            for p, h in zip(paras, heights, strict=True):
                y -= h
                p.drawOn(c, LEFT, y)
                y -= 2.0
        c.setFont("Helvetica", 9)
        c.drawCentredString(PAGE_W / 2, 40, f"Page {number} of {total}")
        c.showPage()
    c.save()


def main(out: Path = OUT) -> int:
    content, notes = numbered()
    pages, splits = layout(content, notes)
    if len(pages) != 4:
        print(f"expected 4 pages, laid out {len(pages)}: adjust the text", file=sys.stderr)
        return 1
    draw(pages, notes, out)
    for s in splits:
        print("split", s)
    print(f"wrote {out} ({out.stat().st_size:,} bytes, {len(pages)} pages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
