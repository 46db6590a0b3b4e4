"""Results of earlier runs: a screening decision written before decisions carried ``score`` and ``abstained``.

Such a record states its score and its abstention only in its reasoning, in the phrases the built-in strategies
wrote then. :func:`legacy_fields` reads them once, when the record is loaded; nothing else in the package reads a
decision's reasoning (the analysis reads the typed fields). A record that has either field is never read this way.

The phrases, read only in the decisions of the strategies that wrote them:

- consensus threshold screeners: ``<method> test score 0.750 clears 0.5`` -> score ``1 - 0.750``;
- ``consensus_codet_top``: ``75% of the 8 samples in CodeT's top consensus level pass this test`` -> ``1 - 0.75``;
- ``learned_gold_free``: ``P(unreliable) = 0.731 >= threshold ...`` -> ``0.731``;
- an abstention (no evidence, accepted as ``accept_all`` would): ``... accepted as accept_all would``.

The scores keep the rounding of the text (3 decimals, or whole percent), so ties can be more frequent than in a
run that records the score itself.
"""

from __future__ import annotations

import re
from typing import Any

ABSTAIN_PHRASE = "accepted as accept_all would"
"""How every built-in strategy's reasoning said it found no evidence and accepted by default."""
_TEST_SCORE = re.compile(r"test score (-?\d+(?:\.\d+)?)")
_CODET_SHARE = re.compile(r"^(\d+)% of the \d+ samples in CodeT's top consensus level")
_PROBABILITY = re.compile(r"^P\(unreliable\) = (\d+(?:\.\d+)?)")


def legacy_reading(strategy: str, reasoning: str | None) -> tuple[float | None, bool]:
    """``(score, abstained)`` of a decision written before the fields existed, from its reasoning: only the
    built-in strategies that wrote these phrases are read (any other strategy's words state no score)."""
    text = reasoning or ""
    if strategy == "learned_gold_free":
        match = _PROBABILITY.search(text)
        return (float(match.group(1)) if match else None), False
    if not strategy.startswith("consensus_"):
        return None, False
    if match := _TEST_SCORE.search(text):
        return 1 - float(match.group(1)), False
    if match := _CODET_SHARE.search(text):
        return 1 - int(match.group(1)) / 100, False
    return None, ABSTAIN_PHRASE in text


def legacy_fields(data: Any) -> Any:
    """A stored screening decision's fields with ``score`` and ``abstained`` filled from its reasoning when it has
    neither (a record of an earlier run); any other input unchanged."""
    if not isinstance(data, dict) or "score" in data or "abstained" in data:
        return data
    score, abstained = legacy_reading(str(data.get("strategy", "")), data.get("reasoning"))
    return {**data, "score": score, "abstained": abstained}


def legacy_test_fields(data: Any) -> Any:
    """A stored trajectory step's screened failing test with per-strategy ``scores`` and ``abstained`` filled from
    its ``reasons`` when it has neither (a record of an earlier run); any other input unchanged."""
    if not isinstance(data, dict) or "scores" in data or "abstained" in data:
        return data
    readings = {name: legacy_reading(name, text) for name, text in (data.get("reasons") or {}).items()}
    return {
        **data,
        "scores": {name: score for name, (score, _) in readings.items() if score is not None},
        "abstained": {name: abstained for name, (_, abstained) in readings.items()},
    }
