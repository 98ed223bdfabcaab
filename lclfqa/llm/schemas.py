"""Small builders for the JSON schemas that constrain a model's output (:func:`lclfqa.llm.calls.invoke`).

Each LLM call names the shape of its answer once, in the words of JSON Schema; these keep the shapes short
and alike: an object whose fields are all required, an array of exactly ``n`` items.
"""

from __future__ import annotations

from typing import Any


def object_schema(**properties: dict[str, Any]) -> dict[str, Any]:
    """An object with ``properties`` (name → schema), every one required, in that order."""
    return {"type": "object", "properties": properties, "required": list(properties)}


def exactly(n: int, items: dict[str, Any]) -> dict[str, Any]:
    """An array of exactly ``n`` ``items``."""
    return {"type": "array", "items": items, "minItems": n, "maxItems": n}
