"""The first and the last stage: the model's text made an answer (``tidy``), and an answer that is a refusal
or an answer, never both (``refuse``).

``tidy`` — citation runs collapsed ("[1][2][3][4]"; "[4] [4]" once), a closing list of sources dropped (its
numbers still count as cited), a last sentence the token limit cut off finished in the words of the quote it was copying
(:func:`finished`) or else dropped, and a glossary gloss the question carried
("MFS (married filing separately)", :func:`lclfqa.prompts.expand_acronyms`) shown as the words the user
wrote, a regulation's number not said to be the Code's ("section 1.21-3 of the Code"), and a verdict alone on
the first line ended with a full stop ("True\nThe court …" → "True. The court …"). A reply that
opens with a refusal is one when nothing it says after that cites a quote; otherwise
its refusal sentences go, and the rest is read as an answer.

``refuse`` — after the checks: when nothing but a verdict survives (a bare "No." says nothing), the answer
is the refusal, with no verdict and no citation; a sentence saying that the documents do not answer the
question, beside sentences that answer it, is dropped, cited or not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lclfqa import prompts
from lclfqa.graph.answer.draft import Draft, Reading
from lclfqa.index.provisions import REGULATION
from lclfqa.llm import parsing
from lclfqa.llm.calls import Meter, chat
from lclfqa.llm.parsing import split_sentences as sentences

# What a refusal speaks of: the material given to the model, not the law it reads ("this ceiling does not cover
# interest" is an answer, and goes through every stage like one). A contract's defined "Materials" are the law.
_MATERIAL = prompts.EVIDENCE
_NOT = r"(?:(?:do(?:es)?|did) not|(?:do|does|did)n['’]t)"
_SILENT = r"(?:answer|address|contain|cover|discuss|mention)"
_REFUSAL = re.compile(
    # the material, then what it does not do: "The documents provided here do not address …", "The quotes [1]
    # and [2] do not mention …", "The sources I was given don't cover …"; not through a clause ("The sources
    # show that the cap does not cover …" is an answer)
    rf"\b{_MATERIAL}\b(?:(?!\b(?:that|which|whether)\b)[^.;:!?,]){{0,60}}?\s{_NOT} {_SILENT}\b"
    rf"|\bnone of the (?:\w+ )?{_MATERIAL}\b[^.;:!?]{{0,40}}?\b{_SILENT}(?:e?s)?\b"
    rf"|no information (?:about|on|regarding)"
    rf"|not (?:addressed|answered|covered|discussed) (?:in|by) (?:any of )?the (?:\w+ )?{_MATERIAL}",
    re.I,
)
_VERDICT_ONLY = re.compile(r"(?:\W*(?:generally,?\s+)?(?:yes|no|not|true|false)\W*(?:\[\d+\]\W*)*)+", re.I)


def is_refusal(answer: str) -> bool:
    """Whether ``answer`` says the documents do not answer the question (checked on its first sentences)."""
    head = answer.strip()[:300]
    return not head or refuses(head)


_WHOLE = re.compile(
    r"(?:do(?:es)?|did) not (?:answer|address) (?:this|the|your) question|cannot be answered"
    r"|(?:do(?:es)?|did) not (?:provide|give|offer) (?:an? |any )?(?:(?:clear|definitive|direct|complete|specific) )?"
    r"answer (?:to|for) (?:this|the|your) question",
    re.I,
)


def refuses(sentence: str, whole: bool = False) -> bool:
    """Whether ``sentence`` says the documents do not answer the question (``whole``: at all, not a part of it).
    The documents (sources, quotes, references …) must be what does not answer: a negative statement about
    the law or the instrument read ("the cap does not cover interest") is an answer."""
    return sentence.strip().startswith(prompts.refusal()[:30]) or bool((_WHOLE if whole else _REFUSAL).search(sentence))


def says_nothing(sentence: str) -> bool:
    """Whether ``sentence`` is at most a verdict ("No.", "Generally, yes [2].")."""
    return bool(_VERDICT_ONLY.fullmatch(sentence.strip()))


_FINISHED = re.compile(rf"[.!?][\"”’']?(?:\s*{parsing.CITATION})*\s*$|\]\s*$")


_CODE_BEFORE = re.compile(rf"\b(?:IRC|I\.R\.C\.|Code)\s+((?:section|sec\.|§)\s*)?(?={REGULATION})")
_CODE_AFTER = re.compile(
    rf"({REGULATION})\s+of\s+the\s+(?:Internal\s+Revenue\s+)?Code(?:\s+of\s+1986)?(?:\s*\((?:the\s+)?(?:IRC|Code)\))?"
)


def regulations_unclaimed(answer: str) -> str:
    """``answer`` without a regulation's number said to be the Code's: "section 1.21-3 of the Code" →
    "section 1.21-3", "IRC § 40.6302(c)-3" → "§ 40.6302(c)-3" (a Code section has no dotted number)."""
    return _CODE_AFTER.sub(r"\1", _CODE_BEFORE.sub(lambda m: m.group(1) or "§ ", answer))


COPIED_WORDS = 6
"""An unfinished last sentence of at least this many words found word for word in a quote was copying it."""


def finished(answer: str, written: str | None = None, texts: Sequence[str] = ()) -> tuple[str, str]:
    """``(answer, completion)``: ``answer`` (which the token limit cut off) with its unfinished last sentence
    ("… is no longer responsible for collecting and paying over") finished in the words of the quote in
    ``texts`` it was copying (at least :data:`COPIED_WORDS` words found there as written), ``completion``
    being the words added, with the marker citing that quote; where more words are left to add than it
    copied, it ends in "…" cited to that quote instead (finishing it would quote a passage); a cut sentence
    copying no quote is dropped when a finished sentence comes before it.
    Whether it is finished is read on ``written``, the model's text as it came (``answer`` when not given): a
    model writing each marker before its sentence ("[5] Any person … paying over") has the marker moved
    after the cut words (:func:`lclfqa.llm.parsing.citations_last`), where it would pass for an ending."""
    said = sentences(answer)
    if not said or _FINISHED.search(said[-1] if written is None else written.rstrip()):
        return answer, ""
    cut = answer.rfind(said[-1])
    head = answer[:cut].rstrip() if cut > 0 else " ".join(said[:-1])
    copied = " ".join(parsing.CITATION_RE.sub(" ", said[-1]).split())
    for n, text in enumerate(texts, 1):
        flat = " ".join(text.split())
        at = flat.find(copied) if len(copied.split()) >= COPIED_WORDS else -1
        if at < 0:
            continue
        rest = flat[at + len(copied) :]
        tail = sentences(f"x{rest}")[0][1:] if rest.strip() else ""  # to the end of its sentence ("U. S." is none)
        body, stop = re.fullmatch(r"(.*?)([.!?][\"”’']?)?", copied + tail, re.S).groups()
        if len(body[len(copied) :].split()) >= len(copied.split()):
            # most of the sentence is still to come: finishing it would quote a passage, not end a sentence
            return f"{head} {copied.rstrip(',;:—–- ')} … [{n}].".strip(), ""
        words = body[len(copied) :].strip()
        # recorded with its marker: so it is found once in the answer, and never inside an added quote
        return f"{head} {body} [{n}]{stop or '.'}".strip(), f"{words} [{n}]" if re.search(r"\w", words) else ""
    return (head, "") if len(said) > 1 else (answer, "")


_VERDICT_LINE = re.compile(r"^(\W*(?:(?:generally|in general),?\s+)?(?:yes|no|true|false))[ \t]*\n\s*", re.I)
"""A verdict alone on the answer's first line, with no punctuation ("True\nThe court held …")."""


def written_answer(llm, msgs: list, meter: Meter, limit: int, texts: Sequence[str] = ()) -> Draft:  # noqa: ANN001
    """The reader's call, tidied: the draft whose ``written`` is the model's text (citation runs collapsed)
    and whose ``answer`` is that text without a source list at its end or a gloss, its last sentence
    finished from the quote in ``texts`` it was copying or dropped where the token limit cut it off
    (:func:`finished`; the words added are in ``added``), a verdict alone on its first line ended with a full
    stop; ``refused`` when it refuses and cites nothing after its refusal."""
    before = meter.completion_tokens
    raw = chat(llm, msgs, meter, max_tokens=limit, stop_pattern=parsing.RUNAWAY)
    written = parsing.collapse_citation_runs(parsing.clean_answer(raw))
    answer = regulations_unclaimed(prompts.unexpand(parsing.strip_source_list(written)))
    answer = _VERDICT_LINE.sub(r"\1. ", answer)  # "True\nThe court held …" reads "True. The court held …"
    completion = ""
    if meter.completion_tokens - before >= limit:  # the token limit cut it off
        answer, completion = finished(answer, raw, texts)
    draft = Draft(answer=answer, written=written, added=[completion] if completion else [])
    if is_refusal(answer):
        said = sentences(answer)
        rest = [s for s in said if not refuses(s, whole=True)]
        if any(parsing.cited_numbers(s) for s in rest):
            draft.removed += [(s, "refuse: a refusal beside an answer") for s in said if refuses(s, whole=True)]
            draft.answer = " ".join(rest)
        else:
            draft.refused = True
            draft.answer = _refusal_only(said)
    return draft


def _refusal_only(said: list[str]) -> str:
    """The refusal sentences of a refusal, without an opening verdict ("No, the documents …")."""
    kept = [re.sub(r"^\W*(?:yes|no)\b[,.;:]?\s*", "", s, flags=re.I) for s in said if refuses(s)]
    kept = [k[:1].upper() + k[1:] for k in kept if k]
    return " ".join(kept) or prompts.refusal()


def refuse(draft: Draft, reading: Reading) -> None:
    """The ``refuse`` stage (see the module docstring)."""
    said = sentences(draft.answer)
    if not any(not refuses(s, whole=True) and not says_nothing(s) for s in said):
        draft.removed += [(s, "refuse: nothing but a verdict survives") for s in said if not says_nothing(s)]
        draft.answer, draft.refused = prompts.refusal(), True
        draft.notes["refused_by"] = "nothing but a verdict survives"
        return
    gone = [s for s in said if refuses(s, whole=True)]
    if gone:
        draft.removed += [(s, "refuse: a refusal beside an answer") for s in gone]
        draft.answer = " ".join(s for s in said if s not in gone)
