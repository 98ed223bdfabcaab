"""Opinions of a judgment: where each judge's (or the joint) reasons begin, as top-level sections.

A judgment prints each opinion under the names of the judges who give it. Two conventions cover the
courts we read, and neither needs a list of judges or courts:

- Commonwealth style: the judges' names in capitals with their titles, ending in a full stop, alone on
  a line or opening the first numbered paragraph: ``GAGELER CJ, GORDON, EDELMAN, GLEESON AND
  BEECH-JONES JJ.``, ``80 STEWARD J. Save in relation to…``, ``1. FRENCH CJ. These appeals…``. The
  coram on a cover page has no full stop (``GORDON, EDELMAN … JJ``) and opens nothing.
- United States style: ``JUSTICE ALITO delivered the opinion of the Court.``, ``JUSTICE THOMAS,
  concurring.``, ``CHIEF JUSTICE ROBERTS, concurring in the judgment.``, ``JUSTICE BREYER, JUSTICE
  SOTOMAYOR, and JUSTICE KAGAN, dissenting.`` (over two lines), ``PER CURIAM.``: a paragraph that is
  nothing but that sentence.

The title is the names with the role (``JUSTICE THOMAS, concurring.``; ``STEWARD J.``), so every
section path under it says whose opinion it is.
"""

from __future__ import annotations

import re

_TITLES = r"(?:CJ|ACJ|P|JA|AJA|J|JJ|JJA|AJ)"
_NAME = r"[A-Z][A-Z'’\-]+(?:\s+[A-Z][A-Z'’\-]+)?"
_COMMONWEALTH = re.compile(
    rf"^(?:\[?\d{{1,4}}\]?\.?\s+)?((?:{_NAME}(?:\s+{_TITLES})?(?:\s*,\s*|\s+AND\s+))*{_NAME}\s+{_TITLES}[.:])(?:\s+[A-Z“\"(]|$)"
)
_JUSTICE = r"(?:MR\.\s+)?(?:CHIEF\s+)?JUSTICE\s+[A-Z][A-Z'’\-]+"
_US = re.compile(
    rf"^((?:{_JUSTICE}(?:,?\s+(?:and\s+)?{_JUSTICE})*)"
    r"(?:,?\s+(?:concurring|dissenting)(?:\s+in\s+(?:part|the\s+judgment)[^.]{0,80})?"
    r"|\s+(?:delivered|announced)\s+the\s+(?:opinion|judgment)\s+of\s+the\s+Court[^.]{0,120})\.)$"
    r"|^(PER\s+CURIAM\.)$"
)


def opinion_title(paragraph: str) -> str | None:
    """The opinion that ``paragraph`` (its first line or two, joined) opens, or ``None``.

    >>> opinion_title("80 STEWARD J. Save in relation to two issues")
    'STEWARD J.'
    >>> opinion_title("JUSTICE BREYER, JUSTICE SOTOMAYOR, and JUSTICE KAGAN, dissenting.")
    'JUSTICE BREYER, JUSTICE SOTOMAYOR, and JUSTICE KAGAN, dissenting.'
    """
    text = re.sub(r"\s+", " ", paragraph.strip())
    m = _COMMONWEALTH.match(text)
    if m:
        return m.group(1)
    m = _US.match(text)
    if m:
        return m.group(1) or m.group(2)
    return None
