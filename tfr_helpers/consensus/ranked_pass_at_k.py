"""Selection: expected pass@k of a ranking over its tie levels, and the random baseline.

Two estimators of a ranking's pass@k (:data:`ESTIMATORS`), equal at ``k = 1``:

- ``codet_released``: CodeT's released evaluator (``evaluation.py``), computed exactly with no seeded pick: take
  the first ``k`` levels; with fewer than ``k`` levels, hand the extra picks round-robin to the levels from the
  top. A level with ``n_l`` samples of which ``c_l`` are correct, picked ``p_l`` times (uniformly, *with*
  replacement), misses with probability ``(1 - c_l / n_l) ** p_l``; ``pass@k = 1 - prod_l miss_l``. It reproduces
  CodeT's paper, but it can pick a sample twice, so at ``k = n`` it stays below the random baseline (which picks
  without replacement): the two do not compare like with like beyond ``k = 1``.
- ``without_replacement`` (the selection tables): the same allocation (one pick per level from the top, extras
  round-robin), but each level's samples drawn *without* replacement, so a level is never picked more often than
  it has samples: its turn passes to the next level with room. A level picked ``p_l`` times misses with
  probability ``C(n_l - c_l, p_l) / C(n_l, p_l)``; picks left once every level is taken whole go to the samples
  no level holds. It equals CodeT's evaluator whenever no level gets two picks (e.g. at least ``k`` levels); at
  ``k = n`` every ranking equals the random baseline, and one level holding every sample *is* the random
  baseline at every ``k``.

A task whose ranking is empty (no consensus) falls back to the random baseline, as CodeT's release does: the
unbiased estimator ``1 - C(n - c, k) / C(n, k)`` over all the task's code samples (``k`` capped at ``n``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

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
    """CodeT's released evaluator: expected pass@k of levels given as ``(samples, correct)``, best first, picks
    with replacement inside a level (see the module docstring)."""
    miss = 1.0
    for (n, c), p in zip(counts, picks_per_level(len(counts), k), strict=False):
        miss *= (1.0 - c / n) ** p
    return 1.0 - miss


def capped_picks(sizes: Sequence[int], k: int) -> tuple[list[int], int]:
    """CodeT's allocation of ``k`` picks (one per level from the top, extras round-robin) with no level picked more
    often than it has samples: a full level's turn passes to the next level with room. Returns the picks per level
    and the picks left once every level is taken whole."""
    picks = [0] * len(sizes)
    left = k
    while left > 0 and any(p < n for p, n in zip(picks, sizes, strict=True)):
        for i, n in enumerate(sizes):
            if left > 0 and picks[i] < n:
                picks[i] += 1
                left -= 1
    return picks, left


def ranked_pass_at_k_without_replacement(
    counts: Sequence[tuple[int, int]], k: int, unranked: tuple[int, int] = (0, 0)
) -> float:
    """Expected pass@k of levels given as ``(samples, correct)``, best first, as CodeT allocates the picks but
    without replacement inside a level (see the module docstring); picks left once every level is taken whole go
    to the ``unranked`` samples."""
    picks, left = capped_picks([n for n, _ in counts], k)
    miss = 1.0
    for (n, c), p in [*zip(counts, picks, strict=True), (unranked, min(left, unranked[0]))]:
        if p:
            miss *= 1.0 - pass_at_k(n, c, p)
    return 1.0 - miss


Estimator = Literal["without_replacement", "codet_released"]
ESTIMATORS: dict[str, Callable[..., float]] = {
    "without_replacement": ranked_pass_at_k_without_replacement,
    "codet_released": ranked_pass_at_k,
}
"""Estimator name -> pass@k of tie levels (see the module docstring)."""
SELECTION_ESTIMATOR: Estimator = "without_replacement"
"""The selection tables' estimator: it compares with the random baseline like with like at every ``k``."""
PAPER_ESTIMATOR: Estimator = "codet_released"
"""The estimator that reproduces CodeT's paper on its published data."""


def random_pass_at_k(matrix: TaskMatrix, truth: TaskTruth, k: int) -> float:
    """The unbiased estimator over all code samples of the task (``k`` capped at the sample count)."""
    n = matrix.n_samples
    c = sum(len(s) for s, ok in zip(matrix.program_samples, truth.correct, strict=True) if ok)
    return pass_at_k(n, c, min(k, n))


def task_pass_at_k(
    matrix: TaskMatrix, truth: TaskTruth, ranking: Ranking, k: int, estimator: Estimator = SELECTION_ESTIMATOR
) -> float:
    """pass@k of one task under a ranking (by ``estimator``, :data:`ESTIMATORS`); the random baseline when the
    ranking is empty.

    Raises:
        DataError: The truth does not fit the matrix, the task has no code sample, or the estimator is unknown.
    """
    check_truth(matrix, truth)
    if estimator not in ESTIMATORS:
        raise DataError(f"unknown pass@k estimator {estimator!r}; use one of {', '.join(ESTIMATORS)}")
    if not ranking.levels:
        return random_pass_at_k(matrix, truth, k)
    counts = level_counts(matrix, truth, ranking.levels)
    if estimator == "codet_released":
        return ranked_pass_at_k(counts, k)
    ranked = {i for lv in ranking.levels for i in lv}
    rest = level_counts(matrix, truth, [[i for i in range(len(matrix.program_ids)) if i not in ranked]])[0]
    return ranked_pass_at_k_without_replacement(counts, k, rest)


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
