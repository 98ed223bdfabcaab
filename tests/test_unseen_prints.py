"""Notes on layouts the real prints lack, drawn here with reportlab at test time (invented text, fixed layout).

Each print is laid out line by line, so what it holds is known exactly: the notes (marker, page, text) the
parser must find, and the text that must stay out of them. ``^1`` in a line's text draws ``1`` raised and
small (a note marker); everything else is set on the baseline. Prints the parser already read right guard
the rules added for the others (raised numbers under a rule, plain numbers restarting per page, numbers in
the body that are no markers, a print with no notes at all).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytest.importorskip("reportlab")
from reportlab.lib.pagesizes import letter  # noqa: E402
from reportlab.pdfgen import canvas  # noqa: E402

from lclfqa.ingest.pdf import parse_pdf  # noqa: E402

PAGE_W, PAGE_H = letter
LEFT = 72.0
TOP = 700.0
BODY_SIZE, BODY_LEAD = 11.0, 14.2
NOTE_SIZE, NOTE_LEAD = 8.0, 9.6
FOOT_BOTTOM = 73.6
_RAISED = re.compile(r"(\^\{[^}]*\}|\^\w+)")  # ^1, or ^{3,4} to raise a comma with the numbers


@dataclass
class Page:
    """One page: ``body`` lines from the top (``""`` a paragraph gap, ``("h", text)`` a heading, ``("notes",
    text)`` an endnote line in 9.5 pt); ``foot`` lines from the notes' first line down (``("small", text)``
    7 pt sans, ``("gap", points)`` white space); ``footer`` printed at the page's very foot; ``at`` lines
    placed where they say, ``(x, y, text, size)`` (a page set in columns)."""

    body: list = field(default_factory=list)
    foot: list = field(default_factory=list)
    rule: bool = False
    footer: str = ""
    at: list = field(default_factory=list)


def _draw(c: canvas.Canvas, x: float, y: float, text: str, size: float, font: str = "Times-Roman") -> None:
    t = c.beginText(x, y)
    for part in _RAISED.split(text):
        if part.startswith("^"):
            t.setFont(font, size * 0.62)
            t.setRise(size * 0.36)
            t.textOut(part[1:].strip("{}"))
            t.setRise(0)
        elif part:
            t.setFont(font, size)
            t.textOut(part)
    c.drawText(t)


def build(path: Path, pages: list[Page]) -> Path:
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    for page in pages:
        y = TOP
        for item in page.body:
            if item == "":
                y -= 7
            elif isinstance(item, tuple) and item[0] == "h":
                y -= 6
                _draw(c, LEFT, y, item[1], 13.0, "Helvetica-Bold")
                y -= 19
            elif isinstance(item, tuple) and item[0] == "notes":
                _draw(c, LEFT, y, item[1], 9.5)
                y -= 11.5
            else:
                _draw(c, LEFT, y, item, BODY_SIZE)
                y -= BODY_LEAD
        heights = []
        for item in page.foot:
            if isinstance(item, tuple) and item[0] == "gap":
                heights.append(item[1])
            else:
                heights.append(8.4 if isinstance(item, tuple) else NOTE_LEAD)
        y = FOOT_BOTTOM + sum(heights) - heights[-1] if heights else FOOT_BOTTOM
        if page.rule and page.foot:
            c.setLineWidth(0.5)
            c.line(LEFT, y + 12, LEFT + 144, y + 12)
        for item, step in zip(page.foot, heights, strict=True):
            if isinstance(item, tuple) and item[0] == "small":
                _draw(c, LEFT, y, item[1], 7.0, "Helvetica")
            elif isinstance(item, str):
                _draw(c, LEFT, y, item, NOTE_SIZE)
            y -= step
        for x, y_at, text, size in page.at:
            _draw(c, x, y_at, text, size)
        if page.footer:
            _draw(c, PAGE_W / 2 - 30, 38, page.footer, 10.0, "Helvetica")
        c.showPage()
    c.save()
    return path


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def _notes(path: Path) -> list[tuple[str, int, str]]:
    return [(f.number, f.page, _norm(f.text)) for f in parse_pdf(path).footnotes]


def _truth(*notes: tuple[str, int, str]) -> list[tuple[str, int, str]]:
    return [(n, p, _norm(t)) for n, p, t in notes]


# --- invented text ----------------------------------------------------------------------------------------

FILLER = [
    "The lessee covenanted to keep the warehouse in sound and weatherproof repair for the term.",
    "A covenant of that kind is read against the party who drafted it where its words are doubtful.",
    "The lessor relies on the re-entry clause and says that the breach could not be remedied.",
    "Nothing in the letters exchanged suggests that the parties meant to vary the written lease.",
    "The question is therefore one of construction, answered by reading the deed as a whole.",
    "Counsel for the lessee accepted that the notice went to an address that was not current.",
    "It follows that the purported forfeiture had no effect and the lease remained on foot.",
    "The trial judge found that the seller knew the purpose for which the pumps were bought.",
    "Those findings were open on the evidence and were not seriously challenged on the appeal.",
    "A term is implied only where it is needed to give business efficacy to the bargain.",
    "The clause limiting liability is read in the light of the commercial aim of the agreement.",
    "A party that affirms the contract cannot later rely on the same breach to terminate it.",
    "The surety argued that the variation of the principal debt released the guarantee.",
    "That argument fails because the guarantee allowed variations without further consent.",
]


def _filler(start: int, n: int) -> list[str]:
    return [FILLER[(start + k) % len(FILLER)] for k in range(n)]


# --- prints that already worked: the guards ---------------------------------------------------------------


def test_raised_numbers_under_a_rule(tmp_path: Path) -> None:
    """p01: raised markers in the body, notes opening with raised numbers under a short rule."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The lessor gave notice of the breach on the first business day of the month.^1",
                *_filler(3, 3),
                "",
                "The notice did not specify the repairs required, as the covenant demanded.^2 It was",
                "accordingly defective, and the re-entry that followed it was unlawful.^3",
                *_filler(6, 3),
            ],
            foot=[
                "^1 The notice is set out in the appeal book at tab four. Its date is not in dispute",
                "between the parties.",
                "^2 Pellew Stores v Garrick Holdings construed a covenant in the same terms.",
                "^3 The finding on this point was not challenged.",
            ],
            rule=True,
            footer="Page 1 of 2",
        ),
        Page(
            body=[*_filler(2, 4), "Damages follow in the ordinary way from the unlawful re-entry.^4", *_filler(7, 3)],
            foot=["^4 Compare Aldous Bakeries v Renwick, where the re-entry was upheld."],
            rule=True,
            footer="Page 2 of 2",
        ),
    ]
    got = _notes(build(tmp_path / "p01.pdf", pages))
    assert got == _truth(
        (
            "1",
            1,
            "The notice is set out in the appeal book at tab four. Its date is not in dispute between the parties.",
        ),
        ("2", 1, "Pellew Stores v Garrick Holdings construed a covenant in the same terms."),
        ("3", 1, "The finding on this point was not challenged."),
        ("4", 2, "Compare Aldous Bakeries v Renwick, where the re-entry was upheld."),
    )


def test_plain_numbers_restarting_per_page(tmp_path: Path) -> None:
    """p07: raised markers in the body, plain numbers at the foot (no rule), numbering afresh on each page."""
    pages = [
        Page(
            body=[
                *_filler(0, 4),
                "The surety was not told of the variation.^1 Nor was its consent sought.^2",
                *_filler(4, 4),
            ],
            foot=[
                "1 Tallis Bank v Crewe is the leading authority on the point.",
                "2 The bank's officer said so in cross-examination.",
            ],
        ),
        Page(
            body=[
                *_filler(8, 3),
                "The guarantee was therefore discharged.^1",
                *_filler(1, 3),
                "Costs follow the event.^2",
            ],
            foot=["1 Subject to the clause considered in the next part.", "2 No party argued otherwise."],
        ),
    ]
    got = _notes(build(tmp_path / "p07.pdf", pages))
    assert got == _truth(
        ("1", 1, "Tallis Bank v Crewe is the leading authority on the point."),
        ("2", 1, "The bank's officer said so in cross-examination."),
        ("1", 2, "Subject to the clause considered in the next part."),
        ("2", 2, "No party argued otherwise."),
    )


def test_bracketed_markers_in_body_type_with_bracketed_notes_at_the_foot(tmp_path: Path) -> None:
    """p03: a web print's notes: the text cites ``[1]``, ``[2]`` in its own type, glued to the sentence, and the
    notes at the foot open ``[1] …``; numbering runs on. The brackets stay in the text, the notes are found; a
    bracketed reference after a space ("paragraph [3] above") cites nothing."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The purchaser relied on the vendor's statement.[1] The vendor denied making it.",
                "The statement was repeated in writing, as paragraph [3] above records.[2]",
                *_filler(3, 3),
            ],
            foot=["[1] The statement was made at the site meeting.", "[2] The letter is in the appeal book."],
        ),
        Page(
            body=[*_filler(6, 3), "No reliance on the later letter was pleaded.[3]", *_filler(2, 2)],
            foot=["[3] The pleadings were not amended at trial."],
        ),
    ]
    path = build(tmp_path / "p03.pdf", pages)
    assert _notes(path) == _truth(
        ("1", 1, "The statement was made at the site meeting."),
        ("2", 1, "The letter is in the appeal book."),
        ("3", 2, "The pleadings were not amended at trial."),
    )
    body = " ".join(s.text for s in parse_pdf(path).sections)
    assert "statement.[1] The vendor" in body and "The statement was made at the site" not in body


def test_long_note_and_body_numbers(tmp_path: Path) -> None:
    """p08: a note of about 1,400 characters, and numbers in the body (sections, years) that are no markers."""
    long_lines = [
        f"{'^1 ' if k == 0 else ''}The history of clause {k + 3} is traced in the report of the review committee, which"
        " considered the drafts at length and heard"
        for k in range(11)
    ]
    pages = [
        Page(
            body=[
                "Section 12 of the Property Dealings Act 1931 governs the notice, with clause 14.2 of the lease.",
                *_filler(0, 3),
                "The draft was revised three times before it was signed in 1988.^1",
                *_filler(3, 4),
                "The revisions do not bear on the point in issue.^2",
            ],
            foot=[*long_lines, "submissions from 40 bodies.", "^2 The revisions are in volume 2 of the appeal book."],
        )
    ]
    got = _notes(build(tmp_path / "p08.pdf", pages))
    long_text = " ".join(ln.removeprefix("^1 ") for ln in long_lines) + " submissions from 40 bodies."
    assert got == _truth(("1", 1, long_text), ("2", 1, "The revisions are in volume 2 of the appeal book."))
    assert len(long_text) > 1300


def test_no_notes_with_footer_and_disclaimer(tmp_path: Path) -> None:
    """p09: no markers at all; a confidential footer and a small-print disclaimer are no notes."""
    pages = [
        Page(
            body=_filler(k * 5, 12),
            foot=[
                ("small", "1 This memorandum is confidential and is given for the client's use only."),
                ("small", "Its contents may not be disclosed to any other person."),
            ],
            footer=f"Page {k + 1} of 2 — Confidential",
        )
        for k in range(2)
    ]
    assert _notes(build(tmp_path / "p09.pdf", pages)) == []


# --- layouts that were misread --------------------------------------------------------------------------


def test_wrapped_line_opening_with_a_number_continues_the_note(tmp_path: Path) -> None:
    """p13: a note's line wraps so that it opens with a plain number (a law report's volume, a date), the
    next note's number and cited on the page; the page's notes open with raised numbers, so it does not."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The charter was read against the owners.^1",
                *_filler(3, 3),
                "It was not relied on.^2",
                "",
                *_filler(6, 2),
                "The same clause was construed later.^3",
            ],
            foot=[
                "^1 See Harrow v Delmont Shipping Co, reported at first instance in (1987)",
                "2 Lloyd's Rep 114, where the charter was construed against the owners.",
                "^2 Counsel referred also to the explanatory memorandum, which does not assist.",
                "^3 The clause was considered again in Penhallow v Gribble, reported in (1991)",
                "4 Qd R 22, and in several unreported decisions since.",
            ],
        ),
        Page(
            body=[
                *_filler(9, 2),
                "The measure of damages is settled.^4",
                *_filler(1, 4),
                "Nothing turns on the form.^5",
            ],
            foot=[
                "^4 On the measure of damages, see Lockyer v Trant, decided in",
                "5 May 1999 and not reported.",
                "^5 Nothing turns on the difference between the two versions of the form.",
            ],
        ),
    ]
    got = _notes(build(tmp_path / "p13.pdf", pages))
    assert got == _truth(
        (
            "1",
            1,
            "See Harrow v Delmont Shipping Co, reported at first instance in (1987)"
            " 2 Lloyd's Rep 114, where the charter was construed against the owners.",
        ),
        ("2", 1, "Counsel referred also to the explanatory memorandum, which does not assist."),
        (
            "3",
            1,
            "The clause was considered again in Penhallow v Gribble, reported in (1991)"
            " 4 Qd R 22, and in several unreported decisions since.",
        ),
        ("4", 2, "On the measure of damages, see Lockyer v Trant, decided in 5 May 1999 and not reported."),
        ("5", 2, "Nothing turns on the difference between the two versions of the form."),
    )


FIRSTS = [
    "Quarrie Mills v Denholm states the rule in its usual form.",
    "Harcombe Nurseries v Vane refused specific performance of an option.",
    "On delay, see Colby v Sturridge, where two years defeated the claim.",
    "Merrow Engineering v Astley holds that directors may consider creditors.",
]
LASTS = ["Dunmore v Pask, decided on a different clause.", "", "", "The notice of meeting went to an old address."]


def test_one_word_note_repeated_at_the_foot_is_no_footer(tmp_path: Path) -> None:
    """p18: ``Ibid.`` as the last note, at the same height on two of four pages, is a note the body cites,
    not a running footer."""
    pages = []
    for k in range(4):
        a, b = 2 * k + 1, 2 * k + 2
        last = "Ibid." if k in (1, 2) else LASTS[k]
        pages.append(
            Page(
                body=[
                    *_filler(3 * k, 4),
                    f"The first proposition is well settled.^{a}",
                    *_filler(3 * k + 4, 3),
                    f"So is the second.^{b}",
                ],
                foot=[
                    f"^{a} {FIRSTS[k]}",
                    f"^{b} {last}",
                ],
                footer=f"Page {k + 1} of 4",
            )
        )
    got = _notes(build(tmp_path / "p18.pdf", pages))
    want = []
    for k in range(4):
        want.append((str(2 * k + 1), k + 1, FIRSTS[k]))
        last = "Ibid." if k in (1, 2) else LASTS[k]
        want.append((str(2 * k + 2), k + 1, last))
    assert got == _truth(*want)


def test_small_print_under_the_notes_is_not_a_note(tmp_path: Path) -> None:
    """p12: a disclaimer in a smaller sans type, set apart under the last note, does not run on into it."""
    disclaimer = [
        ("small", "This advice is given on the instructions and facts set out above and for the client only. It may"),
        ("small", "not be relied on by any other person without the written consent of the authors."),
    ]
    pages = [
        Page(
            body=[*_filler(0, 4), "The first ground fails.^1", *_filler(4, 3), "So does the second.^2"],
            foot=["^1 The ground was put in writing only.", "^2 See Wyatt v Orme, where a like ground failed."],
        ),
        Page(
            body=[*_filler(7, 4), "The third ground succeeds.^3", *_filler(11, 3)],
            foot=[
                "^3 The finding was contrary to the only evidence on the point, and it",
                "cannot stand.",
                ("gap", 18.0),
                *disclaimer,
            ],
        ),
    ]
    doc = parse_pdf(build(tmp_path / "p12.pdf", pages))
    assert [(f.number, f.page, _norm(f.text)) for f in doc.footnotes] == _truth(
        ("1", 1, "The ground was put in writing only."),
        ("2", 1, "See Wyatt v Orme, where a like ground failed."),
        ("3", 2, "The finding was contrary to the only evidence on the point, and it cannot stand."),
    )


def test_unit_exponent_is_no_marker(tmp_path: Path) -> None:
    """p11: ``450 m²`` in the body cites no note, so a small address line opening with ``2`` is no note."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The premises comprise a shop of about 450 m^2 with a yard of 120 m^2 behind it.",
                *_filler(3, 8),
            ],
            foot=[
                (
                    "small",
                    "2 Harbour Row, Portleven PL9 4QT · Registered in England · Partners are listed at the address",
                )
            ],
            footer="Page 1 of 2",
        ),
        Page(body=_filler(5, 12), footer="Page 2 of 2"),
    ]
    doc = parse_pdf(build(tmp_path / "p11.pdf", pages))
    assert doc.footnotes == ()
    assert [r for s in doc.sections for r in s.footnote_refs] == []


def test_endnotes_after_each_part_restarting(tmp_path: Path) -> None:
    """p17: each Part ends with its own ``Notes`` numbered from 1; Part II's body stays body text."""
    part1_notes = [
        "Ardwick Haulage v Selby concerned a sum payable on early termination of a hire.",
        "The primary judge did not refer to this authority, which was not cited to her.",
        "Lowell Mining v Crane decided that an arbitral seat chosen by the parties binds them.",
    ]
    part2_notes = [
        "The privilege claim was abandoned for the second bundle of documents.",
        "Brennan Pharmacy v Licensing Board concerned a cancellation made without a hearing.",
        "The second reading speech is set out in the appeal book at tab seven.",
        "Ferris Mutual v Ingle applied the same principle to a policy of marine insurance.",
    ]
    part2_body = [
        "The appeal should be allowed with costs and the orders made below set aside.",
        "The matter should be remitted to the primary judge for determination according to law.^1",
        *_filler(2, 3),
        "The lessor's case on the forfeiture clause was put in three ways.^2",
        *_filler(6, 3),
        "The third way depends on the second reading speech.^3",
    ]
    pages = [
        Page(
            body=[
                ("h", "PART I — BACKGROUND"),
                *_filler(0, 2),
                "A decision made without regard to a mandatory consideration is liable to be set aside.^1",
                *_filler(2, 3),
                "The insurer may refuse a claim only on the grounds the policy allows.^2",
                *_filler(5, 3),
                "The purchaser gave notice within the period the contract allowed.^3",
                ("h", "Notes"),
                *[("notes", f"{k + 1}. {t}") for k, t in enumerate(part1_notes)],
            ],
            footer="Page 1 of 3",
        ),
        Page(body=[("h", "PART II — REFORM"), *part2_body, *_filler(9, 3)], footer="Page 2 of 3"),
        Page(
            body=[
                *_filler(12, 2),
                "The guarantee permitted variations without further consent.^4",
                ("h", "Notes"),
                *[("notes", f"{k + 1}. {t}") for k, t in enumerate(part2_notes)],
            ],
            footer="Page 3 of 3",
        ),
    ]
    doc = parse_pdf(build(tmp_path / "p17.pdf", pages))
    got = [(f.number, f.page, _norm(f.text)) for f in doc.footnotes]
    assert got == _truth(
        *[(str(k + 1), 1, t) for k, t in enumerate(part1_notes)],
        *[(str(k + 1), 3, t) for k, t in enumerate(part2_notes)],
    )
    body = _norm(" ".join(s.text for s in doc.sections))
    for line in part2_body:
        assert _norm(line.replace("^", " ")) in body


def test_numbered_run_followed_by_a_heading_swallows_no_body(tmp_path: Path) -> None:
    """A ``1.``, ``2.``, ``3.`` run in small type with no ``Notes`` title, followed by a heading and body text:
    a trailing note block holds notes only, so the heading and the text under it stay in the body."""
    later = [
        "The respondent's notice of contention raises two further matters.",
        "The first is whether the lessor waived the breach by accepting rent after notice.",
        "The second is whether relief against forfeiture should be granted in any event.",
    ]
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The lessor served its notice under the re-entry clause.^1",
                *_filler(3, 3),
                "The notice named the wrong breach.^2 It was therefore bad.^3",
                *_filler(6, 2),
                ("notes", "1. The notice is at tab four of the appeal book."),
                ("notes", "2. It named the covenant to paint, not the covenant to repair."),
                ("notes", "3. Pellew Stores v Garrick Holdings is to the same effect."),
            ],
        ),
        Page(body=[("h", "PART II — THE NOTICE OF CONTENTION"), *later, *_filler(8, 6)]),
    ]
    doc = parse_pdf(build(tmp_path / "numbered-run.pdf", pages))
    body = _norm(" ".join(s.text for s in doc.sections))
    for line in later:
        assert _norm(line) in body
        assert not any(_norm(line) in _norm(f.text) for f in doc.footnotes)


def test_short_notes_side_by_side(tmp_path: Path) -> None:
    """p16: two short notes set on one line (``¹ Ibid. ² Above, at p. 14.``) are two notes."""
    pages = [
        Page(
            body=[*_filler(0, 3), "The rule is settled.^1 It was applied below.^2", *_filler(3, 4), "See the Act.^3"],
            foot=["^1 Ibid. ^2 Above, at p. 14.", "^3 Ibid., per Lady Oxton, with whom the others agreed."],
        ),
        Page(
            body=[*_filler(7, 4), "Hansard records the point.^4", *_filler(11, 3), "So the court held.^5"],
            foot=["^4 Hansard, col. 212. ^5 Per Lord Ashby."],
        ),
    ]
    got = _notes(build(tmp_path / "p16.pdf", pages))
    assert got == _truth(
        ("1", 1, "Ibid."),
        ("2", 1, "Above, at p. 14."),
        ("3", 1, "Ibid., per Lady Oxton, with whom the others agreed."),
        ("4", 2, "Hansard, col. 212."),
        ("5", 2, "Per Lord Ashby."),
    )


def test_notes_in_two_columns_under_a_single_column_page(tmp_path: Path) -> None:
    """Notes set in two columns at the foot of a one-column page, two notes of three lines in each column: each
    column is read down before the next (read across, note 1's lines took note 3's, and notes 3 and 4 were
    lost); a page with so few lines in each column is read so too."""
    left = [
        (
            "^1 Verity Lane, Causation in Insurance Law, argues for",
            "a more generous approach to the insured, though",
            "the provision has since been amended.",
        ),
        (
            "^2 Kilbride Haulage v Storrow concerned an exclusion",
            "for damage caused by rust or oxidation; neither",
            "party suggested it was wrongly decided.",
        ),
    ]
    right = [
        (
            "^3 The second reading speech appears at page 1184",
            "of the relevant volume of the debates, and the",
            "same view was taken in the Court of Appeal.",
        ),
        (
            "^4 Fenchurch Mutual v Ibbotson applied the same",
            "reasoning to a policy of travel insurance, and the",
            "commentators remain divided on the point.",
        ),
    ]
    at = []
    y = FOOT_BOTTOM + 5 * NOTE_LEAD
    for a, b in zip([line for note in left for line in note], [line for note in right for line in note], strict=True):
        at += [(LEFT, y, a, NOTE_SIZE), (LEFT + 243, y, b, NOTE_SIZE)]
        y -= NOTE_LEAD
    body = [*_filler(0, 3), "The insurer relied on the exclusion.^1 So did the court below.^2", *_filler(3, 3)]
    body += ["The debates say so.^3 A later case agrees.^4", *_filler(6, 3)]
    got = _notes(build(tmp_path / "two-column-notes.pdf", [Page(body=body, at=at)]))
    truth = [(m[1:2], 1, " ".join([m[3:], *rest])) for m, *rest in [*left, *right]]
    assert got == _truth(*truth)


# --- markers the parser did not know: Unicode superscript digits, raised letters ---------------------------


def test_unicode_superscript_digits_are_markers(tmp_path: Path) -> None:
    """p14: markers typed as Unicode superscript digits in the body's own type (``nullity.¹ The``), and notes
    opening with them (``¹ See …``), read as raised numbers; ``10³`` (a power) and ``m²`` stay as printed."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The notice named the wrong party and was therefore a nullity.\u00b9 The lessor served",
                "a second notice on the following day, which the tenant accepted as valid.\u00b2",
                "The yard of 120 m\u00b2 was let with the shop, and a tank of 10\u00b3 litres with the yard.",
                *_filler(3, 4),
            ],
            foot=[
                "\u00b9 See also Penrose Textiles v Calder, where the notice was held to be a nullity.",
                "\u00b2 The respondent's written submissions put the point somewhat differently.",
            ],
        ),
        Page(
            body=[*_filler(7, 4), "The clause speaks only of the lessor.\u00b3", *_filler(11, 3)],
            foot=["\u00b3 Strictly, it says nothing of the lessor's agents or assigns."],
        ),
    ]
    doc = parse_pdf(build(tmp_path / "p14.pdf", pages))
    got = [(f.number, f.page, _norm(f.text)) for f in doc.footnotes]
    assert got == _truth(
        ("1", 1, "See also Penrose Textiles v Calder, where the notice was held to be a nullity."),
        ("2", 1, "The respondent's written submissions put the point somewhat differently."),
        ("3", 2, "Strictly, it says nothing of the lessor's agents or assigns."),
    )
    text = "\n".join(s.text for s in doc.sections)
    assert "a nullity.1 The" in text
    assert "120 m\u00b2 was let" in text and "10\u00b3 litres" in text
    assert [r for s in doc.sections for r in s.footnote_refs] == ["1", "2", "3"]


def test_raised_letter_markers(tmp_path: Path) -> None:
    """p10: raised letters (``set aside.ᵃ``) cite notes that open with the same raised letter, a, b, c on each
    page; a note's second line printed at the same spot on both pages is no running footer."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The orders made below should be set aside.^a The matter is remitted for hearing.",
                *_filler(3, 2),
                "The lessor relies on the forfeiture clause.^b It says the breach was incurable.",
                *_filler(5, 2),
                "It follows that the purported forfeiture had no effect.^c",
            ],
            foot=[
                "^a Harcourt Nurseries v Vane refused specific performance of an option to renew the lease.",
                "The point was argued at length but nothing turns on it.",
                "^b On delay, see Colefax v Sturridge, where a wait of two years defeated the claim.",
                "^c Merriman Engineering v Astley holds that directors may consider creditors.",
            ],
            footer="Page 1 of 2",
        ),
        Page(
            body=[
                *_filler(7, 3),
                "A term is implied only where it is needed for business efficacy.^d",
                *_filler(10, 2),
                "The employer bears the onus of proving a valid reason.^e An employee who repudiates",
                "the contract may be dismissed without notice.^f",
                *_filler(12, 2),
            ],
            foot=[
                "^d The notice of meeting went by post to an address the member had left years before.",
                "The point was argued at length but nothing turns on it.",
                "^e See Marlowe v Pentland Freight Ltd, where a term of reasonable notice was refused.",
                "^f Compare Ashdown Holdings v Trevelyan, in which the clause was read down to save it.",
            ],
            footer="Page 2 of 2",
        ),
    ]
    doc = parse_pdf(build(tmp_path / "p10.pdf", pages))
    got = [(f.number, f.page, _norm(f.text)) for f in doc.footnotes]
    assert got == _truth(
        (
            "a",
            1,
            "Harcourt Nurseries v Vane refused specific performance of an option to renew the lease. "
            "The point was argued at length but nothing turns on it.",
        ),
        ("b", 1, "On delay, see Colefax v Sturridge, where a wait of two years defeated the claim."),
        ("c", 1, "Merriman Engineering v Astley holds that directors may consider creditors."),
        (
            "d",
            2,
            "The notice of meeting went by post to an address the member had left years before. "
            "The point was argued at length but nothing turns on it.",
        ),
        ("e", 2, "See Marlowe v Pentland Freight Ltd, where a term of reasonable notice was refused."),
        ("f", 2, "Compare Ashdown Holdings v Trevelyan, in which the clause was read down to save it."),
    )
    text = _norm("\n".join(s.text for s in doc.sections))
    assert "harcourt" not in text and "ashdown" not in text
    assert [r for s in doc.sections for r in s.footnote_refs] == ["a", "b", "c", "d", "e", "f"]


def test_ordinals_and_an_unpaired_raised_letter_are_no_markers(tmp_path: Path) -> None:
    """Raised ordinals (``the 2ⁿᵈ Circuit``, ``1ˢᵗ``) and a raised letter that no note at the foot opens with
    (``rule.ᵃ``, over a small line opening with a plain ``a``) cite nothing: no notes, the text as printed."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The 2^nd Circuit took the same view, and so did the court of 1^st instance.",
                "The rule in the 3^rd edition is stated more narrowly than the old rule.^a",
                *_filler(3, 6),
            ],
            foot=[("small", "a firm registered in England · partners are listed at the address above")],
            footer="Page 1 of 2",
        ),
        Page(
            body=[*_filler(5, 4), "The same rule was applied by the 4^th Division.^b", *_filler(9, 4)],
            footer="Page 2 of 2",
        ),
    ]
    doc = parse_pdf(build(tmp_path / "p10g.pdf", pages))
    assert doc.footnotes == ()
    assert [r for s in doc.sections for r in s.footnote_refs] == []
    text = "\n".join(s.text for s in doc.sections)
    assert "The 2nd Circuit took the same view, and so did the court of 1st instance." in text
    assert "the old rule.a" in text and "the 4th Division.b" in text


def test_letter_markers_are_linked_only_to_the_text_that_cites_them(tmp_path: Path) -> None:
    """A note cited by a raised letter belongs to the chunk holding its marker (``aside.a``), not to every
    chunk of the section with an ``a`` in a word ("data", "lease")."""
    from lclfqa.ingest.chunking import chunk_document
    from lclfqa.ingest.document import CHILD

    page = Page(
        body=[
            *_filler(0, 3),
            "The orders made below should be set aside.^a The matter is remitted for hearing.",
            *_filler(3, 5),
            "The lessor relies on the forfeiture clause.^b It says the breach was incurable.",
            *_filler(8, 4),
        ],
        foot=[
            "^a Harcourt Nurseries v Vane refused specific performance of an option to renew the lease.",
            "^b On delay, see Colefax v Sturridge, where a wait of two years defeated the claim.",
        ],
    )
    doc = parse_pdf(build(tmp_path / "letters.pdf", [page]))
    assert [f.number for f in doc.footnotes] == ["a", "b"]
    children = [c for c in chunk_document(doc, parent_size=600, child_size=300) if c.kind == CHILD]
    assert len(children) >= 4
    citing = {n: [c for c in children if n in c.footnote_numbers] for n in ("a", "b")}
    assert [len(citing["a"]), len(citing["b"])] == [1, 1]
    assert "set aside.a" in " ".join(citing["a"][0].text.split())
    assert "forfeiture clause.b" in " ".join(citing["b"][0].text.split())


# --- round two: a note run on after a full sentence, markers joined by a comma, notes under each column ----


def _two_pages_with_a_run_on_note(page_2_foot: list) -> list[Page]:
    """Page 1 cites notes 1 and 2, note 2's part there ending with a full sentence; page 2 cites note 3 and
    sets ``page_2_foot`` at its foot."""
    return [
        Page(
            body=[
                *_filler(0, 4),
                "The lessor served the notice by post on the last day of the month.^1",
                *_filler(4, 6),
                "",
                "The question of waiver was argued at length on the appeal.^2",
                *_filler(10, 8),
            ],
            foot=[
                "^1 The envelope bore a postmark of the following day, but nothing turns on that.",
                "^2 The doctrine of waiver has a long history in the law of leases. The early cases",
                "treated any acceptance of rent after notice of a breach as an election to affirm.",
            ],
        ),
        Page(
            body=[*_filler(3, 5), "The tenant remained in possession throughout.^3", *_filler(8, 8)],
            foot=page_2_foot,
        ),
    ]


def test_note_run_on_after_a_full_sentence(tmp_path: Path) -> None:
    """q03b: note 2's part on page 1 ends with a full sentence; its part on page 2 (the foot's first lines,
    in the notes' size, spaced as the notes below them and under a gap from the body) goes on with it."""
    pages = _two_pages_with_a_run_on_note(
        [
            "Later decisions asked instead whether the lessor, knowing of the breach, had acted",
            "in a way consistent only with the lease continuing.",
            "^3 The rent ledger was tendered without objection at the hearing.",
        ]
    )
    doc = parse_pdf(build(tmp_path / "q03b.pdf", pages))
    assert [(f.number, f.page, _norm(f.text)) for f in doc.footnotes] == _truth(
        ("1", 1, "The envelope bore a postmark of the following day, but nothing turns on that."),
        (
            "2",
            1,
            "The doctrine of waiver has a long history in the law of leases. The early cases treated any acceptance"
            " of rent after notice of a breach as an election to affirm. Later decisions asked instead whether the"
            " lessor, knowing of the breach, had acted in a way consistent only with the lease continuing.",
        ),
        ("3", 2, "The rent ledger was tendered without objection at the hearing."),
    )
    assert "knowing of the breach" not in " ".join(s.text for s in doc.sections)


def test_small_quotation_above_the_notes_stays_in_the_body(tmp_path: Path) -> None:
    """Guard for the rule above: a block quotation set in the notes' size at the foot of page 2's body, with
    a clear gap under it before the first note, is the body's, though page 1's last note ended there."""
    pages = _two_pages_with_a_run_on_note(
        [
            "No acceptance of rent after notice of a breach shall operate as a waiver of it unless",
            "the lessor so agrees in writing.",
            ("gap", 22.0),
            "^3 The rent ledger was tendered without objection at the hearing.",
        ]
    )
    doc = parse_pdf(build(tmp_path / "quote.pdf", pages))
    assert [(f.number, f.page) for f in doc.footnotes] == [("1", 1), ("2", 1), ("3", 2)]
    assert _norm(doc.footnotes[1].text).endswith("as an election to affirm")
    assert "so agrees in writing" in " ".join(" ".join(s.text for s in doc.sections).split())


def test_markers_joined_by_a_raised_comma(tmp_path: Path) -> None:
    """q07: two markers at one spot joined by a comma printed raised with them (``law.³,⁴``, ``granted.⁶, ⁷``)
    cite a note each, and each is recorded in the body's section."""
    pages = [
        Page(
            body=[
                *_filler(0, 3),
                "The settled rule is against the lessee.^1 ^2 It was applied by the trial judge.",
                *_filler(3, 3),
                "That is not the law.^{3,4} The lease must be read as a whole.",
                *_filler(6, 4),
            ],
            foot=[
                "^1 Dunmore v Pask states the rule in its usual form.",
                "^2 See also Colby v Sturridge, on the same clause.",
                "^3 The finding on this issue was not challenged.",
                "^4 Quarrie Mills v Denholm is to the same effect.",
            ],
        ),
        Page(
            body=[*_filler(9, 3), "Leave to amend was granted.^{6,} ^7 Costs were reserved.", *_filler(1, 4)],
            foot=[
                "^6 The amended pleading is in the appeal book.",
                "^7 Ibid., at the second tab.",
            ],
        ),
    ]
    pages[1].body.insert(0, "The first ground is answered by what was said above.^5")
    pages[1].foot.insert(0, "^5 See the discussion of the first ground.")
    doc = parse_pdf(build(tmp_path / "q07.pdf", pages))
    assert [(f.number, f.page) for f in doc.footnotes] == [(str(n), 1 if n < 5 else 2) for n in range(1, 8)]
    assert _norm(doc.footnotes[2].text) == "the finding on this issue was not challenged"
    assert _norm(doc.footnotes[5].text) == "the amended pleading is in the appeal book"
    assert [r for s in doc.sections for r in s.footnote_refs] == [str(n) for n in range(1, 8)]


def _wrap(text: str, width: float, size: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines: list[str] = []
    for word in text.split():
        if lines and stringWidth(f"{lines[-1]} {word}".replace("^", ""), "Times-Roman", size) <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def test_two_columns_each_with_its_own_notes(tmp_path: Path) -> None:
    """q05: a body in two columns, each with its own notes at its foot: the right column's first note opens a
    note, though it starts far right of the left column's last note."""
    at = []
    notes = {
        72.0: ["^1 Dunmore v Pask states the rule in its usual form.", "^2 The finding was not challenged."],
        315.0: ["^3 Quarrie Mills v Denholm is to the same effect.", "^4 The deed is in the appeal book."],
    }
    for x, first in ((72.0, 1), (315.0, 3)):
        text = " ".join(
            [*_filler(first, 3), f"The lessor relies on the clause.^{first}", *_filler(first + 4, 3)]
            + [f"The point was not argued below.^{first + 1}", *_filler(first + 8, 2)]
        )
        for k, line in enumerate(_wrap(text, 215.0, BODY_SIZE)):
            at.append((x, TOP - k * BODY_LEAD, line, BODY_SIZE))
        for k, line in enumerate(reversed([ln for note in notes[x] for ln in _wrap(note, 215.0, NOTE_SIZE)])):
            at.append((x, FOOT_BOTTOM + k * NOTE_LEAD, line, NOTE_SIZE))
    doc = parse_pdf(build(tmp_path / "q05.pdf", [Page(at=at)]))
    assert [(f.number, _norm(f.text)) for f in doc.footnotes] == [
        (str(n), _norm(line.split(" ", 1)[1])) for n, line in enumerate(notes[72.0] + notes[315.0], start=1)
    ]


# --- section paths (round 3): headings drawn line by line --------------------------------------------------


@dataclass
class Ln:
    """One line of a section-path print: ``before`` is white space above it, beyond the line's leading."""

    text: str
    size: float = BODY_SIZE
    bold: bool = False
    x: float = LEFT
    before: float = 0.0
    marked: bool = False  # ``**bold**`` and ``__italic__`` runs inside a plain line (a run-in clause subject)


_RUNS = re.compile(r"(\*\*.*?\*\*|__.*?__)")


def _draw_marked(c: canvas.Canvas, x: float, y: float, text: str, size: float) -> None:
    t = c.beginText(x, y)
    for part in _RUNS.split(text):
        font = {"**": "Times-Bold", "__": "Times-Italic"}.get(part[:2], "Times-Roman")
        t.setFont(font, size)
        t.textOut(part[2:-2] if font != "Times-Roman" else part)
    c.drawText(t)


def build_lines(path: Path, pages: list[list[Ln]], top: float = TOP, header: str = "") -> Path:
    """Each page's lines from ``top`` down at 1.29 times their size apart, a page number at the foot, and a
    ``header`` in 9 pt half an inch from each page's top."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    for k, page in enumerate(pages, start=1):
        if header:
            _draw(c, LEFT, PAGE_H - 36, header, 9.0)
        y = top
        for ln in page:
            y -= ln.before
            if ln.marked:
                _draw_marked(c, ln.x, y, ln.text, ln.size)
            else:
                _draw(c, ln.x, y, ln.text, ln.size, "Times-Bold" if ln.bold else "Times-Roman")
            y -= round(ln.size * 1.29, 1)
        _draw(c, PAGE_W - 100, 40, f"page {k}", 9.0)
        c.showPage()
    c.save()
    return path


def _path_of(doc, probe: str) -> tuple[str, ...]:
    """The path of the section holding ``probe`` (the first one)."""
    return next(s.path for s in doc.sections if _norm(probe) in _norm(s.text))


def test_schedule_numbered_afresh_nests_its_clauses(tmp_path: Path) -> None:
    """F2: a deed's ``SCHEDULE 1`` after clause 2, numbered from ``1.`` again: the schedule closes the deed's
    clauses and holds its own ``1. Facility``; a short body sentence ``Schedule 1 is part of it.`` is no heading."""
    facility = "The facility is a cash advance facility with a limit of one million dollars."
    security = "The facility is secured by a mortgage over the land at Lot 9, Mill Road."
    mention = "Schedule 1 is part of it."
    pages = [
        [
            Ln("DEED OF LOAN", 14.0, bold=True, x=250.0),
            Ln("This deed is made between the lender and the borrower named below.", before=10),
            Ln("1. DEFINITIONS", bold=True, before=8),
            *[Ln(t) for t in _filler(0, 3)],
            Ln("2. REPAYMENT", bold=True, before=8),
            *[Ln(t) for t in _filler(3, 2)],
            Ln(mention),
            *[Ln(t) for t in _filler(5, 2)],
        ],
        [
            Ln("SCHEDULE 1", bold=True, x=270.0),
            Ln("1. Facility", bold=True, before=8),
            Ln(facility),
            Ln("2. Security", bold=True, before=8),
            Ln(security),
        ],
    ]
    doc = parse_pdf(build_lines(tmp_path / "deed.pdf", pages))
    assert _path_of(doc, facility) == ("DEED OF LOAN", "SCHEDULE 1", "1. Facility")
    assert _path_of(doc, security) == ("DEED OF LOAN", "SCHEDULE 1", "2. Security")
    assert _path_of(doc, mention) == ("DEED OF LOAN", "2. REPAYMENT")


def test_wrapped_title_whose_second_line_opens_with_part(tmp_path: Path) -> None:
    """F3: a bold section title wrapped so that its second line reads ``Part 3`` (``…under Division 3 of`` /
    ``Part 3``) continues the title, not a Part; a ``Chapter 2—Enforcement`` line right above ``Part 4—Offences``
    (a finished title) and a ``Part 5—Review`` line set apart after the text each open their level; a body line
    opening ``Part 3 of the Act applies…`` opens none."""
    first = "(1) A person who is required by an order to do an act within a period commits an offence."
    second = "(2) An offence against subsection (1) is an offence of strict liability."
    cites = "Part 3 of the Act applies to an order made under this section."
    review = "(1) A person affected by an order may apply to the Tribunal for review of it."
    pages = [
        [
            Ln("Chapter 2—Enforcement", 13.0, bold=True),
            Ln("Part 4—Offences", 13.0, bold=True),
            Ln("20  Giving false information to the Court", bold=True, before=8),
            Ln("(1) A person must not give information to the Court that is false in a material particular."),
            Ln(
                "21  Continuing offences for failing to comply with an order made under Division 3 of",
                bold=True,
                before=8,
            ),
            Ln("Part 3", bold=True, x=LEFT + 18),
            Ln(first),
            Ln(second),
            Ln(cites),
            Ln("Part 5—Review", 13.0, bold=True, before=14),
            Ln("30  Review of orders", bold=True, before=8),
            Ln(review),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "act.pdf", pages))
    title = "21 Continuing offences for failing to comply with an order made under Division 3 of Part 3"
    assert _path_of(doc, first)[:3] == ("Chapter 2—Enforcement", "Part 4—Offences", title)
    assert _path_of(doc, second)[:3] == ("Chapter 2—Enforcement", "Part 4—Offences", title)
    assert _path_of(doc, cites)[:3] == ("Chapter 2—Enforcement", "Part 4—Offences", title)
    assert _path_of(doc, review)[:3] == ("Chapter 2—Enforcement", "Part 5—Review", "30 Review of orders")


def test_lone_line_at_the_top_margin_is_kept(tmp_path: Path) -> None:
    """F13: a page whose only body line (a paragraph's last, carried over) sits at a 1-inch top margin keeps it;
    the running header repeated above it on every page is still dropped."""
    lone = "All payments must be made in Australian dollars in immediately available funds."
    header = "Deed of Loan \u2014 execution version"
    pages = [
        [Ln("1. PAYMENTS", bold=True), *[Ln(t) for t in _filler(0, 4)]],
        [Ln(lone)],
        [Ln("2. NOTICES", bold=True), *[Ln(t) for t in _filler(4, 4)]],
    ]
    doc = parse_pdf(build_lines(tmp_path / "lone.pdf", pages, top=PAGE_H - 72, header=header))
    text = _norm(" ".join(s.text for s in doc.sections))
    assert _norm(lone) in text
    assert _norm(header) not in text
    assert _path_of(doc, lone) == ("1. PAYMENTS",)


def test_numbered_sub_heading_right_under_a_clause_heading_is_its_own(tmp_path: Path) -> None:
    """F4: ``1.1 Definitions`` in bold right under the bold ``1. DEFINITIONS AND INTERPRETATION`` opens a level of
    its own, not the second line of its title; a title wrapped onto a line that opens with no number of its own
    (``… AND`` / ``INTERPRETATION``) is still one title."""
    defined = "Business Day means a day on which banks are open for business in the city of Perth."
    read = "A reference to a party includes its successors and permitted assigns."
    wrapped = "The borrower must repay the loan in full on the repayment date without set-off."
    pages = [
        [
            Ln("1. DEFINITIONS AND INTERPRETATION", bold=True, before=8),
            Ln("1.1 Definitions", bold=True),
            Ln(defined),
            Ln("1.2 Interpretation", bold=True, before=6),
            Ln(read),
            Ln("2. REPAYMENT OF THE LOAN AND", bold=True, before=8),
            Ln("INTEREST", bold=True),
            Ln(wrapped),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "deed.pdf", pages))
    assert _path_of(doc, defined)[-2:] == ("1. DEFINITIONS AND INTERPRETATION", "1.1 Definitions")
    assert _path_of(doc, read)[-2:] == ("1. DEFINITIONS AND INTERPRETATION", "1.2 Interpretation")
    assert _path_of(doc, wrapped)[-1] == "2. REPAYMENT OF THE LOAN AND INTEREST"


_JUDGMENT = [
    Ln("Background", bold=True, before=6),
    Ln("3. The applicant is a dairy farming company that applied for a grant towards a new milking parlour."),
    Ln("4. The Minister refused the application because of a grant the applicant received in an earlier year."),
    Ln("5. Clause 4.3 of the scheme provides:"),
    Ln(
        "“4.3 An application shall be refused where the applicant has received a grant within five years.”",
        10.0,
        x=LEFT + 60,
        before=4,
    ),  # fmt: skip
    Ln("6. The applicant says that the earlier payment was not a grant but a loan, later converted.", before=4),
    Ln("The issues", bold=True, before=6),
    Ln("7. The following issues arise:"),
    Ln("– whether the applicant delayed unduly in bringing these proceedings; and", x=LEFT + 36),
    Ln("– whether the earlier payment was a grant under a predecessor scheme.", x=LEFT + 36),
    Ln("8. The applicant must first show that it brought these proceedings within the time the rules allow."),
]


def test_a_numbered_paragraph_introducing_a_quotation_is_no_heading(tmp_path: Path) -> None:
    """F1: in a judgment of numbered paragraphs, ``5. Clause 4.3 of the scheme provides:`` introduces the quotation
    under it, and ``7. The following issues arise:`` a list: paragraphs, not headings holding what follows; a short
    title closed by a colon (``10. Nevada (1861):`` in a list of statutes) still opens a level."""
    doc = parse_pdf(build_lines(tmp_path / "judgment.pdf", [[*map(Ln, _filler(0, 4)), *_JUDGMENT]]))
    assert _path_of(doc, "An application shall be refused")[-1] == "Background"
    assert _path_of(doc, "earlier payment was not a grant")[-1] == "Background"
    assert _path_of(doc, "delayed unduly")[-1] == "The issues"
    assert _path_of(doc, "brought these proceedings within")[-1] == "The issues"
    statutes = [
        Ln("Appendix of statutes", bold=True, before=6),
        Ln("10. Nevada (1861):"),
        Ln("An act that made the offence punishable by imprisonment for a term of two years."),
        Ln("11. Oregon (1864):"),
        Ln("An act in the same terms, save that the term of imprisonment was one year."),
    ]
    doc = parse_pdf(build_lines(tmp_path / "appendix.pdf", [[*map(Ln, _filler(0, 4)), *statutes]]))
    assert _path_of(doc, "save that the term")[-1] == "11. Oregon (1864):"


def test_decimal_clauses_with_run_in_subjects_nest_by_depth(tmp_path: Path) -> None:
    """F6: a contract's ``5.1 Term.`` (a bold subject run into its clause), ``5.2.1 Breach.`` (an italic one) and a
    bold ``5.3 Survival`` on a line of its own open levels under the article (a named level, at the path's root),
    nested by the number's depth; a body
    line opening ``1.5 million dollars …`` or ``2.5 percent of the price …`` opens none."""
    term = "This Agreement begins on the start date and runs for three years unless it is ended earlier."
    cause = "Either party may end this Agreement for cause as set out in this clause."
    breach = "Either party may end this Agreement by notice if the other party breaches it."
    million = "1.5 million dollars is payable to the supplier on the start date of this Agreement."
    percent = "2.5 percent of the price is payable on the signing of this Agreement by both parties."
    insolvency = "Either party may end this Agreement at once if the other party becomes insolvent."
    survive = "The clauses on confidentiality and liability survive the end of this Agreement."
    fees = "The customer must pay the fees within thirty days after it receives a correct invoice."
    pages = [
        [
            Ln("SUPPLY AGREEMENT", 14.0, bold=True, x=250.0),
            Ln("This agreement is made between the customer and the supplier named below.", before=10),
            Ln("ARTICLE 5 TERM AND TERMINATION", bold=True, x=200.0, before=8),
            Ln(f"**5.1 Term.** {term}", marked=True, before=6),
            Ln(million, before=6),
            Ln(f"**5.2 Termination for Cause.** {cause}", marked=True, before=6),
            Ln(f"5.2.1 __Material Breach.__ {breach}", marked=True, x=LEFT + 36, before=6),
            Ln(percent, x=LEFT + 36, before=6),
            Ln(f"5.2.2 __Insolvency.__ {insolvency}", marked=True, x=LEFT + 36, before=6),
            Ln("5.3 Survival", bold=True, before=6),
            Ln(survive),
            Ln("ARTICLE 6 FEES", bold=True, x=200.0, before=8),
            Ln(f"**6.1 Fees.** {fees}", marked=True, before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "msa.pdf", pages))
    # an article is a named level (stop 55): like an Act's PART under the Act's title, it opens the path
    top = ("ARTICLE 5 TERM AND TERMINATION",)
    assert _path_of(doc, term) == (*top, "5.1 Term.")
    assert _path_of(doc, million) == (*top, "5.1 Term.")
    assert _path_of(doc, cause) == (*top, "5.2 Termination for Cause.")
    assert _path_of(doc, breach) == (*top, "5.2 Termination for Cause.", "5.2.1 Material Breach.")
    assert _path_of(doc, percent) == (*top, "5.2 Termination for Cause.", "5.2.1 Material Breach.")
    assert _path_of(doc, insolvency) == (*top, "5.2 Termination for Cause.", "5.2.2 Insolvency.")
    assert _path_of(doc, survive) == (*top, "5.3 Survival")
    assert _path_of(doc, fees) == ("ARTICLE 6 FEES", "6.1 Fees.")


def test_unranked_heading_as_large_as_the_chapter_closes_it(tmp_path: Path) -> None:
    """F8: ``Recommendations`` set as large as ``Chapter 3 Options for reform`` closes the chapter; a bold
    ``Conclusions`` in a smaller size (a heading inside the chapter) stays under it, and so does a title as large
    set apart right under a ``Chapter 4`` line, with no text between them (what the chapter holds)."""
    options = "The Commission considered three options for reform of the present law on unfair terms."
    concl = "The second option best balances the interests of small businesses and their suppliers."
    recs = "The unfair terms regime should be extended to contracts made by all small businesses."
    steps = "The reforms should commence one year after the amending Act receives the Royal Assent."
    pages = [
        [
            Ln("Chapter 3 Options for reform", 16.0, bold=True),
            Ln(options, before=6),
            *[Ln(t) for t in _filler(0, 2)],
            Ln("Conclusions", 12.5, bold=True, before=8),
            Ln(concl, before=4),
            *[Ln(t) for t in _filler(2, 2)],
            Ln("Recommendations", 16.0, bold=True, before=10),
            Ln(recs, before=6),
            *[Ln(t) for t in _filler(4, 2)],
            Ln("Chapter 4", 16.0, bold=True, before=10),
            Ln("Implementation", 16.0, bold=True, before=30),
            Ln(steps, before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "report.pdf", pages))
    assert _path_of(doc, options) == ("Chapter 3 Options for reform",)
    assert _path_of(doc, concl) == ("Chapter 3 Options for reform", "Conclusions")
    assert _path_of(doc, recs) == ("Recommendations",)
    assert _path_of(doc, steps) == ("Chapter 4", "Implementation")


def test_confidentiality_banner_heads_no_path(tmp_path: Path) -> None:
    """F7: a bold caps banner over a memo (``PRIVILEGED AND CONFIDENTIAL — ATTORNEY WORK PRODUCT``, and a
    ``DRAFT`` or ``ATTORNEY–CLIENT PRIVILEGED`` stamp lower down) opens no level: the memo's headings nest under
    its title alone."""
    question = "Whether the renewal option in the lease survived the assignment of the landlord's interest."
    answer = "Probably yes. The option touches and concerns the land and so runs with the reversion."
    pages = [
        [
            Ln("MEMORANDUM", 14.0, bold=True, x=250.0),
            Ln("PRIVILEGED AND CONFIDENTIAL — ATTORNEY WORK PRODUCT", 10.0, bold=True, x=160.0, before=6),
            Ln("TO: The supervising partner", before=8),
            Ln("FROM: A junior associate"),
            Ln("I. Question Presented", bold=True, before=10),
            Ln(question),
            Ln("DRAFT", bold=True, x=280.0, before=8),
            Ln("ATTORNEY–CLIENT PRIVILEGED", bold=True, x=220.0, before=4),
            Ln("II. Short Answer", bold=True, before=8),
            Ln(answer),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "memo.pdf", pages))
    assert _path_of(doc, question) == ("MEMORANDUM", "I. Question Presented")
    assert _path_of(doc, answer) == ("MEMORANDUM", "II. Short Answer")
    assert not any("PRIVILEGED" in t or t == "DRAFT" for s in doc.sections for t in s.path)


def test_headings_about_confidentiality_stay_headings(tmp_path: Path) -> None:
    """Guard for F7: a bold ``Confidentiality`` heading, a ``12. Confidential Information`` clause and a bold
    ``Draft Agreement`` title have subjects of their own: each still opens its level."""
    keep = "Each party must keep the terms of this agreement secret from third parties."
    info = "Confidential information includes the customer lists and the pricing schedules."
    pages = [
        [
            Ln("Draft Agreement", 14.0, bold=True, x=240.0),
            Ln("This agreement is made between the supplier and the customer named below.", before=10),
            Ln("Confidentiality", bold=True, before=8),
            Ln(keep),
            Ln("12. Confidential Information", bold=True, before=8),
            Ln(info),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "agreement.pdf", pages))
    assert _path_of(doc, keep) == ("Draft Agreement", "Confidentiality")
    assert _path_of(doc, info)[0] == "Draft Agreement"
    assert _path_of(doc, info)[-1] == "12. Confidential Information"


def _dotted_page(marks: tuple[str, str], numbers: tuple[str, str], start: int) -> Page:
    """A page whose body cites ``marks`` raised and whose foot, under a wide gap (a drawn rule the parser cannot
    see), holds two paragraphs in the body's own size opening ``numbers`` on the baseline (``1. The…``)."""
    body: list[str] = []
    for k in range(5):  # five paragraphs of seven lines fill the page down to the notes
        body += ["", *_filler(start + 7 * k, 7)] if body else _filler(start, 7)
    body[2] = body[2][:-1] + f".^{marks[0]}"
    body[14] = body[14][:-1] + f".^{marks[1]}"
    first, second = numbers
    at = [
        (LEFT, 150.0, f"{first} The earlier decisions on the point are collected in the judgment of the", BODY_SIZE),
        (LEFT, 137.4, "trial judge, who reviewed them at some length before deciding the case.", BODY_SIZE),
        (LEFT, 124.8, f"{second} The amending Bill's explanatory memorandum is silent on the question.", BODY_SIZE),
    ]
    return Page(body=body, at=at, footer=f"page {start + 1}")


def test_body_size_notes_numbered_on_the_baseline(tmp_path: Path) -> None:
    """q08b: notes set in the body's own size, numbered ``1.`` on the baseline (not raised) under a rule the parser
    cannot see, are the page's notes where the body cites raised markers and the foot's ``N.`` lines, set apart
    by a gap, open with exactly the numbers cited, in sequence (1, 2 on the first page; 3, 4 on the next)."""
    pages = [_dotted_page(("1", "2"), ("1.", "2."), 0), _dotted_page(("3", "4"), ("3.", "4."), 4)]
    notes = _notes(build(tmp_path / "dotted.pdf", pages))
    assert [(n, p) for n, p, _ in notes] == [("1", 1), ("2", 1), ("3", 2), ("4", 2)]
    assert notes[0][2].startswith("the earlier decisions") and notes[0][2].endswith("deciding the case")
    assert notes[3][2] == _norm("The amending Bill's explanatory memorandum is silent on the question.")


def test_numbered_list_at_the_foot_is_no_notes(tmp_path: Path) -> None:
    """Guard for q08b: a numbered list ``1. … 2. …`` at a page's foot in the body's size is body text where the
    page cites no raised marker, and where the numbers are not the ones its body cites (``³``, ``⁴`` above a
    list ``1.``, ``2.``)."""
    page = _dotted_page(("1", "2"), ("1.", "2."), 0)
    page.body = [t for t in page.body if "^" not in t] + [_filler(0, 1)[0].rstrip(".")]  # no raised marker at all
    assert _notes(build(tmp_path / "list.pdf", [page])) == []
    pages = [_dotted_page(("1", "2"), ("1.", "2."), 0), _dotted_page(("3", "4"), ("1.", "2."), 4)]
    path = build(tmp_path / "list2.pdf", pages)
    assert not [n for n, p, _ in _notes(path) if p == 2]
    assert "amending bill s explanatory" in _norm(" ".join(s.text for s in parse_pdf(path).sections if s.page_end == 2))


def test_act_note_after_a_nested_item_belongs_to_the_subsection(tmp_path: Path) -> None:
    """F10: a ``Note:`` set smaller than the body at the indent of a subsection's text, after its paragraph
    ``(a)`` and subparagraph ``(ii)``, is the subsection's note, not the subparagraph's; a note under a
    subsection with no items stays in it."""
    plain = "Note: The levy is collected with the annual return for the year."
    nested = "Note 2: A review may be sought whether or not the permit has expired."
    pages = [
        [
            Ln("7  Permits may be cancelled", bold=True),
            Ln("(1) The Registrar may cancel a permit held by an operator.", x=94.0),
            Ln(plain, 9.0, x=118.0, before=6),
            Ln("(2) In deciding whether to cancel a permit, the Registrar must have regard to:", x=94.0, before=4),
            Ln("(a) any conduct of the operator after the permit was issued, other than:", x=118.0),
            Ln("(i) conduct that the Registrar has already considered; or", x=144.0),
            Ln("(ii) conduct that occurred outside the State.", x=144.0),
            Ln(nested, 9.0, x=118.0, before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "notes.pdf", pages))
    title = "7 Permits may be cancelled"
    assert _path_of(doc, nested)[:1] == (title,)
    assert len(_path_of(doc, nested)) == 2 and _path_of(doc, nested)[1].startswith("(2)")
    assert len(_path_of(doc, plain)) == 2 and _path_of(doc, plain)[1].startswith("(1)")


def _slip_law(items: list[Ln]) -> list[Ln]:
    """A US slip law's section: each item's first line indented by its level, its run-over lines flush left,
    no space between items."""
    return [Ln("SEC. 101. CREDIT FOR QUALIFIED REPAIRS.", bold=True), *items]


def test_statute_item_closed_by_and_ends_before_its_sibling(tmp_path: Path) -> None:
    """F9: in a slip law an item ending ``; and`` / ``; or`` is closed: the next item opens its own level,
    though its first line is indented right of the flush run-over line above it (``(2)`` is not read under
    ``(1)``, nor ``(ii)`` under ``(i)``)."""
    second = "the amount paid for inspections of the property"
    other = "under a contract entered into with a qualified inspector"
    lines = _slip_law(
        [
            Ln("(a) IN GENERAL.—There shall be allowed as a credit against the tax imposed", x=LEFT + 12),
            Ln("by this chapter for the taxable year an amount equal to the sum of—"),
            Ln("(1) the amount paid for repairs of the property during the taxable", x=LEFT + 24),
            Ln("year to any person other than a related person; and"),
            Ln(f"(2) {second} during the taxable", x=LEFT + 24),
            Ln("year—"),
            Ln("(i) under a contract with the person who repaired the property; or", x=LEFT + 36),
            Ln(f"(ii) {other} before the work", x=LEFT + 36),
            Ln("began."),
        ]
    )
    doc = parse_pdf(build_lines(tmp_path / "slip.pdf", [lines]))
    head = "SEC. 101. CREDIT FOR QUALIFIED REPAIRS."
    first = _path_of(doc, "the amount paid for repairs")
    assert first[0] == head and first[-1].startswith("(1) the amount paid for repairs")
    two = _path_of(doc, second)
    assert two[:-1] == first[:-1] and two[-1].startswith("(2)")
    deeper = _path_of(doc, other)
    assert deeper[:-1] == two[:-1] + (two[-1],) and deeper[-1].startswith("(ii)")
    assert _norm(next(s.text for s in doc.sections if s.path == first)).endswith("a related person and")


def test_inserted_subsection_1a_closes_the_items_above_it(tmp_path: Path) -> None:
    """An Act's inserted ``(1A)`` is a subsection like ``(1)``: it closes (1)'s items, holds its own, and the
    ``(2)`` after them is the section's subsection, not an item's."""
    inserted = "(1A) Subsection (1) does not apply to a permit issued before the commencement day."
    pages = [
        [
            Ln("7  Permits may be cancelled", bold=True),
            Ln("(1) The Registrar may cancel a permit if:", x=94.0),
            Ln("(a) the operator has not paid the levy; or", x=118.0),
            Ln("(b) the operator has ceased to operate.", x=118.0),
            Ln(inserted, x=94.0),
            Ln("(2) The Registrar must give the operator notice of the cancellation.", x=94.0),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "act.pdf", pages))
    title = "7 Permits may be cancelled"
    assert _path_of(doc, "Subsection (1) does not apply") == (title, inserted)
    two = _path_of(doc, "must give the operator notice")
    assert two[0] == title and len(two) == 2 and two[1].startswith("(2)")


def test_subsection_after_a_title_wrapped_at_a_pages_foot_opens_its_level(tmp_path: Path) -> None:
    """A section title set larger, wrapped onto a second line at a page's foot: the ``(1)`` atop the next page
    opens the section's first subsection (it was read as the title's text, so ``(2)`` nested under ``(b)``)."""
    title = "75Q Evidence given in civil proceedings not admissible in criminal"
    pages = [
        [
            *(Ln(t) for t in _filler(1, 30)),
            Ln(title, 12.5, bold=True, before=8),
            Ln("proceedings", 12.5, bold=True, x=94.0),
        ],
        [
            Ln("(1) Evidence given by an individual is not admissible in criminal", x=94.0),
            Ln("proceedings against the individual if:", x=118.0),
            Ln("(a) the individual gave the evidence in civil proceedings; and", x=118.0),
            Ln("(b) the conduct alleged is substantially the same.", x=118.0),
            Ln("(2) However, subsection (1) does not apply to proceedings about the falsity of the evidence.", x=94.0),
        ],
    ]
    doc = parse_pdf(build_lines(tmp_path / "wrapped.pdf", pages))
    head = f"{title} proceedings"
    one = _path_of(doc, "the individual gave the evidence in civil")
    assert one[-3:-1] == (head, "(1) Evidence given by an individual is not admissible in criminal")
    two = _path_of(doc, "However, subsection (1) does not apply")
    assert two[-2] == head and two[-1].startswith("(2) However")


def test_older_act_with_side_notes_reads_its_sections_and_keeps_the_notes_apart(tmp_path: Path) -> None:
    """An older Act: ``2. (1) …`` sections, and in the right margin, level with the text, each section's title
    and its amendments in a smaller size. The notes stay out of the sentences (read by height, they fell between
    the text's lines) and open no level ("XIV. 2009.3." is an amending Act, not a Part XIV); ``2. (1)`` opens
    section 2 with its subsection (1), and ``3. The Minister …`` opens section 3."""
    body = [
        (LEFT, "2. (1) A person who carries on a relevant activity shall keep"),
        (LEFT + 10, "records of every transaction for a period of five years from"),
        (LEFT + 10, "the date on which the transaction was completed."),
        (LEFT + 10, "(2) The records shall be produced to the Unit on demand."),
        (LEFT, "3. The Minister may make regulations for the purposes of this Act."),
    ]
    notes = [("Records.", 0), ("Amended by:", 1), ("XIV. 2009.3.", 2), ("Regulations.", 4)]
    path = tmp_path / "act.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    lead = round(BODY_SIZE * 1.29, 1)
    y = TOP
    for text in _filler(1, 4):
        _draw(c, LEFT, y, text, BODY_SIZE)
        y -= lead
    for x, text in body:
        _draw(c, x, y, text, BODY_SIZE)
        y -= lead
    first = y + lead * len(body)
    for text, row in notes:
        _draw(c, LEFT + 420, first - row * lead - 1, text, 8.0)  # right of the text block (to 479 pt)
    _draw(c, PAGE_W - 100, 40, "page 1", 9.0)
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    text = " ".join(_norm(s.text) for s in doc.sections)
    assert _norm("shall keep records of every transaction for a period of five years from the date") in text
    assert _norm("Records. Amended by: XIV. 2009.3.") in text
    assert not [s.path for s in doc.sections if any(t.startswith("XIV") for t in s.path)]
    assert _path_of(doc, "shall keep records")[-2] == "2."
    assert _path_of(doc, "produced to the Unit on demand")[-2:] == (
        "2.",
        "(2) The records shall be produced to the Unit on demand.",
    )
    assert _path_of(doc, "The Minister may make regulations")[-1].startswith("3. The Minister")


def _act_pages(path: Path, pages: list[tuple[list[tuple[float, str]], list[tuple[str, int]]]], note_x: float) -> Path:
    """An older Act's pages: each page's body lines ``(x, text)`` under four lines of filler on the first page, and
    its side notes ``(text, row)`` in 8 pt at ``note_x``, level with the body line of that row."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    lead = round(BODY_SIZE * 1.29, 1)
    for k, (body, notes) in enumerate(pages, start=1):
        y = TOP
        if k == 1:
            for text in _filler(1, 4):
                _draw(c, LEFT + 60, y, text, BODY_SIZE)
                y -= lead
        first = y
        for x, text in body:
            _draw(c, x, y, text, BODY_SIZE)
            y -= lead
        for text, row in notes:
            _draw(c, note_x, first - row * lead - 1, text, 8.0)
        _draw(c, PAGE_W - 100, 40, f"page {k}", 9.0)
        c.showPage()
    c.save()
    return path


def test_side_notes_in_the_left_margin_and_over_a_page_break(tmp_path: Path) -> None:
    """A note in the left margin does not change how the text's next line is read (``(2)`` still opens its
    subsection); a note beside a sentence that runs over the page break follows that sentence's end on the next
    page, whole, and splits no word."""
    x = LEFT + 60
    pages = [
        (
            [
                (x, "2. (1) A person who carries on a relevant activity shall keep records."),
                (x + 10, "(2) The records shall be produced to the Unit on demand."),
                (x, "3. (1) The Unit may require a person to keep the records for a period"),
                (x + 10, "of five years from the date on which the trans-"),
            ],
            [("Keeping of", 0), ("records.", 1), ("Retention.", 3)],
        ),
        (
            [
                (x + 10, "action was completed, and may inspect them at any time."),
                (x + 10, "(2) The Unit may publish guidance on the keeping of records."),
            ],
            [],
        ),
    ]
    doc = parse_pdf(_act_pages(tmp_path / "act.pdf", pages, 40.0))
    two = _path_of(doc, "The records shall be produced")
    assert two[-2:] == ("2.", "(2) The records shall be produced to the Unit on demand.")
    text = " ".join(" ".join(s.text.split()) for s in doc.sections)
    assert "keep records. Keeping of records. (2) The records" in text
    assert "from the date on which the transaction was completed, and may inspect them at any time. Retention." in text
    assert _path_of(doc, "publish guidance")[-2:] == (
        "3.",
        "(2) The Unit may publish guidance on the keeping of records.",
    )


def _on_baselines(path: Path, x: float, rows: list[list[tuple[float, str, float]]]) -> Path:
    """Four filler lines at ``x``, then ``rows``: each a baseline's pieces ``(x, text, size)``, drawn left to right
    as the text's own line (PDFium reads pieces drawn so as one line)."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    lead = round(BODY_SIZE * 1.29, 1)
    y = TOP
    for text in _filler(1, 4):
        _draw(c, x, y, text, BODY_SIZE)
        y -= lead
    for pieces in rows:
        for px, ptext, size in sorted(pieces):
            _draw(c, px, y, ptext, size)
        y -= lead
    _draw(c, PAGE_W - 100, 40, "page 1", 9.0)
    c.showPage()
    c.save()
    return path


@pytest.mark.parametrize("note_x", [40.0, 556.0])
def test_side_note_on_the_texts_baseline_is_read_apart(tmp_path: Path, note_x: float) -> None:
    """A side note printed on the baseline of its section's first line, in the left or the right margin, is not
    read into that line (left of it, the note hid the section's number: ``Short title. 4. This Act …``; right of
    it, the note fell inside the sentence): ``4. This Act may be cited …`` opens section 4, and the note follows
    the clause beside it, whole."""
    x = LEFT + 60
    body = [
        (x, "3. (1) A person who carries on a relevant activity shall keep records."),
        (x + 10, "(2) The records shall be produced to the Unit on demand."),
        (x, "4. This Act may be cited as the Records Act, and it comes"),
        (x + 10, "into force on the day it receives the Royal Assent."),
        (x, "5. (1) The Minister may make regulations for the purposes of this Act."),
    ]
    notes = {0: "Keeping of records.", 2: "Short title.", 4: "Regulations."}
    rows = [
        [(x0, text, BODY_SIZE), *([(note_x, notes[k], 8.0)] if k in notes else [])] for k, (x0, text) in enumerate(body)
    ]
    path = _on_baselines(tmp_path / "act.pdf", x, rows)
    doc = parse_pdf(path)
    assert _path_of(doc, "This Act may be cited")[-1].startswith("4. This Act may be cited")
    assert _path_of(doc, "The Minister may make")[-2] == "5."
    text = " ".join(" ".join(s.text.split()) for s in doc.sections)
    assert (
        "4. This Act may be cited as the Records Act, and it comes into force on the day it receives the Royal"
        " Assent. Short title." in text
    )


def test_a_pages_one_side_note_is_set_apart_too(tmp_path: Path) -> None:
    """A page's only side note, an amending Act's "XIV. 2009.3.", follows the clause beside it and opens no
    level (it is no Part XIV)."""
    body = [
        (LEFT, "2. (1) A person who carries on a relevant activity shall keep records of"),
        (LEFT + 10, "every transaction for a period of five years from the date on"),
        (LEFT + 10, "which the transaction was completed."),
        (LEFT + 10, "(2) The records shall be produced to the Unit on demand."),
    ]
    doc = parse_pdf(_act_pages(tmp_path / "act.pdf", [(body, [("XIV. 2009.3.", 1)])], 556.0))  # right of 539 pt
    text = " ".join(" ".join(s.text.split()) for s in doc.sections)
    assert "five years from the date on which the transaction was completed. XIV. 2009.3." in text
    assert not [s.path for s in doc.sections if any(t.startswith("XIV") for t in s.path)]


def test_older_act_sections_after_a_skip_an_insertion_or_a_dash(tmp_path: Path) -> None:
    """After ``3. (1) …`` the next section may be a few numbers on (repealed sections are not printed), an
    inserted ``3A.``, or printed ``5.—The …``: each opens a section, none is an item of section 3."""
    body = [
        (LEFT, "3. (1) A person who carries on a relevant activity shall keep records."),
        (LEFT + 10, "(2) The records shall be produced to the Unit on demand."),
        (LEFT, "3A. The Unit may issue guidance on the keeping of records."),
        (LEFT, "5.—The Minister may make regulations for the purposes of this Act."),
        (LEFT, "6. This Act may be cited as the Records Act."),
    ]
    doc = parse_pdf(_act_pages(tmp_path / "act.pdf", [(body, [])], 480.0))
    for probe in ("issue guidance", "make regulations", "may be cited"):
        path = _path_of(doc, probe)
        assert len(path) == 1 and path[0].startswith(("3A.", "5.", "6.")), path


def test_a_deed_clause_numbered_like_an_act_section_keeps_the_deed_title(tmp_path: Path) -> None:
    """A deed's clause printed ``2. (1) …`` is a clause beside ``1. DEFINITIONS`` under the deed's title; the
    clauses after it keep their subjects (``3. REPAYMENT``)."""
    lines = [
        Ln("DEED OF LOAN", bold=True),
        Ln("1. DEFINITIONS", bold=True, before=6),
        Ln("(a) Loan means the sum advanced under this deed.", x=LEFT + 20),
        Ln("(b) Rate means four per cent a year.", x=LEFT + 20),
        Ln("2. (1) The Borrower shall pay interest on the Loan at the Rate.", before=6),
        Ln("(2) Interest accrues daily.", x=LEFT + 20),
        Ln("3. REPAYMENT", bold=True, before=6),
        Ln("The Borrower shall repay the Loan on the fifth anniversary of this deed."),
    ]
    doc = parse_pdf(build_lines(tmp_path / "deed.pdf", [lines]))
    assert _path_of(doc, "Interest accrues daily") == ("DEED OF LOAN", "2.", "(2) Interest accrues daily.")
    assert _path_of(doc, "shall repay the Loan") == ("DEED OF LOAN", "3. REPAYMENT")


def test_a_range_broken_at_a_lines_end_joins_within_its_paragraph_only(tmp_path: Path) -> None:
    """``at 273–`` / ``274.`` inside a paragraph reads ``273–274``; a dash ending a paragraph, with a gap before
    the next one that opens with a number, joins nothing (``… 1990–`` / gap / ``2024 was a difficult year``)."""
    lines = [
        Ln("The rule was applied in Harrow v Quayside, 12 NSWLR 263, 273–"),
        Ln("274, and again in the appeal that followed it."),
        Ln("The lessor kept the rent at the figure fixed for 1985–", before=0),
        Ln("2024 was a difficult year for the lessee, who fell into arrears.", before=24),
    ]
    doc = parse_pdf(build_lines(tmp_path / "ranges.pdf", [lines]))
    text = "\n".join(s.text for s in doc.sections)
    assert "263, 273–274, and again" in text
    assert "1985–2024" not in text


def test_a_figure_hyphenated_after_its_thousands_comma_reads_whole(tmp_path: Path) -> None:
    """``$1,000,-`` / ``000, and costs …`` in the body is one figure, ``$1,000,000``."""
    lines = [Ln("The penalty was fixed at $1,000,-"), Ln("000, and costs were assessed at $48,750.")]
    doc = parse_pdf(build_lines(tmp_path / "figure.pdf", [lines]))
    assert "fixed at $1,000,000, and costs" in "\n".join(s.text for s in doc.sections)


def _pleading(path: Path, pages: list[list[str]], offset: float = 1.5) -> Path:
    """A pleading: the numbers 1–28 down the left margin every 24 pt, each in a text object of its own set
    ``offset`` points under the baseline of the text line beside it; the text double-spaced on them."""
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    for number, body in enumerate(pages, start=1):
        for n in range(1, 29):
            _draw(c, 60 - c.stringWidth(str(n), "Times-Roman", 11), 720 - 24 * (n - 1) - offset, str(n), 11)
        c.setLineWidth(0.5)
        c.line(66, 760, 66, 30)
        for k, text in enumerate(body):
            _draw(c, LEFT + 10, 720 - 24 * (k + 1), text, 11)
        _draw(c, 280, 20, f"PETITION \u2014 {number}", 9)
        c.showPage()
    c.save()
    return path


def test_pleading_line_numbers_are_dropped(tmp_path: Path) -> None:
    """p11/p15: a pleading's column of line numbers 1, 2, 3 … in the left margin is dropped whole: a number
    set a point off its text line's baseline lands nowhere in the sentence, and the numbers beside blank lines
    leave no run of bare numbers (nor a section each)."""
    body = [
        "1. The Petitioner is a cooperative formed under the laws of the State of",
        "Oregon with its registered office in Lane County.",
        "2. In June 2021 the Respondent undertook to supply to the Petitioner",
        "340 crates of the seed described in Exhibit B for the sum of $52,000.",
        "3. The Respondent supplied only",
        "17 crates and has declined to supply the remainder.",
    ]
    doc = parse_pdf(_pleading(tmp_path / "pleading.pdf", [body, ["4. The Petitioner asks for costs."]]))
    text = " ".join(" ".join(s.text.split()) for s in doc.sections)
    assert "undertook to supply to the Petitioner 340 crates of the seed" in text
    assert "3. The Respondent supplied only 17 crates and has declined" in text
    assert "4. The Petitioner asks for costs." in text
    assert not re.search(r"(?:\b\d{1,2}\b\s+){4,}", text)
    assert len(doc.sections) < 8


def test_numbered_list_in_the_body_is_no_line_number_column(tmp_path: Path) -> None:
    """Guard for p11: bare numbers 1 … 12 drawn apart from their items' text at the body's own margin are a
    numbered list (text of the page starts left of them), not a line-number column: the numbers stay."""
    c = canvas.Canvas(str(tmp_path / "list.pdf"), pagesize=letter, invariant=1)
    _draw(c, LEFT, 720, "The tenant must give notice of each of the following matters in writing:", 11)
    for n in range(1, 13):
        _draw(c, LEFT, 720 - 24 * n, str(n), 11)
        _draw(c, LEFT + 20, 720 - 24 * n, f"the matter numbered {n} in the schedule to this lease;", 11)
    c.showPage()
    c.save()
    text = " ".join(" ".join(s.text.split()) for s in parse_pdf(tmp_path / "list.pdf").sections)
    assert "7 the matter numbered 7 in the schedule" in text
    assert "12 the matter numbered 12 in the schedule" in text


_SCHEDULE = [
    "Schedule of fees payable under clause 9 of the licence dated 4 May 2019.",
    "The licence fee is $38,500 a year, increased each second year by 2.5 per cent.",
    "Service charges are payable in addition and are estimated at $6,120 a year.",
    "Fees are payable quarterly in advance on the first day of each quarter.",
]


def test_schedule_turned_sideways_is_kept_in_order(tmp_path: Path) -> None:
    """p13/p14: a schedule drawn at 90° on a portrait page (its lines measured like level ones, so set in the
    body size) is body text, not a running stack, and its lines read in their own order, not by length."""
    c = canvas.Canvas(str(tmp_path / "sideways.pdf"), pagesize=letter, invariant=1)
    for k, text in enumerate(_filler(0, 6)):
        _draw(c, LEFT, TOP - BODY_LEAD * k, text, BODY_SIZE)
    c.showPage()
    c.saveState()
    c.translate(PAGE_W - 72, 72)
    c.rotate(90)
    for k, text in enumerate(_SCHEDULE):
        _draw(c, 0, -15 * k, text, BODY_SIZE)
    c.restoreState()
    c.showPage()
    for k, text in enumerate(_filler(6, 6)):
        _draw(c, LEFT, TOP - BODY_LEAD * k, text, BODY_SIZE)
    c.showPage()
    c.save()
    text = " ".join(" ".join(s.text.split()) for s in parse_pdf(tmp_path / "sideways.pdf").sections)
    assert " ".join(_SCHEDULE) in text


def test_rotated_watermark_on_every_page_is_still_dropped(tmp_path: Path) -> None:
    """Guard for p13: a watermark drawn at 90° up the page beside the text, repeated on every page, is still
    dropped; the body around it stays."""
    c = canvas.Canvas(str(tmp_path / "mark.pdf"), pagesize=letter, invariant=1)
    for page in range(3):
        for k, text in enumerate(_filler(6 * page, 6)):
            _draw(c, LEFT, TOP - BODY_LEAD * k, text, BODY_SIZE)
        c.saveState()
        c.translate(300, 200)
        c.rotate(90)
        _draw(c, 0, 0, "UNCERTIFIED COPY FOR INFORMATION ONLY", BODY_SIZE)
        c.restoreState()
        c.showPage()
    c.save()
    text = " ".join(" ".join(s.text.split()) for s in parse_pdf(tmp_path / "mark.pdf").sections)
    assert "UNCERTIFIED" not in text
    assert " ".join(_filler(6, 1)[0].split()) in text


def _cfr_section(third: str, after: list[Ln]) -> list[Ln]:
    """A printed CFR section: a bold ``§`` heading, paragraphs with italic subjects run into their text."""
    return [
        Ln("§ 1.88–1 Qualified repair contracts.", bold=True),
        Ln("(a) __General rule.__ A qualified repair contract is one under which the repairer restores", marked=True),
        Ln("the property of another to its former condition for a fixed price."),
        Ln("(b) __Owner.__ The owner is any person whose property is repaired under the contract.", marked=True),
        Ln(third, marked=True),
        Ln("the taxable year in which the repairer completes the work and the owner accepts it."),
        *after,
    ]


def test_paragraph_heading_run_into_its_first_sub_paragraph_opens_both(tmp_path: Path) -> None:
    """F12: a CFR ``(c) Taxable year of completion—(1) In general. The credit …`` opens (c) and its (1): the text
    after it is cited as (c)(1), and ``(2) Special rule.`` below is (c)(2), a sibling of (1), not under it."""
    general = "The credit for a repair contract is allowed for"
    special = "If the repairer abandons the contract the credit is allowed for the year of abandonment."
    third = f"(c) __Taxable year of completion—(1) In general.__ {general}"
    lines = _cfr_section(third, [Ln(f"(2) __Special rule.__ {special}", marked=True)])
    doc = parse_pdf(build_lines(tmp_path / "cfr.pdf", [lines]))
    head = "§ 1.88–1 Qualified repair contracts."
    assert _path_of(doc, general) == (head, "(c) Taxable year of completion", "(1) In general.")
    assert _path_of(doc, special) == (head, "(c) Taxable year of completion", "(2) Special rule.")


def test_a_letter_after_h_run_into_its_paragraph_is_no_sub_paragraph() -> None:
    """Guard for F12: in ``(h) Special rule—(i) In general.`` the ``(i)`` follows ``(h)``, so it is a letter of
    the same series, not (h)'s first sub-paragraph: the heading stays whole, one level."""
    from lclfqa.ingest.headings import Heading, first_sub_paragraph

    heading = Heading("(a)", "(h) Special rule—(i) In general.", "h")
    assert first_sub_paragraph(heading, [Heading("section", "§ 1.88–1", "")]) is None
    assert heading.title == "(h) Special rule—(i) In general."


def test_paragraph_heading_with_no_sub_paragraph_stays_one_level(tmp_path: Path) -> None:
    """Guard for F12: ``(c) Taxable year.—The credit …`` (a dash before the text, no sub-paragraph) and a subject
    that names another paragraph after its dash (``(d) Cross-reference—(a) of this section.``) open one level."""
    general = "The credit for a repair contract is allowed for"
    lines = _cfr_section(
        f"(c) __Taxable year.—__{general}",
        [Ln("(d) __Cross-reference—(b) of this section.__ The owner is defined there for all purposes.", marked=True)],
    )
    doc = parse_pdf(build_lines(tmp_path / "cfr.pdf", [lines]))
    head = "§ 1.88–1 Qualified repair contracts."
    one = _path_of(doc, general)
    assert one[0] == head and len(one) == 2 and one[1].startswith("(c) Taxable year.")
    other = _path_of(doc, "The owner is defined there")
    assert other[0] == head and len(other) == 2 and other[1].startswith("(d) Cross-reference—(b)")


def test_convention_articles_on_lines_of_their_own_open_levels(tmp_path: Path) -> None:
    """A convention printed as the EU's Official Journal prints a regulation: numbered recitals ``(1)``, ``(2)``,
    then ``CHAPTER I`` and each ``Article N`` on a line of its own over a bold title. The chapter opens after
    the recitals' outline, each article opens its level (closing the one before and its numbered paragraphs),
    and a sentence that begins with an article's number (``Article 2 applies to …``) opens nothing."""
    first = "This Convention applies to contracts for the carriage of goods by sea between two States."
    second = "Article 2 applies to every contract of carriage, whatever the nationality of the ship."
    third = "The carrier shall be liable for loss of or damage to the goods while in its charge."
    pages = [
        [
            Ln("CONVENTION ON THE CARRIAGE OF GOODS", 13.0, bold=True, x=180.0),
            Ln("(1) The States Parties wish to set uniform rules for the carriage of goods by sea.", before=8),
            Ln("(2) Such rules should apply whatever the nationality of the ship or the parties.", before=4),
            Ln("CHAPTER I", x=270.0, before=10),
            Ln("GENERAL PROVISIONS", bold=True, x=240.0),
            Ln("Article 1", x=280.0, before=8),
            Ln("Scope", bold=True, x=285.0),
            Ln(f"1. {first}", before=4),
            Ln("2. It does not apply to charter parties.", before=4),
            Ln("Article 2", x=280.0, before=8),
            Ln("Definitions", bold=True, x=275.0),
            Ln(second, before=4),
            Ln("CHAPTER II", x=268.0, before=10),
            Ln("LIABILITY OF THE CARRIER", bold=True, x=225.0),
            Ln("Article 3", x=280.0, before=8),
            Ln("Basis of liability", bold=True, x=262.0),
            Ln(f"1. {third}", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "convention.pdf", pages))
    one = _path_of(doc, first)
    assert [t for t in one if t.startswith(("CHAPTER", "Article"))] == ["CHAPTER I", "Article 1"]
    two = _path_of(doc, second)
    assert [t for t in two if t.startswith(("CHAPTER", "Article"))] == ["CHAPTER I", "Article 2"]
    assert not any(t.startswith("Article 2 applies") for t in two)
    three = _path_of(doc, third)
    assert [t for t in three if t.startswith(("CHAPTER", "Article"))] == ["CHAPTER II", "Article 3"]


def test_sentence_about_a_named_level_opens_none(tmp_path: Path) -> None:
    """``Part 2 sets out the procedure …`` at a paragraph's start, in the body's type, is a sentence about Part 2
    (its label runs on into a lower-case word), not Part 2's heading: the text stays under ``PART 1``."""
    about = "Part 2 sets out the procedure for a review of the decision by the tribunal."
    pages = [
        [
            Ln("PART 1 PRELIMINARY", 13.0, bold=True),
            Ln("1 Object of this Act", bold=True, before=6),
            *[Ln(t) for t in _filler(0, 3)],
            Ln(about, before=6),
            Ln("PART 2 REVIEW", 13.0, bold=True, before=10),
            Ln("2 Application for review", bold=True, before=6),
            *[Ln(t) for t in _filler(3, 2)],
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "act.pdf", pages))
    path = _path_of(doc, about)
    assert path[0] == "PART 1 PRELIMINARY"
    assert not any(t.startswith("Part 2 sets out") for s in doc.sections for t in s.path)
    assert _path_of(doc, _filler(3, 1)[0])[0] == "PART 2 REVIEW"


def test_centred_line_at_a_pages_foot_ends_its_paragraph(tmp_path: Path) -> None:
    """A cover page ending with a centred date line (no full stop), and the opinion opening the next page
    indented: ``SMITH, Circuit Judge. This appeal …`` opens the opinion, not more of the cover's paragraph."""
    pages = [
        [
            Ln("United States Court of Appeals", 14.0, bold=True, x=200.0),
            *[Ln(t) for t in _filler(0, 3)],
            Ln("January 5, 2031", x=240.0, before=12),  # centred under the text's lines (72-479 pt)
        ],
        [
            Ln("SMITH, Circuit Judge. This appeal asks whether the order was", x=LEFT + 36),
            Ln("properly entered by the district court below, and we hold that it was."),
        ],
    ]
    doc = parse_pdf(build_lines(tmp_path / "opinion.pdf", pages))
    assert _path_of(doc, "properly entered by the district court")[0] == "SMITH, Circuit Judge."


@pytest.mark.parametrize("how", ["typed", "placed"])
def test_letter_spaced_heading_reads_as_its_word(tmp_path: Path, how: str) -> None:
    """A judgment's ``J U D G M E N T`` set letter by letter, typed with spaces or each glyph placed apart (the
    text layer then puts a space between them), reads ``JUDGMENT``; a line of four spaced capitals (a table's
    ``A B C D``) and a sentence naming ``Parts A B C D E`` stay as printed."""
    path = tmp_path / "judgment.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    if how == "typed":
        _draw(c, 250.0, TOP, "J U D G M E N T", 13.0, "Times-Bold")
    else:
        x = 230.0
        for ch in "JUDGMENT":
            _draw(c, x, TOP, ch, 13.0, "Times-Bold")
            x += c.stringWidth(ch, "Times-Bold", 13.0) + 7
    y = TOP - 30
    for text in [*_filler(0, 3), "Parts A B C D E of the schedule apply to the lease.", "A B C D"]:
        _draw(c, LEFT, y, text, BODY_SIZE)
        y -= BODY_LEAD
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert doc.sections[0].path == ("JUDGMENT",)
    text = "\n".join(s.text for s in doc.sections)
    assert "Parts A B C D E of the schedule" in text and "\nA B C D" in text


# --- a review's invented prints against the rules above (stop 55) -----------------------------------------------


def _paths_with(doc, probe: str) -> list[tuple[str, ...]]:
    return [s.path for s in doc.sections if _norm(probe) in _norm(s.text)]


def test_credit_agreement_articles_hold_their_sections(tmp_path: Path) -> None:
    """A credit agreement's ``ARTICLE 2`` holds its ``SECTION 2.01.`` (an EU regulation's sections hold its
    articles): whichever of the two is open further out is the outer level."""
    pages = [
        [
            Ln("CREDIT AGREEMENT", 13.0, bold=True, x=240.0),
            Ln("ARTICLE 1", x=280.0, before=10),
            Ln("DEFINITIONS", x=270.0),
            Ln("SECTION 1.01. Defined Terms. As used in this Agreement, the following terms have the", before=6),
            Ln("meanings specified in this Section 1.01 unless the context otherwise requires."),
            Ln("SECTION 1.02. Terms Generally. The definitions of terms herein apply to the singular", before=6),
            Ln("and plural forms of the terms defined."),
            Ln("ARTICLE 2", x=280.0, before=10),
            Ln("THE CREDITS", x=270.0),
            Ln("SECTION 2.01. Commitments. Subject to the terms and conditions set forth herein, each", before=6),
            Ln("Lender agrees to make Revolving Loans to the Borrower from time to time."),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "credit.pdf", pages))
    assert _path_of(doc, "singular and plural forms") == ("ARTICLE 1", "SECTION 1.02.")
    assert _path_of(doc, "Revolving Loans to the Borrower") == ("ARTICLE 2", "SECTION 2.01.")


def test_article_quoted_in_a_judgment_opens_no_level(tmp_path: Path) -> None:
    """A judgment quoting ``Article 8`` of the Convention after ``… Article 8 of the Convention provides:``: the
    quoted label opens no level, and the judge's next paragraphs stay under the judge's heading."""
    q = LEFT + 36
    pages = [
        [
            Ln("LORD REED:", bold=True),
            Ln("1. This appeal concerns the lawfulness of a deportation order made against the appellant.", before=6),
            Ln("2. The appellant relies on his right to respect for private and family life under the", before=6),
            Ln("Convention. Article 8 of the Convention provides:"),
            Ln("Article 8", x=q, before=6),
            Ln("Right to respect for private and family life", x=q),
            Ln("1. Everyone has the right to respect for his private and family life, his home", x=q, before=4),
            Ln("and his correspondence.", x=q),
            Ln("3. The Secretary of State accepts that the deportation interferes with that right. The", before=6),
            Ln("question is whether the interference is proportionate to the legitimate aim pursued."),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "judgment.pdf", pages))
    assert not [p for s in doc.sections for p in s.path if p.startswith("Article 8")]
    assert _path_of(doc, "interference is proportionate")[0] == "LORD REED:"


def test_block_quote_indented_on_both_sides_is_not_centred(tmp_path: Path) -> None:
    """A statute quoted in a block indented an inch on both sides: its lines are not centred lines (each would
    end its paragraph), so ``(A) to reflect …`` inside the quoted sentence opens no level."""
    quote = [
        "the nature and circumstances of the offense and the history and",
        "characteristics of the defendant, and the need for the sentence imposed",
        "(A) to reflect the seriousness of the offense, to promote respect",
        "for the law, and to provide just punishment for the offense, and",
    ]
    path = tmp_path / "opinion.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)

    def justified(x: float, y: float, text: str, width: float) -> None:
        t = c.beginText(x, y)
        t.setFont("Times-Roman", BODY_SIZE)
        t.setWordSpace((width - c.stringWidth(text, "Times-Roman", BODY_SIZE)) / text.count(" "))
        t.textOut(text)
        c.drawText(t)

    _draw(c, LEFT, TOP, "I. BACKGROUND", BODY_SIZE, "Times-Bold")
    justified(LEFT, TOP - 18, "The defendant pleaded guilty to one count of wire fraud. At sentencing the", 468)
    _draw(c, LEFT, TOP - 18 - BODY_LEAD, "court, in determining the particular sentence, shall consider:", BODY_SIZE)
    y = TOP - 18 - 2 * BODY_LEAD - 4
    for text in quote:  # justified to the quote's measure, 144-468 pt inside the text's 72-540
        justified(LEFT + 72, y, text, 324)
        y -= BODY_LEAD
    _draw(c, LEFT, y - 6, "The court has considered each of those factors in turn.", BODY_SIZE)
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert _path_of(doc, "to reflect the seriousness") == ("I. BACKGROUND",)


def test_letter_spaced_words_keep_their_word_breaks(tmp_path: Path) -> None:
    """``M E M O R A N D U M   O P I N I O N`` placed glyph by glyph, a wider gap between its words, reads
    ``MEMORANDUM OPINION``; single capitals a table sets far apart (``A B C D E`` column heads) stay apart."""
    path = tmp_path / "opinion.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    x = 200.0
    for word in ("MEMORANDUM", "OPINION"):
        for ch in word:
            _draw(c, x, TOP, ch, 13.0, "Times-Bold")
            x += c.stringWidth(ch, "Times-Bold", 13.0) + 7
        x += 22
    y = TOP - 30
    for text in _filler(0, 3):
        _draw(c, LEFT, y, text, BODY_SIZE)
        y -= BODY_LEAD
    for k, ch in enumerate("ABCDE"):
        _draw(c, 200 + 50 * k, y, ch, BODY_SIZE)
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert doc.sections[0].path == ("MEMORANDUM OPINION",)
    assert "A B C D E" in doc.sections[-1].text


@pytest.mark.parametrize(
    "labels", [("ARTICLE I", "ARTICLE II"), ("Article 2", "Article 2A"), ("Article 5", "Article 5bis")]
)
def test_articles_numbered_in_roman_or_inserted_open_levels(tmp_path: Path, labels: tuple[str, str]) -> None:
    """A constitution's ``ARTICLE II``, an inserted ``Article 2A`` or ``Article 5bis``, each on a line of its own
    over its title, opens its level like ``Article 21`` (not left as the last line of the article before)."""
    pages = [
        [
            Ln("CONSTITUTION OF THE STATE", 13.0, bold=True, x=220.0),
            Ln(labels[0], x=280.0, before=10),
            Ln("Legislative Department", bold=True, x=255.0),
            Ln("1. The legislative power shall be vested in a General Assembly of two houses.", before=4),
            Ln(labels[1], x=280.0, before=10),
            Ln("Executive Department", bold=True, x=255.0),
            Ln("1. The executive power shall be vested in a Governor elected for four years.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "constitution.pdf", pages))
    assert _path_of(doc, "vested in a Governor")[0] == labels[1]
    assert not [s for s in doc.sections if s.text.rstrip().endswith(labels[1]) and s.path[0] != labels[1]]


def test_side_note_a_pica_off_its_text_and_a_tables_small_last_column(tmp_path: Path) -> None:
    """A side note set right-aligned a pica (12 pt) left of its text is read apart too; a table's last column
    set smaller and out past the text block stays in its row (the row has white between its cells: no prose)."""
    x = LEFT + 60
    note = "Short title."
    note_x = x - 12 - canvas.Canvas(str(tmp_path / "m.pdf")).stringWidth(note, "Times-Roman", 8.0)
    rows = [
        [(note_x, note, 8.0), (x, "4. This Act may be cited as the Records Act, and it comes", BODY_SIZE)],
        [(x + 10, "into force on the day it receives the Royal Assent.", BODY_SIZE)],
        [
            (x, "Count One", BODY_SIZE),
            (x + 90, "Wire fraud, the March transfer", BODY_SIZE),
            (495, "Guilty by jury verdict", 9.0),
        ],
        *[[(x, text, BODY_SIZE)] for text in _filler(5, 3)],
    ]
    doc = parse_pdf(_on_baselines(tmp_path / "act.pdf", x, rows))
    text = " ".join(" ".join(s.text.split()) for s in doc.sections)
    assert "Short title. 4." not in text and "Royal Assent. Short title." in text
    assert "Count One Wire fraud, the March transfer Guilty by jury verdict" in text


def test_sentences_that_open_with_a_levels_name_open_none(tmp_path: Path) -> None:
    """``Title VII's …``, ``Chapter 11, unlike Chapter 7, …``, ``Title 18, United States Code, Section 1343 makes
    …``: sentences about a level (a lower-case word before any title separator), none a heading."""
    pages = [
        [
            Ln("MEMORANDUM", 13.0, bold=True, x=250.0),
            Ln("Discussion", bold=True, before=8),
            Ln("Title VII's anti-retaliation provision forbids an employer from discriminating against an", before=4),
            Ln("employee because the employee has opposed a practice made unlawful by the statute."),
            Ln("Chapter 11, unlike Chapter 7, allows the debtor to remain in possession of its estate.", before=6),
            Ln("Title 18, United States Code, Section 1343 makes it a crime to use the wires to defraud.", before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "memo.pdf", pages))
    assert {s.path for s in doc.sections} <= {("MEMORANDUM",), ("MEMORANDUM", "Discussion")}


def test_treaty_parts_hold_their_titles(tmp_path: Path) -> None:
    """A treaty set out as the EU's are: ``PART ONE`` / ``Article 1`` / ``TITLE I`` (Title I starts its numbering
    under the Part), then ``PART THREE`` over ``TITLE II`` over ``CHAPTER 3``: each Part holds its Titles (the U.S.
    Code's Title holds its Parts), the next Title closes the one before but not the Part, and the next Part comes
    back to the root."""
    pages = [
        [
            Ln("PART ONE", x=270.0, before=6),
            Ln("PRINCIPLES", bold=True, x=265.0),
            Ln("Article 1", x=280.0, before=8),
            Ln("This Treaty organises the functioning of the Union.", before=4),
            Ln("TITLE I", x=278.0, before=10),
            Ln("CATEGORIES AND AREAS OF UNION COMPETENCE", bold=True, x=170.0),
            Ln("Article 2", x=280.0, before=8),
            Ln("When the Treaties confer on the Union exclusive competence, only the Union may legislate.", before=4),
            Ln("PART THREE", x=260.0, before=10),
            Ln("UNION POLICIES AND INTERNAL ACTIONS", bold=True, x=190.0),
            Ln("TITLE II", x=275.0, before=10),
            Ln("Article 28", x=275.0, before=8),
            Ln("The Union shall comprise a customs union which shall cover all trade in goods.", before=4),
            Ln("CHAPTER 3", x=272.0, before=10),
            Ln("Article 34", x=275.0, before=8),
            Ln("Quantitative restrictions on imports shall be prohibited between Member States.", before=4),
            Ln("TITLE IV", x=275.0, before=10),
            Ln("Article 45", x=275.0, before=8),
            Ln("Freedom of movement for workers shall be secured within the Union.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "treaty.pdf", pages))

    def levels(probe: str) -> list[str]:
        return [t for t in _path_of(doc, probe) if t.split()[0] in ("PART", "TITLE", "CHAPTER", "Article")]

    assert levels("only the Union may legislate") == ["PART ONE", "TITLE I", "Article 2"]
    assert levels("Quantitative restrictions") == ["PART THREE", "TITLE II", "CHAPTER 3", "Article 34"]
    assert levels("Freedom of movement for workers") == ["PART THREE", "TITLE IV", "Article 45"]


def test_articles_quoted_in_a_judgment_after_read_as_follows(tmp_path: Path) -> None:
    """A judgment quoting ``Article 6`` and ``Article 8`` after ``The relevant provisions … read as follows:``
    (naming neither): a label alone that does not start its kind's numbering opens no level where none of its
    kind is open, so the Court's paragraphs and its next heading stay under its own outline."""
    q = LEFT + 36
    pages = [
        [
            Ln("THE LAW", bold=True, x=270.0),
            Ln("I. ALLEGED VIOLATION OF ARTICLES 6 AND 8 OF THE CONVENTION", bold=True, before=8),
            Ln("44. The applicant complained that the proceedings had been unfair. The relevant provisions", before=6),
            Ln("of the Convention read as follows:"),
            Ln("Article 6", x=280.0, before=6),
            Ln("Right to a fair trial", x=262.0),
            Ln("1. Everyone is entitled to a fair and public hearing within a reasonable time.", x=q, before=4),
            Ln("Article 8", x=280.0, before=6),
            Ln("Right to respect for private and family life", x=222.0),
            Ln("1. Everyone has the right to respect for his private and family life.", x=q, before=4),
            Ln("45. The Government contested that argument and submitted that the search had been lawful.", before=8),
            Ln("II. APPLICATION OF ARTICLE 41 OF THE CONVENTION", bold=True, before=8),
            Ln("46. The applicant claimed 10,000 euros in respect of non-pecuniary damage.", before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "echr.pdf", pages))
    assert not [s.path for s in doc.sections if any(t.startswith("Article") for t in s.path)]
    assert _path_of(doc, "non-pecuniary damage") == ("THE LAW", "II. APPLICATION OF ARTICLE 41 OF THE CONVENTION")


def test_regulation_article_1_after_a_recital_citing_article_16(tmp_path: Path) -> None:
    """The last recital cites ``Article 16 of the Charter`` before ``HAVE ADOPTED THIS REGULATION:``: the
    regulation's own ``Article 1`` starts its numbering and opens its level."""
    pages = [
        [
            Ln("(44) This Regulation respects the rights recognised in Article 16 of the Charter.", before=4),
            Ln("HAVE ADOPTED THIS REGULATION:", before=6),
            Ln("Article 1", x=280.0, before=8),
            Ln("Subject matter", bold=True, x=265.0),
            Ln("This Regulation lays down rules on the processing of personal data.", before=4),
            Ln("Article 2", x=280.0, before=8),
            Ln("Scope", bold=True, x=285.0),
            Ln("This Regulation applies to the processing of personal data by automated means.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "regulation.pdf", pages))
    assert _path_of(doc, "lays down rules")[0] == "Article 1"
    assert _path_of(doc, "by automated means")[0] == "Article 2"


def test_uk_act_parts_hold_their_chapters(tmp_path: Path) -> None:
    """A UK Act's ``PART 1`` holds ``CHAPTER 1`` and ``CHAPTER 2`` (an Australian Act's Chapter holds its Parts),
    and ``PART 2`` closes Part 1's chapters."""
    pages = [
        [
            Ln("PART 1", x=285.0, before=6),
            Ln("FORMATION OF COMPANIES", x=230.0),
            Ln("CHAPTER 1", x=280.0, before=8),
            Ln("GENERAL", x=285.0),
            Ln("1. Method of forming a company", bold=True, before=6),
            Ln("(1) A company is formed under this Act by one or more persons subscribing their names.", before=2),
            Ln("CHAPTER 2", x=280.0, before=8),
            Ln("REGISTRATION", x=275.0),
            Ln("2. Registration documents", bold=True, before=6),
            Ln("(1) The memorandum of association must be delivered to the registrar.", before=2),
            Ln("PART 2", x=285.0, before=10),
            Ln("A COMPANY'S CONSTITUTION", x=225.0),
            Ln("CHAPTER 1", x=280.0, before=8),
            Ln("INTRODUCTORY", x=272.0),
            Ln("3. A company's constitution", bold=True, before=6),
            Ln("(1) References in the Companies Acts to a company's constitution include the articles.", before=2),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "act.pdf", pages))
    assert _path_of(doc, "delivered to the registrar")[:2] == ("PART 1", "CHAPTER 2")
    assert _path_of(doc, "include the articles")[:2] == ("PART 2", "CHAPTER 1")


def test_excerpt_opening_inside_a_title_keeps_titles_outermost(tmp_path: Path) -> None:
    """An excerpt of a public law that opens inside Title I (its ``PART 4`` holding sections), then ``TITLE II``:
    the Title closes the Part; a Part holds a Title only where the Title comes right under it."""
    pages = [
        [
            Ln("PART 4—CLEAN VEHICLES", bold=True),
            Ln("SEC. 13401. CLEAN VEHICLE CREDIT.", before=6),
            Ln("(a) IN GENERAL.—Section 30D(a) is amended to read as follows.", before=2),
            Ln("TITLE II—COMMITTEE ON ENERGY AND NATURAL RESOURCES", bold=True, before=12),
            Ln("SEC. 50111. GRID RESILIENCE.", before=6),
            Ln("(a) APPROPRIATION.—In addition to amounts otherwise available, there is appropriated.", before=2),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "excerpt.pdf", pages))
    assert _path_of(doc, "otherwise available")[0] == "TITLE II—COMMITTEE ON ENERGY AND NATURAL RESOURCES"


def test_credit_agreement_article_titled_on_its_line(tmp_path: Path) -> None:
    """``ARTICLE I — DEFINITIONS`` in bold, its title on the same line, is an article that holds its sections;
    a later ``ARTICLE III`` / ``CONDITIONS PRECEDENT`` closes Article II's sections."""
    pages = [
        [
            Ln("ARTICLE I — DEFINITIONS", bold=True, x=220.0),
            Ln("SECTION 1.01. Defined Terms. As used in this Agreement, terms have these meanings.", before=6),
            Ln("ARTICLE II — THE CREDITS", bold=True, x=225.0, before=10),
            Ln("SECTION 2.01. Commitments. Each Lender agrees to make Revolving Loans to the Borrower.", before=6),
            Ln("ARTICLE III", x=275.0, before=10),
            Ln("CONDITIONS PRECEDENT", x=240.0),
            Ln("SECTION 3.01. Effective Date. The obligations of the Lenders become effective on that date.", before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "credit.pdf", pages))
    assert _path_of(doc, "these meanings") == ("ARTICLE I — DEFINITIONS", "SECTION 1.01.")
    assert _path_of(doc, "become effective") == ("ARTICLE III", "SECTION 3.01.")


def test_centred_caption_over_two_lines_is_one_block(tmp_path: Path) -> None:
    """A caption centred over two lines, ``IN THE MATTER OF AN APPLICATION UNDER`` / ``SECTION 8 OF THE CHILDREN
    ACT 1989``: its second line is centred with the first, so it opens no paragraph (and no SECTION level)."""
    path = tmp_path / "caption.pdf"
    c = canvas.Canvas(str(path), pagesize=letter, invariant=1)
    y = TOP
    for text in ("IN THE MATTER OF AN APPLICATION UNDER", "SECTION 8 OF THE CHILDREN ACT 1989"):
        _draw(c, 306 - c.stringWidth(text, "Times-Roman", BODY_SIZE) / 2, y, text, BODY_SIZE)  # centred on 72-540
        y -= BODY_LEAD
    _draw(c, 306 - c.stringWidth("JUDGMENT", "Times-Bold", BODY_SIZE) / 2, y - 12, "JUDGMENT", BODY_SIZE, "Times-Bold")
    y -= 12 + BODY_LEAD + 8
    for k, text in enumerate(_filler(0, 4)):  # justified to the measure, 72-540 pt
        t = c.beginText(LEFT, y)
        t.setFont("Times-Roman", BODY_SIZE)
        t.setWordSpace((468 - c.stringWidth(text, "Times-Roman", BODY_SIZE)) / text.count(" "))
        t.textOut(("1. " if k == 0 else "") + text)
        c.drawText(t)
        y -= BODY_LEAD
    c.showPage()
    c.save()
    doc = parse_pdf(path)
    assert not [s.path for s in doc.sections if any(t.startswith("SECTION 8") for t in s.path)]


def test_plain_part_titles_without_a_separator_open_their_parts(tmp_path: Path) -> None:
    """``Part 2 Application and interpretation``, a short plain line with no dash, is Part 2's heading, not a
    sentence about it (a sentence runs on or ends as one)."""
    pages = [
        [
            Ln("Part 1 Preliminary", before=6),
            Ln("1. Name of Act. This Act is the Residential Tenancies Act.", before=4),
            Ln("Part 2 Application and interpretation", before=10),
            Ln("3. Definitions. In this Act, bond means money paid as security.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "act.pdf", pages))
    assert _path_of(doc, "bond means money")[0] == "Part 2 Application and interpretation"


def test_short_two_column_table_in_body_type_keeps_its_rows(tmp_path: Path) -> None:
    """A six-row table of two columns in the body's type keeps each row's cells together (a short band of
    columns is read column by column only in a smaller type: notes)."""
    rows = [
        ("Failing to keep records of a transaction", "Fine of 500 penalty units for a body"),
        ("Failing to report a suspicious matter", "Fine of 1,000 penalty units or prison"),
        ("Tipping off a customer about a report", "Imprisonment for two years at most"),
        ("Giving false information to the Unit", "Fine of 200 penalty units for a person"),
        ("Obstructing an authorised officer", "Fine of 100 penalty units for a person"),
        ("Structuring a transaction to avoid it", "Imprisonment for five years at most"),
    ]
    at = []
    y = TOP - 6 * BODY_LEAD - 10
    for a, b in rows:
        at += [(LEFT, y, a, BODY_SIZE), (LEFT + 250, y, b, BODY_SIZE)]
        y -= BODY_LEAD
    body = [*_filler(0, 6)]
    after = []
    y -= 10
    for text in _filler(6, 6):  # the body's text goes on under the table
        after.append((LEFT, y, text, BODY_SIZE))
        y -= BODY_LEAD
    got = build(tmp_path / "table.pdf", [Page(body=body, at=at + after)])
    text = " ".join(" ".join(s.text.split()) for s in parse_pdf(got).sections)
    assert "Tipping off a customer about a report Imprisonment for two years at most" in text


def test_opinion_word_over_the_judges_line_joins_no_name(tmp_path: Path) -> None:
    """A court of appeals' centred ``OPINION`` over ``IKUTA, Circuit Judge: We must decide …``: the opinion is
    Judge Ikuta's; the word above is not read into the name (``OPINION IKUTA, Circuit Judge:``)."""
    pages = [
        [
            Ln("OPINION", bold=True, x=280.0),
            Ln("IKUTA, Circuit Judge: We must decide whether the lower court erred in granting the", before=8),
            Ln("motion, and we hold that it did not."),
            Ln("BEA, Circuit Judge, dissenting:", before=12),
            Ln("I would reverse the order of the district court for the reasons that follow.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "opinion.pdf", pages))
    assert _path_of(doc, "we hold that it did not")[0] == "IKUTA, Circuit Judge:"
    assert _path_of(doc, "I would reverse the order")[0] == "BEA, Circuit Judge, dissenting:"


# --- a third review's invented prints (stop 55) ---------------------------------------------------------------------


def test_sections_with_run_in_titles_open_their_levels(tmp_path: Path) -> None:
    """``SECTION 2.02 Loans and Borrowings. (a) Each Loan …`` and a plain ``§ 1.61-2 Compensation for services,
    including fees …`` are sections with run-in titles, not sentences about a section."""
    pages = [
        [
            Ln("ARTICLE II", x=280.0, before=6),
            Ln("SECTION 2.01 Commitments. Subject to the terms hereof, each Lender agrees to make Loans.", before=6),
            Ln("SECTION 2.02 Loans and Borrowings. (a) Each Loan shall be made as part of a Borrowing.", before=6),
            Ln("PART 1—INCOME TAXES", bold=True, before=12),
            Ln("§ 1.61-2 Compensation for services, including fees, commissions, and similar items.", before=6),
            Ln("(a) In general. Wages, salaries, commissions paid salesmen, and fees are income.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "sections.pdf", pages))
    assert _path_of(doc, "part of a Borrowing")[-1].startswith("SECTION 2.02")
    assert any(t.startswith("§ 1.61-2") for t in _path_of(doc, "commissions paid salesmen"))


def test_short_table_in_smaller_type_inside_the_text_keeps_its_rows(tmp_path: Path) -> None:
    """A six-row table of two columns set in 9 pt inside 11 pt text (an Act's or a regulation's table) keeps its
    rows: a short band read column by column must be the page's notes, at its foot."""
    rows = [
        (f"Offence number {k} under the Act in force", f"Fine of {k}00 penalty units for a person") for k in range(1, 7)
    ]
    at, y = [], TOP - 6 * BODY_LEAD - 10
    for a, b in rows:
        at += [(LEFT, y, a, 9.0), (LEFT + 250, y, b, 9.0)]
        y -= 11.0
    y -= 10
    for text in _filler(6, 6):
        at.append((LEFT, y, text, BODY_SIZE))
        y -= BODY_LEAD
    text = " ".join(
        " ".join(s.text.split()) for s in parse_pdf(build(tmp_path / "t.pdf", [Page(_filler(0, 6), at=at)])).sections
    )
    assert "Offence number 3 under the Act in force Fine of 300 penalty units for a person" in text


def test_bold_article_subheadings_in_a_judgment_are_its_own(tmp_path: Path) -> None:
    """A judgment's bold sub-headings ``Article 8``, ``Article 14``, ``Conclusion``: headings of the opinion, not
    levels of a law, so ``Conclusion`` is ``Article 14``'s sibling and holds its paragraph."""
    pages = [
        [
            Ln("CHAMBERLAIN J:"),
            Ln("Article 8", bold=True, before=8),
            Ln(
                "2. The appellants contend that the cap interferes with their right to respect for family life.",
                before=4,
            ),
            Ln("Article 14", bold=True, before=8),
            Ln("4. The question under Article 14 is whether the difference in treatment was justified.", before=4),
            Ln("Conclusion", bold=True, before=8),
            Ln("5. For these reasons I would dismiss the appeal.", before=4),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "judgment.pdf", pages))
    assert _path_of(doc, "I would dismiss the appeal") == ("CHAMBERLAIN J:", "Conclusion")


def test_quoted_article_1_inside_the_judgments_outline_opens_nothing(tmp_path: Path) -> None:
    """Under ``II. RELEVANT DOMESTIC LAW``, ``… read as follows:`` then ``Article 1``: the judgment's own outline
    is open, so the quoted ``Article 1`` starts no level, and ``THE LAW`` stays at the root."""
    pages = [
        [
            Ln("II. RELEVANT DOMESTIC LAW", bold=True),
            Ln("12. The relevant provisions of the Property Act read as follows:", before=6),
            Ln("Article 1", x=280.0, before=6),
            Ln("Everyone has the right to the peaceful enjoyment of his possessions.", x=LEFT + 36, before=4),
            Ln("Article 2", x=280.0, before=6),
            Ln("No one shall be deprived of his possessions except in the public interest.", x=LEFT + 36, before=4),
            Ln("THE LAW", bold=True, x=270.0, before=12),
            Ln("13. The applicant complained that the expropriation had been unlawful.", before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "judgment.pdf", pages))
    assert not [s.path for s in doc.sections if any(t.startswith("Article") for t in s.path)]


def test_ucc_articles_hold_their_parts(tmp_path: Path) -> None:
    """The UCC's ``ARTICLE 2 SALES`` holds ``PART 1`` and ``PART 2`` (a Part holds Articles elsewhere), and
    ``ARTICLE 2A LEASES`` comes back to the root."""
    pages = [
        [
            Ln("ARTICLE 2 SALES", bold=True, x=250.0),
            Ln("PART 1 SHORT TITLE AND SUBJECT MATTER", bold=True, x=180.0, before=8),
            Ln("§ 2-101. Short Title. This Article shall be known as Uniform Commercial Code—Sales.", before=6),
            Ln("PART 2 FORM AND FORMATION OF CONTRACT", bold=True, x=180.0, before=8),
            Ln("§ 2-201. Formal Requirements. A contract for the sale of goods must be in writing.", before=6),
            Ln("ARTICLE 2A LEASES", bold=True, x=250.0, before=12),
            Ln("§ 2A-101. Short Title. This Article shall be known as Uniform Commercial Code—Leases.", before=6),
        ]
    ]
    doc = parse_pdf(build_lines(tmp_path / "ucc.pdf", pages))
    assert _path_of(doc, "must be in writing")[:2] == ("ARTICLE 2 SALES", "PART 2 FORM AND FORMATION OF CONTRACT")
    assert _path_of(doc, "Commercial Code—Leases")[0] == "ARTICLE 2A LEASES"
