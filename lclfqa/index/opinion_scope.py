"""Opinion scope: each separate opinion a question names gets its best passage into the question's top k.

A judgment prints each opinion under its own title, and ingestion makes that title the first level of every
section path under it (:mod:`lclfqa.ingest.opinions`: "JUSTICE JONES, concurring.", "JUSTICE PATEL, JUSTICE
LEE, and JUSTICE NGUYEN, dissenting.", "PATEL J."). A question that names opinions — "Compare Justice
Jones's concurrence and the principal dissent on …", "What did Patel J say about …" — is asked of each of
them. Ranked by the whole question, the naming words pull towards passages that talk about concurrences
and dissents, not towards what each opinion says on the point asked (on the tax dev set, a concurrence's
passage answering the question ranked 21st overall and 4th within its opinion; ranked by the question
without the naming words, 1st). So, with no LLM and no list of judges:

- :func:`named_opinions` reads the opinions a question names: a judge by name ("Justice Jones",
  "Chief Justice Brown", "Patel J", "Smith CJ"), with or without a role, or a role alone ("the dissent",
  "the concurring opinion"). "The majority" and "the Court" name no separate opinion: the question's own
  ranking already serves the Court's opinion;
- :func:`ranking_query` is the question without those naming words;
- :func:`opinion_picks` takes, for each named opinion, the best-ranked passage under a title it matches from
  one more hybrid search by that query (``depth`` deep), and :func:`with_picks` puts each pick the top k
  lacks at its head, dropping its lowest-ranked hits.

A question naming no opinion, or an index with no opinion titles, ranks exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lclfqa.ingest.opinions import opinion_title

__all__ = [
    "NamedOpinion",
    "heading_of",
    "named_opinions",
    "opinion_names",
    "opinion_picks",
    "ranking_query",
    "with_picks",
]

_ROLE = r"(?i:dissent(?:s|ing)?(?:\s+opinion)?|concurr(?:ences?|ing)(?:\s+opinion)?)"
_TITLE = r"(?:CJ|ACJ|JA|AJA|JJ|J)"
_SURNAME = r"[A-Z](?:[A-Za-z-]|['’](?![sS]\b)){2,}"  # O'Connor, not Kavanaugh's
_JUDGE = (
    rf"(?:\b(?:Chief\s+)?(?:Justice|JUSTICE)\s+(?P<justice>{_SURNAME}))"
    rf"|(?:\b(?P<titled>{_SURNAME}),?\s+{_TITLE}\b\.?)"
)
_MENTION = re.compile(
    rf"(?:{_JUDGE})(?:['’]s)?(?:,?\s+(?:(?:separate|own|joint)\s+)?(?P<own_role>{_ROLE}))?"
    rf"|(?:\b(?i:the)\s+)?(?:(?i:principal|main|lead|joint|separate|first|second|other)\s+)?\b(?P<role>{_ROLE})\b"
)
_TITLE_NAMES = re.compile(rf"\b(?!(?:{_TITLE}|AND|JUSTICE|CHIEF|MR|PER|CURIAM)\b)([A-Z][A-Z'’-]{{2,}})\b")


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
    return {m.group(1).lower().strip("'’-") for m in _TITLE_NAMES.finditer(title)}


def named_opinions(question: str) -> list[NamedOpinion]:
    """The separate opinions ``question`` names, in the order it names them (see the module doc)."""
    found: list[NamedOpinion] = []
    for m in _MENTION.finditer(question):
        judge = (m.group("justice") or m.group("titled") or "").lower().strip("'’-")
        role = _role_of(m.group("own_role") or m.group("role") or "")
        found.append(NamedOpinion(judge, "" if judge else role))
    return list(dict.fromkeys(found))


def ranking_query(question: str) -> str:
    """``question`` without the words that name opinions (what each named opinion is searched by)."""
    stripped = " ".join(_MENTION.sub(" ", question).split())
    return stripped if re.search(r"\w", stripped) else question


def heading_of(path: Sequence[str]) -> str:
    """The opinion title a section path opens with, or ``""`` (a statute's or a regulation's paths)."""
    return next((h for h in path if opinion_title(h) == h.strip()), "")


def opinion_picks(
    named: Sequence[NamedOpinion], ranked: Sequence[str], path_of: Callable[[str], Sequence[str]]
) -> list[str]:
    """For each of the ``named`` opinions, the first of the ``ranked`` chunk ids whose section path
    (``path_of``) opens with a title it matches; each id once, in the order the opinions are named."""
    picks: list[str] = []
    titles = {cid: heading_of(path_of(cid)) for cid in ranked}
    for opinion in named:
        pick = next((cid for cid in ranked if titles[cid] and opinion.matches(titles[cid])), None)
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
    for _ in missing:
        if len(kept) + len(missing) <= k:
            break
        drop = next((i for i in range(len(kept) - 1, -1, -1) if kept[i] not in picks), None)
        if drop is None:
            break
        kept.pop(drop)
    ids = [*missing[: max(k - len(kept), 0)], *kept]
    scores = [score for _, score in hits] or [0.0]
    return [(cid, scores[min(i, len(scores) - 1)]) for i, cid in enumerate(ids)]
