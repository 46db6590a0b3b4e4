"""Selection: expected pass@k of a ranking over its tie levels, and the random baseline.

pass@k of a ranking follows CodeT's released evaluator (``evaluation.py``), computed exactly with no seeded
pick: take the first ``k`` levels; with fewer than ``k`` levels, hand the extra picks round-robin to the levels
from the top. A level with ``n_l`` samples of which ``c_l`` are correct, picked ``p_l`` times (uniformly, with
replacement), misses with probability ``(1 - c_l / n_l) ** p_l``; ``pass@k = 1 - prod_l miss_l``. A task whose
ranking is empty (no consensus) falls back to the random baseline, as the release does: the unbiased estimator
``1 - C(n - c, k) / C(n, k)`` over all the task's code samples (``k`` capped at ``n``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.ranking import Ranking
from tfr_helpers.errors import DataError
from tfr_helpers.passk import pass_at_k


def picks_per_level(levels: int, k: int) -> list[int]:
    """How many of ``k`` picks go to each of the first levels (CodeT's round-robin when levels < k)."""
    if levels >= k:
        return [1] * k
    picks = [1] * levels
    for i in range(k - levels):
        picks[i % levels] += 1
    return picks


def level_counts(matrix: TaskMatrix, truth: TaskTruth, levels: list[list[int]]) -> list[tuple[int, int]]:
    """``(samples, correct samples)`` of each level, multiplicities counted."""
    w = [len(s) for s in matrix.program_samples]
    return [(sum(w[i] for i in lv), sum(w[i] for i in lv if truth.correct[i])) for lv in levels]


def ranked_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float:
    """Expected pass@k of levels given as ``(samples, correct)``, best first (see the module docstring)."""
    miss = 1.0
    for (n, c), p in zip(counts, picks_per_level(len(counts), k), strict=False):
        miss *= (1.0 - c / n) ** p
    return 1.0 - miss


def random_pass_at_k(matrix: TaskMatrix, truth: TaskTruth, k: int) -> float:
    """The unbiased estimator over all code samples of the task (``k`` capped at the sample count)."""
    n = matrix.n_samples
    c = sum(len(s) for s, ok in zip(matrix.program_samples, truth.correct, strict=True) if ok)
    return pass_at_k(n, c, min(k, n))


def task_pass_at_k(matrix: TaskMatrix, truth: TaskTruth, ranking: Ranking, k: int) -> float:
    """pass@k of one task under a ranking; the random baseline when the ranking is empty.

    Raises:
        DataError: The truth does not fit the matrix, or the task has no code sample.
    """
    check_truth(matrix, truth)
    if not ranking.levels:
        return random_pass_at_k(matrix, truth, k)
    return ranked_pass_at_k(level_counts(matrix, truth, ranking.levels), k)


def check_truth(matrix: TaskMatrix, truth: TaskTruth) -> None:
    """Raise a clear error when the truth does not belong to the matrix or the task has no sample."""
    if truth.task_id != matrix.task_id or len(truth.correct) != len(matrix.program_ids):
        raise DataError(
            f"{matrix.task_id}: benchmark verdicts for {truth.task_id} ({len(truth.correct)} programs) do not match the "
            f"matrix ({len(matrix.program_ids)} programs); rebuild the matrix (delete its file in the run directory)"
        )
    if matrix.n_samples == 0:
        raise DataError(f"{matrix.task_id}: the task has no code sample, so pass@k is undefined; leave the task out")


def mean_or_nan(values: Sequence[float]) -> float:
    """Mean of the values (NaN when there are none)."""
    return float(np.mean(values)) if len(values) else float("nan")
