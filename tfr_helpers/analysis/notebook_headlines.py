"""Headline numbers per model and source: what notebooks record, ``tfr run`` prints and summary.json leads with.

A number never pools a simulated and a real model: every headline is given per coder, labelled with its source
(``simulated``, ``replayed (published): GPT-4``, ``live provider``). Only when every coder of the run has the same
source label is a ``pooled`` figure added, and it names the models it pools and their one source.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, get_args

from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.records import Case, Results

CASES: tuple[str, ...] = get_args(Case)
"""RQ1's four cases (generated code verdict _ reference verdict on a generated test)."""
SECTIONS = ("setup", "rq1", "rq2", "rq3")
"""The notebooks whose headline is computed here (00, 01, 02 and 03)."""


def coders(results: Results) -> list[str]:
    """The run's coders in order of appearance (generated code first, then pair records)."""
    seen = [c.model for c in results.generated_codes] + [p.model for p in results.pair_evaluations]
    return list(dict.fromkeys(seen))


def _setup(results: Results, models: set[str]) -> dict[str, Any]:
    return {
        "codes": sum(c.model in models for c in results.generated_codes),
        "tests": sum(t.model in models for t in results.generated_tests),
    }


def _rq1(results: Results, models: set[str]) -> dict[str, Any]:
    mine = [p for p in results.pair_evaluations if p.model in models]
    fails = [p for p in mine if p.feedback is not None]
    unreliable = sum(p.reliability == "unreliable" for p in fails)
    cases: Counter[str] = Counter(p.case for p in mine)
    return {
        "pairs": len(mine),
        **{case: cases[case] for case in CASES},
        "test_fail_feedback": len(fails),
        "unreliable": unreliable,
        "unreliable_pct": round(100 * unreliable / len(fails), 1) if fails else None,
    }


def _rq2(results: Results, models: set[str]) -> dict[str, Any]:
    refined = [r for r in results.refined_evaluations if r.model in models]
    return {"refinements": len(refined), **dict(sorted(Counter(r.transition for r in refined).items()))}


def _rq3(results: Results, models: set[str]) -> dict[str, Any]:
    feedback = {p.pair_id: p.model for p in results.pair_evaluations if p.feedback is not None}
    decided = [d for d in results.screening if feedback.get(d.feedback_id) in models]
    out: dict[str, Any] = {}
    for strategy in dict.fromkeys(d.strategy for d in decided):
        mine = [d for d in decided if d.strategy == strategy]
        out[f"{strategy}_accept_pct"] = round(100 * sum(d.decision == "accept" for d in mine) / len(mine), 1)
    return out


NUMBERS: dict[str, Callable[[Results, set[str]], dict[str, Any]]] = {
    "setup": _setup,
    "rq1": _rq1,
    "rq2": _rq2,
    "rq3": _rq3,
}


def headline(results: Results, section: str) -> dict[str, Any]:
    """One notebook's headline numbers: ``simulated``, ``by_model`` (each coder with its ``source``) and, only
    when every coder has the same source label, ``pooled`` (with the ``models`` it pools and that ``source``).

    Raises:
        ValueError: ``section`` is not one of :data:`SECTIONS`.
    """
    if section not in NUMBERS:
        raise ValueError(f"unknown section {section!r}; use {', '.join(SECTIONS)}")
    numbers = NUMBERS[section]
    models = coders(results)
    out: dict[str, Any] = {"simulated": results.simulated}
    if section == "setup":
        out["tasks"] = len(results.tasks)
    out["by_model"] = {m: {"source": source_label(results, m), **numbers(results, {m})} for m in models}
    labels = {source_label(results, m) for m in models}
    if len(models) > 1 and len(labels) == 1:
        out["pooled"] = {"models": models, "source": labels.pop(), **numbers(results, set(models))}
    return out


def per_model_counts(results: Results, name: str, models: list[str]) -> dict[str, Any]:
    """A count per coder with its source (e.g. the case browser's attempts: ``models`` holds one entry per item)."""
    counts = Counter(models)
    by_model = {m: {"source": source_label(results, m), name: counts[m]} for m in dict.fromkeys(models)}
    return {"simulated": results.simulated, "by_model": by_model}


def headline_lines(values: dict[str, Any]) -> list[str]:
    """A recorded headline as text: its run-wide values on the first line, then one line per model (and the
    pooled figure, said to be pooled). Values without ``by_model`` (other notebooks' headlines) are one line."""

    def pairs(numbers: dict[str, Any]) -> str:
        return ", ".join(f"{k}={v}" for k, v in numbers.items() if k not in ("source", "models"))

    flat = {k: v for k, v in values.items() if k not in ("by_model", "pooled")}
    lines = [pairs(flat)] if flat else []
    for model, numbers in values.get("by_model", {}).items():
        lines.append(f"{model} [{numbers.get('source', '?')}]: {pairs(numbers)}")
    if pooled := values.get("pooled"):
        lines.append(f"pooled over {', '.join(pooled['models'])} (all {pooled['source']}): {pairs(pooled)}")
    return lines
