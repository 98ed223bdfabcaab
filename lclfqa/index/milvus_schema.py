"""The Milvus backend's collections and how chunks become rows and rows chunks.

Four collections per index, named ``<prefix>_chunks``, ``_parents``, ``_links`` and ``_documents``:

- **chunks**: every searchable chunk (section child, footnote child). ``tokens`` holds our BM25 tokens
  (:func:`lclfqa.index.tokens.tokenize`) joined by spaces; a whitespace analyzer hands them to Milvus's
  BM25 function, which fills the ``sparse`` field, so Milvus ranks the same terms as the embedded backend
  (its English analyzer would stem and split differently: no citation compounds such as ``1.25a-1(b)``,
  another stop list). ``dense`` is the unit vector (inner product = cosine).
- **parents**: parent chunks, fetched by id to widen a hit (``parents_of``: the child's ``parent_ids``).
- **links**: one row per (child, parent) pair, so that ``children_of`` is one filtered query. (Not an
  ARRAY field on the children: pymilvus 2.5.18 cannot read an empty result from Milvus Lite 2.5.1 when
  the collection has an ARRAY field.) Milvus needs a vector field in every collection; parents, links
  and documents carry a constant 2-d placeholder that is never searched.
- **documents**: one row per document (its :class:`~lclfqa.index.records.DocumentRecord` as JSON, its
  content hash, its position), and one ``_meta`` row: embedding model, dimension, recorded settings.

Documents are filtered by ``doc_key`` (a hash of the name), never by the name itself: a name may hold
quotes or control characters that Milvus's filter expressions cannot carry.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from lclfqa.index.records import chunk_from_fields, embedding_text, text_sha256
from lclfqa.index.sparse import BM25_PARAMS
from lclfqa.index.tokens import tokenize
from lclfqa.ingest.document import PARENT, Chunk

__all__ = [
    "MAX_TEXT_BYTES",
    "META_KEY",
    "PLACEHOLDER",
    "chunk_from_row",
    "chunk_row",
    "collection_names",
    "create_collections",
    "doc_key",
    "link_rows",
    "literal",
]

#: Milvus's longest VARCHAR, in bytes of UTF-8.
MAX_TEXT_BYTES = 65_535
META_KEY = "_meta"
PLACEHOLDER = [0.0, 0.0]
#: The fields of a chunk, in :class:`~lclfqa.ingest.document.Chunk`'s order, then where it stands.
CHUNK_ORDER = [
    "id",
    "kind",
    "document",
    "text",
    "section_path",
    "page_start",
    "page_end",
    "start",
    "end",
    "parent_ids",
    "indexed_text",
    "footnote_numbers",
]
CHUNK_FIELDS = [*CHUNK_ORDER, "doc_key", "seq"]


def collection_names(prefix: str) -> dict[str, str]:
    """``{"chunks": ..., "parents": ..., "documents": ...}`` for a collection prefix."""
    return {part: f"{prefix}_{part}" for part in ("chunks", "parents", "links", "documents")}


def doc_key(name: str) -> str:
    """The filterable key of a document name."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:24]


def literal(value: str) -> str:
    """``value`` as a Milvus filter string literal (ids only; they carry no control characters)."""
    return json.dumps(value, ensure_ascii=False)


def _chunk_fields(schema: Any, datatype: Any) -> None:
    schema.add_field("id", datatype.VARCHAR, is_primary=True, max_length=512)
    schema.add_field("doc_key", datatype.VARCHAR, max_length=64)
    schema.add_field("document", datatype.VARCHAR, max_length=MAX_TEXT_BYTES)
    schema.add_field("kind", datatype.VARCHAR, max_length=16)
    schema.add_field("seq", datatype.INT64)
    schema.add_field("text", datatype.VARCHAR, max_length=MAX_TEXT_BYTES)
    schema.add_field("indexed_text", datatype.VARCHAR, max_length=MAX_TEXT_BYTES)
    schema.add_field("section_path", datatype.VARCHAR, max_length=MAX_TEXT_BYTES)
    schema.add_field("page_start", datatype.INT64)
    schema.add_field("page_end", datatype.INT64)
    schema.add_field("start", datatype.INT64)  # -1: none (Milvus Lite has no nullable fields)
    schema.add_field("end", datatype.INT64)
    schema.add_field("parent_ids", datatype.VARCHAR, max_length=MAX_TEXT_BYTES)
    schema.add_field("footnote_numbers", datatype.VARCHAR, max_length=MAX_TEXT_BYTES)


def create_collections(client: Any, prefix: str, dimension: int) -> None:
    """Create whichever of the three collections is missing (dense vectors of ``dimension``; 0: only the
    documents collection, until the first searchable chunk says the dimension)."""
    from pymilvus import DataType, Function, FunctionType

    names = collection_names(prefix)
    if dimension and not client.has_collection(names["chunks"]):
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        _chunk_fields(schema, DataType)
        schema.add_field("text_sha256", DataType.VARCHAR, max_length=64)
        schema.add_field(
            "tokens",
            DataType.VARCHAR,
            max_length=MAX_TEXT_BYTES,
            enable_analyzer=True,
            analyzer_params={"tokenizer": "whitespace"},
        )
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dimension)
        schema.add_function(
            Function(
                name="bm25",
                function_type=FunctionType.BM25,
                input_field_names=["tokens"],
                output_field_names=["sparse"],
            )
        )
        index = client.prepare_index_params()
        index.add_index(
            "sparse",
            index_type="SPARSE_INVERTED_INDEX",
            metric_type="BM25",
            params={"bm25_k1": BM25_PARAMS["k1"], "bm25_b": BM25_PARAMS["b"]},
        )
        # Milvus Lite searches FLAT whatever is asked; a server builds the graph AUTOINDEX picks (HNSW).
        index.add_index("dense", index_type="AUTOINDEX", metric_type="IP")
        index.add_index("doc_key", index_type="INVERTED")
        client.create_collection(names["chunks"], schema=schema, index_params=index, consistency_level="Strong")
    if dimension and not client.has_collection(names["parents"]):
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        _chunk_fields(schema, DataType)
        schema.add_field("placeholder", DataType.FLOAT_VECTOR, dim=len(PLACEHOLDER))
        index = client.prepare_index_params()
        index.add_index("placeholder", index_type="FLAT", metric_type="L2")
        client.create_collection(names["parents"], schema=schema, index_params=index, consistency_level="Strong")
    if dimension and not client.has_collection(names["links"]):
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=1040)
        schema.add_field("child_id", DataType.VARCHAR, max_length=512)
        schema.add_field("parent_id", DataType.VARCHAR, max_length=512)
        schema.add_field("doc_key", DataType.VARCHAR, max_length=64)
        schema.add_field("placeholder", DataType.FLOAT_VECTOR, dim=len(PLACEHOLDER))
        index = client.prepare_index_params()
        index.add_index("placeholder", index_type="FLAT", metric_type="L2")
        index.add_index("parent_id", index_type="INVERTED")
        client.create_collection(names["links"], schema=schema, index_params=index, consistency_level="Strong")
    if not client.has_collection(names["documents"]):
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("doc_key", DataType.VARCHAR, is_primary=True, max_length=64)
        schema.add_field("position", DataType.INT64)
        schema.add_field("content_hash", DataType.VARCHAR, max_length=64)
        schema.add_field("record", DataType.VARCHAR, max_length=MAX_TEXT_BYTES)
        schema.add_field("placeholder", DataType.FLOAT_VECTOR, dim=len(PLACEHOLDER))
        index = client.prepare_index_params()
        index.add_index("placeholder", index_type="FLAT", metric_type="L2")
        client.create_collection(names["documents"], schema=schema, index_params=index, consistency_level="Strong")


def _check_size(chunk: Chunk, field: str, value: str) -> str:
    if len(value) * 4 > MAX_TEXT_BYTES and len(value.encode("utf-8")) > MAX_TEXT_BYTES:
        raise ValueError(
            f"chunk {chunk.id!r} of {chunk.document!r}: its {field} is over Milvus's {MAX_TEXT_BYTES}-byte limit; "
            "lower parent_size/child_size, or use the embedded backend"
        )
    return value


def chunk_row(chunk: Chunk, seq: int, vector: np.ndarray | None) -> dict[str, Any]:
    """The row of ``chunk`` (the ``seq``-th of its document): for the chunks collection with its unit
    ``vector``, for the parents collection (``vector`` None) with the placeholder."""
    row: dict[str, Any] = {
        "id": chunk.id,
        "doc_key": doc_key(chunk.document),
        "document": _check_size(chunk, "document name", chunk.document),
        "kind": chunk.kind,
        "seq": seq,
        "text": _check_size(chunk, "text", chunk.text),
        "indexed_text": _check_size(chunk, "indexed text", chunk.indexed_text),
        "section_path": _check_size(chunk, "section path", json.dumps(list(chunk.section_path), ensure_ascii=False)),
        "page_start": chunk.page_start,
        "page_end": chunk.page_end,
        "start": -1 if chunk.start is None else chunk.start,
        "end": -1 if chunk.end is None else chunk.end,
        "parent_ids": json.dumps(list(chunk.parent_ids), ensure_ascii=False),
        "footnote_numbers": json.dumps(list(chunk.footnote_numbers), ensure_ascii=False),
    }
    if chunk.kind == PARENT:
        row["placeholder"] = PLACEHOLDER
        return row
    text = embedding_text(chunk)
    row["text_sha256"] = text_sha256(text)
    row["tokens"] = _check_size(chunk, "token list", " ".join(tokenize(text)))
    row["dense"] = [float(x) for x in np.asarray(vector, dtype=np.float32)]
    return row


def link_rows(chunk: Chunk) -> list[dict[str, Any]]:
    """The rows of the links collection for ``chunk`` (one per parent it names)."""
    key = doc_key(chunk.document)
    return [
        {"id": f"{chunk.id}>{p}", "child_id": chunk.id, "parent_id": p, "doc_key": key, "placeholder": PLACEHOLDER}
        for p in chunk.parent_ids
    ]


def chunk_from_row(row: dict[str, Any]) -> Chunk:
    """The chunk a row of the chunks or parents collection holds."""
    offsets = {"start": None if row["start"] < 0 else row["start"], "end": None if row["end"] < 0 else row["end"]}
    return chunk_from_fields([offsets.get(name, row[name]) for name in CHUNK_ORDER])
