"""The one method comparing a refinement arm with the feedback arm on the same feedback instances.

Refinement on the original feedback (RQ2's feedback arm), on the oracle-repaired feedback and under each control
(docs/oracle_repair.md, docs/controls.md) are variants of one refinement; every comparison of two of them is made
here, the same way:

1. **One instance per distinct prompt** (:func:`collapse_prompts`). The feedback arm's identical refinement prompts
   (same task, code sample text and feedback text: ``prompt_key`` of the refinements frame) share one cached
   reply, and so do the oracle arm's (its repaired test is rewritten from the same test and the same reference
   outcome), while each control instance has a draw of its own. Counting every instance would weigh one reply
   several times. Each distinct feedback prompt keeps its first instance (by feedback id), in both arms alike; the
   unit of analysis is that instance, clustered by task.
2. **The paired effect** (:func:`paired_effect`): ``mean(a - b)`` over the kept instances (arm A's outcome minus
   arm B's on the same instance), with its paired cluster-bootstrap interval (both arms on the same resamples of
   tasks, then code samples) and the task-level permutation test (the arms swapped within whole tasks:
   :func:`~tfr_helpers.analysis.inference.paired_tasks.paired_task_test`; no p below six informative tasks).
3. **Holm over the comparisons** (:func:`adjust`): the task-level p-values Holm-adjusted within a family (one model's
   comparisons: simulated and replayed models are never pooled); a comparison ``differs`` only when its adjusted p
   is below :data:`ALPHA`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import Interval, Resampler, ratio
from tfr_helpers.analysis.inference.paired_tasks import TaskTest, holm, paired_task_test

ALPHA = 0.05
"""Family-wise level of the Holm adjustment (one family per model)."""
TEST_COLUMNS = ["informative_tasks", "test", "p_task"]
"""The task-level test's columns (:func:`task_test_columns`)."""
ADJUSTED_COLUMNS = ["p_holm", "differs"]
"""The columns :func:`adjust` adds."""


def collapse_prompts(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct feedback-arm prompt (``prompt_key``): the first by ``feedback_id``, index reset.

    >>> rows = pd.DataFrame({"feedback_id": ["f2", "f1", "f3"], "prompt_key": [0, 0, 1]})
    >>> collapse_prompts(rows)["feedback_id"].tolist()
    ['f1', 'f3']
    """
    return frame.sort_values("feedback_id").drop_duplicates("prompt_key").reset_index(drop=True)


@dataclass(frozen=True)
class PairedEffect:
    """Arm A minus arm B on the same instances: the paired interval and the task-level test."""

    interval: Interval
    """``mean(a - b)`` (a fraction) with its paired cluster-bootstrap interval and bootstrap p."""
    test: TaskTest
    """The task-level permutation test of the same difference (``p_value`` None without a test)."""


def paired_effect(
    rs: Resampler,
    tasks: Sequence[Hashable],
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    **options: int,
) -> PairedEffect:
    """Arm A's outcome minus arm B's over the same instances (0/1 transitions, or gains in -1, 0, 1).

    Args:
        rs: The cluster resampler of the instances (tasks, then code samples), shared by both arms.
        tasks: Task of each instance (the unit the test swaps).
        a: Arm A's outcome per instance.
        b: Arm B's outcome on the same instance.
        options: The test's ``min_informative``, ``n_permutations`` and ``seed`` (the study's defaults when absent).

    Raises:
        ValueError: The arms, the tasks and the resampler do not have one entry per instance.
    """
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if not (len(x) == len(y) == len(tasks) == len(rs.unit_of_row)):
        raise ValueError("paired_effect needs one outcome of each arm and one task per resampled instance")
    interval = ratio(rs, x - y, np.ones(len(x)), "identity")
    return PairedEffect(interval, paired_task_test([str(t) for t in tasks], x, y, None, **options))


def task_test_columns(effect: PairedEffect) -> dict[str, Any]:
    """``informative_tasks``, ``test`` (the permutation's method, or ``too few tasks``) and ``p_task`` (None
    without a test)."""
    t = effect.test
    return {"informative_tasks": t.informative_tasks, "test": t.method if t.tested else t.status, "p_task": t.p_value}


def bootstrap_p(effect: PairedEffect) -> float | None:
    """The paired bootstrap's two-sided p, four decimals (None when undefined); descriptive, never decides."""
    p = effect.interval.p_value
    return None if math.isnan(p) else round(p, 4)


def adjust(frame: pd.DataFrame, family: list[str], alpha: float = ALPHA) -> pd.DataFrame:
    """``frame`` with ``p_holm`` (Holm of ``p_task`` within each ``family``; NaN without a test) and ``differs``
    (``p_holm < alpha``, never without a test); ``p_task`` and ``p_holm`` rounded to four decimals."""
    out = frame.copy()
    out["p_task"] = pd.to_numeric(out["p_task"], errors="coerce").astype(float)
    out["p_holm"] = holm(out, family, "p_task", alpha)
    out["differs"] = out["p_holm"] < alpha
    for col in ("p_task", "p_holm"):
        out[col] = out[col].round(4)
    return out
