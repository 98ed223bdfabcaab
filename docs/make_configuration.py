"""Write docs/configuration.md from :class:`lclfqa.config.Settings`: every field, its default, its variable, its help.

Run ``python docs/make_configuration.py`` after adding or changing a setting. ``tests/test_docs.py`` fails while
the page and ``Settings`` differ (a field missing, a default changed, a help text reworded), so the page cannot
drift from the code.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, get_args

from lclfqa import config
from lclfqa.config import READ_STAGES, Settings

PAGE = Path(__file__).resolve().with_name("configuration.md")

INTRO = """\
# Configuration: every setting

**In short.** One typed object, `Settings` (`lclfqa/config.py`), holds every setting of ingest, retrieval and
question answering. Values come, in rising precedence, from the defaults below, a TOML file (`--config FILE`,
or `LCLFQA_CONFIG` for the LangGraph server), `LCLFQA_<FIELD>` environment variables and command-line flags
(each command's `--help` lists its flags). Impossible values (`child_size > parent_size`, sizes ≤ 0,
`top_k = "eight"`, an unknown field, `LCLFQA_SUMMARIES=ture`: a true/false variable takes true/false,
1/0, yes/no or on/off) are refused with one line before anything runs. The graph receives the
same object as LangGraph context; a LangGraph run's `context` may change `pipeline`, `rewrites`, `reader`,
`top_k`, `document_scope` and `max_answer_tokens` for that run ([serving.md](serving.md)).

This page is generated from `Settings` by `python docs/make_configuration.py`; `tests/test_docs.py` fails when
it is out of date.

```toml
# settings.toml, for --config settings.toml
top_k = 6
chat_model = "openai:gpt-4o-mini"
index_backend = "milvus"
milvus_uri = "http://milvus.internal:19530"
```
"""

OUTRO = """\
`milvus_token` is never written to run records (`Settings.as_record`); prefer `LCLFQA_MILVUS_TOKEN` to a file.
An index remembers its embedding model and refuses another; changing a chunk setting re-chunks the indexed
documents at the next ingest ([ingest.md](ingest.md)).
"""


def default_text(value: Any) -> str:
    """A default as it is written in a TOML settings file (``unset`` for ``None``)."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def type_text(declared: Any) -> str:
    """``int``, ``str | None``, or the allowed values of a Literal alias (``'page', 'footnote'``)."""
    parts = []
    for name in (t.strip() for t in str(declared).split("|")):
        alias = getattr(config, name, None)
        allowed = get_args(alias) if alias is not None and not isinstance(alias, type) else ()
        parts.append(" / ".join(f"`{json.dumps(a)}`" for a in allowed) if allowed else name)
    return " or ".join(parts)


def groups() -> dict[str, str]:
    """Each field's group, from the ``# --- title (notes)`` comments in ``Settings``' source (notes left out)."""
    group, out = "", {}
    for line in inspect.getsource(Settings).splitlines():
        heading = re.match(r"\s+# --- (.+)", line)
        if heading:
            group = re.sub(r"\s*\(.*\)\s*$", "", heading.group(1)).strip()
            continue
        field = re.match(r"\s+(\w+):", line)
        if field and group:
            out.setdefault(field.group(1), group)
    return out


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """The whole page."""
    by_group: dict[str, list[str]] = {}
    group_of = groups()
    for f in fields(Settings):
        row = (
            f"| `{f.name}` | `{default_text(f.default)}` | {type_text(f.type)} | `LCLFQA_{f.name.upper()}` "
            f"| {cell(f.metadata.get('help', ''))} |"
        )
        by_group.setdefault(group_of.get(f.name, "other"), []).append(row)
    out = [INTRO]
    for group, rows in by_group.items():
        out += [f"## {group[0].upper()}{group[1:]}", ""]
        out += ["| setting | default | type | environment variable | what it does |", "|---|---|---|---|---|"]
        out += rows
        out.append("")
    out += ["## Reader stages (`stages_off`)", ""]
    out += ["| stage | what it does |", "|---|---|"]
    out += [f"| `{name}` | {cell(what)} |" for name, what in READ_STAGES.items()]
    out += ["", OUTRO]
    return "\n".join(out).rstrip("\n") + "\n"


def main() -> int:
    PAGE.write_text(render(), encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
