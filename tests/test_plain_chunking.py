"""Plain chunking (ablation H3, ``chunking = "plain"``): sizes, parent links, pages, footnotes, the index and CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa.cli import app
from lclfqa.config import Settings
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.ingest import ingest
from lclfqa.ingest.chunking import chunk_document, document_prefix
from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk, Footnote, ParsedDocument, Section
from lclfqa.ingest.formats import parse_file
from lclfqa.ingest.plain_chunking import plain_chunk_document, plain_text

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample"
MEMO = SAMPLE / "tax-memo-education-credits.pdf"
LETTER = SAMPLE / "engagement-letter.txt"
REG = (
    REPO.parent
    / "shared"
    / "data"
    / "pdfs"
    / "treasury-regulations"
    / "26 CFR 1.25A-1 (up to date as of 6-26-2026).pdf"
)
needs_reg = pytest.mark.skipif(not REG.exists(), reason="../shared/data not present")

runner = CliRunner()


def _squash(text: str) -> str:
    return "".join(text.split())


def _parents(chunks: list[Chunk]) -> dict[str, Chunk]:
    return {c.id: c for c in chunks if c.kind == PARENT}


def _children(chunks: list[Chunk]) -> list[Chunk]:
    return [c for c in chunks if c.kind == CHILD]


def _page_texts(doc: ParsedDocument) -> dict[int, str]:
    """Each page's text straight from the parse (section text cut at its page breaks, plus footnotes)."""
    pages: dict[int, list[str]] = {}
    for s in doc.sections:
        for i, ch in enumerate(s.text):
            pages.setdefault(s.page_at(i), []).append(ch)
    out = {p: "".join(chars) for p, chars in pages.items()}
    for f in doc.footnotes:
        out[f.page] = out.get(f.page, "") + "\n" + f"{f.number} {f.text}"
    return {p: _squash(t) for p, t in out.items()}


def _assert_pages_right(doc: ParsedDocument, chunks: list[Chunk]) -> int:
    """Every line of a chunk is printed on one of the pages the chunk names; returns chunks on one page."""
    pages = _page_texts(doc)
    single = 0
    for c in chunks:
        lines = [_squash(line) for line in c.text.splitlines() if len(_squash(line)) >= 20]
        cited = set(range(c.page_start, c.page_end + 1))
        for line in lines:
            on = {p for p, t in pages.items() if line in t}
            assert on, (c.id, line)
            assert on & cited, f"{c.id} says pages {c.pages} but {line[:40]!r} is on {sorted(on)}"
        # the first and the last line fix the span: the chunk names no page it does not touch
        first, last = _squash(c.text.splitlines()[0]), _squash(c.text.splitlines()[-1])
        if len(first) >= 20:
            assert c.page_start in {p for p, t in pages.items() if first in t}, (c.id, c.pages, first[:40])
        if len(last) >= 20:
            assert c.page_end in {p for p, t in pages.items() if last in t}, (c.id, c.pages, last[:40])
        single += c.page_start == c.page_end
    return single


@pytest.fixture(scope="module")
def memo() -> ParsedDocument:
    return parse_file(MEMO)


# --- the chunker --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("parent_size", "child_size"), [(2000, 500), (800, 200), (500, 500)])
def test_plain_chunks_are_bounded_and_inside_their_parent(memo: ParsedDocument, parent_size: int, child_size: int):
    chunks = plain_chunk_document(memo, parent_size=parent_size, child_size=child_size)
    parents, children = _parents(chunks), _children(chunks)
    assert parents and children and len(chunks) == len(parents) + len(children)
    assert max(len(p.text) for p in parents.values()) <= parent_size
    assert max(len(c.text) for c in children) <= child_size
    # the splitter packs pieces up to the size, rather than cutting at every line
    assert sum(len(c.text) for c in children) / len(children) > 0.5 * child_size
    for c in children:
        assert len(c.parent_ids) == 1 and c.parent_ids[0] in parents
        parent = parents[c.parent_ids[0]]
        assert c.text in parent.text
        assert parent.page_start <= c.page_start <= c.page_end <= parent.page_end
    # nothing is lost or repeated: children tile the text, and so do parents
    text, _ = plain_text(memo)
    assert _squash("".join(c.text for c in children)) == _squash(text)
    assert _squash("".join(p.text for p in parents.values())) == _squash(text)
    assert len({c.id for c in chunks}) == len(chunks)


def test_plain_chunks_have_no_sections_headers_or_footnote_chunks(memo: ParsedDocument):
    prefix = document_prefix(memo.name)
    chunks = plain_chunk_document(memo, prefix=prefix)
    assert {c.kind for c in chunks} == {PARENT, CHILD}
    assert not any(c.kind == FOOTNOTE for c in chunks)
    for c in chunks:
        assert c.section_path == () and c.footnote_numbers == ()
        assert "<section-header>" not in c.text and "<section-header>" not in c.indexed_text
        assert c.document == memo.name and c.start is None and c.end is None  # a PDF has no offsets
    for c in _children(chunks):
        assert c.indexed_text == f"{prefix}\n{c.text}"  # the metadata prefix, as in layout mode
    assert plain_chunk_document(memo)[-1].indexed_text == plain_chunk_document(memo)[-1].text  # no prefix
    # the layout chunker on the same parse does make sections and footnote chunks (the ablation differs)
    layout = chunk_document(memo, footnote_chunks="footnote", prefix=prefix)
    assert any(c.kind == FOOTNOTE for c in layout)
    assert any("<section-header>" in c.indexed_text for c in layout)


def test_footnotes_stay_as_text_at_the_end_of_their_page(memo: ParsedDocument):
    assert len(memo.footnotes) == 8
    chunks = plain_chunk_document(memo, parent_size=2000, child_size=500)
    parents = "".join(_squash(p.text) for p in _parents(chunks).values())
    children = "".join(_squash(c.text) for c in _children(chunks))
    for f in memo.footnotes:
        assert _squash(f"{f.number} {f.text}") in parents
        assert _squash(f.text) in children
        # the child that starts the footnote names the footnote's page
        opening = _squash(f.text[:60])
        holder = next(c for c in _children(chunks) if opening in _squash(c.text))
        assert holder.page_start <= f.page <= holder.page_end, (f.number, holder.pages)
    # footnote 1 (page 2) comes after page 2's body and before page 3's first words
    text, _ = plain_text(memo)
    assert text.index("1. Emma is an eligible student") < text.index("Hope Scholarship Credit")
    assert text.index("Hope Scholarship Credit") < text.index("B. The Lifetime Learning Credit")


def test_pages_come_from_the_page_boundaries(memo: ParsedDocument):
    chunks = plain_chunk_document(memo, parent_size=2000, child_size=500)
    single = _assert_pages_right(memo, chunks)
    assert single >= len(chunks) // 2
    children = _children(chunks)
    # text printed only on page 2 is cited as page 2
    emma = next(c for c in children if "Emma is an eligible student" in c.text)
    assert emma.pages == "2"
    # section D runs from page 3 onto page 4: what follows its page break is cited on page 4
    d = next(s for s in memo.sections if s.title.startswith("D. Claiming"))
    assert d.page_breaks
    after = _squash(d.text[d.page_breaks[0] : d.page_breaks[0] + 80])
    holder = next(c for c in children if after[:40] in _squash(c.text))
    assert holder.page_end == 4
    assert {c.page_start for c in children} == {1, 2, 3, 4}


def test_pages_of_a_synthetic_document_and_of_form_feeds():
    doc = ParsedDocument(
        "two.pdf",
        "two.pdf",
        "0" * 64,
        3,
        (
            Section(("A",), "Alpha " * 40 + "Beta " * 40, 1, 2, page_breaks=(240,)),
            Section(("B",), "Gamma " * 40, 3, 3),
        ),
        (Footnote("1", 2, "Delta " * 10),),
    )
    chunks = plain_chunk_document(doc, parent_size=300, child_size=100)
    for c in _children(chunks):
        words = {w for w in ("Alpha", "Beta", "Delta", "Gamma") if w in c.text}
        expected = {{"Alpha": 1, "Beta": 2, "Delta": 2, "Gamma": 3}[w] for w in words}
        assert {c.page_start, c.page_end} == {min(expected), max(expected)}, (c.text, c.pages)
    # a plain-text source keeps exact offsets; a form feed starts page 2
    text = "First page sentence. " * 20 + "\f" + "Second page sentence. " * 20
    txt = ParsedDocument("f.txt", "f.txt", "0" * 64, 2, (Section((), text, 1, 2, 0, len(text)),), source_text=text)
    assert plain_text(txt) == (text, [(0, 1), (text.index("\f"), 2)])
    for c in plain_chunk_document(txt, parent_size=300, child_size=100):
        assert text[c.start : c.end] == c.text
        want = {1 if "First" in c.text else 2, 2 if "Second" in c.text else 1}
        assert {c.page_start, c.page_end} == want, (c.text, c.pages)


def test_plain_text_sources_keep_exact_offsets():
    doc = parse_file(LETTER)
    chunks = plain_chunk_document(doc, parent_size=1000, child_size=300)
    assert _children(chunks)
    for c in chunks:
        assert doc.source_text[c.start : c.end] == c.text
        assert c.section_path == ()


def test_child_size_above_parent_size_is_refused(memo: ParsedDocument):
    with pytest.raises(ValueError, match="child_size"):
        plain_chunk_document(memo, parent_size=300, child_size=500)


@needs_reg
def test_a_real_regulation_chunks_plainly_with_right_pages():
    doc = parse_file(REG)
    assert doc.pages == 3
    chunks = plain_chunk_document(doc, parent_size=2000, child_size=500, prefix=document_prefix(doc.name))
    parents, children = _parents(chunks), _children(chunks)
    assert len(parents) >= 4 and len(children) >= 17
    assert all(len(c.text) <= 500 and not c.section_path for c in children)
    assert all(c.parent_ids[0] in parents and c.text in parents[c.parent_ids[0]].text for c in children)
    assert {c.page_start for c in children} == {1, 2, 3}
    _assert_pages_right(doc, chunks)
    assert not any("<section-header>" in c.indexed_text for c in children)


# --- settings, pipeline, index, CLI -------------------------------------------------------------------


def test_the_setting_is_validated_and_defaults_to_layout():
    assert Settings().chunking == "layout"
    assert Settings(chunking="plain").chunking == "plain"
    assert Settings.load(env={"LCLFQA_CHUNKING": "plain"}).chunking == "plain"
    with pytest.raises(ValueError, match=r"chunking must be one of layout, plain; got 'fixed'"):
        Settings(chunking="fixed")


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(MEMO, folder)
    shutil.copy(LETTER, folder)
    return folder


def _manifest_chunking(index_dir: Path) -> dict:
    return EmbeddedBackend.load(index_dir).manifest["settings"]["chunking"]


def test_a_layout_index_is_unchanged_by_default(sample: Path, tmp_path: Path, memo: ParsedDocument):
    emb = DeterministicFakeEmbedding(size=16)
    report = ingest([sample], tmp_path / "idx", Settings(), embeddings=emb)
    idx = EmbeddedBackend.load(tmp_path / "idx")
    assert idx.chunking == "layout" and _manifest_chunking(tmp_path / "idx")["chunking"] == "layout"
    stored = idx.chunks(document=memo.name)
    s = Settings()
    expected = chunk_document(
        memo,
        parent_size=s.parent_size,
        child_size=s.child_size,
        footnote_chunks=s.footnote_chunks,
        prefix=document_prefix(memo.name),
    )
    assert [(c.id, c.kind, c.text, c.section_path, c.parent_ids, c.indexed_text) for c in stored] == [
        (c.id, c.kind, c.text, c.section_path, c.parent_ids, c.indexed_text) for c in expected
    ]
    assert report.footnote_chunks == 8


def test_plain_ingest_indexes_plain_chunks_and_switching_rechunks(sample: Path, tmp_path: Path):
    emb = DeterministicFakeEmbedding(size=16)
    where = tmp_path / "idx"
    layout = ingest([sample], where, Settings(), embeddings=emb)
    plain = ingest([sample], where, Settings(chunking="plain"), embeddings=emb)
    assert plain.reused_documents == 0 and plain.footnote_chunks == 0
    idx = EmbeddedBackend.load(where)
    assert idx.chunking == "plain" and _manifest_chunking(where)["chunking"] == "plain"
    assert idx.manifest["counts"]["footnotes"] == 0
    chunks = [c for name in idx.documents for c in idx.chunks(document=name)]
    assert {c.kind for c in chunks} == {PARENT, CHILD}
    assert all(c.section_path == () for c in chunks)
    by_id = {c.id: c for c in chunks}
    for c in chunks:
        if c.kind == CHILD:
            assert c.indexed_text.startswith(f"Document: {c.document}.\n")
            assert c.text in by_id[c.parent_ids[0]].text
            assert idx.parents_of(c.id)[0].id == c.parent_ids[0]
    again = ingest([sample], where, Settings(chunking="plain"), embeddings=emb)
    assert again.reused_documents == 2 and again.embedded == 0
    back = ingest([sample], where, Settings(), embeddings=emb)
    assert back.reused_documents == 0 and back.footnote_chunks == layout.footnote_chunks == 8
    assert back.children == layout.children and EmbeddedBackend.load(where).chunking == "layout"


def test_an_index_from_before_the_setting_counts_as_layout(sample: Path, tmp_path: Path):
    emb = DeterministicFakeEmbedding(size=16)
    where = tmp_path / "idx"
    ingest([sample], where, Settings(), embeddings=emb)
    manifest_path = where / (where / "CURRENT").read_text().strip() / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["settings"]["chunking"]["chunking"]
    manifest_path.write_text(json.dumps(manifest))
    assert EmbeddedBackend.load(where).chunking == "layout"
    same = ingest([sample], where, Settings(), embeddings=emb)
    assert same.reused_documents == 2 and same.embedded == 0
    assert _manifest_chunking(where)["chunking"] == "layout"


def test_the_qa_graph_runs_on_a_plain_index(sample: Path, tmp_path: Path):
    from lclfqa import load_graph
    from tests.fakes import ScriptedChat
    from tests.test_graph import QUESTION, good_script

    ingest([sample], tmp_path / "idx", Settings(chunking="plain"), embeddings=DeterministicFakeEmbedding(size=32))
    graph = load_graph(
        tmp_path / "idx",
        Settings(),
        llm=ScriptedChat(script=good_script()),
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    result = graph.invoke({"question": QUESTION})
    # expand widened the retrieved children to their parents (a child whose parent does not fit stays itself)
    parent_ids = {pid for r in result["retrieved"] for pid in r["parent_ids"]}
    assert result["sources"][0]["kind"] == PARENT
    assert all(s["id"] in parent_ids for s in result["sources"] if s["kind"] == PARENT)
    assert {s["kind"] for s in result["sources"]} <= {PARENT, CHILD}
    assert result.citations and all(c["document"] and c["pages"] for c in result.citations)


def test_cli_chunking_flag(sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("LCLFQA_CHUNKING", raising=False)
    monkeypatch.setattr("lclfqa.index.ingest.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=16))
    result = runner.invoke(
        app, ["ingest", str(sample), "--index", str(tmp_path / "plain"), "--chunking", "plain", "-q"]
    )
    assert result.exit_code == 0, result.output
    assert "0 footnote chunks" in result.output
    assert _manifest_chunking(tmp_path / "plain")["chunking"] == "plain"
    info = runner.invoke(app, ["info", "--index", str(tmp_path / "plain")])
    assert info.exit_code == 0 and "plain chunking" in info.output
    default = runner.invoke(app, ["ingest", str(sample), "--index", str(tmp_path / "layout"), "-q"])
    assert default.exit_code == 0, default.output
    assert EmbeddedBackend.load(tmp_path / "layout").chunking == "layout"
    bad = runner.invoke(app, ["ingest", str(sample), "--index", str(tmp_path / "bad"), "--chunking", "fixed"])
    assert bad.exit_code == 2
    assert "chunking must be one of layout, plain; got 'fixed'" in bad.output
    assert not (tmp_path / "bad").exists()
    assert "--chunking" in runner.invoke(app, ["ingest", "--help"]).output
