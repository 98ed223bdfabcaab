"""Document scope: questions that name indexed documents are searched in those only, without the names."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from typer.testing import CliRunner

from lclfqa import prompts
from lclfqa.cli import app
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.fusion import Fusion
from lclfqa.index.scope import MAX_SCOPE, DocumentScope, find_scope, name_aliases, scope_names
from lclfqa.index.search import RetrievalParams, search
from lclfqa.llm.models import embed_array
from tests.test_graph import good_script, graph_with

# document names as they are in ../shared/data (names only: no data needed)
IRA = "inflation-reduction-act-2022.pdf"
DOBBS = "dobbs-v-jackson-2022-slip-opinion.pdf"
REG = "26 CFR 1.21-3 (up to date as of 6-26-2026).pdf"
TICKTICK = "privacy_qa/TickTick - To Do List with Reminder, Day Planner.txt"
KEEP = "privacy_qa/Keep.txt"
FIVERR = "privacy_qa/Fiverr.txt"
VIBER = "privacy_qa/Viber Messenger.txt"
HMS = "maud/HMS Holdings Corp._Veritas Capital.txt"
CUBIC = "maud/Cubic Corporation_Investment Group.pdf||Cubic_Corporation_Investment_Group_Amendment No.1.txt"
NAMES = [IRA, DOBBS, REG, TICKTICK, KEEP, FIVERR, VIBER, HMS, CUBIC]


def test_aliases_come_from_the_name_people_use():
    assert ("phrase", "inflation reduction act") in name_aliases(IRA)
    assert ("acronym", "IRA") in name_aliases(IRA)
    # a case name gives both parties, the year and "slip opinion" are trimmed
    assert {("phrase", "dobbs v jackson"), ("word", "dobbs"), ("word", "jackson")} <= set(name_aliases(DOBBS))
    # "(up to date as of …)" is not part of a regulation's name; its own parentheses are
    assert name_aliases(REG) == [("phrase", "26 CFR 1.21-3")]
    assert ("word", "TickTick") in name_aliases(TICKTICK) and ("phrase", "Day Planner") in name_aliases(TICKTICK)
    assert ("word", "Keep") in name_aliases(KEEP)
    # only the primary part of a name gives a one-word alias: no "Investment", no "Veritas"
    words = {t for n in (CUBIC, HMS) for kind, t in name_aliases(n) if kind == "word"}
    assert words == {"Cubic", "HMS"}
    # a lower-case slug's first word is no name ("inflation")
    assert not [a for a in name_aliases(IRA) if a[0] == "word"]


@pytest.mark.parametrize(
    ("question", "documents", "query"),
    [
        # PrivacyQA's form: the leading clause only scopes, so it goes whole
        (
            'Consider "Fiverr"\'s privacy policy; who can see the jobs that i post?',
            (FIVERR,),
            "who can see the jobs that i post?",
        ),
        ('Consider "Keep"\'s privacy policy; does it sell my data?', (KEEP,), "does it sell my data?"),
        (
            "In Dobbs, what did the majority say about 'stare decisis'?",
            (DOBBS,),
            "what did the majority say about 'stare decisis'?",
        ),
        ("Under the IRA, what is the methane fee?", (IRA,), "what is the methane fee?"),
        # the clause also asks something ("methane rules (§136)"), or the name sits inside the sentence:
        # the text stays whole (cutting a name out leaves a broken sentence); the filter does the work
        (
            "Under IRA methane rules (§136), who pays the charge?",
            (IRA,),
            "Under IRA methane rules (§136), who pays the charge?",
        ),
        (
            "What does the Inflation Reduction Act say about clean vehicles?",
            (IRA,),
            "What does the Inflation Reduction Act say about clean vehicles?",
        ),
        (
            "Compare how the principal dissent in Dobbs v. Jackson treats stare decisis",
            (DOBBS,),
            "Compare how the principal dissent in Dobbs v. Jackson treats stare decisis",
        ),
        ("What does 26 CFR 1.21-3 provide?", (REG,), None),
        ("Compare Viber and Fiverr on cookies", (FIVERR, VIBER), "Compare Viber and Fiverr on cookies"),
        ("Under the Inflation Reduction Act: what is the methane fee?", (IRA,), "what is the methane fee?"),
        ("Under the Inflation Reduction Act of 2022, what is the methane fee?", (IRA,), "what is the methane fee?"),
        # as the graph's rewrite node hands it on, acronyms glossed (a comma inside the gloss ends no clause)
        (
            "Under the IRA (Inflation Reduction Act, or individual retirement account), what is the methane fee?",
            (IRA,),
            "what is the methane fee?",
        ),
        (
            "Under IRA (Inflation Reduction Act) methane rules (§136), what rules govern the charge?",
            (IRA,),
            "Under IRA (Inflation Reduction Act) methane rules (§136), what rules govern the charge?",
        ),
    ],
)
def test_a_named_document_scopes_the_question(question: str, documents: tuple[str, ...], query: str | None):
    scope = find_scope(question, NAMES)
    assert sorted(scope.documents) == sorted(documents)
    if query is not None:
        assert scope.query == query


@pytest.mark.parametrize(
    "question",
    [
        "Keep records for how long?",  # a common word as the first word is no name
        "Do I need to keep the receipts?",
        "What is inflation?",
        "Is an Investment in stock covered?",  # not the primary part of a name
        "How does the memo treat depreciation of rental property under section 168?",
        "Can a married couple filing MFS claim the AOTC?",
        "What does section 1.21-1 say?",  # a citation of a provision no document is named after
    ],
)
def test_no_scope_without_a_name(question: str):
    scope = find_scope(question, NAMES)
    assert not scope and scope.documents == () and scope.ranking_query(question) == question


def test_quoted_or_capitalised_one_word_names_only():
    assert find_scope('What does "Keep" collect?', [KEEP]).documents == (KEEP,)
    assert find_scope("What does Keep collect?", [KEEP]).documents == (KEEP,)
    assert not find_scope("what does keep collect?", [KEEP])


def test_a_question_citing_the_provision_a_document_is_named_after_is_scoped_to_it():
    reg2 = "26 CFR 1.21-4 (up to date as of 6-26-2026).pdf"
    names = [*NAMES, reg2]
    # how tax lawyers cite a regulation: "Treas. Reg. §", "Reg. §", "§§ … and …", a paragraph, an en dash
    scope = find_scope("Under Treas. Reg. § 1.21-3(b), who is a qualifying individual?", names)
    assert scope.documents == (REG,) and scope.query == "who is a qualifying individual?"
    assert find_scope("What does Reg. § 1.21–3 provide?", names).documents == (REG,)
    assert set(find_scope("Do §§ 1.21-3 and 1.21-4 differ?", names).documents) == {REG, reg2}
    # a provision no document is named after, or a section of the Code, scopes nothing
    assert not find_scope("What does § 1.21-1 provide?", names)
    assert not find_scope("What does section 21 provide?", names)
    assert "§ 1.21-3" in scope_names(names)[REG]


def test_an_acronym_used_in_another_sense_names_no_document():
    # "IRA" is also an individual retirement account (the glossary's other sense): a question about one is not
    # scoped to the Inflation Reduction Act; shorthand for the Act still is
    assert not find_scope("Can my client roll her traditional IRA into a Roth IRA?", NAMES)
    assert not find_scope("Are IRA distributions taxable?", NAMES)
    assert find_scope("Under IRA elective pay (§ 6417), which entities may elect it?", NAMES).documents == (IRA,)
    assert find_scope("Is there a simple rule under the IRA?", NAMES).documents == (IRA,)  # "SIMPLE" in capitals only
    # as the rewrite hands the question on, with the glossary's gloss of every sense: the user's words decide
    glossed = prompts.expand_acronyms("Can my client roll her traditional IRA into a Roth IRA?")
    assert "Inflation Reduction Act" in glossed and not find_scope(glossed, NAMES)
    glossed = prompts.expand_acronyms("Under IRA elective pay (§ 6417), which entities may elect it?")
    assert find_scope(glossed, NAMES).documents == (IRA,)


def test_a_one_word_name_inside_another_name_names_no_document():
    employment = "Employment contract law.pdf"
    names = [*NAMES, employment]
    assert not find_scope("Under the Fair Employment and Housing Act, what is required?", names)
    assert not find_scope("In Jackson v. Birmingham Bd. of Ed., what did the Court hold?", names)
    # beside another indexed name, or its own party, or a word opening the question, it still names its document
    assert set(find_scope("Compare Viber and Fiverr on cookies", names).documents) == {VIBER, FIVERR}
    assert find_scope("In Dobbs v. Jackson, what did the Court hold?", names).documents == (DOBBS,)
    assert find_scope("In Dobbs, what did the Court hold?", names).documents == (DOBBS,)


def test_an_alias_of_too_many_documents_scopes_nothing():
    names = [f"cuad/Firm{i}_Content License Agreement.txt" for i in range(MAX_SCOPE + 1)]
    assert not find_scope("What does the Content License Agreement say about royalties?", names)
    assert find_scope("What does the Content License Agreement say?", names[:MAX_SCOPE]).documents == tuple(
        sorted(names[:MAX_SCOPE])
    )


def test_strip_keeps_the_text_when_nothing_would_be_left():
    scope = find_scope('"Fiverr"?', [FIVERR])
    assert scope.documents == (FIVERR,) and scope.query == '"Fiverr"?'
    # rewrites and passages lose a naming clause too, not a name inside the sentence
    assert scope.ranking_query("For Fiverr's privacy policy: who sees my jobs?") == "who sees my jobs?"
    assert scope.ranking_query("Does Fiverr show my jobs to other users?") == "Does Fiverr show my jobs to other users?"
    assert DocumentScope().ranking_query("In Fiverr, who sees my jobs?") == "In Fiverr, who sees my jobs?"


# ------------------------------------------------------------------------------------ the index filter

MEMO = "tax-memo-education-credits.pdf"
LETTER = "engagement-letter.txt"


def test_index_searches_only_the_scoped_documents(sample_index: Path):
    with EmbeddedBackend.load(sample_index) as index:
        assert set(index.documents) == {MEMO, LETTER}
        everything = index.search_sparse("credit fees return", 50)
        assert {index.chunk(c).document for c, _ in everything} == {MEMO, LETTER}
        only = index.search_sparse("credit fees return", 50, documents=[LETTER])
        assert only and {index.chunk(c).document for c, _ in only} == {LETTER}
        # the same scores as unscoped, in the same order
        assert only == [hit for hit in everything if index.chunk(hit[0]).document == LETTER][: len(only)]
        vectors = np.random.default_rng(0).normal(size=(2, index.dimension)).astype(np.float32)
        full = index.search_dense(vectors, 1000)
        scoped = index.search_dense(vectors, 1000, documents=[MEMO])
        for f, s in zip(full, scoped, strict=True):
            assert s == [(c, pytest.approx(v, abs=1e-5)) for c, v in f if index.chunk(c).document == MEMO]
        assert index.search_dense(vectors, 5, documents=["no-such.pdf"]) == [[], []]
        assert index.search_sparse("credit", 5, documents=[]) == []


def test_scoped_search_is_fused_search_in_the_named_document_without_the_naming_clause(sample_index: Path):
    emb = DeterministicFakeEmbedding(size=32)
    with EmbeddedBackend.load(sample_index) as index:
        question = "In the engagement letter, what does the firm charge for the return?"
        queries = [question, "Under the engagement letter, who signs the return?"]
        params = RetrievalParams(k=20)
        scope, hits = search(index, emb, question, params, sparse_queries=queries, dense_queries=queries)
        assert scope.documents == (LETTER,) and hits and {h.chunk.document for h in hits} == {LETTER}
        stripped = ["what does the firm charge for the return?", "who signs the return?"]
        fusion = Fusion(k=20, depth=50, rrf_k=60, sparse_weight=1.0, dense_weight=1.0)
        expected = index.hybrid(stripped, embed_array(emb, stripped), fusion, [LETTER])
        assert [(h.chunk.id, h.score) for h in hits] == expected
        off, hits_off = search(
            index, emb, question, replace(params, document_scope=False), sparse_queries=queries, dense_queries=queries
        )
        unscoped = index.hybrid(queries, embed_array(emb, queries), fusion)
        assert not off and [h.chunk.id for h in hits_off] == [cid for cid, _ in unscoped]
        assert {h.chunk.document for h in hits_off} == {MEMO, LETTER}


def test_the_graph_records_its_scope_and_can_switch_it_off(sample_index: Path):
    question = "Under the engagement letter, who prepares the return and what is the fee?"
    graph, _ = graph_with(sample_index, good_script(), top_k=20)
    result = graph.invoke({"question": question})
    assert result["scope"] == [LETTER] and result["steps"]["retrieve"]["scope"] == [LETTER]
    assert result["retrieved"] and {r["document"] for r in result["retrieved"]} == {LETTER}
    assert result.to_json()["scope"] == [LETTER]

    graph, _ = graph_with(sample_index, good_script(), top_k=20, document_scope=False)
    result = graph.invoke({"question": question})
    assert result["scope"] == [] and "scope" not in result["steps"]["retrieve"]
    assert {r["document"] for r in result["retrieved"]} == {MEMO, LETTER}


def test_cli_search_says_what_it_searched(sample_index: Path, monkeypatch):
    monkeypatch.setattr("lclfqa.llm.models.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=32))
    runner = CliRunner()
    q = "In the engagement letter, what is the fee?"
    out = runner.invoke(app, ["search", q, "--index", str(sample_index), "-k", "20"])
    assert out.exit_code == 0, out.output
    assert "Searched only: engagement-letter.txt" in out.output and MEMO not in out.output
    out = runner.invoke(app, ["search", q, "--index", str(sample_index), "-k", "20", "--json", "--no-document-scope"])
    assert out.exit_code == 0, out.output
    assert {row["document"] for row in json.loads(out.output)} == {MEMO, LETTER}


def test_info_lists_the_names_that_scope_a_question(sample_index: Path):
    names = scope_names([IRA, DOBBS, KEEP, "privacy_qa/23andMe.txt"])
    assert names["privacy_qa/23andMe.txt"] == ["23andMe (capitalised)"]  # as the name writes it
    assert names[IRA] == ["inflation reduction act", "IRA"]
    assert names[KEEP] == ["Keep (capitalised)"] and "Dobbs (capitalised)" in names[DOBBS]
    out = CliRunner().invoke(app, ["info", "--index", str(sample_index)])
    assert out.exit_code == 0, out.output
    assert "named by: engagement letter" in out.output
    assert "parsed by parser version" not in out.output  # built by this lclfqa


def test_info_says_when_a_newer_parser_would_parse_the_documents_again(sample_index: Path, monkeypatch):
    import lclfqa.index.ingest as ingest

    built = ingest.PARSER_VERSION
    monkeypatch.setattr(ingest, "PARSER_VERSION", built + 1)
    out = CliRunner().invoke(app, ["info", "--index", str(sample_index)])
    assert out.exit_code == 0, out.output
    assert f"parsed by parser version {built}; this lclfqa parses with {built + 1}" in " ".join(out.output.split())


def test_a_cited_provision_no_hit_names_is_turned_to_by_its_heading():
    from lclfqa.index.search import provision_picks
    from lclfqa.ingest.document import CHILD, Chunk

    def child(cid: str, document: str, heading: str, text: str) -> Chunk:
        return Chunk(cid, CHILD, document, text, ("Part II", heading), 1, 1)

    chunks = {
        "nda": child("nda", "nda.txt", "11. Governing law", "This agreement is governed by the laws of Ontario."),
        "act-14": child("act-14", "act.pdf", "14 Utmost good faith", "Each party must act with good faith."),
        "act-15": child("act-15", "act.pdf", "15 Certain other laws not to apply", "A contract is not reviewable."),
        "reg": child("reg", "regs.pdf", "§ 11. Tax imposed", "A tax is hereby imposed on the taxable income."),
    }

    class Index:  # BM25 stands in as a fixed ranking, within the documents asked for
        def search_sparse(self, query: str, k: int, documents=None):
            return [(cid, 1.0) for cid, c in chunks.items() if not documents or c.document in documents][:k]

    picks = provision_picks(Index(), "What does section 15 say?", ["15"], chunks.__getitem__, 50, ("act.pdf",))
    assert picks == ["act-15"]  # in the named document, its own heading
    # without a scope only a heading that cites the provision counts: "§ 11", not an agreement's clause 11
    assert provision_picks(Index(), "What does § 11 impose?", ["11"], chunks.__getitem__, 50) == ["reg"]
    assert provision_picks(Index(), "What does § 12 say?", ["12"], chunks.__getitem__, 50) == []


@pytest.mark.parametrize(
    ("number", "heading", "own"),
    [
        ("50", "§ 50. Other special rules", True),
        ("13401", "SEC. 13401. CLEAN VEHICLE CREDIT.", True),
        ("15", "15 Certain other laws not to apply", True),
        ("1.25A-1", "§ 1.25A-1 Calculation of education tax credits.", True),
        ("50", "(B) The vehicle is used in a manner described in section 50(b)", False),  # refers to it
        ("15", "150 Transitional", False),
    ],
)
def test_a_provisions_own_heading_is_told_from_one_that_refers_to_it(number: str, heading: str, own: bool):
    from lclfqa.index.search import _heads

    assert _heads(number, heading) is own


def test_a_regulation_number_names_the_code_section_it_is_under():
    from lclfqa.index.provisions import section_of

    assert section_of("1.25A-1") == "25A" and section_of("1.263(a)-3") == "263"
    assert section_of("1.25-5T") == "25" and section_of("1.1411–4") == "1411"  # temporary; an en dash
    assert section_of("25A") is None and section_of("7.2") is None
