"""Read a judge's Accept/Reject the way a person reads it; what cannot be read is ``undecided``, never a guess."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from tfr_helpers.models.parse._text import strip_reasoning

DecisionWord = Literal["accept", "reject"]

_LABELS = r"decision|verdict|answer|judge?ment|conclusion|recommendation|assessment|label|result"
_LABEL_LINE = re.compile(
    rf"^(?:(?:my|the|final|overall|your)\s+)*(?P<label>{_LABELS})\s*(?:[:=\-\u2013\u2014]|\bis\b)\s*(?P<value>.*)$", re.I
)
_TAG = re.compile(r"<(decision|verdict|answer)>\s*(.*?)\s*</\1>", re.I | re.S)
_JSON = re.compile(r"\{[^{}]*\}", re.S)
_JSON_KEYS = ("decision", "verdict", "final_decision", "answer", "final_answer", "judgment", "judgement", "label")
_NEG = r"(?:not|never|no|cannot|can't|won't|don't|didn't|wouldn't|shouldn't|mustn't|couldn't|isn't|refuse to|decline to)"
_BARE = re.compile(
    rf"^(?:i\s+(?:would\s+|will\s+|must\s+)?)?(?:{_NEG}\s+(?:be\s+)?)?(accept|reject)(?:ed)?"
    r"(?:\s+(?:it|this|this feedback|the feedback|the test|this test))?$",
    re.I,
)
_BARE_EXPLAINED = re.compile(rf"^((?:{_NEG}\s+)?(?:accept|reject)(?:ed)?)\s*(?:[:(,\-\u2013\u2014]|\.\s).*$", re.I)
_MENTION = re.compile(r"\b(accept|reject)(ed|ing|ance|ion)?\b", re.I)
_NEGATION = re.compile(rf"\b{_NEG}\b|n't\b|\bnor\b|\bagainst\b", re.I)
# words after "accept"/"reject" that make it about the code's inputs, not the verdict
_INPUT_OBJECT = re.compile(
    r"^\s+(?:a|an|any|only|negative|positive|empty|inputs?|values?|strings?|lists?|integers?|numbers?|"
    r"arguments?|parameters?|floats?|none|null|zero|both|invalid|valid|duplicates?)\b",
    re.I,
)
_CLAUSE = re.compile(r"[,;:]|\b(?:but|however|although|though|so|therefore|thus|hence|because|since|whereas|yet)\b", re.I)
# a clause with one of these states a condition, a question, an option or a doubt, not a verdict
_NOT_DECISIVE = re.compile(
    r"\b(?:if|whether|unless|either|between|could|might|may|tempting|suppose|assuming|mean|means|meaning|"
    r"sure|unsure|uncertain|unclear|hard to say|can't tell|cannot tell|cannot determine|can't determine|"
    r"than|instead of|or)\b",
    re.I,
)
_IDIOMS = re.compile(r"\b(?:no doubt|not only|no question|without (?:a )?doubt)\b", re.I)
_MARKDOWN = re.compile(r"\\boxed\{([^}]*)\}|\\text\{([^}]*)\}")


@dataclass(frozen=True)
class ParsedDecision:
    """A judge's decision and the reasoning written before it."""

    decision: Literal["accept", "reject", "undecided"]
    reasoning: str | None = None


def parse_decision(text: str | None) -> ParsedDecision:
    """Read a judge's Accept/Reject.

    In order: a JSON object with a ``decision``/``verdict``/``answer`` key (or a boolean ``accept``); a
    ``<decision>`` tag; the last explicit verdict line (``Accept``, ``**REJECT**.``, ``Decision: **Reject**``,
    ``Verdict: do not accept``, a ``## Decision`` header followed by its value, ``\\boxed{Accept}``); else the
    last sentence that states a decision (``I would not accept this feedback`` is a rejection; ``accept ...
    but reject ...`` goes by the clause after ``but``), skipping questions, conditions, options (``accept or
    reject``), doubts and talk about the code's inputs (``should reject negative numbers``). A reply with no
    readable decision, or only the ``<think>`` part of one, is ``undecided``.

    Args:
        text: The raw reply (None for a failed call).

    Returns:
        The decision and the reasoning before it (None when there is none).
    """
    if not text or not text.strip():
        return ParsedDecision("undecided", None)
    answer = strip_reasoning(text.replace("\r\n", "\n")).strip()
    if not answer:
        return ParsedDecision("undecided", text.strip())
    for found in (_from_json(answer), _from_tag(answer), _from_lines(answer)):
        if found is not None:
            return found
    decided = _last_decisive(answer)
    return ParsedDecision(decided or "undecided", answer)


def _from_json(answer: str) -> ParsedDecision | None:
    for match in reversed(list(_JSON.finditer(answer))):
        try:
            obj = json.loads(match.group(0))
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        obj = {str(k).lower(): v for k, v in obj.items()}
        reasons = [obj[k] for k in ("reasoning", "reason", "explanation", "rationale") if isinstance(obj.get(k), str)]
        reason = reasons[0] if reasons else None
        reasoning = reason or answer[: match.start()].strip() or None
        for key in ("accept", "accepted", "accept_feedback"):
            if isinstance(obj.get(key), bool):
                return ParsedDecision("accept" if obj[key] else "reject", reasoning)
        for key in _JSON_KEYS:
            if isinstance(obj.get(key), str):
                return ParsedDecision(_value(obj[key]) or "undecided", reasoning)
    return None


def _from_tag(answer: str) -> ParsedDecision | None:
    tags = list(_TAG.finditer(answer))
    if not tags:
        return None
    return ParsedDecision(_value(tags[-1].group(2)) or "undecided", answer[: tags[-1].start()].strip() or None)


def _clean(line: str) -> str:
    """A line without markdown emphasis, headers, quotes, bullets, LaTeX boxes and trailing punctuation."""
    line = _MARKDOWN.sub(lambda m: m.group(1) or m.group(2) or "", line)
    line = re.sub(r"[*_`\"\u201c\u201d]|(?<!\w)'|'(?!\w)", "", line.replace("\u2019", "'"))
    line = re.sub(r"^\s*(?:#+|>+|[-+\u2022]|\d+[.)])\s*", "", line)
    return re.sub(r"[\s.!\u2705\u274c]+$", "", line.strip())


def _from_lines(answer: str) -> ParsedDecision | None:
    """The last explicit verdict line, searching from the end."""
    lines = answer.splitlines()
    filled = [i for i, line in enumerate(lines) if _clean(line)]
    for i in reversed(filled):
        clean = _clean(lines[i])
        decided: DecisionWord | None = None
        label = _LABEL_LINE.match(clean)
        if label:
            value = label.group("value").strip()
            if not value:  # a "## Decision" header: the value is on the next line
                value = next((_clean(lines[j]) for j in filled if j > i), "")
            decided = _value(value)
            short = len(value.split()) <= 4
            if decided is None and short and value and label.group("label").lower() in ("decision", "verdict"):
                return ParsedDecision("undecided", "\n".join(lines[:i]).strip() or None)
        elif _BARE.match(clean):
            decided = _value(clean)
            previous = [_clean(lines[j]) for j in filled if j < i][-1:]
            if previous and _BARE.match(previous[0]) and _value(previous[0]) not in (None, decided):
                return ParsedDecision("undecided", answer)  # the two options listed, none chosen
        elif i in (filled[0], filled[-1]):
            explained = _BARE_EXPLAINED.match(clean)
            decided = _value(explained.group(1)) if explained else None
        if decided is not None:
            return ParsedDecision(decided, "\n".join(lines[:i]).strip() or None)
    return None


def _value(value: str) -> DecisionWord | None:
    """The decision a verdict's value states: every decisive mention in it must agree."""
    found = {polarity for polarity in _mentions(_clean(value))}
    return found.pop() if len(found) == 1 else None


def _mentions(clause_text: str) -> list[DecisionWord]:
    """Decisions stated in a piece of text, in order, with negation applied, skipping non-decisive clauses."""
    out: list[DecisionWord] = []
    clause_text = _IDIOMS.sub(" ", clause_text)
    for clause in _CLAUSE.split(clause_text):
        if _NOT_DECISIVE.search(clause):
            continue
        for match in _MENTION.finditer(clause):
            if _INPUT_OBJECT.match(clause[match.end() :]):
                continue
            before = clause[: match.start()].split()[-8:]
            negated = bool(_NEGATION.search(" ".join(before)))
            positive = match.group(1).lower() == "accept"
            out.append("accept" if positive != negated else "reject")
    return out


def _last_decisive(answer: str) -> DecisionWord | None:
    """The decision of the last sentence that states one (questions are skipped)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if s.strip()]
    for sentence in reversed(sentences):
        if sentence.rstrip().endswith("?"):
            continue
        found = _mentions(_clean(sentence))
        if found:
            return found[-1]
    return None
