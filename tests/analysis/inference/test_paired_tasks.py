"""The task-level paired test: exact sign-flip answers, the few-task guard, and its size under clustering."""

from __future__ import annotations

import numpy as np
import pytest

from tfr_helpers.analysis.inference.clustered import ratio, resampler
from tfr_helpers.analysis.inference.measures import mcc
from tfr_helpers.analysis.inference.paired_tasks import (
    MIN_INFORMATIVE_TASKS,
    TESTED,
    TOO_FEW,
    UNDEFINED,
    TaskIndex,
    paired_measure_test,
    paired_task_test,
)


def _effect_in(n_tasks: int, with_effect: int, per_task: int = 10, hits: int = 3) -> tuple[list[str], list[int], list[int]]:
    tasks = [f"t{i}" for i in range(n_tasks) for _ in range(per_task)]
    a = [int(i < with_effect and j < hits) for i in range(n_tasks) for j in range(per_task)]
    return tasks, a, [0] * len(tasks)


@pytest.mark.parametrize(("n_tasks", "with_effect", "sign_flip_p"), [(1, 1, 1.0), (3, 3, 0.25), (20, 4, 0.125)])
def test_few_informative_tasks_give_no_p_where_the_bootstrap_gave_its_floor(
    n_tasks: int, with_effect: int, sign_flip_p: float
) -> None:
    tasks, a, b = _effect_in(n_tasks, with_effect)
    boot = ratio(resampler(tasks), np.subtract(a, b), np.ones(len(tasks)))
    assert boot.p_value < 0.05  # the former decision: a "difference" from 1, 3 or 4 tasks
    test = paired_task_test(tasks, a, b)
    assert test.status == TOO_FEW and test.p_value is None and not test.rejects()
    assert test.informative_tasks == with_effect and test.tasks == n_tasks
    # what the sign flip itself says when allowed to run: never below 0.05
    assert paired_task_test(tasks, a, b, min_informative=1).p_value == pytest.approx(sign_flip_p)


def test_exact_sign_flip_known_answers() -> None:
    tasks, a, b = _effect_in(MIN_INFORMATIVE_TASKS, MIN_INFORMATIVE_TASKS)
    test = paired_task_test(tasks, a, b)
    assert test.status == TESTED and test.value == pytest.approx(0.3) and test.p_value == pytest.approx(2 / 64)
    assert "exact, 64 patterns" in test.method and test.rejects()
    # one task against the others: 5 up, 1 down by the same amount -> 14 of 64 patterns at least as extreme
    down = [-x for x in a[:10]]
    mixed = paired_task_test(tasks, a[:50] + [0] * 10, [0] * 50 + [-d for d in down])
    assert mixed.p_value == pytest.approx(14 / 64)


def test_identical_arms_have_no_informative_task_and_monte_carlo_above_the_exact_limit() -> None:
    tasks, a, _ = _effect_in(8, 8)
    assert paired_task_test(tasks, a, a).informative_tasks == 0
    rng = np.random.default_rng(0)
    tasks = [f"t{i}" for i in range(30) for _ in range(4)]
    a, b = rng.random(120) < 0.5, rng.random(120) < 0.5
    test = paired_task_test(tasks, a, b)
    assert "Monte Carlo" in test.method and test.p_value is not None and 0 < test.p_value <= 1
    assert test == paired_task_test(tasks, a, b)  # seeded


def test_among_restricts_the_rows_and_bad_shapes_are_refused() -> None:
    tasks, a, b = _effect_in(6, 6)
    among = np.array([True] * 30 + [False] * 30)
    assert paired_task_test(tasks, a, b, among).informative_tasks == 3
    with pytest.raises(ValueError, match="shape"):
        paired_task_test(tasks[:5], a, b)


def test_screeners_swap_decisions_within_tasks() -> None:
    # A rejects exactly the unreliable feedback of 8 tasks, B accepts everything: MCC 1 vs 0
    tasks = [f"t{i}" for i in range(8) for _ in range(2)]
    rel = np.array([True, False] * 8)
    test = paired_measure_test(tasks, rel, np.ones(16, dtype=bool), rel, mcc)
    assert test.value == pytest.approx(1.0) and test.p_value == pytest.approx(2 / 256)
    none = paired_measure_test(tasks[:0], rel[:0], rel[:0], rel[:0], mcc)
    assert none.status == UNDEFINED and none.p_value is None


def test_a_task_index_made_once_gives_the_same_tests_as_the_labels() -> None:
    rng = np.random.default_rng(3)
    tasks = [f"t{i}" for i in rng.integers(0, 30, size=400)] + [7, 7, 12]  # mixed labels sort as text
    a, b = rng.integers(0, 2, size=len(tasks)), rng.integers(0, 2, size=len(tasks))
    index = TaskIndex.of(tasks)
    assert TaskIndex.of(index) is index and len(index) == len(tasks)
    for among in (None, rng.integers(0, 2, size=len(tasks)).astype(bool)):
        assert paired_task_test(index, a, b, among) == paired_task_test(tasks, a, b, among)
    small = tasks[:60]  # few tasks: the exact enumeration
    assert paired_task_test(TaskIndex.of(small), a[:60], b[:60]) == paired_task_test(small, a[:60], b[:60])
    rel = rng.integers(0, 2, size=len(tasks)).astype(bool)
    assert paired_measure_test(index, a == 1, b == 1, rel, mcc) == paired_measure_test(tasks, a == 1, b == 1, rel, mcc)
