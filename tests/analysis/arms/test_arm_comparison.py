"""Known answers of the one arm comparison: identical prompts collapsed, the paired effect and its task-level
sign-flip test worked by hand, Holm within each model's family."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tfr_helpers.analysis.arms.arm_comparison import adjust, collapse_prompts, paired_effect, task_test_columns
from tfr_helpers.analysis.inference.clustered import resampler

# Four tasks; f4 repeats f3's prompt (same key), so its reply is f3's counted again; arm B's draw on it differs.
ROWS = pd.DataFrame(
    {
        "feedback_id": ["f2", "f1", "f3", "f4", "f5", "f6"],
        "prompt_key": [1, 0, 2, 2, 3, 4],
        "task_id": ["T1", "T1", "T2", "T2", "T3", "T4"],
        "a": [1, 1, 1, 0, 1, 1],
        "b": [0, 0, 0, 1, 0, 1],
    }
)


def _effect(rows: pd.DataFrame) -> tuple[float, float | None, int]:
    rs = resampler(rows["task_id"].tolist(), n_resamples=200)
    effect = paired_effect(rs, rows["task_id"].tolist(), rows["a"], rows["b"], min_informative=1)
    return effect.interval.value, effect.test.p_value, effect.test.informative_tasks


def test_identical_prompts_count_once_first_by_feedback_id() -> None:
    kept = collapse_prompts(ROWS)
    assert kept["feedback_id"].tolist() == ["f1", "f2", "f3", "f5", "f6"]
    assert kept.index.tolist() == list(range(5))


def test_paired_effect_and_its_sign_flip_p_by_hand() -> None:
    # Collapsed: per-task sums of a - b are T1 = 2, T2 = 1, T3 = 1, T4 = 0 (not informative). Difference 4/5.
    # Sign flips of (2, 1, 1): sums 4, 2, 2, 0, 0, -2, -2, -4; |sum| >= 4 in 2 of 8 patterns: p = 0.25.
    value, p, informative = _effect(collapse_prompts(ROWS))
    assert (value, p, informative) == (pytest.approx(0.8), pytest.approx(0.25), 3)
    # Every instance kept: T2's sum is 1 - 1 = 0, so (2, 1): sums 3, 1, -1, -3, |sum| >= 3 in 2 of 4: p = 0.5.
    value, p, informative = _effect(ROWS.sort_values("feedback_id"))
    assert (value, p, informative) == (pytest.approx(3 / 6), pytest.approx(0.5), 2)


def test_paired_effect_interval_is_paired_and_the_study_needs_six_informative_tasks() -> None:
    rows = collapse_prompts(ROWS)
    rs = resampler(rows["task_id"].tolist(), n_resamples=200)
    effect = paired_effect(rs, rows["task_id"].tolist(), rows["a"], rows["b"])
    assert effect.interval.low <= 0.8 <= effect.interval.high and effect.interval.clusters == 4
    assert task_test_columns(effect) == {"informative_tasks": 3, "test": "too few tasks", "p_task": None}
    same = paired_effect(rs, rows["task_id"].tolist(), rows["a"], rows["a"])  # one arm against itself: no spread
    assert (same.interval.value, same.interval.low, same.interval.high) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="one outcome of each arm"):
        paired_effect(rs, rows["task_id"].tolist(), rows["a"], rows["b"][:-1])


def test_holm_within_each_model_and_never_differs_without_a_test() -> None:
    frame = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "p_task": [0.25, 0.01, 0.04, None]})
    out = adjust(frame, ["model"])
    # m1: sorted 0.01 x 2 = 0.02, then max(0.25 x 1, 0.02) = 0.25; m2: 0.04 alone; no p stays NaN
    assert out["p_holm"].tolist()[:3] == [0.25, 0.02, 0.04] and np.isnan(out["p_holm"].iloc[3])
    assert out["differs"].tolist() == [False, True, True, False]
