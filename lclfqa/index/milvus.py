"""The Milvus backend: the :class:`~lclfqa.index.protocol.IndexBackend` contract on Milvus.

One URI reaches every size: a local path ending in ``.db`` starts Milvus Lite (the Milvus engine inside
this process; one process per file), ``http://host:19530`` a Milvus standalone or cluster. Collections
and rows are :mod:`lclfqa.index.milvus_schema`'s. Hybrid search runs on the server: one BM25 request per
sparse query and one dense request per vector, fused by ``RRFRanker(rrf_k)``, scores scaled by the (equal)
list weight; with unequal weights, which Milvus's RRF cannot apply, the lists are fused here instead.

Writes are per document and idempotent: a document whose content hash is stored unchanged is skipped;
otherwise its chunks are upserted by id, the ids it no longer has deleted, and its document row, which
carries the hash, written last, so that a crash mid-way makes the next ingest redo it. Milvus has no
multi-row transactions: a reader during a write may see a replaced document's old and new chunks mixed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import warnings
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, astuple
from pathlib import Path
from typing import Any

import numpy as np

from lclfqa.index.errors import BackendUnavailable, EmbedderMismatch, IndexNotFound
from lclfqa.index.fusion import Fusion
from lclfqa.index.hybrid import fuse_searches
from lclfqa.index.lock import writer_lock
from lclfqa.index.milvus_schema import (
    CHUNK_FIELDS,
    META_KEY,
    PLACEHOLDER,
    chunk_from_row,
    chunk_row,
    collection_names,
    create_collections,
    doc_key,
    link_rows,
    literal,
)
from lclfqa.index.protocol import Progress, Ranked, Scope
from lclfqa.index.records import KINDS, DocumentBatch, DocumentRecord, IndexStats, same_model, unit_queries
from lclfqa.index.tokens import TOKENIZER_VERSION, tokenize
from lclfqa.ingest.document import CHILD, FOOTNOTE, PARENT, Chunk

__all__ = ["MilvusBackend", "milvus_client"]

#: Rows per insert/upsert call: large enough to amortise the round trip, small enough for gRPC's 64 MB.
BATCH_ROWS = 1000
#: Ids or hashes per ``in [...]`` filter.
FILTER_BATCH = 1000
#: Milvus's largest ``limit`` (topk).
MAX_LIMIT = 16_384


def milvus_client(uri: str, token: str | None = None, *, create: bool = False) -> Any:
    """A ``pymilvus.MilvusClient`` for ``uri``, or a :class:`BackendUnavailable` saying what to do."""
    local = uri.endswith(".db") and "://" not in uri
    if not local and not uri.startswith(("http://", "https://", "tcp://", "unix:")):
        raise BackendUnavailable(
            f"milvus_uri {uri!r} is neither a local file ending in .db (Milvus Lite) nor http(s)://host:port "
            "(a Milvus server); fix --milvus-uri / LCLFQA_MILVUS_URI"
        )
    try:
        with warnings.catch_warnings():  # milvus-lite 2.5.1 imports pkg_resources, which warns
            warnings.simplefilter("ignore")
            from pymilvus import MilvusClient
            from pymilvus.exceptions import MilvusException
        # pymilvus logs every failed call and iterator fallback itself; its errors reach the user as ours
        for name in ("pymilvus", "pymilvus.milvus_client"):  # pymilvus configures both itself
            logging.getLogger(name).setLevel(logging.CRITICAL)
    except ImportError as exc:
        raise BackendUnavailable(
            f"index_backend 'milvus' needs pymilvus (and milvus-lite for a .db file), which cannot be imported "
            f"here ({exc}); install them with: pip install 'lclfqa[milvus]'"
        ) from None
    if local:
        path = Path(uri)
        if not path.exists() and not create:
            raise IndexNotFound(f"no index at {uri}: the Milvus Lite file does not exist (run ingest to build it)")
        if path.parent and not path.parent.is_dir():
            if not create:
                raise IndexNotFound(f"no index at {uri}: its folder does not exist (run ingest to build it)")
            path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return MilvusClient(uri, token=token or "", timeout=10)
    except MilvusException as exc:
        if local:
            raise BackendUnavailable(
                f"cannot open Milvus Lite file {uri} ({exc.message}): Milvus Lite lets one process open a file "
                "at a time; stop the other lclfqa using it, or serve it from a Milvus server (docs/scaling.md)"
            ) from None
        raise BackendUnavailable(
            f"cannot reach Milvus at {uri} ({exc.message}); check that the server runs, the URI and the token"
        ) from None
    except ModuleNotFoundError as exc:
        raise BackendUnavailable(
            f"a local .db Milvus URI needs milvus-lite ({exc}); pip install 'lclfqa[milvus]', or use a server URI"
        ) from None


def _content_hash(record: DocumentRecord, chunks: Sequence[Chunk], embedding_model: str) -> str:
    """What decides whether a stored document is unchanged: its record, its chunks, the embedder."""
    payload = json.dumps(
        [asdict(record), [astuple(c) for c in chunks], embedding_model], ensure_ascii=False, default=list
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


class MilvusBackend:
    """An index in Milvus collections ``<prefix>_chunks``, ``_parents``, ``_links`` and ``_documents`` (see
    :mod:`lclfqa.index.milvus_schema`).

    ``MilvusBackend.connect(uri, prefix=..., lock_dir=...)`` opens it; ``lock_dir`` is the folder whose
    writer lock (:mod:`lclfqa.index.lock`) serialises writers on this machine. Safe to share between
    threads (pymilvus's client is).
    """

    def __init__(self, client: Any, uri: str, prefix: str, lock_dir: Path) -> None:  # use connect()
        self._client = client
        self.uri = uri
        self.prefix = prefix
        self.lock_dir = lock_dir
        self._names = collection_names(prefix)
        self._lock = threading.Lock()
        self._cache: dict[str, Chunk] = {}
        self._meta: dict[str, Any] = {}
        self._documents: dict[str, DocumentRecord] = {}
        self._hashes: dict[str, str] = {}
        self._positions: dict[str, int] = {}
        self._searchable = 0

    @classmethod
    def connect(
        cls,
        uri: str,
        *,
        token: str | None = None,
        prefix: str = "lclfqa",
        lock_dir: str | Path,
        create: bool = False,
    ) -> MilvusBackend:
        """Open the index under ``prefix`` at ``uri``; ``IndexNotFound`` where there is none, unless
        ``create`` (then its collections are made on the first add)."""
        if not prefix.replace("_", "a").isalnum() or not prefix[:1].isalpha() or not prefix.isascii():
            raise BackendUnavailable(
                f"milvus_prefix {prefix!r} must start with a letter and hold only ASCII letters, digits and _"
            )
        client = milvus_client(uri, token, create=create)
        self = cls(client, uri, prefix, Path(lock_dir))
        try:
            if not client.has_collection(self._names["documents"]):
                if not create:
                    raise IndexNotFound(
                        f"no index at {self.location} (run `lclfqa ingest --backend milvus` to build it)"
                    )
            else:
                for name in self._names.values():
                    if client.has_collection(name):
                        client.load_collection(name)
                self._refresh()
        except BaseException:
            client.close()
            raise
        return self

    # -- state

    def _refresh(self) -> None:
        """Re-read documents, meta and the searchable count (after opening and after every write)."""
        fields = ["doc_key", "position", "content_hash", "record"]
        rows = self._query_all(self._names["documents"], "position >= -1", fields)
        meta = next((r for r in rows if r["doc_key"] == META_KEY), None)
        self._meta = json.loads(meta["record"]) if meta else {}
        docs = sorted((r for r in rows if r["doc_key"] != META_KEY), key=lambda r: r["position"])
        self._documents = {}
        self._hashes, self._positions = {}, {}
        for r in docs:
            record = DocumentRecord(**json.loads(r["record"]))
            self._documents[record.name] = record
            self._hashes[record.name] = r["content_hash"]
            self._positions[record.name] = int(r["position"])
        self._searchable = self._count(self._names["chunks"]) if self._has_chunks() else 0
        self._cache.clear()

    def _has_chunks(self) -> bool:
        return bool(self._client.has_collection(self._names["chunks"]))

    def _count(self, collection: str, where: str = "") -> int:
        rows = self._client.query(collection, filter=where, output_fields=["count(*)"])
        return int(rows[0]["count(*)"]) if rows else 0

    def _query_all(self, collection: str, where: str, fields: list[str]) -> list[dict[str, Any]]:
        """Every row matching ``where`` (an iterator: a plain query returns at most 16,384)."""
        out: list[dict[str, Any]] = []
        iterator = self._client.query_iterator(collection, batch_size=1000, filter=where, output_fields=fields)
        try:
            while batch := iterator.next():
                out.extend(batch)
        finally:
            iterator.close()
        return out

    @property
    def location(self) -> str:
        return f"{self.uri} (collections {self.prefix}_*)"

    @property
    def embedding_model(self) -> str:
        return str(self._meta.get("embedding_model", ""))

    @property
    def dimension(self) -> int:
        return int(self._meta.get("dimension", 0))

    @property
    def documents(self) -> Mapping[str, DocumentRecord]:
        return self._documents

    @property
    def recorded_settings(self) -> dict[str, Any]:
        settings = self._meta.get("settings", {})
        return settings if isinstance(settings, dict) else {}

    def __len__(self) -> int:
        return self._searchable

    def __repr__(self) -> str:
        return f"MilvusBackend({self.location!r}, searchable={len(self)}, model={self.embedding_model!r})"

    def stats(self) -> IndexStats:
        chunks = self._names["chunks"]
        has = self._has_chunks()
        return IndexStats(
            backend="milvus",
            location=self.location,
            documents=len(self._documents),
            parents=self._count(self._names["parents"]) if has else 0,
            children=self._count(chunks, f'kind == "{CHILD}"') if has else 0,
            footnotes=self._count(chunks, f'kind == "{FOOTNOTE}"') if has else 0,
            embedding_model=self.embedding_model,
            dimension=self.dimension,
        )

    def check_embedder(self, name: str) -> None:
        if not same_model(name, self.embedding_model):
            raise EmbedderMismatch(self.location, self.embedding_model, name)

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> MilvusBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing

    def add_documents(self, batch: DocumentBatch, progress: Progress | None = None) -> None:
        """Add or replace the batch's documents (see the module doc); unchanged ones are skipped."""
        documents, chunks = list(batch.documents), list(batch.chunks)
        embedding_model, settings = batch.embedding_model, batch.settings
        searchable, vectors = batch.validated()
        if self._documents and embedding_model:
            self.check_embedder(embedding_model)
        dimension = self.dimension or (int(vectors.shape[1]) if len(searchable) else 0)
        if len(searchable) and vectors.shape[1] != dimension:
            raise ValueError(
                f"vectors have dimension {vectors.shape[1]}, the index at {self.location} holds {dimension}-d ones"
            )
        tick = progress or (lambda stage, done, total: None)
        row_of = {c.id: i for i, c in enumerate(searchable)}
        by_doc: dict[str, list[Chunk]] = {d.name: [] for d in documents}
        for c in chunks:
            by_doc[c.document].append(c)
        hashes = {d.name: _content_hash(d, by_doc[d.name], embedding_model) for d in documents}
        changed = [d for d in documents if self._hashes.get(d.name) != hashes[d.name]]
        with writer_lock(self.lock_dir, reentrant=True):
            create_collections(self._client, self.prefix, dimension)
            replaced = [d.name for d in changed if d.name in self._documents]
            stale = self._ids_of(replaced)
            # insert where nothing is stored yet; else upsert (by id), which also repairs a crashed write
            fresh = not self._has_chunks() or not any(
                self._count(self._names[part]) for part in ("chunks", "parents", "links")
            )
            rows: dict[str, list[dict[str, Any]]] = {"parents": [], "links": [], "chunks": []}
            for d in changed:
                for seq, c in enumerate(by_doc[d.name]):
                    if c.kind == PARENT:
                        rows["parents"].append(chunk_row(c, seq, None))
                    else:
                        rows["chunks"].append(chunk_row(c, seq, vectors[row_of[c.id]]))
                        rows["links"] += link_rows(c)
            for part, part_rows in rows.items():
                stale[part] -= {r["id"] for r in part_rows}
            total = sum(len(r) for r in rows.values())
            done = 0
            tick("store", 0, total)
            if total and not self._has_chunks():
                raise ValueError(f"parents without any searchable chunk cannot start the index at {self.location}")
            for part in rows:
                write = self._client.insert if fresh else self._client.upsert
                for batch in _batches(rows[part], BATCH_ROWS):
                    write(self._names[part], list(batch))
                    done += len(batch)
                    tick("store", done, total)
            for part, ids in stale.items():
                for batch in _batches(sorted(ids), FILTER_BATCH):
                    self._client.delete(self._names[part], ids=list(batch))
            next_position = max(self._positions.values(), default=-1) + 1
            doc_rows = []
            for d in changed:
                position = self._positions.get(d.name)
                if position is None:
                    position, next_position = next_position, next_position + 1
                record = json.dumps(asdict(d), ensure_ascii=False)
                doc_rows.append(self._doc_row(doc_key(d.name), position, hashes[d.name], record))
            meta = {
                "format": 1,
                "embedding_model": embedding_model or self.embedding_model,
                "dimension": dimension,
                "tokenizer": TOKENIZER_VERSION,
                "settings": json.loads(json.dumps(dict(settings), ensure_ascii=False)),
            }
            doc_rows.append(self._doc_row(META_KEY, -1, "", json.dumps(meta, ensure_ascii=False)))
            for batch in _batches(doc_rows, BATCH_ROWS):
                self._client.upsert(self._names["documents"], list(batch))
            self._refresh()

    @staticmethod
    def _doc_row(key: str, position: int, content_hash: str, record: str) -> dict[str, Any]:
        return {
            "doc_key": key,
            "position": position,
            "content_hash": content_hash,
            "record": record,
            "placeholder": PLACEHOLDER,
        }

    def _ids_of(self, names: Iterable[str]) -> dict[str, set[str]]:
        """The stored chunk ids of documents ``names``, by collection part."""
        keys = [doc_key(n) for n in names]
        out: dict[str, set[str]] = {"parents": set(), "links": set(), "chunks": set()}
        if not keys or not self._has_chunks():
            return out
        for part in out:
            for batch in _batches(keys, FILTER_BATCH):
                where = f"doc_key in [{', '.join(literal(k) for k in batch)}]"
                out[part].update(r["id"] for r in self._query_all(self._names[part], where, ["id"]))
        return out

    def remove_documents(self, names: Collection[str]) -> None:
        gone = [n for n in names if n in self._documents]
        if not gone:
            return
        with writer_lock(self.lock_dir, reentrant=True):
            for part, ids in self._ids_of(gone).items():
                for batch in _batches(sorted(ids), FILTER_BATCH):
                    self._client.delete(self._names[part], ids=list(batch))
            self._client.delete(self._names["documents"], ids=[doc_key(n) for n in gone])
            self._refresh()

    def vectors_for(self, text_hashes: Collection[str]) -> dict[str, np.ndarray]:
        if not self._has_chunks():
            return {}
        out: dict[str, np.ndarray] = {}
        for batch in _batches(sorted(set(text_hashes)), FILTER_BATCH):
            where = f"text_sha256 in [{', '.join(literal(h) for h in batch)}]"
            for r in self._query_all(self._names["chunks"], where, ["text_sha256", "dense"]):
                out[r["text_sha256"]] = np.asarray(r["dense"], dtype=np.float32)
        return out

    # -- look-ups

    def _get(self, ids: Sequence[str]) -> dict[str, Chunk]:
        """Chunks by id from either collection (cached)."""
        found = {i: self._cache[i] for i in ids if i in self._cache}
        missing = [i for i in dict.fromkeys(ids) if i not in found]
        if missing and self._has_chunks():
            for part in ("chunks", "parents"):
                if not missing:
                    break
                for batch in _batches(missing, FILTER_BATCH):
                    for row in self._client.get(self._names[part], ids=list(batch), output_fields=CHUNK_FIELDS):
                        found[row["id"]] = self._cache.setdefault(row["id"], chunk_from_row(row))
                missing = [i for i in missing if i not in found]
        return found

    def chunk(self, chunk_id: str) -> Chunk:
        got = self._get([chunk_id])
        if chunk_id not in got:
            raise KeyError(f"no chunk {chunk_id!r} in index {self.location}")
        return got[chunk_id]

    def _sorted(self, chunks: Iterable[Chunk], seqs: Mapping[str, int]) -> list[Chunk]:
        return sorted(chunks, key=lambda c: (self._positions.get(c.document, 1 << 60), seqs[c.id]))

    def _rows(self, parts: Sequence[str], where: str) -> list[Chunk]:
        seqs: dict[str, int] = {}
        chunks = []
        for part in parts:
            for row in self._query_all(self._names[part], where, CHUNK_FIELDS):
                chunk = self._cache.setdefault(row["id"], chunk_from_row(row))
                seqs[chunk.id] = int(row["seq"])
                chunks.append(chunk)
        return self._sorted(chunks, seqs)

    def chunks(self, kind: str | None = None, document: str | None = None) -> list[Chunk]:
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown chunk kind {kind!r}; valid kinds: {', '.join(KINDS)}")
        if not self._has_chunks():
            return []
        parts = ["parents"] if kind == PARENT else ["chunks"] if kind is not None else ["parents", "chunks"]
        where = [f'kind == "{kind}"'] if kind is not None else []
        if document is not None:
            where.append(f"doc_key == {literal(doc_key(document))}")
        return self._rows(parts, " and ".join(where) or 'id != ""')

    def parents_of(self, chunk_id: str) -> list[Chunk]:
        chunk = self.chunk(chunk_id)
        if not chunk.parent_ids:
            return []
        parents = self._get(list(chunk.parent_ids))
        # within one document, parent ids come in order of their seq; sort by it as the embedded index does
        return self._rows(["parents"], f"id in [{', '.join(literal(p) for p in parents)}]") if parents else []

    def children_of(self, parent_id: str) -> list[Chunk]:
        self.chunk(parent_id)
        links = self._query_all(self._names["links"], f"parent_id == {literal(parent_id)}", ["child_id"])
        if not links:
            return []
        return self._rows(["chunks"], f"id in [{', '.join(literal(r['child_id']) for r in links)}]")

    # -- search

    def _keep(self, hit: dict[str, Any]) -> str:
        """A hit's id, its chunk cached from the fields the search returned (``search`` reads every hit's
        chunk next: one round trip per chunk cost more than the search)."""
        cid = str(hit["id"])
        if cid not in self._cache:
            self._cache.setdefault(cid, chunk_from_row({"id": cid, **hit["entity"]}))
        return cid

    def _scope_filter(self, documents: Collection[str] | None) -> str:
        if documents is None:
            return ""
        return f"doc_key in [{', '.join(literal(doc_key(d)) for d in sorted(documents))}]"

    def search_sparse(self, query: str, k: int, documents: Scope = None) -> Ranked:
        tokens = " ".join(tokenize(query))
        if k <= 0 or not tokens or not self._searchable or (documents is not None and not documents):
            return []
        found = self._client.search(
            self._names["chunks"],
            data=[tokens],
            anns_field="sparse",
            limit=min(k, MAX_LIMIT),
            filter=self._scope_filter(documents),
            search_params={"metric_type": "BM25"},
            output_fields=CHUNK_FIELDS,
        )
        return [(self._keep(hit), float(hit["distance"])) for hit in found[0] if hit["distance"] > 0]

    def search_dense(self, vectors: np.ndarray, k: int, documents: Scope = None) -> list[Ranked]:
        n = len(np.atleast_2d(vectors))
        if k <= 0 or not self._searchable or (documents is not None and not documents):
            return [[] for _ in range(n)]
        found = self._client.search(
            self._names["chunks"],
            data=list(unit_queries(vectors, self.dimension, self.location, self.embedding_model)),
            anns_field="dense",
            limit=min(k, MAX_LIMIT),
            filter=self._scope_filter(documents),
            search_params={"metric_type": "IP"},
            output_fields=CHUNK_FIELDS,
        )
        return [[(self._keep(hit), float(hit["distance"])) for hit in row] for row in found]

    def hybrid(self, texts: Sequence[str], vectors: np.ndarray, fusion: Fusion, documents: Scope = None) -> Ranked:
        """Server-side RRF (``RRFRanker(rrf_k)``) over every list when the weights are equal (scores scaled
        by the weight, which is what weighted RRF gives then); fused here with unequal weights."""
        if fusion.k <= 0 or not self._searchable or (documents is not None and not documents):
            return []
        token_queries = [t for t in (" ".join(tokenize(q)) for q in texts) if t]
        has_dense = len(vectors) > 0
        if fusion.sparse_weight != fusion.dense_weight and token_queries and has_dense:
            return fuse_searches(self, texts, vectors, fusion, documents)
        from pymilvus import AnnSearchRequest, RRFRanker

        where = self._scope_filter(documents) or None
        limit = min(fusion.depth, MAX_LIMIT)
        requests = [AnnSearchRequest([t], "sparse", {"metric_type": "BM25"}, limit, expr=where) for t in token_queries]
        if has_dense:
            unit = unit_queries(vectors, self.dimension, self.location, self.embedding_model)
            requests += [AnnSearchRequest([v], "dense", {"metric_type": "IP"}, limit, expr=where) for v in unit]
        if not requests:
            return []
        weight = fusion.sparse_weight if token_queries else fusion.dense_weight
        found = self._client.hybrid_search(
            self._names["chunks"],
            requests,
            RRFRanker(fusion.rrf_k),
            limit=min(fusion.k, MAX_LIMIT),
            output_fields=CHUNK_FIELDS,
        )
        return [(self._keep(hit), float(hit["distance"]) * weight) for hit in found[0]]
