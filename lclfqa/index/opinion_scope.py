"""Opinion scope: each opinion of a judgment a question names gets its best passage into the question's top k.

A judgment prints each opinion under its own title, and ingestion makes that title the first level of every
section path under it (:mod:`lclfqa.ingest.opinions`: "JUSTICE JONES, concurring.", "JUSTICE PATEL, JUSTICE
LEE, and JUSTICE NGUYEN, dissenting.", "PATEL J."). A question that names opinions — "Compare Justice
Jones's concurrence and the principal dissent on …", "What did Patel J say about …" — is asked of each of
them. Ranked by the whole question, the naming words pull towards passages that talk about concurrences
and dissents, not towards what each opinion says on the point asked (a concurrence's passage answering
the question can rank far down, even within its own opinion, and first once the naming words are gone).
So, with no LLM and no list of judges:

- :func:`named_opinions` reads the opinions a question names: a judge by name ("Justice Jones",
  "Chief Justice Brown", "Patel J", "Smith CJ", "Jones and Brown JJ") — whatever opinion the judge
  wrote, the Court's included — with or without a role, or an opinion by its role ("the dissent", "a
  concurring opinion", "the concurrence of Justice Lee"). Words that only look like one are not:
  "a dissenting shareholder", "if a holder dissents", "the concurrence of the Secretary", "Schedule J",
  "Thomas J. Watson". "The majority" and "the Court" name no opinion here: the question's own ranking
  already serves the Court's opinion;
- :func:`ranking_query` is the question without those naming words;
- :func:`opinion_picks` takes, for each named opinion, the best-ranked passage under a title it matches,
  in a document among the question's own hits (the judgment it is about), from one more hybrid search by
  that query (``depth`` deep), and :func:`with_picks` puts each pick the top k lacks at its head,
  dropping its lowest-ranked hits.

A question naming no opinion ranks exactly as before (no second search); one whose hits hold no judgment
with a matching title, too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass

from lclfqa.ingest.document import Chunk
from lclfqa.ingest.opinions import JUDICIAL_TITLES, opinion_title

_OPINION_NOUN = r"(?:dissents?|concurrences?|(?:dissenting|concurring)\s+opinions?)"
_ROLE = rf"(?i:{_OPINION_NOUN}|dissenting|concurring|dissents|concurs)"
_SURNAME = r"[A-Z](?:[A-Za-z-]|['’](?![sS]\b)){2,}"  # O'Connor; a possessive 's is no part of a name
_NOT_NAMES = frozenset(
    "schedule part subpart subchapter chapter exhibit appendix annex article section item line form note table "
    "figure division title class type grade plan per page rule order paragraph clause".split()
)


def _judge(tag: str) -> str:
    """A judge as a question names one: "Justice Lee", "Chief Justice Brown", "Patel J", "Smith CJ", "Jones
    and Brown JJ" (not "Thomas J. Watson": an initial before a name); named groups end in ``tag``."""
    return (
        rf"\b(?:Chief\s+)?(?:Justice|JUSTICE)\s+(?P<justice{tag}>{_SURNAME})"
        rf"|\b(?P<titled{tag}>{_SURNAME}(?:(?:,\s*|\s+and\s+){_SURNAME})*),?\s+{JUDICIAL_TITLES}\b"
        r"(?!\.?\s+[A-Z][a-z])\.?"
    )


_MENTION = re.compile(
    # a judge, with the role the judge takes ("Justice Lee's concurrence", "Patel J, dissenting")
    rf"(?:{_judge('')})(?:['’]s)?(?:,?\s+(?:(?:separate|own|joint)\s+)?{_ROLE})?"
    # an opinion by its role, with the judge who gives it ("the concurring opinion of Chief Justice Roberts")
    rf"|\b(?i:the|a|an|his|her|their|its|which|what|each|both|all|any|every|this|that|these|those)\s+(?:(?i:principal|main|lead|joint|separate|first|second|other)\s+)?"
    rf"(?P<role>(?i:{_OPINION_NOUN}))\b(?:\s+(?i:of|by)\s+(?:{_judge('2')})|(?P<consent>\s+of\b))?"
)
_TITLE_NAMES = re.compile(
    rf"\b(?!(?:{JUDICIAL_TITLES}|AND|JUSTICE|CHIEF|MR|MRS|MS|PER|CURIAM)\b)([A-Z][A-Z'’-]{{2,}})\b"
)


@dataclass(frozen=True)
class NamedOpinion:
    """An opinion a question names: a judge (surname, lower case) and/or a role (``dissent``,
    ``concurrence``)."""

    judge: str = ""
    role: str = ""

    def matches(self, title: str) -> bool:
        """Whether the opinion ``title`` (an opinion's heading) is this one: it names the judge, or, for a
        role alone, it is an opinion in that role."""
        if self.judge:
            return self.judge in opinion_names(title)
        return self.role == _role_of(title)


_PARENTHESIS = re.compile(r"\s*\(([^()]*)\)")
_JOINING = r"(?i:\b(?:concurr|dissent|agree|join)\w*)"
"""A word by which judges take a side in a judgment: "concurring", "dissenting", "agree", "joins"."""
_ROLE_WORDS = re.compile(
    rf"{_JOINING}|(?i:\b(?:with|whom|and|in|the|judgment|part)\b)|\b(?:[A-Z]{{1,3}}|JJA|JJ)\b|[,.;:\s]"
)
"""What a parenthesis in an opinion's heading holds beside judges' names: role words and judicial titles."""


def own_words(title: str) -> str:
    """``title`` without a parenthesis naming other judges beside a role word: "Dambuza AP and Nicholls JA
    (Saldulker, Mabindla-Boqwana, and Goosen JJA concurring):" is the judgment of the court, which the others
    concur in, not a concurrence; "LORD REED (with whom Lord Hodge and Lady Black agree)" likewise. A parenthesis
    holding the role alone ("TAN, Circuit Judge (Dissenting).") is the author's, and stays."""

    def others(m: re.Match[str]) -> str:
        names = _ROLE_WORDS.sub("", m.group(1))
        return "" if names and re.search(_JOINING, m.group(1)) else m.group(0)

    return _PARENTHESIS.sub(others, title)


def _role_of(text: str) -> str:
    low = text.lower()
    if "dissent" in low:
        return "dissent"
    if "concurr" in low:
        return "concurrence"
    return ""


def opinion_names(title: str) -> set[str]:
    """The judges (surnames, lower case) an opinion's title names ("JUSTICE PATEL, JUSTICE LEE, and
    JUSTICE NGUYEN, dissenting." → patel, lee, nguyen; "SMITH CJ, JONES AND BROWN JJ." → smith, jones,
    brown)."""
    return {m.group(1).lower().replace("’", "'").strip("'-") for m in _TITLE_NAMES.finditer(title)}


def _names(group: str | None, m: re.Match[str]) -> list[str]:
    """The surnames (lower case, one kind of apostrophe) in ``m``'s judge group ("Jones and Brown" → jones,
    brown), less words that only look like one ("Schedule J", "Part J")."""
    if group is None:
        return []
    names = re.split(r"\s*,\s*|\s+and\s+", m.group(group))
    return [n.lower().replace("’", "'").strip("'-") for n in names if n and n.lower() not in _NOT_NAMES]


def _named(m: re.Match[str]) -> list[NamedOpinion]:
    """The opinions one match of :data:`_MENTION` names (none for "the concurrence of the Secretary")."""
    judges = _names(next((g for g in ("justice", "titled", "justice2", "titled2") if m.group(g)), None), m)
    if judges:
        return [NamedOpinion(judge) for judge in judges]
    if m.group("role") and not m.group("consent"):
        return [NamedOpinion(role=_role_of(m.group("role")))]
    return []


def named_opinions(question: str) -> list[NamedOpinion]:
    """The opinions ``question`` names, in the order it names them (see the module doc): a judge, or a role
    as an opinion ("the dissent", "a concurring opinion" — not "a dissenting shareholder", "if a holder
    dissents" or "the concurrence of the Secretary")."""
    return list(dict.fromkeys(o for m in _MENTION.finditer(question) for o in _named(m)))


def ranking_query(question: str) -> str:
    """``question`` without the words that name opinions (what each named opinion is searched by)."""
    stripped = " ".join(_MENTION.sub(lambda m: " " if _named(m) else m.group(0), question).split())
    return stripped if re.search(r"\w", stripped) else question


def heading_of(path: Sequence[str]) -> str:
    """The opinion title in a section path (its first level, for a judgment), or ``""`` (a statute's or a
    regulation's paths)."""
    return next((h for h in path if opinion_title(h) == h.strip()), "")


def opinion_picks(
    named: Sequence[NamedOpinion], ranked: Sequence[str], chunk_of: Callable[[str], Chunk], documents: Set[str]
) -> list[str]:
    """For each of the ``named`` opinions, the first of the ``ranked`` chunk ids, in one of ``documents`` (those
    of the question's own hits: the judgment it is about, not another one in the index), under an opinion
    title it matches; each id once, in the order the opinions are named."""
    picks: list[str] = []
    titles: dict[str, str] = {}

    def title(cid: str) -> str:
        if cid not in titles:
            chunk = chunk_of(cid)
            titles[cid] = heading_of(chunk.section_path) if chunk.document in documents else ""
        return titles[cid]

    for opinion in named:
        pick = next((cid for cid in ranked if title(cid) and opinion.matches(title(cid))), None)
        if pick is not None and pick not in picks:
            picks.append(pick)
    return picks


def with_picks(hits: Sequence[tuple[str, float]], picks: Sequence[str], k: int) -> list[tuple[str, float]]:
    """``hits`` (the top ``k``, best first) led by each of ``picks`` they lack, in place of their lowest-ranked
    hits that are not picks. A pick leads because it is the named opinion's best passage on what is asked,
    and the last places may not reach the reader (the parents of a question's children are cut to the context
    budget in rank order). The scores stay where they were, by place (the list stays ordered)."""
    present = {cid for cid, _ in hits}
    missing = [p for p in picks if p not in present]
    if not missing:
        return list(hits)
    kept = [cid for cid, _ in hits]
    droppable = [i for i in range(len(kept) - 1, -1, -1) if kept[i] not in picks]  # lowest-ranked first
    for i in droppable[: max(len(kept) + len(missing) - k, 0)]:
        kept.pop(i)  # descending indices: the ones left stay valid
    ids = [*missing[: max(k - len(kept), 0)], *kept]
    scores = [score for _, score in hits] or [0.0]
    return [(cid, scores[min(i, len(scores) - 1)]) for i, cid in enumerate(ids)]
