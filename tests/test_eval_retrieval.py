"""Retrieval eval: metrics against hand-computed cases, the data loaders, and a small end-to-end run."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from typer.testing import CliRunner

from lclfqa.cli.evaluate import eval_app
from lclfqa.config import Settings
from lclfqa.eval.datasets import (
    DatasetError,
    GoldSpan,
    RetrievalQuery,
    load_legalbench,
    load_long_answers,
    load_qa_jsonl,
)
from lclfqa.eval.retrieval_eval import GoldNotIndexed, graph_rewriter, run_retrieval_eval
from lclfqa.eval.retrieval_metrics import (
    RetrievalScores,
    RetrievedSpan,
    char_precision_recall_at_k,
    document_recall_at_k,
    drm_at_k,
    evidence_recall,
    intersection_length,
    mean_scores,
    merge_intervals,
    score_ranking,
)
from lclfqa.ingest.document import Chunk
from tests.fakes import CountingEmbeddings, ScriptedChat

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
LB = DATA / "legalbench-rag"
BENCHMARK = LB / "benchmarks" / "privacy_qa.json"
LONG_ANSWERS = LB / "long-answers" / "privacy_qa.csv"
TAX_DEV = DATA / "tax-qa" / "dev.jsonl"
needs_data = pytest.mark.skipif(not BENCHMARK.exists(), reason="../shared/data not present")


def R(doc: str, start: int | None = None, end: int | None = None, length: int = 0) -> RetrievedSpan:
    return RetrievedSpan(doc, start, end, length)


# ------------------------------------------------------------------------------------------ intervals


def test_merge_intervals_sorts_merges_overlapping_and_touching_and_drops_empty():
    assert merge_intervals([(5, 9), (0, 3), (2, 4), (9, 9)]) == [(0, 4), (5, 9)]
    assert merge_intervals([(0, 3), (3, 5)]) == [(0, 5)]
    assert merge_intervals([(10, 20), (12, 15)]) == [(10, 20)]
    assert merge_intervals([]) == []


def test_intersection_length_of_merged_lists():
    assert intersection_length([(0, 10), (20, 30)], [(5, 25)]) == 5 + 5
    assert intersection_length([(0, 10)], [(10, 20)]) == 0
    assert intersection_length([], [(0, 5)]) == 0


# ------------------------------------------------------------------------------------------------- DRM


def test_drm_is_the_share_of_top_k_chunks_from_other_documents():
    ranked = [R("a", 0, 1), R("b", 0, 1), R("a", 1, 2), R("c", 0, 1)]
    assert drm_at_k(ranked, {"a"}, 1) == 0.0
    assert drm_at_k(ranked, {"a"}, 2) == 0.5
    assert drm_at_k(ranked, {"a"}, 3) == pytest.approx(1 / 3)
    assert drm_at_k(ranked, {"a"}, 4) == 0.5
    assert drm_at_k(ranked, {"a"}, 10) == 0.5  # only 4 retrieved: the denominator is 4
    assert drm_at_k(ranked, {"a", "c"}, 4) == 0.25
    assert drm_at_k([], {"a"}, 8) == 0.0


def test_document_recall_counts_gold_documents_reached():
    ranked = [R("a", 0, 1), R("x", 0, 1), R("b", 0, 1)]
    assert document_recall_at_k(ranked, {"a", "b"}, 1) == 0.5
    assert document_recall_at_k(ranked, {"a", "b"}, 2) == 0.5
    assert document_recall_at_k(ranked, {"a", "b"}, 3) == 1.0
    assert document_recall_at_k(ranked, set(), 3) == 0.0


# ------------------------------------------------------------------------------------ character P / R


def test_partial_overlap():
    gold = [GoldSpan("a", 100, 200)]
    # retrieved [150, 250): 50 of its 100 characters are gold; 50 of the 100 gold characters are found
    assert char_precision_recall_at_k([R("a", 150, 250)], gold, 1) == (0.5, 0.5)
    # [50, 120) and [180, 300): 20 + 20 overlapping of 70 + 120 retrieved; 40 of 100 gold
    p, r = char_precision_recall_at_k([R("a", 50, 120), R("a", 180, 300)], gold, 2)
    assert p == pytest.approx(40 / 190) and r == pytest.approx(0.4)
    # same offsets in another document: no overlap at all
    assert char_precision_recall_at_k([R("b", 100, 200)], gold, 1) == (0.0, 0.0)


def test_overlapping_retrieved_ranges_are_not_counted_twice():
    gold = [GoldSpan("a", 100, 200)]
    ranked = [R("a", 100, 160), R("a", 140, 200), R("a", 100, 200)]
    # union [100, 200): 100 retrieved characters, all gold (summing would give 220 and overlap 220)
    assert char_precision_recall_at_k(ranked, gold, 3) == (1.0, 1.0)
    assert char_precision_recall_at_k(ranked, gold, 1) == (1.0, pytest.approx(0.6))


def test_multiple_gold_spans_and_files():
    # gold: a[0,10) and a[5,20) overlap -> 20 characters of a; b[0,30) -> 30; 50 gold characters in all
    gold = [GoldSpan("a", 0, 10), GoldSpan("a", 5, 20), GoldSpan("b", 0, 30)]
    ranked = [R("a", 10, 40), R("b", 20, 25), R("c", 0, 100)]
    # overlaps: a 10 (of 30), b 5 (of 5), c 0 (of 100) -> 15 of 135 retrieved; 15 of 50 gold
    p, r = char_precision_recall_at_k(ranked, gold, 3)
    assert p == pytest.approx(15 / 135) and r == pytest.approx(15 / 50)
    p, r = char_precision_recall_at_k(ranked, gold, 1)
    assert p == pytest.approx(10 / 30) and r == pytest.approx(10 / 50)
    scores = score_ranking(ranked, gold, [1, 3])
    assert scores[1] == RetrievalScores(drm=0.0, char_precision=p, char_recall=r, doc_recall=0.5)
    assert scores[3].drm == pytest.approx(1 / 3) and scores[3].doc_recall == 1.0


def test_chunks_without_offsets_count_as_retrieved_characters_that_cover_nothing():
    gold = [GoldSpan("a", 0, 100)]
    ranked = [R("a", None, None, length=50), R("a", 0, 50)]
    assert char_precision_recall_at_k(ranked, gold, 2) == (0.5, 0.5)
    assert char_precision_recall_at_k(ranked, gold, 1) == (0.0, 0.0)
    # real Chunk objects: offsets when present, else the length of their text
    pdf_chunk = Chunk(id="p:c0", kind="child", document="a", text="x" * 30, section_path=(), page_start=1, page_end=1)
    txt_chunk = Chunk(
        id="t:c0",
        kind="child",
        document="a",
        text="y" * 40,
        section_path=(),
        page_start=1,
        page_end=1,
        start=60,
        end=100,
    )
    p, r = char_precision_recall_at_k([pdf_chunk, txt_chunk], gold, 2)
    assert p == pytest.approx(40 / 70) and r == pytest.approx(0.4)
    assert drm_at_k([pdf_chunk], {"a"}, 1) == 0.0


def test_nothing_retrieved_and_empty_gold():
    assert char_precision_recall_at_k([], [GoldSpan("a", 0, 10)], 8) == (0.0, 0.0)
    assert char_precision_recall_at_k([R("a", 0, 10)], [], 8) == (0.0, 0.0)


def test_mean_scores_averages_each_metric_per_k():
    q1 = {1: RetrievalScores(0.0, 1.0, 0.5, 1.0), 8: RetrievalScores(0.5, 0.25, 1.0, 1.0)}
    q2 = {1: RetrievalScores(1.0, 0.0, 0.0, 0.0), 8: RetrievalScores(0.25, 0.75, 0.5, 0.5)}
    assert mean_scores([q1, q2]) == {
        1: RetrievalScores(0.5, 0.5, 0.25, 0.5),
        8: RetrievalScores(0.375, 0.5, 0.75, 0.75),
    }
    assert mean_scores([]) == {}


def test_evidence_recall_normalises_whitespace_and_spans_chunk_boundaries():
    quotes = ["foo  bar", "baz\nqux", "not there"]
    texts = ["xx foo\tbar yy", "the end: baz", "qux zz"]
    assert evidence_recall(quotes, texts) == pytest.approx(2 / 3)
    assert evidence_recall(["a"], []) == 0.0
    assert math.isnan(evidence_recall([], ["anything"]))


# --------------------------------------------------------------------------------------------- loaders


def test_load_legalbench_small_file_and_missing_corpus_file(tmp_path: Path):
    (tmp_path / "corpus" / "p").mkdir(parents=True)
    (tmp_path / "corpus" / "p" / "doc.txt").write_text("Hello privacy world", encoding="utf-8")
    bench = tmp_path / "b.json"
    bench.write_text(
        json.dumps(
            {
                "tests": [
                    {"query": "q1", "snippets": [{"file_path": "p/doc.txt", "span": [6, 13], "answer": "privacy"}]},
                    {"query": "q2", "snippets": [{"file_path": "p/gone.txt", "span": [0, 1], "answer": "x"}]},
                ]
            }
        ),
        encoding="utf-8",
    )
    queries = load_legalbench(bench)
    assert queries[0] == RetrievalQuery("q1", (GoldSpan("p/doc.txt", 6, 13, "privacy"),))
    assert queries[1].documents == {"p/gone.txt"}
    with pytest.raises(DatasetError, match=r"tests\[1\].*'p/gone.txt'.*not in the corpus"):
        load_legalbench(bench, tmp_path / "corpus")
    bench.write_text('{"tests": [{"query": "q", "snippets": [{"file_path": "a", "span": [5, 2]}]}]}')
    with pytest.raises(DatasetError, match="start <= end"):
        load_legalbench(bench)
    bench.write_text('{"tests": [')
    with pytest.raises(DatasetError, match="not valid JSON"):
        load_legalbench(bench)


def test_load_qa_jsonl_small_file_and_errors(tmp_path: Path):
    good = {
        "id": "X-1",
        "question": "Q?",
        "gold_answer": "A.",
        "necessary_claims": ["c1"],
        "evidence": [{"document": "d.pdf", "page": 2, "quote": "q"}],
        "question_style": "plain",
        "documents": ["d.pdf"],
        "notes": "ignored",
    }
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({"id": "X-2", "question": "Q2", "gold_answer": ""}) + "\n")
    items = load_qa_jsonl(path)
    assert [i.id for i in items] == ["X-1", "X-2"]
    assert items[0].evidence[0].page == 2 and items[0].necessary_claims == ("c1",)
    assert items[1].evidence == () and items[1].question_style is None
    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(DatasetError, match="line 2: not valid JSON"):
        load_qa_jsonl(path)
    path.write_text(json.dumps({"id": "X-3", "question": "Q"}) + "\n")
    with pytest.raises(DatasetError, match="line 1: missing or non-string field.*gold_answer"):
        load_qa_jsonl(path)
    path.write_text(json.dumps({**good, "evidence": [{"document": "d.pdf"}]}) + "\n")
    with pytest.raises(DatasetError, match=r"line 1: evidence\[0\]"):
        load_qa_jsonl(path)


@needs_data
def test_real_benchmark_tax_dev_and_long_answers_load():
    queries = load_legalbench(BENCHMARK, LB / "corpus")
    assert len(queries) == 194 and sum(len(q.snippets) for q in queries) == 453
    dev = load_qa_jsonl(TAX_DEV)
    assert len(dev) == 17 and dev[0].id == "DEV-01"
    assert sum(len(i.evidence) for i in dev) > 50 and all(e.page for i in dev for e in i.evidence)
    long = load_long_answers(LONG_ANSWERS, BENCHMARK)
    assert len(long) == 50 and all(i.gold_answer and i.snippets for i in long)
    by_query = {q.query: q for q in queries}
    assert all(set(i.snippets) == set(by_query[i.question].snippets) for i in long)
    assert all(i.documents[0] in by_query[i.question].documents for i in long)


@needs_data
def test_long_answers_with_an_unknown_prompt_is_an_error(tmp_path: Path):
    path = tmp_path / "la.csv"
    path.write_text('prompt,expected completion,source_file\n"no such query","x","privacy_qa/Keep.txt"\n')
    with pytest.raises(DatasetError, match="line 2.*not a query"):
        load_long_answers(path, BENCHMARK)


# ----------------------------------------------------------------------------------------- end to end

SLICE = ("privacy_qa/Keep.txt", "contractnli/DoiT-ICN-NonDisclosure-Agreement.txt")


@pytest.fixture
def small_corpus(tmp_path: Path) -> tuple[Path, list[RetrievalQuery]]:
    corpus = tmp_path / "corpus"
    for name in SLICE:
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(LB / "corpus" / name, corpus / name)
    queries = [q for q in load_legalbench(BENCHMARK) if q.documents <= set(SLICE)][:8]
    assert queries
    return corpus, queries


@needs_data
def test_eval_runs_every_configuration_on_a_two_document_slice(small_corpus, tmp_path: Path):
    corpus, queries = small_corpus
    emb = DeterministicFakeEmbedding(size=32)
    lines: list[str] = []
    table = run_retrieval_eval(
        queries,
        corpus,
        configs=["naive", "bm25", "dense", "hybrid", "+rewrites", "+summaries"],
        ks=[1, 4, 64],
        index_dir=tmp_path / "idx",
        embeddings=emb,
        rewriter=lambda q: [q.replace("privacy policy", "policy")],
        progress=lines.append,
    )
    assert [r.name for r in table.rows] == ["naive", "bm25", "dense", "hybrid", "+rewrites", "+summaries"]
    assert table.row("+summaries").skipped and "summaries" in table.row("+summaries").note
    for row in table.rows[:5]:
        assert list(row.scores) == [1, 4, 64] and len(row.per_query) == len(queries) and row.chunks > 0
        for s in row.scores.values():
            assert all(0.0 <= v <= 1.0 for v in s.to_dict().values())
        # with only two documents, the top 64 holds every chunk of Keep.txt: all gold is found but the
        # whitespace between chunks (chunks are stripped; gold spans may start with spaces)
        assert row.scores[64].char_recall > 0.99 and row.scores[64].doc_recall == 1.0
    # BM25 on our index: the document prefix names "Keep", which every query names
    assert table.row("bm25").scores[1].drm == 0.0
    assert any("running naive" in line for line in lines)
    json.dumps(table.to_json(per_query=True))
    # the index is reused: a second run embeds no document again and gives the same scores
    counting = CountingEmbeddings(size=32)
    again = run_retrieval_eval(
        queries, corpus, configs=["bm25"], ks=[1, 4, 64], index_dir=tmp_path / "idx", embeddings=counting
    )
    assert again.row("bm25").scores == table.row("bm25").scores and counting.calls == 0


@needs_data
def test_scope_searches_the_document_a_query_names(small_corpus, tmp_path: Path):
    corpus, queries = small_corpus  # every query names "Keep"; the NDA is the distractor
    table = run_retrieval_eval(
        queries,
        corpus,
        configs=["hybrid", "+scope"],
        ks=[1, 8, 64],
        index_dir=tmp_path / "idx",
        # summaries on in the settings (LCLFQA_SUMMARIES=true) are for +summaries' index, not these
        settings=Settings(summaries=True),
        embeddings=DeterministicFakeEmbedding(size=32),
    )
    hybrid, scoped = table.row("hybrid"), table.row("+scope")
    assert hybrid.scores[64].drm > 0.0  # 64 chunks reach into the NDA
    assert all(s.drm == 0.0 for s in scoped.scores.values())  # the scope never leaves Keep.txt
    assert scoped.scores[64].char_recall > 0.99


@needs_data
def test_summaries_hook_builds_and_searches_a_summary_index(small_corpus, tmp_path: Path):
    corpus, queries = small_corpus
    table = run_retrieval_eval(
        queries[:3],
        corpus,
        configs=["+summaries"],
        ks=[1, 8],
        embeddings=DeterministicFakeEmbedding(size=16),
        summaries_index=tmp_path / "sum",
        summarizer=lambda doc: f"The {doc.name.split('/')[0]} document.",
    )
    row = table.row("+summaries")
    assert not row.skipped and row.scores[8].doc_recall == 1.0


@needs_data
def test_cli_prints_a_table_and_json(small_corpus, monkeypatch):
    corpus, _ = small_corpus
    import lclfqa.eval.retrieval_eval as retrieval_eval

    monkeypatch.setattr(retrieval_eval, "get_embeddings", lambda *a, **kw: DeterministicFakeEmbedding(size=16))
    # the benchmark names files outside the 2-document slice: a clear error
    result = CliRunner().invoke(eval_app, ["retrieval", "--corpus", str(corpus), "--benchmark", str(BENCHMARK)])
    assert result.exit_code == 2 and "not in the corpus folder" in result.output
    bench = corpus.parent / "slice.json"
    tests = [t for t in json.loads(BENCHMARK.read_text())["tests"] if t["snippets"][0]["file_path"] == SLICE[0]]
    bench.write_text(json.dumps({"tests": tests}))
    args = ["retrieval", "--corpus", str(corpus), "--benchmark", str(bench), "--k", "1,8", "--limit", "5"]
    result = CliRunner().invoke(eval_app, [*args, "--configs", "bm25,+summaries"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "bm25" in out and "DRM" in out and "+summaries" in out and "skipped: needs an index" in out
    result = CliRunner().invoke(eval_app, [*args, "--configs", "+rewrites", "--rewrites", "0"])
    assert result.exit_code == 2 and "+rewrites needs --rewrites 1 or 3" in result.output
    result = CliRunner().invoke(eval_app, [*args, "--configs", "naive,hybrid", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["queries"] == 5 and data["ks"] == [1, 8]
    assert [c["name"] for c in data["configs"]] == ["naive", "hybrid"]
    assert set(data["configs"][0]["scores"]["8"]) == {"drm", "char_precision", "char_recall", "doc_recall"}
    result = CliRunner().invoke(eval_app, [*args, "--configs", "bogus"])
    assert result.exit_code == 2 and "unknown configuration" in result.output
    # --sample: a seeded random subset, the same for the same seed; more than there are takes all
    sampled = ["retrieval", "--corpus", str(corpus), "--benchmark", str(bench), "--k", "1,8", "--configs", "bm25"]
    flags = ["--sample", "3", "--json", "--per-query", "--seed"]
    runs = [json.loads(CliRunner().invoke(eval_app, [*sampled, *flags, s]).stdout) for s in ("1", "1", "2")]
    scores = [(r["configs"][0]["scores"], r["configs"][0]["per_query"]) for r in runs]
    assert [r["queries"] for r in runs] == [3, 3, 3] and scores[0] == scores[1]
    assert scores[2] != scores[0]  # another seed draws another subset (its per-query scores differ here)
    every = json.loads(CliRunner().invoke(eval_app, [*sampled, "--sample", "1000", "--json"]).stdout)
    assert every["queries"] == len(tests)


@needs_data
def test_a_gold_document_the_ingest_skipped_is_an_error_not_a_table_of_zeros(small_corpus, tmp_path: Path, monkeypatch):
    corpus, queries = small_corpus
    # the corpus holds its gold file as a symbolic link leading out of it: the file exists (the benchmark
    # loads), but the ingest does not follow such links, so none of its chunks are indexed
    linked = tmp_path / "linked"
    (linked / "privacy_qa").mkdir(parents=True)
    (linked / SLICE[0]).symlink_to(corpus / SLICE[0])
    with pytest.raises(GoldNotIndexed, match=r"1 of 1 gold documents .* privacy_qa/Keep.txt.*symbolic link"):
        run_retrieval_eval(queries[:2], linked, configs=["bm25"], ks=[1], embeddings=DeterministicFakeEmbedding(size=8))
    import lclfqa.eval.retrieval_eval as retrieval_eval

    monkeypatch.setattr(retrieval_eval, "get_embeddings", lambda *a, **kw: DeterministicFakeEmbedding(size=8))
    bench = tmp_path / "keep.json"
    tests = [t for t in json.loads(BENCHMARK.read_text())["tests"] if t["snippets"][0]["file_path"] == SLICE[0]]
    bench.write_text(json.dumps({"tests": tests[:2]}))
    args = ["retrieval", "--corpus", str(linked), "--benchmark", str(bench), "--configs", "bm25", "--k", "1"]
    result = CliRunner().invoke(eval_app, args)
    assert result.exit_code == 1 and "gold documents are not in the index" in " ".join(result.output.split())
    assert "Traceback" not in result.output


@needs_data
def test_cli_rewrites_and_summaries_use_the_chat_model(small_corpus, monkeypatch, tmp_path: Path):
    corpus, _ = small_corpus
    import lclfqa.eval.retrieval_eval as retrieval_eval

    monkeypatch.setattr(retrieval_eval, "get_embeddings", lambda *a, **kw: DeterministicFakeEmbedding(size=16))
    llm = ScriptedChat(
        script={
            "passage": "A privacy policy describes what personal data an app collects and shares.",
            "rewrites": json.dumps({"rewrites": ["What personal data does Keep collect?"], "translation": "x"}),
            "summary": "Keep's privacy policy: data collected, sharing, retention.",
        }
    )
    monkeypatch.setattr("lclfqa.llm.models.get_chat_model", lambda *a, **kw: llm)
    bench = corpus.parent / "slice.json"
    tests = [t for t in json.loads(BENCHMARK.read_text())["tests"] if t["snippets"][0]["file_path"] == SLICE[0]]
    bench.write_text(json.dumps({"tests": tests[:3]}))
    args = ["retrieval", "--corpus", str(corpus), "--benchmark", str(bench), "--k", "1,8", "--json"]
    configs = "hybrid,+rewrites,+scope+rewrites,+summaries"
    args += ["--configs", configs, "--rewrites", "1", "--summaries-index", str(tmp_path / "s")]
    result = CliRunner().invoke(eval_app, args)
    assert result.exit_code == 0, result.output
    rows = {c["name"]: c for c in json.loads(result.stdout)["configs"]}
    assert not rows["+rewrites"]["note"] and not rows["+summaries"]["note"]
    # the graph's search: scoped to Keep.txt, which every query names, so no chunk of the NDA
    assert not rows["+scope+rewrites"]["note"]
    assert all(s["drm"] == 0.0 for s in rows["+scope+rewrites"]["scores"].values())
    routes = llm.routes()
    # one query2doc per query, shared by +rewrites and +scope+rewrites
    assert routes.count("passage") == 3 and routes.count("rewrites") == 3
    assert routes.count("summary") == 2  # one summary per document
    rewrites_prompt = next(m for key, m, _ in llm.calls if key == "rewrites")
    assert "Answer in JSON" in str(rewrites_prompt[-1].content)


def test_graph_rewriter_builds_the_retrieve_nodes_query_lists():
    passage = (
        "Under section 25A(g)(6) no American Opportunity Tax Credit is allowed to married taxpayers filing a "
        "separate return."
    )
    llm = ScriptedChat(
        script={
            "passage": passage,
            "rewrites": json.dumps({"rewrites": ["Is the AOTC denied on a separate return?"], "translation": "x"}),
        }
    )
    sparse, dense = graph_rewriter(llm, n=1)("Can MFS filers claim the AOTC?")
    expanded = "Can MFS (married filing separately) filers claim the AOTC (American Opportunity Tax Credit)?"
    assert sparse[0] == "Can MFS filers claim the AOTC?" and sparse[1] == expanded
    assert sparse[2] == " ".join([expanded] * 5) + " " + passage
    assert dense[2] == f"{expanded}\n{passage}"
    assert sparse[3] == dense[3] == "Is the AOTC (American Opportunity Tax Credit) denied on a separate return?"
    broken = ScriptedChat(script={"passage": TimeoutError("the model timed out")})
    assert graph_rewriter(broken, n=1)("What is a REMIC?") == (
        ["What is a REMIC?", "What is a REMIC (real estate mortgage investment conduit)?"],
        ["What is a REMIC?", "What is a REMIC (real estate mortgage investment conduit)?"],
    )


class _TopicEmbeddings(Embeddings):
    """Two topics: texts about privacy policies point one way, everything else the other."""

    def embed_documents(self, texts):
        return [[1.0, 0.0] if "privacy" in t.lower() or "fiverr" in t.lower() else [0.0, 1.0] for t in texts]

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def test_graph_rewriter_drops_a_copied_few_shot_example():
    # What the 1.5B default did with a PrivacyQA question: it continued the tax examples.
    llm = ScriptedChat(
        script={
            "passage": "No. For exchanges completed after December 31, 2017, section 1031(a)(1) applies only to real "
            "property held for productive use in a trade or business.",
            "rewrites": json.dumps(
                {
                    "rewrites": [
                        "Is a PFIC (passive foreign investment company) distribution an excess distribution?",
                        "What information does Fiverr keep about its users?",  # shares few words, same meaning
                        "What does Fiverr's privacy policy say the company stores about me?",
                    ],
                    "translation": "x",
                }
            ),
        }
    )
    question = 'Consider "Fiverr"\'s privacy policy; what information does the company store about me?'
    sparse, dense = graph_rewriter(llm, n=3, embeddings=_TopicEmbeddings())(question)
    assert (
        sparse
        == dense
        == [
            question,
            "What information does Fiverr keep about its users?",
            "What does Fiverr's privacy policy say the company stores about me?",
        ]
    )
    # without an embedder the words alone decide; the copied example still goes
    sparse, _ = graph_rewriter(llm, n=3)(question)
    assert "PFIC" not in " ".join(sparse) and "1031" not in " ".join(sparse)
    assert "What does Fiverr's privacy policy say the company stores about me?" in sparse
