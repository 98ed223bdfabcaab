"""The index room: where chunks are stored and searched, whatever engine holds them.

- :mod:`.protocol`: :class:`~.protocol.IndexBackend`, what everything above this room (nodes, eval, CLI)
  may ask of an index; :func:`.factory.open_index` turns settings into one.
- :mod:`.embedded`: the default backend (SQLite + bm25s + FAISS in generations on local disk), written by
  :mod:`.writer` through :mod:`.generations`, locked by :mod:`.lock`, checked by :mod:`.integrity`.
- :mod:`.milvus`: the same contract on Milvus (Milvus Lite from a ``.db`` file, or a server/cluster).
- :mod:`.ingest`: files on disk into an index (``lclfqa ingest``): it parses and chunks with
  :mod:`lclfqa.ingest`, embeds, and adds the documents to whichever backend the settings name.
- :mod:`.tokens` (BM25 tokens), :mod:`.sparse` (BM25 arrays), :mod:`.fusion` (RRF), :mod:`.scope`
  (document scope) and :mod:`.search` (the one query-side function).
"""
