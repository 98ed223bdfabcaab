"""Opinion scope: each separate opinion a question names gets its best passage into the top k — on the
embedded index and on Milvus (Milvus Lite) alike."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding

from lclfqa.config import Settings
from lclfqa.index.factory import open_index
from lclfqa.index.fusion import Fusion
from lclfqa.index.opinion_scope import (
    NamedOpinion,
    heading_of,
    named_opinions,
    opinion_names,
    opinion_picks,
    ranking_query,
    with_picks,
)
from lclfqa.index.protocol import IndexBackend
from lclfqa.index.records import DocumentBatch, DocumentRecord
from lclfqa.index.search import RetrievalParams, search
from lclfqa.ingest.document import CHILD, PARENT, Chunk
from lclfqa.llm.models import embed_array
from tests.test_index_contract import DIM, MODEL, vectors_of


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Compare Justice Lee's concurrence and the principal dissent on venue.", [("lee", ""), ("", "dissent")]),
        ("What did Patel J say about costs?", [("patel", "")]),
        ("Did Smith CJ and the dissenting opinion agree?", [("smith", ""), ("", "dissent")]),
        ("Does the concurring opinion of Chief Justice Roberts apply?", [("roberts", "")]),  # one opinion
        ("What did the dissent of Justice Lee say?", [("lee", "")]),
        ("How did Justice O’Connor's plurality define undue burden?", [("o'connor", "")]),
        ("What did Jones and Brown JJ hold?", [("jones", ""), ("brown", "")]),
        ("Which dissents discuss venue?", [("", "dissent")]),
        # no opinion named
        ("What does the majority hold about venue?", []),
        ("What did the Court say about venue?", []),
        ("Is a concurrent lease a sublease?", []),
        ("Can a dissenting shareholder recognize gain under section 302?", []),
        ("If a shareholder dissents from the merger, is the payment a sale?", []),
        ("Does the election need the concurrence of the Secretary?", []),
        ("How does Schedule J average farm income?", []),
        ("What was held in Thomas J. Watson v. Commissioner?", []),
    ],
)
def test_named_opinions(question: str, named: list[tuple[str, str]]) -> None:
    assert [(o.judge, o.role) for o in named_opinions(question)] == named


def test_ranking_query_drops_the_naming_words() -> None:
    asked = "Compare how Justice Lee's concurrence and the principal dissent treat whether a State may tax milk."
    assert ranking_query(asked) == "Compare how and treat whether a State may tax milk."
    assert ranking_query("What did Patel J say about costs?") == "What did say about costs?"
    assert ranking_query("The dissent on venue?") == "on venue?"
    assert ranking_query("The dissent?") == "The dissent?"  # nothing would be left: the question as asked


def test_titles_and_their_judges() -> None:
    assert opinion_names("JUSTICE PATEL, JUSTICE LEE, and JUSTICE NGUYEN, dissenting.") == {"patel", "lee", "nguyen"}
    assert opinion_names("SMITH CJ, JONES, BROWN AND NGUYEN-LEE JJ.") == {"smith", "jones", "brown", "nguyen-lee"}
    assert heading_of(("JUSTICE LEE, concurring.", "II", "A")) == "JUSTICE LEE, concurring."
    assert heading_of(("PATEL J.", "Costs")) == "PATEL J."
    assert heading_of(("§ 1.25A-1 Credit.", "(a) In general.")) == ""
    assert NamedOpinion("lee").matches("JUSTICE PATEL, JUSTICE LEE, and JUSTICE NGUYEN, dissenting.")
    assert NamedOpinion(role="dissent").matches("JUSTICE PATEL, dissenting.")
    assert not NamedOpinion(role="dissent").matches("JUSTICE LEE, concurring.")
    assert not NamedOpinion("lee").matches("JUSTICE PATEL delivered the opinion of the Court.")


def test_picks_take_the_place_of_the_lowest_hits() -> None:
    paths = {"a": ("JUSTICE ADAMS delivered the opinion of the Court.",), "b": ("JUSTICE BAKER, concurring.",)}
    paths |= {"c": ("JUSTICE CRUZ, dissenting.",), "d": ("JUSTICE BAKER, concurring.", "II"), "e": ("§ 1",)}
    paths |= {"f": ("JUSTICE BAKER, dissenting.",)}  # another judgment, not among the question's hits
    chunks = {
        cid: Chunk(cid, CHILD, "other.pdf" if cid == "f" else "case.pdf", "", path, 1, 1) for cid, path in paths.items()
    }
    ranked = ["f", "e", "a", "d", "c", "b"]
    named = [NamedOpinion("baker"), NamedOpinion(role="dissent"), NamedOpinion("nobody")]
    assert opinion_picks(named, ranked, chunks.__getitem__, {"case.pdf"}) == ["d", "c"]
    assert opinion_picks(named, ranked, chunks.__getitem__, {"other.pdf"}) == ["f"]
    assert opinion_picks(named, ranked, chunks.__getitem__, set()) == []
    hits = [("a", 0.5), ("e", 0.4), ("x", 0.3)]
    assert with_picks(hits, ["d", "c"], 3) == [("d", 0.5), ("c", 0.4), ("a", 0.3)]  # picks lead, scores by place
    assert with_picks(hits, ["x", "d"], 3) == [("d", 0.5), ("a", 0.4), ("x", 0.3)]  # a pick is never dropped
    assert with_picks(hits, ["x"], 3) == hits  # already there
    assert with_picks(hits[:1], ["d"], 3) == [("d", 0.5), ("a", 0.5)]  # room left: nothing dropped
    assert with_picks([("d", 0.5), ("c", 0.4)], ["d", "c", "b"], 2) == [("d", 0.5), ("c", 0.4)]  # no room


_MILVUS = importlib.util.find_spec("pymilvus") is not None
CASE = "Adams v. Baker (2031).pdf"
TEXTS = {
    "JUSTICE ADAMS delivered the opinion of the Court.": [
        "The dissent and Justice Baker's concurrence treat whether a State may tax residents' milk purchases as "
        "settled; we need not compare them.",
        "Justice Baker's concurrence and the dissent compare how a State may treat its residents; we do not.",
        "The statute regulating dairy imports is valid under the Commerce Clause.",
    ],
    "JUSTICE BAKER, concurring.": [
        "I join the opinion of the Court in full and write separately on the statute's history.",
        "A State may not tax its residents' purchases of milk in another State: the dormant Commerce Clause "
        "forbids it.",
    ],
    "JUSTICE CRUZ, dissenting.": [
        "Some States will now tax residents' milk purchases made out of State, and nothing stops them.",
        "I would reverse the judgment below.",
    ],
}


def _judgment() -> tuple[list[DocumentRecord], list[Chunk]]:
    chunks: list[Chunk] = []
    for n, (title, texts) in enumerate(TEXTS.items()):
        parent = f"j:p{n}"
        chunks.append(Chunk(parent, PARENT, CASE, " ".join(texts), (title,), n + 1, n + 1))
        for i, text in enumerate(texts):
            indexed = f"<section-header>{title}</section-header>\n{text}"
            chunks.append(
                Chunk(f"j:c{n}.{i}", CHILD, CASE, text, (title,), n + 1, n + 1, None, None, (parent,), indexed)
            )
    record = DocumentRecord(CASE, f"/data/{CASE}", "ab" * 32, 3, 3, 0)
    return [record], chunks


@pytest.fixture(
    scope="module",
    params=["embedded", pytest.param("milvus", marks=pytest.mark.skipif(not _MILVUS, reason="pymilvus not installed"))],
)
def judgment(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[IndexBackend]:
    records, chunks = _judgment()
    index = open_index(Settings(index_backend=request.param), Path(tmp_path_factory.mktemp("j")) / "index", create=True)
    index.add_documents(DocumentBatch(records, chunks, vectors_of(chunks), MODEL, {"v": 1}))
    yield index
    index.close()


def test_each_named_opinion_gets_its_passage(judgment: IndexBackend) -> None:
    emb = DeterministicFakeEmbedding(size=DIM)
    params = RetrievalParams(k=2, dense_weight=0.0)  # BM25 decides: the fake embedder's order is noise
    asked = "Compare how Justice Baker's concurrence and the dissent treat whether a State may tax residents' milk."
    fusion = Fusion(2, 50, 60, 1.0, 0.0)
    plain = [cid for cid, _ in judgment.hybrid([asked], embed_array(emb, [asked]), fusion)]
    assert plain == ["j:c0.0", "j:c0.1"]  # by the whole question, the Court's words about comparing win
    _, hits = search(judgment, emb, asked, params)
    assert [h.chunk.id for h in hits] == ["j:c1.1", "j:c2.0"]  # Baker's on the tax, then the dissent's
    assert hits[0].score >= hits[1].score and all(h.pick for h in hits)  # marked: the reader sees them first
    # a question naming no opinion ranks as before
    unnamed = "Whether a State may tax residents' milk purchases, and how the Court would treat it?"
    _, hits = search(judgment, emb, unnamed, params)
    assert not any(h.pick for h in hits)
    assert [h.chunk.id for h in hits] == [
        cid for cid, _ in judgment.hybrid([unnamed], embed_array(emb, [unnamed]), fusion)
    ]


def test_with_the_default_weights_each_named_opinion_is_read(judgment: IndexBackend) -> None:
    """Equal weights: Milvus fuses on its server (RRFRanker), the embedded index with lclfqa's RRF."""
    emb = DeterministicFakeEmbedding(size=DIM)
    asked = "Compare how Justice Baker's concurrence and the dissent treat whether a State may tax residents' milk."
    _, hits = search(judgment, emb, asked, RetrievalParams(k=2))
    titles = [h.chunk.section_path[0] for h in hits]
    assert titles == ["JUSTICE BAKER, concurring.", "JUSTICE CRUZ, dissenting."]


def test_cli_search_says_which_passage_is_a_named_opinions_pick(tmp_path: Path, monkeypatch) -> None:
    import json

    from typer.testing import CliRunner

    from lclfqa.cli import app

    records, chunks = _judgment()
    index = open_index(Settings(), tmp_path / "index", create=True)
    index.add_documents(DocumentBatch(records, chunks, vectors_of(chunks), MODEL, {"v": 1}))
    index.close()
    monkeypatch.setattr("lclfqa.llm.models.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=DIM))
    asked = "Compare how Justice Baker's concurrence and the dissent treat whether a State may tax residents' milk."
    runner = CliRunner()
    out = runner.invoke(app, ["search", asked, "--index", str(tmp_path / "index"), "-k", "2"])
    assert out.exit_code == 0, out.output
    assert " ".join(out.output.split()).count("(the named opinion's best passage)") == 2  # wrapped or not
    out = runner.invoke(app, ["search", asked, "--index", str(tmp_path / "index"), "-k", "2", "--json"])
    assert [row.get("opinion_pick") for row in json.loads(out.output)] == [True, True]
