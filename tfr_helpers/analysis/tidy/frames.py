"""Tidy DataFrames, one row per unit of analysis, built from :class:`~tfr_helpers.records.Results` only.

Declared columns (every frame has exactly these, even when empty):

- :func:`pairs_frame`: one row per pair evaluation (generated test x generated code sample).
- :func:`refinements_frame`: one row per refinement attempt (one per test-fail feedback).
- :func:`screening_frame`: one row per screening decision (strategy x feedback).
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import pandas as pd

from tfr_helpers.analysis.tidy.sources import source_of
from tfr_helpers.pipeline.steps.lookups import code_texts
from tfr_helpers.records import PairEvaluation, Results

PAIR_COLUMNS = [
    "pair_id",
    "test_id",
    "code_index",
    "model",
    "source",
    "benchmark",
    "task_id",
    "kind",
    "case",
    "feedback",
    "reliability",
    "cause",
    "run_key",
]
REFINEMENT_COLUMNS = [
    "feedback_id",
    "model",
    "benchmark",
    "task_id",
    "code_index",
    "kind",
    "reliability",
    "cause",
    "transition",
    "usable_code",
    "benchmark_before",
    "benchmark_after",
    "generated_test_after",
    "generated_test_passed",
    "prompt_key",
]
SCREENING_COLUMNS = [
    "feedback_id",
    "model",
    "benchmark",
    "task_id",
    "code_index",
    "strategy",
    "decision",
    "accepted",
    "reliability",
    "reliable",
    "transition",
]


def run_keys(results: Results) -> dict[str, str]:
    """Pair id -> key of the execution that produced it: identical (program, test source) pairs share a key.

    Identical programs and identical tests run once in the sandbox; the number of distinct keys is the number
    of unique pairs run.
    """
    programs: dict[str, int] = {}
    code_id = {
        (c.model, c.task_id, c.sample_index): programs.setdefault(c.code or "", len(programs))
        for c in results.generated_codes
    }
    sources: dict[str, int] = {}
    test_key = {t.test_id: sources.setdefault(t.source, len(sources)) for t in results.generated_tests}
    return {
        p.pair_id: f"{code_id.get((p.model, p.task_id, p.code_index), -1)}|{test_key.get(p.test_id, -1)}"
        for p in results.pair_evaluations
    }


_PAIRS_FRAMES: dict[int, tuple[tuple[int, ...], pd.DataFrame]] = {}
"""``id(results)`` -> (what the frame was built from, the frame): one notebook's analysis asks for the same
results' pairs frame many times (``interpret_rq1`` alone ten times, 0.36 s of CPU each on the main job)."""


def _built_from(results: Results) -> tuple[int, ...]:
    lists = (results.pair_evaluations, results.generated_codes, results.generated_tests)
    return tuple(x for items in lists for x in (id(items), len(items)))


def pairs_frame(results: Results) -> pd.DataFrame:
    """One row per (generated test, generated code sample) evaluation (a copy of the frame built once per
    results object and record lists: :data:`_PAIRS_FRAMES`, dropped with the object).

    ``feedback`` is True when the generated code failed the test (test-fail feedback) and its label does not
    depend on the machine (``indeterminate`` feedback is kept out of every reliability denominator); ``reliability`` and
    ``cause`` are None where the records leave them unset; ``source`` is the coder's (``simulated``,
    ``replayed``, ``live``); ``run_key`` is the same for pairs that share one execution (see :func:`run_keys`).
    """
    built_from, cached = _built_from(results), _PAIRS_FRAMES.get(id(results))
    if cached is not None and cached[0] == built_from:
        return cached[1].copy()
    if cached is None:
        weakref.finalize(results, _PAIRS_FRAMES.pop, id(results), None)
    frame = _pairs_frame(results)
    _PAIRS_FRAMES[id(results)] = (built_from, frame)
    return frame.copy()


def _pairs_frame(results: Results) -> pd.DataFrame:
    keys = run_keys(results)
    sources = {m: source_of(results, m).source for m in {p.model for p in results.pair_evaluations}}
    rows = [
        {
            "pair_id": p.pair_id,
            "test_id": p.test_id,
            "code_index": p.code_index,
            "model": p.model,
            "source": sources[p.model],
            "benchmark": p.benchmark,
            "task_id": p.task_id,
            "kind": p.kind,
            "case": p.case,
            "feedback": p.case.startswith("fail") and p.reliability != "indeterminate",
            "reliability": p.reliability,
            "cause": p.cause,
            "run_key": keys[p.pair_id],
        }
        for p in results.pair_evaluations
    ]
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def refinements_frame(results: Results) -> pd.DataFrame:
    """One row per refinement attempt, joined with the feedback's pair evaluation.

    ``generated_test_after`` is the refined code's status on the generated test behind the feedback
    (``"no_code"`` when refinement gave no usable code); ``generated_test_passed`` is its boolean form
    (None without code). ``benchmark_after`` is None without code. ``prompt_key`` numbers the distinct
    refinement prompts (task, code sample text, feedback text): identical prompts share one cached reply, so
    rows with one key are one refinement counted several times.
    """
    pairs = {p.pair_id: p for p in results.pair_evaluations}
    codes = code_texts(results.generated_codes)
    prompts: dict[tuple[str, str, str, str], int] = {}
    rows = []
    for ev in results.refined_evaluations:
        pair = pairs.get(ev.feedback_id)
        after = ev.generated_test_after
        usable = ev.transition != "no_code"
        rows.append(
            {
                "feedback_id": ev.feedback_id,
                "model": ev.model,
                "benchmark": results.task_benchmarks.get(ev.task_id),
                "task_id": ev.task_id,
                "code_index": pair.code_index if pair else 0,
                "kind": pair.kind if pair else None,
                "reliability": pair.reliability if pair else None,
                "cause": pair.cause if pair else None,
                "transition": ev.transition,
                "usable_code": usable,
                "benchmark_before": ev.benchmark_before,
                "benchmark_after": ev.benchmark_after,
                "generated_test_after": after.status if (after and usable) else "no_code",
                "generated_test_passed": (after.status == "passed") if (after and usable) else None,
                "prompt_key": prompts.setdefault(_prompt(ev.model, ev.task_id, pair, codes), len(prompts)),
            }
        )
    return pd.DataFrame(rows, columns=REFINEMENT_COLUMNS)


def _prompt(
    model: str, task_id: str, pair: PairEvaluation | None, codes: dict[tuple[str, str, int], str]
) -> tuple[str, str, str, str]:
    """What a refinement prompt is made of: the coder's task, its code sample and the feedback text."""
    if pair is None or pair.feedback is None:
        return (model, task_id, "", "")
    return (model, task_id, codes.get((model, task_id, pair.code_index), ""), pair.feedback.text)


def screening_frame(results: Results) -> pd.DataFrame:
    """One row per screening decision, with the truth (feedback reliability) and the refinement transition.

    ``accepted`` is True only for ``accept``: ``undecided`` (an unparseable judge answer) counts as reject.
    ``reliable`` is the ground truth; ``transition`` is None when the feedback has no refinement record.
    """
    pairs = {p.pair_id: p for p in results.pair_evaluations}
    transitions = {ev.feedback_id: ev.transition for ev in results.refined_evaluations}
    rows = []
    for s in results.screening:
        pair = pairs.get(s.feedback_id)
        rows.append(
            {
                "feedback_id": s.feedback_id,
                "model": pair.model if pair else None,
                "benchmark": pair.benchmark if pair else None,
                "task_id": pair.task_id if pair else None,
                "code_index": pair.code_index if pair else 0,
                "strategy": s.strategy,
                "decision": s.decision,
                "accepted": s.decision == "accept",
                "reliability": pair.reliability if pair else None,
                "reliable": (pair.reliability == "reliable") if pair and pair.reliability else None,
                "transition": transitions.get(s.feedback_id),
            }
        )
    return pd.DataFrame(rows, columns=SCREENING_COLUMNS)


def json_value(value: Any, digits: int | None = None) -> Any:
    """A frame cell as JSON: NaN -> None, numpy scalars -> Python, dict keys -> str, floats rounded to ``digits``."""
    if isinstance(value, dict):
        return {str(k): json_value(v, digits) for k, v in value.items()}
    if hasattr(value, "item") and not isinstance(value, (bool, int, float, str)):  # numpy scalar
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return round(value, digits) if digits is not None else value
    return value


def frame_records(frame: pd.DataFrame, digits: int | None = None) -> list[dict[str, Any]]:
    """DataFrame -> JSON-ready list of row dicts (see :func:`json_value`)."""
    return [{k: json_value(v, digits) for k, v in row.items()} for row in frame.to_dict(orient="records")]
