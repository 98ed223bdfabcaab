"""Prompts as data: templates, the acronym glossary, key legal phrases and few-shot examples.

The TOML files next to this module hold the words; this module only loads and fills them:

- ``templates.toml`` — one table per LLM call (``system`` / ``user``), after LCLF-QA Appendix B;
- ``glossary.toml`` — acronyms the rewrite node expands before retrieval;
- ``vocabulary.toml`` — the domain reader's key legal phrases (levels of comfort, characterization);
- ``examples.toml`` — the query2doc passages (no few-shot answers: see ``templates.toml``, ``read_domain``);
- ``eval.toml`` — the judge prompts of the answer metrics (claim triples, claim check, coverage);
- ``synth.toml`` — the synthetic-QA prompts (page summary, output formats, one table per question style).

:func:`load` is the one way in: it returns a file's tables as parsed, by name. Everything else here builds
on it. No prompt text lives in Python outside this package.
"""

from __future__ import annotations

import re
import tomllib
from difflib import SequenceMatcher
from functools import cache
from importlib import resources
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

_PLACEHOLDER = re.compile(r"\{(\w+)\}|\{\{|\}\}")


@cache
def load(name: str) -> dict[str, Any]:
    """The tables of ``lclfqa/prompts/<name>.toml`` (``"templates"``, ``"eval"``, ``"synth"``, …), parsed once
    per process. Treat the result as read-only: it is shared."""
    try:
        with resources.files(__name__).joinpath(f"{name}.toml").open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise KeyError(f"no prompt file lclfqa/prompts/{name}.toml") from None


def render(template: str, **values: Any) -> str:
    """Fill ``{name}`` placeholders; ``{{``/``}}`` are literal braces; unknown names are left as they are."""

    def fill(m: re.Match[str]) -> str:
        token = m.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = m.group(1)
        return str(values[name]) if name in values else token

    return _PLACEHOLDER.sub(fill, template)


def template(name: str, file: str = "templates") -> dict[str, str]:
    """The ``system``/``user`` strings of the template ``name`` (a table of ``<file>.toml``; a dotted name such
    as ``"styles.reason"`` is a nested table)."""
    table: Any = load(file)
    for key in name.split("."):
        if not isinstance(table, dict) or key not in table:
            raise KeyError(f"no prompt template {name!r} in lclfqa/prompts/{file}.toml")
        table = table[key]
    return table


def messages(name: str, **values: Any) -> list[BaseMessage]:
    """System (if the template has one) and user message of template ``name``, filled with ``values``."""
    return messages_from("templates", name, **values)


def messages_from(file: str, name: str, **values: Any) -> list[BaseMessage]:
    """Like :func:`messages` for a template of ``<file>.toml`` (``eval``: the answer metrics' prompts)."""
    t = template(name, file)
    out: list[BaseMessage] = []
    if t.get("system"):
        out.append(SystemMessage(render(t["system"], **values)))
    out.append(HumanMessage(render(t["user"], **values)))
    return out


def format_history(history: list[dict[str, str]], turns: int = 3) -> str:
    """The last ``turns`` question/answer pairs as ``User: …`` / ``Assistant: …`` lines."""
    recent = history[-2 * turns :]
    return "\n".join(f"{'User' if m.get('role') == 'user' else 'Assistant'}: {m.get('content', '')}" for m in recent)


def phrase(name: str, **values: Any) -> str:
    """A top-level string of ``templates.toml`` (``evidence_quotes``, ``quoted_answer`` …), filled in."""
    return render(load("templates")[name], **values)


EVIDENCE = (
    r"(?:reference\s+texts?|documents?|sources?|quotes?|quotations?|references?|texts?|passages?|excerpts?|context"
    r"|(?:provided|given|reference)\s+(?:information|materials?)|(?:information|materials?)\s+(?:provided|given))"
)
"""What an answer may call the evidence it was given (a regular expression, no groups): the names the prompts
give it ("quotes", "reference texts") and those the model uses of its own ("the passages provided"). A
sentence that only points at it, and a refusal that speaks of it, are read with this one list."""


def refusal() -> str:
    """The sentence the reader uses when the documents do not answer the question."""
    return load("templates")["refusal"]


def reader_rule(relevant: bool, missing: list[str] | None = None) -> str:
    """The reader's last rule: answer from sources the filter judged relevant, else refusal allowed; and
    when the question cites provisions no source mentions (``missing``), say they are not covered."""
    t = load("templates")
    rule = t["answer_rule"] if relevant else render(t["refusal_rule"], refusal=t["refusal"])
    if missing:
        names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
        rule += " " + render(t["missing_rule"], sections=names, it="it" if len(missing) == 1 else "them")
    return rule


# --- glossary -------------------------------------------------------------------------------------


@cache
def glossary() -> dict[str, str]:
    """Acronym → expansion."""
    return dict(load("glossary")["acronyms"])


@cache
def _acronym_pattern() -> re.Pattern[str]:
    keys = sorted(glossary(), key=len, reverse=True)
    return re.compile(r"(?<![\w&])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w&])")


def find_acronyms(text: str) -> dict[str, str]:
    """The glossary acronyms used in ``text`` (whole words, case-sensitive), in order of first use."""
    found: dict[str, str] = {}
    for m in _acronym_pattern().finditer(text):
        found.setdefault(m.group(1), glossary()[m.group(1)])
    return found


def other_sense_words(acronym: str) -> list[str]:
    """Words that show ``acronym`` is used in a sense other than a document's name (``glossary.toml``,
    ``[other_sense_words]``): "Roth" or "rollover" beside "IRA"."""
    return list(load("glossary").get("other_sense_words", {}).get(acronym, []))


def senses(acronym: str) -> list[str]:
    """The glossary's senses of ``acronym``: ``"Inflation Reduction Act (or individual retirement account)"``
    gives both."""
    expansion = glossary()[acronym]
    first, _, rest = expansion.partition(" (or ")
    return [first, rest.rstrip(")")] if rest else [expansion]


def expand_acronyms(text: str, context: str | None = None) -> str:
    """``text`` with the first use of each glossary acronym followed by its expansion in parentheses.

    With ``context`` (the retrieved texts), an acronym with several senses gets the one ``context`` uses
    most, and none when it uses none of them; without it (retrieval), every sense. An acronym already
    followed by its expansion (``"AOTC (American Opportunity Tax Credit)"``) is left alone.
    """
    seen: set[str] = set()
    lowered = context.lower() if context is not None else ""

    def fill(m: re.Match[str]) -> str:
        acronym = m.group(1)
        expansion = glossary()[acronym]
        meanings = senses(acronym)
        if context is not None and len(meanings) > 1:
            used = sorted((lowered.count(s.lower()), s) for s in meanings if s.lower() in lowered)
            expansion = used[-1][1] if used else ""
        rest = text[m.end() : m.end() + len(expansion) + 3]
        if not expansion or acronym in seen or rest.lower().startswith(f" ({expansion.lower()}"):
            return acronym
        seen.add(acronym)
        return f"{acronym} ({expansion})"

    return _acronym_pattern().sub(fill, text)


def unexpand(text: str) -> str:
    """``text`` without the glosses :func:`expand_acronyms` gives (all senses, or one): "MFS (married filing
    separately)" → "MFS"."""
    for acronym, expansion in glossary().items():
        for gloss in dict.fromkeys([expansion, *senses(acronym)]):
            text = re.sub(rf"(?<![\w&]){re.escape(acronym)} \({re.escape(gloss)}\)", acronym, text, flags=re.I)
    return text


# --- reader material ------------------------------------------------------------------------------


def _wanted(group: dict[str, Any], question: str) -> bool:
    """Whether a ``vocabulary.toml`` group is for ``question``: it has no ``when`` words, or one of them
    (a word beginning, case aside) occurs in the question."""
    asked = " " + " ".join(question.lower().split())
    return "when" not in group or any(f" {w.lower()}" in asked for w in group["when"])


def asks_for_comfort(question: str) -> bool:
    """Whether ``question`` asks for a tax opinion or a level of comfort (the levels' ``when`` words)."""
    return _wanted(load("vocabulary")["levels_of_comfort"], question)


# The templates whose words the reader's model is given (its conversation: the references, the filter's and
# the extractor's turns, its instruction); with every top-level ``*_rule``, ``decide_*`` and ``evidence_*`` line.
_READER_CALLS = ("reading", "filter_cot", "filter_direct", "extract", "read_domain", "read_basic")
_WORD = re.compile(r"[a-z0-9]+")


@cache
def _instruction_runs() -> tuple[tuple[str, ...], ...]:
    """Each line of what the reader is told, as lower-case words, split at its placeholders (the evidence, the
    question), in both wordings of the evidence ("quote" / "reference text")."""
    t = load("templates")
    texts = [t[name][part] for name in _READER_CALLS for part in ("system", "user") if part in t[name]]
    said = [v for k, v in t.items() if k.endswith("_rule") or k.startswith(("decide_", "evidence_"))]
    texts += [v for v in said if isinstance(v, str)]
    runs = {
        tuple(_WORD.findall(piece.lower()))
        for unit, units in t["units"].values()
        for text in texts
        for piece in re.split(r"\{\w+\}|\n", render(text, unit=unit, unit_plural=units))
    }
    return tuple(run for run in runs if run)


def _longest_run(words: list[str], run: tuple[str, ...]) -> int:
    """The length of the longest run of words ``words`` and ``run`` share, in order and unbroken."""
    return SequenceMatcher(None, words, run, autojunk=False).find_longest_match().size


def repeats_instructions(sentence: str) -> bool:
    """Whether ``sentence`` (its citation markers taken out) says the reader's instructions back: two thirds or
    more of its words, and at least four, are one unbroken run of a line the reader is told ("No list of sources
    at the end."). A statement of the law shares a few words with a rule at most."""
    words = _WORD.findall(sentence.lower())
    need = max(4, -(-2 * len(words) // 3))
    return len(words) >= 4 and any(_longest_run(words, run) >= need for run in _instruction_runs())


@cache
def vocabulary(question: str = "") -> str:
    """The key legal phrases for the domain reader, as a bullet list: the groups of ``vocabulary.toml`` whose
    ``when`` words (word beginnings, case aside) occur in ``question``, and those without ``when``."""
    v = load("vocabulary")
    lines: list[str] = []
    comfort = v["levels_of_comfort"]
    if _wanted(comfort, question):
        lines.append("Levels of comfort (tax opinions): " + comfort["intro"])
        lines += [f"- {text}" for key, text in comfort.items() if key not in ("intro", "when")]
    if _wanted(v["characterization"], question):
        lines.append("Tax characterization terms:")
        lines += [f"- {t}" for t in v["characterization"]["terms"]]
    lines.append("Citation style:")
    lines += [f"- {t}" for t in v["citation_style"]["rules"]]
    return "\n".join(lines)


@cache
def query2doc_examples() -> str:
    """The query2doc few-shot block (LCLF-QA, Figure 17)."""
    shots = load("examples")["query2doc"]
    return "\n\n".join(f"Example {i}:\nQuery: {s['query']}\nPassage: {s['passage']}" for i, s in enumerate(shots, 1))


_WH = r"(?:how|what|which|why|when|where|who|whom|whose)"
_AUX = r"(?:(?:can|could|may|might|must|shall|should|will|would|is|are|was|were|do|does|did|has|have|had)(?:n['’]t)?)"
_ASKING_WH = r"(?:how|what|why)"
_PREPOSITION = r"(?:(?:in|under|for|on|to|from|by|with|at|until|till|since|before|after|within|through|during)\s+)?"
"""The wh-words that only ask when they open the question ("To what extent, if any, is …"); inside an opening
clause they do not ("Regardless of how it is classified, must it file?"). "Who" and "which" also bring in a
relative clause ("My client, who is married, can she …"), "when" and "where" a clause that sets the scene
("When a partnership terminates, does …")."""
_YES_NO = re.compile(
    # opening phrases, not a wh-question's: "After the 2012 decision, is …", "In Smith v. Comm'r, 123 T.C. 45
    # (2004), did …", "Section 25A(i): is …", "Quick question - can …", "When a partnership terminates, does …",
    # "Regardless of how it is classified, must …"; not a wh-question's ("What is the rate, is it …", "To what
    # extent, if any, is …", "When is it due, …", "When, if ever, is …"; "Where, as here, …, can …" is yes/no)
    rf"^\W*(?:(?:and|or|but|also|so)\s+)?"
    rf"(?:(?!(?:when|where)(?:\s+{_AUX}\b|\s*,\s*(?:if|under|in|on|for|at|during)\b)|(?:which|who|whom|whose)\b|{_PREPOSITION}{_ASKING_WH}\b)"
    rf"[^?]{{1,200}}?(?:[,:;—–]|\s-)\s*)?"
    rf"(?P<aux>{_AUX}|am|won['’]t|shan['’]t)\b",  # "Isn't …", "Doesn't …", "Won't …"
    re.I,
)
_CHOICE = re.compile(
    r"^(?P<head>.*?)\s+(?:an?\s+|the\s+)?(?P<first>[\w'’-]+)\s+or\s+(?:as\s+)?(?:an?\s+|the\s+)?"
    r"(?P<second>[\w'’.-]+(?:\s+[\w'’.-]+){0,3})"
    r"(?:\s+(?:under|within|for purposes of|according to|pursuant to|as defined in)\b.*)?\W*$",  # "… under § 301"
    re.I,
)
_NOT_A_CHOICE = re.compile(r"^(?:not|otherwise|neither|none|both|either|any\w*|some\w*|more|less|else)\b", re.I)
_BEFORE_CHOICE = re.compile(
    r"\b(to|for|in|on|at|from|by|with|under|into|about|after|before|during|between|against|within|over)"
    r"(?:\s+[^\s\d]+)?$",  # its object may open with one word: "subject to gift tax or estate tax"
    re.I,
)
_COPULA = re.compile(r"^\W*(?:is|are|was|were)(?:n['’]t)?\b|\bbe\b|\bas$", re.I)


def asks_which(sentence: str) -> bool:
    """Whether ``sentence`` asks which of two things holds, not yes or no: a copula before the choice and
    no preposition governing it ("Is the loss capital or ordinary?", "Was she an employee or
    an independent contractor under the common-law test?", "Should the payment be treated as a loan or as a
    distribution?", "Was it terminated for cause or for convenience?"); not "Is it taxable or not?", "Is the
    credit available to trusts or estates?" nor "Is the transfer subject to gift tax or estate tax?" (yes or
    no for either)."""
    choice = _CHOICE.match(sentence.strip().rstrip("?").strip())
    if not choice or _NOT_A_CHOICE.match(choice["second"]):
        return False
    before = _BEFORE_CHOICE.search(choice["head"])
    if before and choice["second"].split()[0].lower() != before.group(1).lower():
        return False
    return bool(_COPULA.search(choice["head"]))


def asks_choice(question: str) -> bool:
    """Whether the first question of ``question`` asks which of two things holds (:func:`asks_which`, read
    from its auxiliary: "For 2024, is she a resident or a nonresident?"), not yes or no."""
    first = _first_question(question)
    sentence = first[0] if first else question
    if _TAG.search(sentence) or is_statement(question):
        return False
    opening = _YES_NO.match(sentence)
    asked = sentence[opening.start("aux") :] if opening else sentence
    return asks_which(_PART_BREAK.split(asked)[0])  # "Is it A or B, and how is it reported?"


_TAG = re.compile(r",\s*(?:correct|right|true)\?\s*$", re.I)
"""A statement asked back as a question: "The credit is refundable, correct?"."""
_STATEMENT = re.compile(
    r"\b(?:is\s+it\s+)?(?:true\s*(?:or|/)\s*false|t\s*(?:/|or)\s*f|correct\s+or\s+incorrect)\b(?:\s+that\b)?\W*", re.I
)
"""The ask to judge a statement: "True or false", "True/False", "T/F", "T or F", "Correct or incorrect", "Is it
true or false that …"."""


def is_statement(question: str) -> bool:
    """Whether ``question`` gives a statement to judge true or false ("True or false: …", "True/False: …",
    "T/F: …", "… True or false?")."""
    return bool(_STATEMENT.search(question))


def _statement(question: str) -> str:
    """The statement ``question`` gives to judge: without the ask ("True or false:"), and without a sentence
    that is only the ask ("Is the following statement true or false?") when another sentence states it."""
    sentences = _sentences(question)
    stated = [s for s in sentences if not (_STATEMENT.search(s) and s.endswith("?"))]
    text = " ".join(stated) if stated and len(stated) < len(sentences) else question
    return " ".join(_STATEMENT.sub(" ", text).split()).rstrip(" ,;:(–—-")


_ASKS_WHETHER = re.compile(rf"^(?:(?!\b{_WH}\b).)*\bwhether\b", re.I | re.S)
_WHETHER = re.compile(r"\bwhether\b", re.I)


def _first_question(question: str) -> tuple[str, int] | None:
    """The first interrogative sentence of ``question`` (one ending in "?" or asking "whether …") and where it
    ends; sentences are cut as :func:`_sentences` cuts them, so "Smith v. Jones", "Treas. Reg. § 1.25A-1" or
    "2.5 percent" end none. ``None`` when no sentence asks."""
    end = 0
    for sentence in _sentences(question):
        end = question.find(sentence, end) + len(sentence)
        if sentence.endswith("?") or _WHETHER.search(sentence):
            return sentence, end
    return None


def yes_no_question(question: str) -> str:
    """The part of ``question`` that asks yes or no: everything up to the end of its first interrogative
    sentence (the facts set out before it included), or ``""`` when it is not a yes/no question."""
    if is_statement(question):
        return _statement(question)
    if not is_yes_no(question):
        return ""
    first = _first_question(question)
    return question[: first[1]].strip() if first else question.strip()


def is_yes_no(question: str) -> bool:
    """Whether ``question`` asks yes or no: its first interrogative sentence (one ending in "?" or asking
    "whether …"; statements that set out the facts before it are skipped) opens with an auxiliary verb
    ("Can …", "Is that deductible?") or asks whether with no wh-word before it ("Tell me whether …",
    not "Explain how … decide whether …"), and does not ask which of two things holds (:func:`asks_which`:
    "Is the loss capital or ordinary?"). A later question ("… Does
    it apply to trusts?") does not make the whole a yes/no one."""
    if is_statement(question):
        return True
    first = _first_question(question)
    sentence = first[0] if first else question
    tagged = bool(_TAG.search(sentence)) and not re.match(rf"\W*{_WH}\b", sentence, re.I)
    if asks_choice(question):
        return False
    return bool(_YES_NO.match(sentence) or _ASKS_WHETHER.search(sentence) or tagged)


_ASKING = rf"(?:how|what|which|why|whether|{_AUX}|(?:when|where|who)\s+{_AUX})"
# a comma or semicolon that brings in another question, not a relative clause (", which is …", ", who is
# married,"); or "and" before a wh-word asking again ("… and how is it computed?", not "… and what the Act calls")
_PART_BREAK = re.compile(
    rf"[,;]\s+(?:(?:and|or)\s+(?={_PREPOSITION}{_ASKING}\b)|(?!(?:which|who)\s+{_AUX}\b)(?={_PREPOSITION}{_ASKING}\b))"
    rf"|(?<!\bhow)(?<!\bwhy)(?<!\bwhat)(?<!\bwhen)(?<!\bwhere)\s+and\s+"  # not "How and when must …"
    rf"(?=(?:how|why|(?:what|which|when|where|who)\s+{_AUX})\b)",
    re.I,
)
_ELLIPTICAL = re.compile(r"[,;]\s+(?:and|or)\s+(when|where|why|how|who)\s*\?$", re.I)
"""A question that ends by asking again with a bare wh-word: "…, and where?"."""
_ASKS = re.compile(rf"^\W*{_PREPOSITION}(?:{_ASKING}|who\s+\w+)\b", re.I)  # opening a part: "Who qualifies"
_CONDITION = re.compile(r"[\s,]*(?:(?:and|or|but)[\s,]*)?\b(if\s+(?:so|not))$", re.I)
_IMPERATIVE = re.compile(
    r"^\W*(?:also,?\s+)?(?:explain|describe|list|identify|summari[sz]e|outline|discuss|compare)\b", re.I
)
"""A request put as an order ("Explain the phase-out.", "List the conditions."): a part as a question is.
Not "state" ("State law requires …" sets out facts)."""
_BREAK = re.compile(r"([.?!])\s+|\n\s*")
_CAPITAL_NEXT = re.compile(r"[A-Z“\"(]|\d{1,2}[.)]\s")
_OPENS = re.compile(rf"(?:{_AUX}|{_WH})\b", re.I)
"""A sentence opening with an auxiliary or a wh-word asks: what ends before it is a sentence, even after an
abbreviation, before a small letter or at a line break ("She moved to the U.S. Can she …", "she is 24. can
she …")."""
_ABBREVIATION = re.compile(
    r"(?:\b(?:v|vs|no|nos|reg|regs|treas|sec|secs|art|para|pp|ch|inc|co|corp|ltd|jr|st|ct|cf|al|seq|stat|rev|rul"
    r"|proc|pub|supp|cir|app|fed)|\b[A-Z])$",
    re.I,
)


def _sentences(text: str) -> list[str]:
    """``text`` cut after "?", "!" and full stops that end a sentence — not an abbreviation's ("Treas. Reg.",
    "Dobbs v. Jackson", "U. S.", "No. 19") unless a question opens after it (:data:`_OPENS`) — and at a line
    break before a question."""
    out, start = [], 0
    for m in _BREAK.finditer(text):
        stop, asks = m.group(1), bool(_OPENS.match(text, m.end()))
        if (
            not asks
            and (
                stop is None  # a line break inside a sentence
                or not _CAPITAL_NEXT.match(text, m.end())
                or (stop == "." and _ABBREVIATION.search(text[start : m.start()]))
            )
        ):
            continue
        out.append(text[start : m.end(1) if stop else m.start()].strip())
        start = m.end()
    return [s for s in [*out, text[start:].strip()] if s]


def question_parts(question: str) -> list[str]:
    """The questions asked in ``question``, in order: its sentences that end in "?" or give an order
    (:data:`_IMPERATIVE`; statements setting out the facts are left out; "Treas. Reg." or "Dobbs v. Jackson"
    end no sentence), each question split where a comma, a semicolon or "and" brings in another ("When is
    the gain reported, what is taxed, and how …" is three parts; "What is taxed and when is it reported?" two;
    "When is it due, and where?" two, the second "where is it due?").
    A relative clause (", which is …"), a leading "When a partnership terminates," or
    "Under § 453," is no part of its own: it joins the question after it. One part: ``[question]``."""
    parts: list[str] = []
    for asked in (s for s in _sentences(question) if s.endswith("?") or _IMPERATIVE.match(s)):
        if not asked.endswith("?"):  # an order is one part: "Explain the rule, and how it applies to trusts."
            parts.append(asked)
            continue
        again = ""
        elliptical = _ELLIPTICAL.search(asked)
        if elliptical:  # "When is it due, and where?": the last part asks the one before it again
            head = asked[: elliptical.start()]
            clause = re.search(rf"\b{_AUX}\b.*", head.rsplit(", ", 1)[-1], re.I)
            again = f"{elliptical.group(1)} {clause.group(0) if clause else head}?"
            asked = f"{head}?"
        lead = ""
        for piece in _PART_BREAK.split(asked):
            piece = piece.strip(" ,;")
            if not piece:
                continue
            if not _ASKS.search(piece) and not (piece.endswith("?") and not lead and parts):
                lead = f"{lead}, {piece}" if lead else piece
                continue
            part = f"{lead}, {piece}" if lead else piece
            condition = _CONDITION.search(part)  # "Is it refundable and, if so, how much?": "if so" asks on
            parts.append(part[: condition.start()] if condition else part)
            lead = condition.group(1) if condition else ""
        if lead:
            parts.append(lead)
        if again:
            parts.append(again)
    return parts if len(parts) > 1 else [question.strip()]


def without_lead(part: str) -> str:
    """``part`` without the phrases before its question word that set the scene ("Under § 453, which payments
    count …" → "which payments count …"; "In that case, how did the court …" → "how did the court …"):
    every quote retrieved for the question shares the scene, so only what is asked tells them apart."""
    pieces = part.split(", ")
    if len(pieces) < 2 or _ASKS.search(pieces[0]):
        return part
    for i in range(1, len(pieces)):
        if _ASKS.search(pieces[i]):
            return ", ".join(pieces[i:])
    return part


def plain_terms(question: str, translation: str) -> str:
    """The reading prompt's line giving the question in plain terms (with its line break), or ``""`` when
    there is no translation or it only repeats the question (the offline default writes none: the line
    cost ~40 prompt tokens in the filter's and the reader's prefixes for nothing). A repeat is the question
    as glossed or as the user wrote it (:func:`unexpand`)."""
    said = {" ".join(unexpand(t).split()).lower() for t in (question, translation)}
    if not translation.strip() or len(said) == 1:
        return ""
    return render(load("templates")["plain_terms"], translated_question=translation.strip())


def parts_rule(question: str) -> str:
    """The reader's rule (with a line break) naming each part of a question that asks several things, so
    that the answer takes them in turn; ``""`` for a question that asks one."""
    parts = question_parts(question)
    if len(parts) < 2:
        return ""
    listed = "; ".join(f"({i}) {p.rstrip('?')}" for i, p in enumerate(parts, 1))
    return render(load("templates")["parts_rule"], n=len(parts), parts=listed) + "\n"


def verdict_rule(question: str, verdict: str = "") -> str:
    """The reader's verdict-first rule (with a line break) for a yes/no question, else ``""``; with the
    decided ``verdict`` (``yes``/``no``, :mod:`lclfqa.graph.answer.verdict`), the rule names it. A statement to
    judge is the reader's to decide: it is told to open with "True" or "False"."""
    if not is_yes_no(question):
        return ""
    t = load("templates")
    if is_statement(question):
        return t["statement_rule"] + "\n"
    if verdict in ("yes", "no"):
        return render(t["given_verdict_rule"], verdict=verdict, Verdict=verdict.capitalize()) + "\n"
    return t["verdict_rule"] + "\n"
