"""Synthetic QA generation (LCLF-QA Appendix A) with fake chat models and embeddings: k-means, cluster
choice, output parsing, the generation loop, the JSON Lines file and the ``synth`` command."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import typer
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.messages import BaseMessage
from typer.testing import CliRunner

from lclfqa.cli.eval_synth import synth
from lclfqa.config import Settings
from lclfqa.eval.datasets import load_qa_jsonl
from lclfqa.eval.synth.clusters import kmeans, pick_cluster
from lclfqa.eval.synth.config import STYLES, SynthConfig, SynthError
from lclfqa.eval.synth.evidence import verbatim_quotes
from lclfqa.eval.synth.generate import generate_from_pages, generate_synthetic_qa
from lclfqa.eval.synth.jsonl import write_jsonl
from lclfqa.eval.synth.pages import PageChunk, clean_text, page_chunks
from lclfqa.eval.synth.pairs import QAPair, parse_qa_pairs
from lclfqa.eval.synth.styles import QA_SCHEMA, synth_messages
from lclfqa.index.embedded import EmbeddedBackend
from lclfqa.index.ingest import ingest
from tests.fakes import ScriptedChat

_CHUNK = re.compile(r"<chunk>\n(.*?)\n</chunk>", re.S)
_RULE = re.compile(r"Rule [^:]+: [^.]+\.")


def _page(topic: str, number: int, rules: int = 4) -> str:
    body = " ".join(
        f"Rule {topic} {number}.{j}: a taxpayer who claims the {topic} credit must keep records for {j + 3} years."
        for j in range(rules)
    )
    return f"{number}. {topic.title()} rules\n\n{body}\n"


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs")
    # pages are separated by form feeds; credits pages are ~400 characters, payroll pages ~380, the long
    # page 4 of credits holds two children (~1,500 characters)
    credits = [_page("education", i) for i in range(1, 4)] + [_page("education", 4, rules=16)]
    (folder / "credits.txt").write_text("\f".join(credits), encoding="utf-8")
    (folder / "payroll.txt").write_text("\f".join(_page("payroll", i) for i in range(1, 4)), encoding="utf-8")
    out = tmp_path_factory.mktemp("idx") / "index"
    ingest([folder], out, Settings(), embeddings=DeterministicFakeEmbedding(size=32))
    return out


@pytest.fixture(scope="module")
def index(index_dir: Path):
    with EmbeddedBackend.load(index_dir) as idx:
        yield idx


def _last(messages: list[BaseMessage]) -> str:
    return str(messages[-1].content)


def bullet_model(answers: str = "rule") -> ScriptedChat:
    """Summaries echo the page's heading; each generation call returns two new bullet-format QA pairs whose
    first answer copies the first rule of the first chunk verbatim."""
    counter = itertools.count(1)

    def reply(messages: list[BaseMessage]) -> str:
        text = _last(messages)
        chunks = _CHUNK.findall(text)
        if "professional summarizer" in text:
            return f"The page sets out the {chunks[0].split(chr(10))[0]}."
        n = next(counter)
        rule = _RULE.search(chunks[0]).group(0) if answers == "rule" else "Keep the records."
        return (
            f"- Question 1: How does a taxpayer comply with requirement {n}a?\n"
            f"- Answer 1: {rule}\n"
            f"- Question 2: **What records** must be kept under requirement {n}b?\n"
            f"- Answer 2: The chunks say:\n  - records for three years\n  - receipts\n"
        )

    return ScriptedChat(script={"other": reply, "summary": reply})


def _generation_calls(llm: ScriptedChat) -> list[str]:
    return [_last(m) for _, m, _ in llm.calls if "professional summarizer" not in _last(m)]


# ------------------------------------------------------------------------------------------- prompts


def test_synth_messages_fill_every_style_and_the_summary():
    for name in STYLES:
        msgs = synth_messages(
            name, text="<chunk>\nTEXT\n</chunk>", combine="at least two of the chunks", output_format="FMT"
        )
        user = str(msgs[-1].content)
        assert len(msgs) == 2 and "<chunk>\nTEXT\n</chunk>" in user and user.rstrip().endswith("FMT")
        assert "Generate 2" in user and "at least two of the chunks" in user
        assert not re.search(r"\{\w+\}", user), f"unfilled placeholder in {name}"
        # the test fakes route on these words; a generator prompt must not contain them
        assert "Passage:" not in user and "booleans" not in user
    summary = synth_messages("summary", text="PAGE")
    assert "PAGE" in str(summary[-1].content) and "professional summarizer" in str(summary[-1].content)
    assert "domain-specific questions" in str(synth_messages("domain-specific", text="x")[-1].content)
    assert "MFS" in str(synth_messages("domain-specific", text="x")[-1].content)
    with pytest.raises(KeyError, match="no synthetic-QA prompt"):
        synth_messages("trivia", text="x")


# ------------------------------------------------------------------------------------------- k-means


def _blobs(seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    truth = np.repeat([0, 1, 2], [7, 5, 9])
    points = centres[truth] + rng.normal(scale=0.5, size=(len(truth), 2))
    order = rng.permutation(len(truth))
    return points[order], truth[order]


def test_kmeans_finds_hand_made_clusters_and_is_deterministic():
    points, truth = _blobs()
    labels, centroids = kmeans(points, 3, seed=0)
    # the same partition as the truth, up to the names of the clusters
    assert {tuple(np.flatnonzero(labels == c)) for c in range(3)} == {
        tuple(np.flatnonzero(truth == c)) for c in range(3)
    }
    assert labels[0] == 0  # labels in order of first appearance
    for c in range(3):
        assert np.allclose(centroids[c], points[labels == c].mean(axis=0))
    again, _ = kmeans(points, 3, seed=0)
    assert np.array_equal(labels, again)
    for seed in range(5):  # well-separated blobs: every seed finds them, with the same canonical labels
        assert np.array_equal(kmeans(points, 3, seed=seed)[0], labels)


def test_kmeans_edge_cases():
    same = np.ones((4, 3))
    labels, _ = kmeans(same, 2, seed=0)
    assert sorted(Counter(labels.tolist()).values()) == [1, 3]  # duplicates: no empty cluster
    assert kmeans(np.eye(3), 3)[0].tolist() == [0, 1, 2]
    assert kmeans(np.eye(3), 1)[0].tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="k must be between"):
        kmeans(np.eye(3), 4)
    with pytest.raises(ValueError, match="k must be between"):
        kmeans(np.eye(3), 0)


def test_pick_cluster_tries_other_clusters_until_one_has_n_pages():
    import random

    rejected_total = 0
    for seed in range(20):
        cluster, rejected = pick_cluster([1, 1, 3, 1], 2, random.Random(seed))
        assert cluster == 2
        rejected_total += rejected
    assert rejected_total > 0  # the small clusters were picked first sometimes
    assert pick_cluster([2], 2, random.Random(0)) == (0, 0)
    with pytest.raises(SynthError, match="no cluster has 2 pages"):
        pick_cluster([1, 1, 1], 2, random.Random(0))


# ------------------------------------------------------------------------------------------- parsing


def test_parse_bullet_format_of_the_paper():
    text = """Here are the questions:
- Question 1: How is the credit claimed?
- Answer 1: File Form 8863
  with the return.
- Question 2: What are the requirements?
- Answer 2:
  - a joint return
  - MAGI under the limit
"""
    assert parse_qa_pairs(text) == [
        QAPair("How is the credit claimed?", "File Form 8863\nwith the return."),
        QAPair("What are the requirements?", "- a joint return\n- MAGI under the limit"),
    ]
    bold = "**Question 1:** Why?\n**Answer 1:** Because.\n**Question 2**: What?\n**Answer 2**: That."
    assert parse_qa_pairs(bold) == [QAPair("Why?", "Because."), QAPair("What?", "That.")]
    short = "Q1: Is it allowed?\nA1: No.\nQ2: Why not?\nA2: Section 25A(g)(6)."
    assert parse_qa_pairs(short) == [QAPair("Is it allowed?", "No."), QAPair("Why not?", "Section 25A(g)(6).")]
    numbered = (
        "1. Question: What is QTRE?\n   Answer: Tuition and fees.\n2. Question: Who pays?\n   Answer: The student."
    )
    assert [p.question for p in parse_qa_pairs(numbered)] == ["What is QTRE?", "Who pays?"]


def test_parse_malformed_output_gives_no_pairs_and_never_raises():
    assert parse_qa_pairs("") == []
    assert parse_qa_pairs("I cannot help with that.") == []
    assert parse_qa_pairs("Question 1: Only a question?") == []  # no answer
    assert parse_qa_pairs("Answer 1: an answer with no question") == []
    assert parse_qa_pairs("- Question 1: Empty answer?\n- Answer 1:\n") == []
    assert parse_qa_pairs("- Question 1:\n- Answer 1: no question") == []
    assert parse_qa_pairs(None) == []  # type: ignore[arg-type]
    # a question without an answer is dropped, the complete pair after it kept
    assert parse_qa_pairs("Question 1: Lost?\nQuestion 2: Kept?\nAnswer 2: Yes.") == [QAPair("Kept?", "Yes.")]
    # more pairs than asked for: the first two
    many = "\n".join(f"Question {i}: Q{i}?\nAnswer {i}: A{i}." for i in range(1, 5))
    assert [p.question for p in parse_qa_pairs(many)] == ["Q1?", "Q2?"]
    assert len(parse_qa_pairs(many, limit=4)) == 4


def test_parse_json_output_bare_fenced_or_in_prose():
    obj = {
        "pairs": [{"question": "What is the AOTC?", "answer": "A credit."}, {"question": "Who?", "answer": "Students."}]
    }
    expected = [QAPair("What is the AOTC?", "A credit."), QAPair("Who?", "Students.")]
    assert parse_qa_pairs(json.dumps(obj)) == expected
    assert parse_qa_pairs(f"```json\n{json.dumps(obj)}\n```") == expected
    assert parse_qa_pairs(f"Sure! {json.dumps(obj)} Hope that helps.") == expected
    assert parse_qa_pairs('{"question": "Single?", "answer": "Yes."}') == [QAPair("Single?", "Yes.")]
    # wrong types and empty fields are dropped; broken JSON falls back to bullets (none here)
    assert parse_qa_pairs('{"pairs": [{"question": 3, "answer": "x"}, {"question": "", "answer": "y"}]}') == []
    assert parse_qa_pairs('{"pairs": "not a list"}') == []
    assert parse_qa_pairs('{"pairs": [{"question": "cut off') == []
    assert parse_qa_pairs('{"pairs": []}') == []


def test_verbatim_quotes_only_for_sentences_printed_on_a_source_page():
    page = PageChunk(
        "memo.pdf", 3, "The AOTC is a per-student credit\nfor the first four years of\npostsecondary education."
    )
    other = PageChunk("letter.txt", 1, "Our fee is fixed.")
    answer = (
        "Yes. The AOTC is a per-student credit for the first four years of postsecondary education. "
        "It is worth up to $2,500 per student in every single year."
    )
    assert verbatim_quotes(answer, [other, page]) == [
        {
            "document": "memo.pdf",
            "page": 3,
            "quote": "The AOTC is a per-student credit for the first four years of postsecondary education.",
        }
    ]
    assert verbatim_quotes("The AOTC is a credit for the first four years of college study.", [page]) == []
    assert verbatim_quotes("Yes.", [page]) == []  # too short to be evidence


# --------------------------------------------------------------------------------------- page chunks


def test_clean_text_strips_markup_and_keeps_text():
    raw = "<section-header>§ 25A › (b)</section-header>\nThe credit.\n\n\n\n<footnote>1 See §1.25A-3.</footnote>  "
    assert clean_text(raw) == "§ 25A › (b)\nThe credit.\n\n1 See §1.25A-3."


def test_page_chunks_group_children_by_document_and_page(index: EmbeddedBackend):
    pages = page_chunks(index)
    keys = [(p.document, p.page, p.part) for p in pages]
    assert keys == [("credits.txt", i, 0) for i in range(1, 5)] + [("payroll.txt", i, 0) for i in range(1, 4)]
    for p in pages:
        assert f"{p.page}. " in p.text.splitlines()[0]
        assert "<section-header>" not in p.text
    assert len(pages[3].text) > 1000  # the long page: several children in one page chunk
    # near-empty pages skipped: the payroll pages are shorter than 390 characters
    assert {p.document for p in page_chunks(index, min_chars=390)} == {"credits.txt"}
    # an over-long page is split at child boundaries into parts of the same page
    split = [p for p in page_chunks(index, max_chars=1000) if p.page == 4 and p.document == "credits.txt"]
    assert [p.part for p in split] == [0, 1] and all(len(p.text) <= 1000 for p in split)
    assert " ".join(p.text for p in split).count("Rule education 4.") == 16


# ---------------------------------------------------------------------------------------- generation


def test_generation_respects_the_budget_and_writes_loadable_records(index: EmbeddedBackend, tmp_path: Path):
    llm = bullet_model()
    config = SynthConfig(budget=5, clusters=2, chunks_per_question=2, seed=3)
    report = generate_synthetic_qa(index, llm, DeterministicFakeEmbedding(size=16), config)
    assert len(report.records) == 5  # 2 + 2 + 1: the last call's second pair is not used
    assert report.generation_calls == 3 and report.pages == 7 and report.pages_summarised == 7
    assert report.llm_calls == 7 + 3 and report.malformed_outputs == 0 and report.clusters == 2
    assert sum(report.cluster_sizes) == 7
    assert [r["id"] for r in report.records] == [f"SYN-{i:04d}" for i in range(1, 6)]
    for r in report.records:
        assert r["synthetic"] is True and r["question_style"] in STYLES
        assert len(r["source_chunks"]) == 2
        assert r["documents"] == list(dict.fromkeys(c["document"] for c in r["source_chunks"]))
        for ev in r["evidence"]:  # evidence quotes are printed on a source page
            src = next(c for c in r["source_chunks"] if (c["document"], c["page"]) == (ev["document"], ev["page"]))
            assert ev["quote"] in " ".join(src["text"].split())
    first = report.records[0]
    assert first["evidence"] and first["evidence"][0]["quote"] == first["gold_answer"]
    assert report.records[1]["evidence"] == []  # "The chunks say: …" is printed nowhere

    out = write_jsonl(report.records, tmp_path / "sub" / "synthetic.jsonl")
    items = load_qa_jsonl(out)
    assert [i.id for i in items] == [r["id"] for r in report.records]
    assert items[0].question == first["question"] and items[0].gold_answer == first["gold_answer"]
    assert items[0].evidence[0].quote == first["evidence"][0]["quote"] and items[0].evidence[0].page is not None
    assert items[0].question_style == first["question_style"] and items[0].documents == tuple(first["documents"])
    assert [p.name for p in out.parent.iterdir()] == ["synthetic.jsonl"]  # no temporary file left


def test_generation_is_reproducible_for_a_seed(index: EmbeddedBackend):
    def run(seed: int) -> list[dict]:
        config = SynthConfig(budget=6, clusters=2, seed=seed)
        return generate_synthetic_qa(index, bullet_model(), DeterministicFakeEmbedding(size=16), config).records

    first = run(7)
    assert run(7) == first
    assert any(run(s) != first for s in (8, 9, 10))  # the seed changes the chunks and styles chosen


def test_styles_come_in_shuffled_rounds(index: EmbeddedBackend):
    llm = bullet_model()
    config = SynthConfig(budget=24, clusters=2, seed=0)
    report = generate_synthetic_qa(index, llm, DeterministicFakeEmbedding(size=16), config)
    assert report.style_counts == {s: 4 for s in STYLES}  # 12 calls = 2 rounds of 6 styles, 2 pairs each
    calls = _generation_calls(llm)
    order = [r["question_style"] for r in report.records[::2]]
    assert set(order[:6]) == set(STYLES) and set(order[6:]) == set(STYLES)
    assert order[:6] != list(STYLES) or order[6:] != list(STYLES)  # shuffled, not the fixed order
    for style, prompt in zip(order, calls, strict=True):  # each call used its style's prompt
        assert f"{style}-based questions" in prompt or (style == "domain-specific" and "domain-specific" in prompt)
        assert "Question 1: <question1>" in prompt  # the fake has no constrained decoding: bullet format
    only = generate_synthetic_qa(
        index, bullet_model(), DeterministicFakeEmbedding(size=16), SynthConfig(budget=4, styles=("list",))
    )
    assert {r["question_style"] for r in only.records} == {"list"}


class KeywordEmbeddings(Embeddings):
    """Texts about 'alpha' near (1, 0), everything else near (0, 1)."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.01 * i] if "alpha" in t else [0.0, 1.0, 0.01 * i] for i, t in enumerate(texts)]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def _pages(alpha: int, beta: int) -> list[PageChunk]:
    rules = "Rule {t} {i}.0: a taxpayer who claims the {t} credit must keep records for three years."
    return [PageChunk("a.txt", i, rules.format(t="alpha", i=i)) for i in range(1, alpha + 1)] + [
        PageChunk("b.txt", i, rules.format(t="beta", i=i)) for i in range(1, beta + 1)
    ]


def test_cluster_with_fewer_than_n_pages_is_never_used():
    pages = _pages(alpha=1, beta=4)
    llm = bullet_model()
    report = generate_from_pages(pages, llm, KeywordEmbeddings(), SynthConfig(budget=20, clusters=2, seed=1))
    assert sorted(report.cluster_sizes) == [1, 4]
    assert len(report.records) == 20
    assert report.cluster_rejections > 0  # the 1-page cluster was picked, and another was picked instead
    assert all(c["document"] == "b.txt" for r in report.records for c in r["source_chunks"])
    # the two chunks of a call are distinct pages
    assert all(len({c["page"] for c in r["source_chunks"]}) == 2 for r in report.records)


def test_clusters_are_capped_so_that_one_holds_n_pages():
    report = generate_from_pages(_pages(1, 2), bullet_model(), KeywordEmbeddings(), SynthConfig(budget=2, clusters=5))
    assert report.clusters == 1 and report.cluster_sizes == [3] and len(report.records) == 2
    with pytest.raises(SynthError, match="1 page"):
        generate_from_pages(_pages(1, 0), bullet_model(), KeywordEmbeddings(), SynthConfig(budget=2))


def test_max_pages_limits_the_summaries(index: EmbeddedBackend):
    llm = bullet_model()
    report = generate_synthetic_qa(index, llm, DeterministicFakeEmbedding(size=16), SynthConfig(budget=2, max_pages=3))
    assert report.pages == 7 and report.pages_summarised == 3
    assert sum("professional summarizer" in _last(m) for _, m, _ in llm.calls) == 3


def test_malformed_and_duplicate_output_is_counted_and_the_call_limit_ends_the_run():
    garbage = ScriptedChat(script={"other": "Sorry, I can only talk about the weather."})
    report = generate_from_pages(_pages(0, 4), garbage, KeywordEmbeddings(), SynthConfig(budget=4, max_calls=5))
    assert report.records == [] and report.malformed_outputs == 5 and report.generation_calls == 5

    same = ScriptedChat(script={"other": "Question 1: Same?\nAnswer 1: Yes.\nQuestion 2: same\nAnswer 2: Again."})
    report = generate_from_pages(_pages(0, 4), same, KeywordEmbeddings(), SynthConfig(budget=4))
    assert [r["question"] for r in report.records] == ["Same?"]  # "same" is the same question
    assert report.generation_calls == SynthConfig(budget=4).call_limit == 6
    assert report.dropped_pairs == 1 + 2 * 5


def test_llm_failures_are_survived_then_reported():
    pages = _pages(0, 4)
    broken_summary = {"n": 0}

    def flaky(messages: list[BaseMessage]) -> str:
        text = _last(messages)
        if "professional summarizer" in text:
            broken_summary["n"] += 1
            if broken_summary["n"] == 2:
                raise RuntimeError("timeout")
            return "A summary about beta."
        return "Question 1: Why keep records?\nAnswer 1: The rule says so."

    report = generate_from_pages(
        pages, ScriptedChat(script={"other": flaky}), KeywordEmbeddings(), SynthConfig(budget=1)
    )
    assert report.summary_failures == 1 and report.pages_summarised == 3 and report.failed_calls == 1
    assert len(report.records) == 1

    def down(messages: list[BaseMessage]) -> str:
        if "professional summarizer" in _last(messages):
            return "A summary about beta."
        raise ConnectionError("connection refused")

    with pytest.raises(SynthError, match="failed 5 times in a row.*connection refused"):
        generate_from_pages(pages, ScriptedChat(script={"other": down}), KeywordEmbeddings(), SynthConfig(budget=4))


class JsonChat(ScriptedChat):
    supports_json_schema: bool = True  # what lclfqa.llm.llama.ChatLlama says: a grammar is built from the schema


def test_constrained_models_get_the_json_schema_and_a_json_prompt():
    reply = json.dumps({"pairs": [{"question": "What must be kept?", "answer": "Records for three years."}]})
    llm = JsonChat(script={"other": lambda m: "A summary." if "summarizer" in _last(m) else reply})
    report = generate_from_pages(_pages(0, 3), llm, KeywordEmbeddings(), SynthConfig(budget=1))
    assert [r["question"] for r in report.records] == ["What must be kept?"]
    generation = [(m, k) for _, m, k in llm.calls if "summarizer" not in _last(m)]
    assert generation[0][1]["response_format"]["schema"] == QA_SCHEMA
    assert '"pairs"' in _last(generation[0][0]) and "Question 1: <question1>" not in _last(generation[0][0])


def test_config_validation():
    with pytest.raises(ValueError, match="unknown question style"):
        SynthConfig(styles=("trivia",))
    with pytest.raises(ValueError, match="budget"):
        SynthConfig(budget=0)
    assert SynthConfig(budget=5).call_limit == 9


# ------------------------------------------------------------------------------------------- writing


def test_write_jsonl_is_atomic(tmp_path: Path):
    path = tmp_path / "out.jsonl"
    write_jsonl([{"id": "a", "question": "Ünïcode?", "gold_answer": "x"}], path)
    assert path.read_text(encoding="utf-8") == '{"id": "a", "question": "Ünïcode?", "gold_answer": "x"}\n'
    with pytest.raises(TypeError):
        write_jsonl([{"id": "b"}, {"id": object()}], path)  # fails half-way
    assert json.loads(path.read_text(encoding="utf-8"))["id"] == "a"  # the old file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]


# ----------------------------------------------------------------------------------------------- CLI

runner = CliRunner()


@pytest.fixture
def cli_app(monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    llm = bullet_model()
    monkeypatch.setattr("lclfqa.llm.models.get_chat_model", lambda *a, **k: llm)
    monkeypatch.setattr("lclfqa.llm.models.get_embeddings", lambda *a, **k: DeterministicFakeEmbedding(size=16))
    app = typer.Typer()
    app.command()(synth)
    return app


def test_cli_writes_a_loadable_file(cli_app: typer.Typer, index_dir: Path, tmp_path: Path):
    out = tmp_path / "syn.jsonl"
    args = ["--index", str(index_dir), "--out", str(out), "--budget", "3", "--clusters", "2", "--chunks", "2"]
    result = runner.invoke(cli_app, [*args, "--styles", "reason,list", "--seed", "4", "--quiet"])
    assert result.exit_code == 0, result.output
    items = load_qa_jsonl(out)
    assert len(items) == 3 and {i.question_style for i in items} <= {"reason", "list"}
    assert "wrote 3 QA pairs" in result.output


def test_cli_errors(cli_app: typer.Typer, index_dir: Path, tmp_path: Path):
    out = tmp_path / "syn.jsonl"
    missing = runner.invoke(cli_app, ["--index", str(tmp_path / "nope"), "--out", str(out)])
    assert missing.exit_code == 2
    lines = [line for line in missing.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: no index at") and "nope" in lines[0]
    bad_style = runner.invoke(cli_app, ["--index", str(index_dir), "--out", str(out), "--styles", "reason,trivia"])
    assert bad_style.exit_code == 2 and "unknown question style(s) trivia" in bad_style.output
    too_many = runner.invoke(cli_app, ["--index", str(index_dir), "--out", str(out), "--chunks", "9", "-q"])
    assert too_many.exit_code == 1 and "9 chunks per question" in too_many.output
    assert not out.exists()
