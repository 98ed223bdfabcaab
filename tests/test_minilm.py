"""MiniLM on ONNX Runtime (lclfqa.llm.minilm): the same vectors as sentence-transformers, no torch."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from lclfqa.llm import minilm

TEXTS = [
    "A partnership files an information return; the partners report their distributive shares.",
    "Penalty: 60 penalty units.",
    "§ 1.25A-1(c) phases the credit out between $80,000 and $100,000 of modified adjusted gross income. " * 12,
    "lease",
    "The court held that the clause was a penalty and therefore unenforceable, because the sum stipulated "
    "was extravagant in comparison with the greatest loss that could conceivably be proved.",
]


@pytest.fixture(scope="module")
def reference() -> np.ndarray:
    sentence_transformers = pytest.importorskip("sentence_transformers")
    model = sentence_transformers.SentenceTransformer(str(minilm.package_dir()), device="cpu")
    return np.asarray(model.encode(TEXTS, normalize_embeddings=True), dtype=np.float32)


def test_fp32_graph_gives_sentence_transformers_vectors(reference: np.ndarray) -> None:
    vectors = minilm.MiniLM("fp32").encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > 0.9999, cosines
    # the long text is truncated at 256 word pieces, as sentence-transformers does
    assert minilm.MiniLM("fp32").token_counts(TEXTS)[2] == minilm.MAX_TOKENS


def test_int8_graph_stays_close(reference: np.ndarray) -> None:
    vectors = minilm.MiniLM("int8").encode(TEXTS)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() > 0.99, cosines
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_int8_vectors_do_not_depend_on_their_batch() -> None:
    """Each token is quantised with its own scale, so neither the texts batched beside a text nor the
    padding they need can move its vector: the same bits at batch 1 and batch 5 (quantising a whole batch
    with one scale, as ONNX Runtime's dynamic quantisation does, moved them by up to 0.03)."""
    together = minilm.MiniLM("int8", batch_size=len(TEXTS)).encode(TEXTS)
    alone = minilm.MiniLM("int8", batch_size=1).encode(TEXTS)
    assert np.array_equal(together, alone)
    reordered = minilm.MiniLM("int8", batch_size=2).encode(TEXTS[::-1])[::-1]
    assert np.array_equal(together, reordered)


def test_rows_follow_the_input_order_whatever_the_batches() -> None:
    model = minilm.MiniLM("fp32", batch_size=2)
    together = model.encode(TEXTS)
    alone = np.stack([model.encode([t])[0] for t in TEXTS])
    assert np.allclose(together, alone, atol=1e-5)
    assert model.encode([]).shape == (0, 384)


def test_the_embedder_counts_the_word_pieces_it_runs() -> None:
    from lclfqa.llm.models import LocalSentenceEmbeddings

    counts = LocalSentenceEmbeddings().token_counts(TEXTS)
    assert counts == minilm.MiniLM("fp32").token_counts(TEXTS)
    assert counts[3] == 3 and counts[2] == minilm.MAX_TOKENS  # [CLS] lease [SEP]; truncated as it runs


def test_the_graph_is_written_once(tmp_path) -> None:
    first = minilm.model_file("fp32", directory=tmp_path)
    stamp = first.stat().st_mtime_ns
    assert minilm.model_file("fp32", directory=tmp_path) == first
    assert first.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.rglob("*.tmp*")] == []


def test_embedding_a_query_imports_no_torch() -> None:
    code = (
        "import sys\n"
        "from lclfqa.llm.models import get_embeddings\n"
        "get_embeddings().embed_query('a question')\n"
        "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_cache_that_cannot_be_written_falls_back_to_the_temporary_folder(tmp_path, caplog) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    path = minilm.model_file("fp32", directory=blocker / "cache")
    assert path.exists() and blocker.read_text() == "not a folder"
    assert "cannot write MiniLM's graph" in caplog.text


def test_the_int8_embedder_runs_the_int8_graph() -> None:
    from lclfqa.llm.models import LOCAL_EMBEDDER_INT8, LocalSentenceEmbeddings, get_embeddings

    embedder = get_embeddings(LOCAL_EMBEDDER_INT8)
    assert isinstance(embedder, LocalSentenceEmbeddings) and embedder.variant == "int8"
