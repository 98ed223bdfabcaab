"""Opinions of a judgment: where each judge's (or the joint) reasons begin, as top-level sections.

A judgment prints each opinion under the names of the judges who give it. Three conventions are
recognised by their shape alone, with no list of judges or jurisdictions:

- Names with judicial titles: the judges' names in capitals followed by their titles (``CJ``, ``J``,
  ``JJ``, ``JA`` …), ending in a full stop, alone on a line or opening the first numbered paragraph:
  ``SMITH CJ, JONES, BROWN AND NGUYEN-LEE JJ.``, ``80 PATEL J. Save in relation to…``, ``1. SMITH CJ.
  These appeals…``. A list of the bench on a cover page has no full stop (``JONES, BROWN … JJ``) and
  opens nothing.
- ``JUSTICE``-prefixed: ``JUSTICE SMITH delivered the opinion of the Court.``, ``JUSTICE JONES,
  concurring.``, ``CHIEF JUSTICE BROWN, concurring in the judgment.``, ``JUSTICE PATEL, JUSTICE LEE,
  and JUSTICE NGUYEN, dissenting.`` (over two lines), ``PER CURIAM.``: a paragraph that is nothing but
  that sentence.
- A U.S. court of appeals' or district court's: the judge's name in capitals, a comma and the court's title,
  alone or opening the opinion's first paragraph, ending at a full stop or a colon: ``HALLORAN, Circuit Judge.
  This appeal …``, ``VOSS, Circuit Judge:``, ``MARCHETTI, Chief Judge.``, ``OKAFOR, Circuit Judge, concurring in
  part and concurring in the judgment.``, ``LINDQVIST, Circuit Judge (Dissenting).``, ``O'DWYER, Circuit Judge,
  with whom PRAKASH, Circuit Judge, joins, dissenting.``, ``TAN, District Judge.`` The bench listed on the cover
  (``Halloran and Voss, Circuit Judges.``) opens nothing.

The title is the names with the role (``JUSTICE JONES, concurring.``; ``PATEL J.``), so every section
path under it says whose opinion it is.
"""

from __future__ import annotations

import re

JUDICIAL_TITLES = r"(?:CJ|ACJ|P|JA|AJA|J|JJ|JJA|AJ)"
"""The titles that follow a judge's name in a judgment's headings ("SMITH CJ", "JONES JA", "BROWN AND LEE JJ")."""
_TITLES = JUDICIAL_TITLES
_NAME = r"[A-Z][A-Z'’\-]+(?:\s+[A-Z][A-Z'’\-]+)?"
_TITLED = re.compile(
    rf"^(?:\[?\d{{1,4}}\]?\.?\s+)?((?:{_NAME}(?:\s+{_TITLES})?(?:\s*,\s*|\s+AND\s+))*{_NAME}\s+{_TITLES}[.:])(?:\s+[A-Z“\"(]|$)"
)
_JUSTICE = r"(?:MR\.\s+)?(?:CHIEF\s+)?JUSTICE\s+[A-Z][A-Z'’\-]+"
_JUSTICE_STYLE = re.compile(
    rf"^((?:{_JUSTICE}(?:,?\s+(?:and\s+)?{_JUSTICE})*)"
    r"(?:,\s+with\s+whom\s+.{1,200}?\s+joins?(?:\s+as\s+to\s+[^,]{1,80})?,)?"  # ", with whom JUSTICE VOSS joins,"
    r"(?:,?\s+(?:concurring|dissenting)(?:\s+in\s+(?:part|the\s+judgment)[^.]{0,80})?"
    r"|\s+(?:delivered|announced)\s+the\s+(?:opinion|judgment)\s+of\s+the\s+Court[^.]{0,120})\.)$"
    r"|^(PER\s+CURIAM[.:])(?:\s+[A-Z“\"(].*)?$"  # a circuit's "PER CURIAM:" opens its opinion's first sentence
)

# A U.S. court's judge: "McALLISTER", "O'DWYER", "DeLUCA", "R. TAN", "J.R. TAN", "ANNA K. BRENNER, JR.", "DE SOTO"
# (words in capitals, a Mc/Mac prefix, initials, a suffix); judges sharing an opinion: "HALLORAN and VOSS"
_US_WORD = r"(?:[A-Z]\.(?:\s?[A-Z]\.)*|(?:M[a]?c|De|Di|La|Le)?[A-Z][A-Z'’\-]+)"
_US_NAME = rf"{_US_WORD}(?:\s+{_US_WORD}){{0,3}}(?:,\s+(?:JR|SR)\.|\s+(?:II|III|IV))?"
_US_NAMES = rf"{_US_NAME}(?:(?:,\s+|,?\s+and\s+){_US_NAME})*"
_US_ROLE = (
    r"(?:(?:Chief|Senior)\s+)?(?:United\s+States\s+|U\.S\.\s+)?(?:(?:Senior\s+)?Circuit|District|Bankruptcy|Magistrate)"
    r"\s+Judges?|Chief\s+Judge|U\.S\.[DM]\.J\."  # "United States District Judge", "U.S.D.J."
)
_COURT_JUDGE = re.compile(
    rf"^({_US_NAMES},\s+(?:{_US_ROLE})"
    r"(?:,\s+with\s+whom\s+.{1,200}?\s+joins?,?)?"  # "…, with whom VOSS, R. TAN, and OKAFOR, …, join,"
    r"(?:,?\s+\(?(?:(?:specially|partially)\s+)?(?:[Cc]oncurring|[Dd]issenting)[^.:()]{0,120}\)?)?"
    r"[.:])(?:\s+[A-Z“\"(]|$)"  # the role ends at its full stop or colon: the opinion's text follows
)


def opinion_title(paragraph: str) -> str | None:
    """The opinion that ``paragraph`` (its first line or two, joined) opens, or ``None``.

    >>> opinion_title("80 PATEL J. Save in relation to two issues")
    'PATEL J.'
    >>> opinion_title("JUSTICE PATEL, JUSTICE LEE, and JUSTICE NGUYEN, dissenting.")
    'JUSTICE PATEL, JUSTICE LEE, and JUSTICE NGUYEN, dissenting.'
    >>> opinion_title("TAN, Circuit Judge, dissenting. The majority reads the statute")
    'TAN, Circuit Judge, dissenting.'
    """
    text = re.sub(r"\s+", " ", paragraph.strip())
    m = _TITLED.match(text)
    if m:
        return m.group(1)
    m = _JUSTICE_STYLE.match(text)
    if m:
        return m.group(1) or m.group(2)
    m = _COURT_JUDGE.match(text)
    if m:
        return m.group(1)
    return None
