"""Plain-text parsing (exact offsets, headings), decoding errors, the dispatcher, unstructured offline."""

from __future__ import annotations

import json
import logging
import re
import socket
from pathlib import Path

import pytest

from lclfqa.ingest import unstructured_offline
from lclfqa.ingest.document import UnreadableDocument
from lclfqa.ingest.formats import SUPPORTED_SUFFIXES, parse_file
from lclfqa.ingest.plain_text import MAX_SECTIONS, parse_text_file
from lclfqa.ingest.unstructured_formats import parse_with_unstructured

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "../shared/data/legalbench-rag/corpus"  # shared test data beside the repo, never copied in
BENCHMARK = REPO / "../shared/data/legalbench-rag/benchmarks/privacy_qa.json"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason="../shared/data/legalbench-rag is absent (a clone without the shared data)"
)

# one file per subset, chosen for what is hard: a BOM + CRLF merger agreement with '||' in its name,
# '%20' and '&' names, EDGAR text whose paragraphs are runs of spaces inside one long line, no headings
REAL_FILES = [
    "maud/Cubic Corporation_Investment Group.pdf||Cubic_Corporation_Investment_Group_Amendment No.1.txt",
    "maud/TIFFANY_&_CO._LVMH_MOËT_HENNESSY-LOUIS_VUITTON.txt",
    "contractnli/DBT%20Mutual%20NDA.txt",
    "contractnli/EFCAConfidentialityAgreement.txt",
    "cuad/GopageCorp_20140221_10-K_EX-10.1_8432966_EX-10.1_Content License Agreement.txt",
    "privacy_qa/Fiverr.txt",
    "privacy_qa/23andMe.txt",
]

INSIGNIFICANT = " \t\n\f\v\ufeff\u00a0\u2002\u2003\u2009\u3000"


def assert_tiles(doc) -> None:
    """Every section is its exact slice of the source; between sections lies only whitespace."""
    src = doc.source_text
    assert src is not None and doc.sections
    prev = 0
    for s in doc.sections:
        assert s.start is not None and s.end is not None
        assert src[s.start : s.end] == s.text
        assert s.start >= prev, "sections overlap or are out of order"
        assert not src[prev : s.start].strip(INSIGNIFICANT), f"text lost before {s.path}"
        assert s.text == s.text.strip(INSIGNIFICANT), "a section starts or ends in whitespace"
        prev = s.end
    assert not src[prev:].strip(INSIGNIFICANT), "text lost at the end"


def assert_same_text_but_running_lines(doc, text: str) -> None:
    """``source_text`` is the file's text, its running lines (only) blanked: the same length and lines."""
    src = doc.source_text
    assert src is not None and len(src) == len(text)
    lines, read = src.split("\n"), text.split("\n")
    assert len(lines) == len(read)
    changed = [(a, b) for a, b in zip(lines, read, strict=True) if a != b]
    assert all(not a.strip() for a, _ in changed)
    assert len(changed) == doc.dropped_footers == sum(n for _, n in doc.dropped_by_rule)


@needs_corpus
@pytest.mark.parametrize("rel", REAL_FILES)
def test_offsets_reproduce_real_corpus_text(rel: str) -> None:
    path = CORPUS / rel
    doc = parse_text_file(path)
    # the coordinate system of the LegalBench-RAG spans: Python text mode, universal newlines
    assert_same_text_but_running_lines(doc, path.read_text(encoding="utf-8"))
    assert doc.name == path.name and doc.pages == 1
    assert_tiles(doc)
    assert len(doc.sections) <= min(MAX_SECTIONS, max(24, len(doc.source_text) // 250))


@needs_corpus
def test_offsets_reproduce_every_corpus_file() -> None:
    files = sorted(CORPUS.glob("*/*.txt"))
    assert len(files) >= 23
    for path in files:
        doc = parse_text_file(path)
        assert_same_text_but_running_lines(doc, path.read_text(encoding="utf-8"))
        assert_tiles(doc)


@needs_corpus
def test_offsets_line_up_with_benchmark_spans() -> None:
    tests = json.loads(BENCHMARK.read_text(encoding="utf-8"))["tests"]
    docs = {}
    checked = 0
    for t in tests[:60]:
        for snip in t["snippets"]:
            fp = snip["file_path"]
            if fp not in docs:
                docs[fp] = parse_text_file(CORPUS / fp)
            doc = docs[fp]
            start, end = snip["span"]
            assert doc.source_text[start:end] == snip["answer"]
            # the sections that overlap the span hold its text at the same offsets
            covering = [s for s in doc.sections if s.start < end and s.end > start]
            assert covering
            for s in covering:
                lo, hi = max(start, s.start), min(end, s.end)
                assert s.text[lo - s.start : hi - s.start] == snip["answer"][lo - start : hi - start]
            checked += 1
    assert checked >= 60


@needs_corpus
def test_contract_headings_found_without_over_splitting() -> None:
    efca = parse_text_file(CORPUS / "contractnli/EFCAConfidentialityAgreement.txt")
    titles = [s.title for s in efca.sections]
    assert "2. Handling of Confidential Information" in titles
    assert ("1. Definitions", "1.2 EFCA can show") in [s.path[-2:] for s in efca.sections]

    hms = parse_text_file(CORPUS / "maud/HMS Holdings Corp._Veritas Capital.txt")
    paths = [s.path for s in hms.sections]
    # headings that sit inside long lines, after a run of spaces
    assert ("ARTICLE II. THE TRANSACTION", "Section 2.01 The Closing") in paths
    assert 60 <= len(hms.sections) <= 300  # 300,000 characters: neither one blob nor one per line
    assert any(p[-1:] == ("Table of contents",) for p in paths)  # the contents are not nested headings

    fiverr = parse_text_file(CORPUS / "privacy_qa/Fiverr.txt")
    assert len(fiverr.sections) == 1 and fiverr.sections[0].path == ()  # no headings: one running section


@needs_corpus
def test_running_lines_of_real_filings_reach_no_section() -> None:
    """EDGAR exhibits print a page number and "Source: FILER, FORM, DATE" at each page break; merger agreements a
    page number. Both are blanked; headings and enumerators stay; prints without running lines are untouched."""
    for path in sorted(CORPUS.glob("cuad/*.txt")):
        doc = parse_text_file(path)
        filer_lines = [ln for ln in path.read_text(encoding="utf-8").split("\n") if ln.startswith("Source: ")]
        assert len(filer_lines) >= 8 and dict(doc.dropped_by_rule)["same words on every page"] == len(filer_lines)
        assert not any("Source: " in s.text for s in doc.sections), path.name
    cybergy = parse_text_file(next(CORPUS.glob("cuad/Cybergy*.txt")))
    assert dict(cybergy.dropped_by_rule)["page numbers"] == 16
    assert "\n1.\n\n2.\n" in cybergy.source_text  # enumerators on lines of their own are no page numbers
    hms = parse_text_file(CORPUS / "maud/HMS Holdings Corp._Veritas Capital.txt")
    assert dict(hms.dropped_by_rule) == {"page numbers": 81}
    assert not any(re.search(r"\n\s*2[0-3]\s*\n", s.text) for s in hms.sections)  # pages 20-23, mid-sentence
    for rel in ("contractnli/EFCAConfidentialityAgreement.txt", "privacy_qa/Fiverr.txt"):
        assert parse_text_file(CORPUS / rel).dropped_footers == 0


_FILLER = "The parties shall perform this clause in good faith and in a timely manner. " * 8  # a page's text


def _page(n: int, body: str) -> str:
    return f"ACME SUPPLY AGREEMENT - CONFIDENTIAL\n\n{body}\n\n{_FILLER}\n\nPage {n} of 6\n"


def test_running_lines_are_the_pages_furniture_not_repeated_text(tmp_path: Path) -> None:
    notices = "Notices go to the Buyer,\n" + "\n".join(f"with a copy to:\nCounsel {c}" for c in "ABC")
    pages = [
        "1.\nDefinitions\n\nThe Seller sells the goods to the Buyer.",
        "2.\nPrice\n\nThe price is 40 dollars a unit.",
        f"3.\nNotices\n\n{notices}",
        "4.\nTerm\n\nThe agreement runs until the goods are delivered.",
        "5.\nLaw\n\nThe law of the place of delivery governs.",
        "6.\nSignatures\n\nSigned by both parties.",
    ]
    text = "\f".join(_page(i, body) for i, body in enumerate(pages, 1))
    f = tmp_path / "supply.txt"
    f.write_text(text, encoding="utf-8")
    doc = parse_text_file(f)
    assert dict(doc.dropped_by_rule) == {"page numbers": 6, "same words on every page": 6}
    assert_same_text_but_running_lines(doc, text)
    assert "ACME SUPPLY" not in doc.source_text and "Page 3 of 6" not in doc.source_text
    assert doc.source_text.count("with a copy to:") == 3  # repeated within one clause: text
    assert doc.pages == 6 and "40 dollars" in doc.source_text
    assert "\n1.\nDefinitions\n" in doc.source_text
    # two page numbers and a running line on two pages only are no pattern: kept
    short = tmp_path / "short.txt"
    short.write_text(_page(1, "Body one.") + "\f" + _page(2, "Body two."), encoding="utf-8")
    assert parse_text_file(short).dropped_footers == 0


@pytest.mark.parametrize(
    "text",
    [
        "Fiscal year\n2019\n2020\n2021\n\n" + _FILLER,  # a column of years: a table, not pages
        "Item A\n10\nItem B\n11\nItem C\n12\n\n" + _FILLER,  # a list's numbers on lines of their own
        # a party named in the caption, in a clause and over the signatures: said three times, not on every page
        "ACME CORPORATION\n\n" + _FILLER + "\nACME CORPORATION\n\n" + _FILLER * 3 + "\nACME CORPORATION\n",
    ],
)
def test_repeated_text_that_is_no_page_furniture_stays(tmp_path: Path, text: str) -> None:
    f = tmp_path / "doc.txt"
    f.write_text(text, encoding="utf-8")
    doc = parse_text_file(f)
    assert doc.dropped_footers == 0 and doc.source_text == text


NESTED = """MASTER SERVICES AGREEMENT

This Agreement is made between Alpha LLC and Beta Inc.

ARTICLE I
DEFINITIONS

1. Definitions. In this Agreement the following terms apply.

1.1 Services. The services described in Schedule A.
(a) Included Services. The support services, including:
(i) Hotline Support. Telephone support during business hours.
(ii) Onsite Support. Visits at the client's premises.
(b) Excluded Services. Anything not listed above.
(c) the fees of subcontractors;

1.2 Fees. The fees set out in Schedule B.

ARTICLE II
TERM

2. Term and Renewal. This Agreement runs for one year.

Section 5. Notices. Notices must be in writing.

\u00a7 1.25A-1 Calculation of education tax credit.
The credit is computed per return.

Governing Law

This Agreement is governed by the laws of New York.
"""


def test_heading_nesting_on_hand_written_text(tmp_path: Path) -> None:
    f = tmp_path / "msa.txt"
    f.write_text(NESTED, encoding="utf-8")
    doc = parse_text_file(f)
    assert_tiles(doc)
    root, art1, art2 = "MASTER SERVICES AGREEMENT", "ARTICLE I DEFINITIONS", "ARTICLE II TERM"
    assert [s.path for s in doc.sections] == [
        (root,),
        (root, art1, "1. Definitions"),
        (root, art1, "1. Definitions", "1.1 Services"),
        (root, art1, "1. Definitions", "1.1 Services", "(a) Included Services"),
        (root, art1, "1. Definitions", "1.1 Services", "(a) Included Services", "(i) Hotline Support"),
        (root, art1, "1. Definitions", "1.1 Services", "(a) Included Services", "(ii) Onsite Support"),
        (root, art1, "1. Definitions", "1.1 Services", "(b) Excluded Services"),
        (root, art1, "1. Definitions", "1.2 Fees"),
        (root, art2, "2. Term and Renewal"),
        (root, art2, "Section 5. Notices"),
        (root, art2, "\u00a7 1.25A-1 Calculation of education tax credit"),
        (root, art2, "Governing Law"),
    ]
    by_title = {s.title: s for s in doc.sections}
    # a heading's text starts with the heading; the heading-only ARTICLE lines open the next section
    assert by_title["1. Definitions"].text.startswith("ARTICLE I\nDEFINITIONS\n\n1. Definitions.")
    # a lower-case list item is body text of the running section, not a heading
    assert by_title["(b) Excluded Services"].text.endswith("(c) the fees of subcontractors;")


def test_form_feeds_are_pages_and_crlf_bom_match_text_mode(tmp_path: Path) -> None:
    f = tmp_path / "paged.txt"
    body = "1. First\r\nAlpha text here.\r\n\f2. Second\r\nBeta text here.\r\n\f3. Third\r\nGamma text.\r\n"
    f.write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    doc = parse_text_file(f)
    assert doc.source_text == f.read_text(encoding="utf-8")  # BOM kept at offset 0, CRLF -> LF
    assert doc.source_text.startswith("\ufeff1. First\n")
    assert_tiles(doc)
    assert doc.pages == 3
    assert [(s.title, s.page_start, s.page_end) for s in doc.sections] == [
        ("1. First", 1, 1),
        ("2. Second", 2, 2),
        ("3. Third", 3, 3),
    ]


def test_cp1252_file_is_read_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    f = tmp_path / "legacy.txt"
    text = "1. Fees\nThe caf\u00e9 owner\u2019s fee \u2013 \u201cten\u201d euros (\u20ac10).\n"
    f.write_bytes(text.encode("cp1252"))
    with caplog.at_level(logging.WARNING, logger="lclfqa.ingest"):
        doc = parse_text_file(f)
    assert doc.source_text == text
    assert_tiles(doc)
    assert any("cp1252" in r.getMessage() and "legacy.txt" in r.getMessage() for r in caplog.records)


def test_binary_named_txt_is_refused(tmp_path: Path) -> None:
    png = tmp_path / "scan.txt"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    with pytest.raises(UnreadableDocument, match="binary"):
        parse_file(png)
    noise = tmp_path / "noise.txt"  # no NUL byte, but mostly control characters
    noise.write_bytes(bytes([1, 2, 3, 4, 5, 6, 7, 8, 14, 15, 16, 17]) * 50 + b"abc")
    with pytest.raises(UnreadableDocument, match="binary"):
        parse_file(noise)


@pytest.mark.parametrize("name", ["empty.txt", "empty.pdf", "empty.docx", "empty.md", "empty.xyz"])
def test_zero_byte_file_of_any_type(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_bytes(b"")
    with pytest.raises(UnreadableDocument, match="empty file") as err:
        parse_file(f)
    assert err.value.path == str(f)


def test_whitespace_only_and_missing_files(tmp_path: Path) -> None:
    blank = tmp_path / "blank.txt"
    blank.write_text(" \n\t\n\n", encoding="utf-8")
    with pytest.raises(UnreadableDocument, match="only whitespace"):
        parse_file(blank)
    with pytest.raises(UnreadableDocument, match="not found"):
        parse_file(tmp_path / "nope.txt")


def test_unsupported_suffix_names_the_supported_ones(tmp_path: Path) -> None:
    f = tmp_path / "sheet.xlsx"
    f.write_bytes(b"PK\x03\x04 not really a workbook")
    with pytest.raises(UnreadableDocument, match="unsupported file type '.xlsx'") as err:
        parse_file(f)
    for suffix in (".pdf", ".txt", ".docx", ".html", ".md"):
        assert suffix in err.value.reason and suffix in SUPPORTED_SUFFIXES


@pytest.mark.parametrize(
    "name",
    [
        "Data Use Agreement New York City.txt",
        "DBT%20Mutual%20NDA.txt",
        "TIFFANY_&_CO._LVMH_MO\u00cbT_HENNESSY.txt",
        "Cubic Corporation.pdf||Cubic_Amendment No.1.txt",
        "\u65e5\u672c\u8a9e \u5951\u7d04 (copy) [1].TXT",
        "no-suffix",
    ],
)
def test_odd_file_names(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    f.write_text("1. Scope\nThis agreement covers the services.\n\n2. Term\nOne year.\n", encoding="utf-8")
    doc = parse_file(f)
    assert doc.name == name
    assert doc.source == str(f)
    assert [s.title for s in doc.sections] == ["1. Scope", "2. Term"]
    assert len(doc.sha256) == 64


def test_legacy_word_formats_say_what_to_install(tmp_path: Path) -> None:
    import shutil

    if shutil.which("soffice"):
        pytest.skip("LibreOffice is installed here, so .doc files are readable")
    f = tmp_path / "old.doc"
    f.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    with pytest.raises(UnreadableDocument, match="LibreOffice"):
        parse_file(f)


# ------------------------------------------------------------------------------------------------
# unstructured with the network off
# ------------------------------------------------------------------------------------------------


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise OSError("network access blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


MEMO_MD = """# Education Credits Memo

The taxpayer may claim the American Opportunity Tax Credit.

## Facts

She paid qualified tuition of $4,000 in 2024. She was enrolled at least half-time.

### Form 1098-T

- Box 1 reports payments received
- Box 5 reports scholarships
"""

MEMO_HTML = """<html><head><title>Memo</title></head><body>
<h1>Education Credits Memo</h1>
<p>The taxpayer may claim the American Opportunity Tax Credit.</p>
<h2>Facts</h2>
<p>She paid qualified tuition of $4,000 in 2024.</p>
<h2>Conclusion</h2>
<p>The credit should be allowed.</p>
</body></html>"""


def test_unstructured_runs_offline(tmp_path: Path, no_network: None) -> None:
    md = tmp_path / "memo 2024 & notes.md"
    md.write_text(MEMO_MD, encoding="utf-8")
    doc = parse_file(md)
    memo = "Education Credits Memo"
    assert [s.path for s in doc.sections] == [(memo,), (memo, "Facts"), (memo, "Facts", "Form 1098-T")]
    assert "half-time" in doc.sections[1].text
    assert "Box 5 reports scholarships" in doc.sections[2].text
    assert all(s.start is None and s.end is None for s in doc.sections)
    assert doc.source_text is None and doc.pages == 1

    html = tmp_path / "memo.html"
    html.write_text(MEMO_HTML, encoding="utf-8")
    doc = parse_with_unstructured(html)
    assert [s.path for s in doc.sections] == [(memo,), (memo, "Facts"), (memo, "Conclusion")]
    assert doc.sections[2].text == "Conclusion\n\nThe credit should be allowed."

    # the model unstructured would download is never loaded: ours has no trained components
    import unstructured.nlp.tokenize as tokenize

    nlp = tokenize._get_nlp()
    assert "sentencizer" in nlp.pipe_names and nlp.meta.get("name") != "core_web_sm"


def test_unstructured_docx_offline(tmp_path: Path, no_network: None) -> None:
    docx = pytest.importorskip("docx", reason="python-docx is not installed (needed to read .docx)")
    d = docx.Document()
    d.add_heading("Engagement Letter", level=1)
    d.add_paragraph("We will prepare your 2024 Form 1040 and Form 8863.")
    d.add_heading("Fees", level=2)
    d.add_paragraph("Our fee is $1,200, payable on delivery of the return.")
    f = tmp_path / "Engagement Letter (final) \u2013 M\u00fcller.docx"
    d.save(str(f))
    doc = parse_file(f)
    assert [s.path for s in doc.sections] == [("Engagement Letter",), ("Engagement Letter", "Fees")]
    assert "Form 8863" in doc.sections[0].text
    assert doc.sections[1].text.endswith("payable on delivery of the return.")


def test_offline_pipeline_keeps_one_sentence_paragraphs_narrative() -> None:
    """The blank-model shift: without verb tags a one-sentence paragraph would read as a Title."""
    unstructured_offline.configure()
    from unstructured.partition.text_type import is_possible_narrative_text, is_possible_title

    sentence = "The taxpayer may claim the credit for tuition paid."
    assert is_possible_narrative_text(sentence)
    assert is_possible_title("Lifetime Learning Credit")
    assert not is_possible_narrative_text("Lifetime Learning Credit")


# ------------------------------------------------------------------------------------------------
# The shipped sample (examples/sample): what README's run command ingests on a fresh clone
# ------------------------------------------------------------------------------------------------

SAMPLE = REPO / "examples" / "sample"


def test_sample_engagement_letter_parses_with_numbered_sections() -> None:
    doc = parse_file(SAMPLE / "engagement-letter.txt")
    assert_tiles(doc)
    paths = [s.path[1:] for s in doc.sections]
    assert ("1. Scope of Services", "1.2 Education credit memorandum") in paths
    assert ("4. Fees and Billing", "4.2 Additional work") in paths
    assert ("8. Acceptance",) in paths
    fees = next(s for s in doc.sections if s.title == "4.2 Additional work")
    assert "(b) Managers: $300 per hour." in fees.text  # short list items stay in their clause


def _pdf_lines(path: Path) -> list[list[tuple[float, float, float, str]]]:
    """Per page, top to bottom: (bottom y, median loose-box height, first character's height, text)."""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    pages = []
    pdf = pdfium.PdfDocument(str(path))
    for page in pdf:
        tp = page.get_textpage()
        rows: list[list[tuple[float, float, float, str]]] = []  # chars in drawing order: (bottom, h, left, c)
        for i in range(tp.count_chars()):
            ch = chr(pdfium_c.FPDFText_GetUnicode(tp.raw, i))
            if not ch.strip():
                continue
            box = pdfium_c.FS_RECTF()
            pdfium_c.FPDFText_GetLooseCharBox(tp.raw, i, ctypes.byref(box))
            c = (box.bottom, box.top - box.bottom, box.left, ch)
            # a raised marker sits a few points above its line's baseline: same line
            if rows and abs(c[0] - rows[-1][0][0]) <= 5:
                rows[-1].append(c)
            else:
                rows.append([c])
        lines = []
        for chars in rows:
            heights = sorted(h for _, h, _, _ in chars)
            text = "".join(c for *_, c in chars)
            lines.append((chars[0][0], heights[len(heights) // 2], chars[0][1], text))
        pages.append(lines)
    pdf.close()
    return pages


def test_sample_pdf_layout_and_reproducibility(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("reportlab", reason="reportlab (a dev dependency) builds the sample PDF")
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("make_sample_pdf", REPO / "examples" / "make_sample_pdf.py")
    maker = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "make_sample_pdf", maker)
    spec.loader.exec_module(maker)
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    assert maker.main(a) == 0 and maker.main(b) == 0
    assert a.read_bytes() == b.read_bytes(), "the sample must regenerate byte for byte"

    shipped = SAMPLE / "tax-memo-education-credits.pdf"
    assert shipped.stat().st_size < 100_000
    pages = _pdf_lines(shipped)
    assert [[ln[3] for ln in p] for p in pages] == [[ln[3] for ln in p] for p in _pdf_lines(a)], (
        "examples/sample is stale: run python examples/make_sample_pdf.py"
    )
    assert len(pages) == 4
    page_h = 792.0
    footnote_numbers, footnote_text, body_text = [], [], []
    for n, lines in enumerate(pages, start=1):
        header, *middle, footer = lines
        assert header[3].startswith("PRIVILEGED&CONFIDENTIAL\u2014TaxMemorandum") and header[0] > page_h * 0.92
        assert footer[3] == f"Page{n}of4" and footer[0] < page_h * 0.08
        heights = [h for _, h, _, _ in middle]
        body_h = max(set(heights), key=heights.count)
        for y, h, first_h, text in middle:
            if h < body_h - 2:  # 8-point footnote lines under 11-point body text
                assert y < page_h * 0.4, f"small text high on page {n}: {text}"
                footnote_text.append(text)
                if text[0].isdigit() and first_h < h:  # a footnote opens with its raised number
                    footnote_numbers.append(int(text[: len(text) - len(text.lstrip("0123456789"))]))
            else:
                body_text.append(text)
    assert footnote_numbers == list(range(1, 9))
    body, notes = "".join(body_text), "".join(footnote_text)
    for phrase in ("AmericanOpportunityTaxCredit", "(\u201cAOTC\u201d)", "LifetimeLearningCredit", "Form8863"):
        assert phrase in body
    # facts that only a footnote states
    for fact in ("HopeScholarshipCredit", "qualifiednonresidentalien", "former\u00a7222"):
        assert fact in notes and fact not in body
