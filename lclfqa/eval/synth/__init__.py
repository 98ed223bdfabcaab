"""Synthetic QA pairs from an ingested index (LCLF-QA, Appendix A), one module per job.

The method of the paper, step by step:

1. **Page chunks** (:mod:`~lclfqa.eval.synth.pages`). The section children of an index, grouped by
   (document, page) into one chunk per printed page, with that page's footnotes appended. Children, not
   parents, are grouped: parents overlap by one section and often straddle two pages, children never overlap
   and carry their own pages. Near-empty pages are skipped; a page longer than ``max_chunk_chars`` (a
   plain-text file without form feeds is one "page") is split at child boundaries into several chunks of
   that page.
2. **Summaries.** Each page chunk is summarised by the chat model (Figure 13); at most ``max_pages`` pages,
   drawn at random when there are more.
3. **Clusters** (:mod:`~lclfqa.eval.synth.clusters`). The summaries are embedded and clustered with k-means
   (numpy, k-means++ initialisation, fixed seed). ``k`` is lowered to ``pages // n`` when needed, so that at
   least one cluster holds ``n`` pages (pigeonhole).
4. **Generation** (:mod:`~lclfqa.eval.synth.styles`, :mod:`~lclfqa.eval.synth.pairs`). A cluster is picked
   at random; if it has fewer than ``n`` pages another one is picked at random, until one with ``n`` pages
   is found. ``n`` of its pages go to the question generator of one question style (instruction, reason,
   evidence, comparison, list, domain-specific; shuffled rounds, so every style is used once per round),
   which asks for 2 QA pairs. The output is constrained to JSON where the backend can; otherwise the
   paper's bullet format (``Question 1: … / Answer 1: …``) is asked for; the parser reads both.
5. Repeat until the budget ``b`` of QA pairs is reached, or ``max_calls`` generator calls were made.

Every random choice comes from ``random.Random(seed)`` (k-means from ``numpy.random.default_rng(seed)``),
so a run with the same index, model outputs and config gives the same records.

Records are rows of the QA JSON Lines format that :func:`lclfqa.eval.datasets.load_qa_jsonl` reads, plus
``source_chunks``, ``cluster`` and ``synthetic`` (which that loader ignores). ``evidence`` holds only
sentences of the answer that are printed verbatim (up to whitespace, as
:func:`lclfqa.eval.retrieval_metrics.evidence_recall` compares) on a source page; often it is empty.

The modules, in the order a run uses them:

- :mod:`~lclfqa.eval.synth.config` — :class:`SynthConfig` (budget, clusters, chunks per question), the
  styles, :class:`SynthError`;
- :mod:`~lclfqa.eval.synth.pages` — page chunks from an index, and how a prompt shows them;
- :mod:`~lclfqa.eval.synth.clusters` — k-means and the paper's cluster pick;
- :mod:`~lclfqa.eval.synth.styles` — the generator prompts of each question style and their output format;
- :mod:`~lclfqa.eval.synth.pairs` — reading QA pairs out of a generator's output, and what makes two
  questions the same;
- :mod:`~lclfqa.eval.synth.evidence` — the sentences of an answer printed verbatim on a source page;
- :mod:`~lclfqa.eval.synth.generate` — the run: summaries, clusters, generation until the budget;
- :mod:`~lclfqa.eval.synth.jsonl` — writing the records.
"""
