"""The documentation cannot drift from the code: README's commands table lists every ``lclfqa`` command,
docs/configuration.md every setting with its default, every relative link resolves, and the front pages stay
short enough to read (issue 33)."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import fields
from pathlib import Path

import pytest

from lclfqa.config import Settings

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BENCHMARKS = ROOT / "benchmarks" / "README.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
LINKED_PAGES = [
    README,
    ROOT / "ARCHITECTURE.md",
    BENCHMARKS,
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "benchmarks" / "log").glob("*.md")),
]


def _make_configuration():
    """docs/make_configuration.py, imported from its file (docs/ is no package)."""
    spec = importlib.util.spec_from_file_location("make_configuration", ROOT / "docs" / "make_configuration.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _command_names() -> set[str]:
    """Every command the typer app registers, groups' commands as ``group sub`` (``eval qa``)."""
    from lclfqa.cli.app import app

    def name(info) -> str:
        return info.name or info.callback.__name__.replace("_", "-")

    names = {name(c) for c in app.registered_commands}
    for group in app.registered_groups:
        names |= {f"{group.name} {name(c)}" for c in group.typer_instance.registered_commands}
    return names


def _section(text: str, heading: str) -> str:
    """The lines under ``## heading`` up to the next ``## ``."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"no '## {heading}' section"
    return match.group(1)


def test_readme_commands_table_lists_every_command():
    table = _section(README.read_text(encoding="utf-8"), "Commands")
    listed = set()
    for row in re.findall(r"^\| `lclfqa ([^`]*)`", table, flags=re.M):
        words = [w for w in row.split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        listed.add(" ".join(words[:2]) if words[:1] == ["eval"] else words[0])
    registered = _command_names()
    assert registered, "no commands found on the typer app"
    assert registered - listed == set(), f"commands missing from README's table: {sorted(registered - listed)}"
    assert listed - registered == set(), (
        f"README's table lists commands that do not exist: {sorted(listed - registered)}"
    )


def test_command_names_found_on_the_app():
    """The table test compares against these; a typer upgrade that hid them would make it vacuous."""
    assert {"parse", "ingest", "search", "info", "ask", "chat", "eval retrieval", "eval qa", "eval synth"} <= (
        _command_names()
    )


def test_configuration_page_lists_every_setting_with_its_default():
    make = _make_configuration()
    page = CONFIGURATION.read_text(encoding="utf-8")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| `([^`]*)` \|", page, flags=re.M)}
    missing = [f.name for f in fields(Settings) if f.name not in rows]
    assert not missing, (
        f"settings missing from docs/configuration.md (run python docs/make_configuration.py): {missing}"
    )
    wrong = {
        f.name: (rows[f.name], make.default_text(f.default))
        for f in fields(Settings)
        if rows[f.name] != make.default_text(f.default)
    }
    assert not wrong, f"defaults in docs/configuration.md differ from Settings (page, code): {wrong}"
    assert set(rows) <= {f.name for f in fields(Settings)}, "docs/configuration.md lists settings that do not exist"


def test_configuration_page_is_generated_from_settings():
    """Help texts and groups too: the page is exactly what the script writes."""
    assert CONFIGURATION.read_text(encoding="utf-8") == _make_configuration().render(), (
        "docs/configuration.md is out of date: run python docs/make_configuration.py"
    )


def test_default_text_spells_defaults_as_toml():
    make = _make_configuration()
    assert [make.default_text(v) for v in (None, True, False, 8, 0.5, "lclf", "")] == [
        "unset",
        "true",
        "false",
        "8",
        "0.5",
        '"lclf"',
        '""',
    ]


def _without_code(text: str) -> str:
    """Markdown with fenced blocks and inline code removed (a link there is an example, not a link)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    heading = re.sub(r"[`*_]", lambda m: "_" if m.group(0) == "_" else "", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", heading))


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


def _links(page: Path) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", _without_code(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path):
    broken = []
    for link in _links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto:
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{link} (no {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target})")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{link} (no heading for #{anchor})")
    assert not broken, f"{page.relative_to(ROOT)}: broken links: {broken}"


def test_the_pages_have_links_to_check():
    """The link test is not vacuous: README links to every docs page."""
    linked = {link.partition("#")[0] for link in _links(README)}
    assert {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= linked


def test_front_pages_are_short():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250
    assert len(BENCHMARKS.read_text(encoding="utf-8").splitlines()) <= 200


def test_readme_keeps_the_three_commands():
    """The set-up, run and test commands CI and the e2e test follow (.ci/run, tests/test_e2e_local.py)."""
    block = re.search(r"^```bash\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.M | re.S).group(1)
    lines = block.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith('python -m venv .venv && . .venv/bin/activate && pip install -e ".[dev]"')
    assert lines[1] == (
        'lclfqa ingest examples/sample --index .lclfqa/index && lclfqa ask "Can a married couple filing MFS claim '
        'the AOTC?" --index .lclfqa/index'
    )
    assert lines[2].startswith("python -m pytest ")


def test_docs_pages_open_with_a_summary():
    for page in sorted((ROOT / "docs").glob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# "), page.name
        assert lines[2].startswith("**In short.**"), f"{page.name} does not open with its summary"


def _table_rows(page: Path) -> list[list[tuple[int, int]]]:
    """Each Markdown table of ``page`` (code blocks aside): its rows as (line number, cells)."""
    tables: list[list[tuple[int, int]]] = []
    inside = False
    previous_row = False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            inside = not inside
        is_row = not inside and line.startswith("|")
        if is_row:
            cells = len(re.findall(r"(?<!\\)\|", line.strip())) - 1
            if not previous_row:
                tables.append([])
            tables[-1].append((number, cells))
        previous_row = is_row
    return tables


@pytest.mark.parametrize("page", LINKED_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_table_row_has_its_headers_cells(page: Path):
    """Two rows joined on one line, or a cell's stray "|", break a table on GitHub without any other test
    noticing."""
    bad = [
        f"line {number}: {cells} cells, the header has {rows[0][1]}"
        for rows in _table_rows(page)
        for number, cells in rows[1:]
        if cells != rows[0][1]
    ]
    assert not bad, f"{page.relative_to(ROOT)}: {bad}"


def test_a_joined_table_row_is_found(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text("| a | b |\n|---|---|\n| 1 | 2 || 3 | 4 |\n| `x\\|y` | 5 |\n", encoding="utf-8")
    assert [cells for _, cells in _table_rows(page)[0]] == [2, 2, 5, 2]


DEV = ROOT.parent / "shared" / "data" / "tax-qa" / "dev.jsonl"
RUN = 7
"""Words in a row that make a quote of a dev question (six still match generic phrases: "the child and
dependent care credit")."""


def _runs(text: str, n: int = RUN) -> set[str]:
    words = re.findall(r"[a-z0-9§$%]+", text.lower())
    return {" ".join(words[i : i + n]) for i in range(len(words) - n + 1)}


def _where_the_house_writes() -> list[Path]:
    """Code, tests, examples, docs and the front pages: not the benchmark logs, which record the runs on dev."""
    found = [README, ROOT / "ARCHITECTURE.md", BENCHMARKS, *sorted((ROOT / "benchmarks").glob("*.py"))]
    for folder in ("lclfqa", "tests", "examples", "docs"):
        found += [
            p
            for p in sorted((ROOT / folder).rglob("*"))
            if p.is_file() and p.suffix in {".py", ".md", ".toml", ".ipynb", ".json", ".jsonl", ".txt"}
        ]
    return found


@pytest.mark.skipif(not DEV.exists(), reason="needs ../shared/data")
def test_no_code_test_or_doc_quotes_a_dev_question():
    """The house rule: code, docstrings, tests and examples never quote dev questions (tuning on them shows)."""
    import json

    dev = {}
    for line in DEV.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            dev |= dict.fromkeys(_runs(row["question"]), row["id"])
    quoted = [
        f"{path.relative_to(ROOT)}: {run!r}"
        for path in _where_the_house_writes()
        for run in sorted(_runs(path.read_text(encoding="utf-8", errors="ignore")) & dev.keys())
    ]
    assert not quoted, "dev questions quoted:\n" + "\n".join(quoted)
