"""Task-level significance of a paired comparison: swap the two arms within whole tasks (a permutation test).

Two arms measured on the same instances (the feedback arm and a control, two screeners, two trajectory steps)
are compared by a statistic of their summed per-instance contributions: a difference of pooled rates, or of a
classifier measure. Instances of one task are not independent, so the test treats the task as the unit. Under
the null that the two arms are exchangeable within every task, swapping their labels on all instances of a task
leaves the data's distribution unchanged. The p-value is the share of swap patterns over the *informative* tasks
(tasks with at least one discordant instance, where swapping changes anything) whose statistic lies at least as
far from 0 as the observed one. For a difference of pooled rates this is the sign-flip permutation test of the
per-task sums of differences.

- Exact (every one of the ``2^m`` patterns) up to :data:`EXACT_UP_TO` informative tasks; above, Monte Carlo with
  :data:`N_PERMUTATIONS` random patterns and ``p = (1 + #extreme) / (1 + N)``.
- Below :data:`MIN_INFORMATIVE_TASKS` informative tasks the result has no p-value and the status
  :data:`TOO_FEW`: with five tasks even a unanimous effect has an exact two-sided p of ``2 / 32 = 0.0625``, so
  no test at the 0.05 level is possible, and the instance count must not pretend otherwise.

The instance-level McNemar test and the cluster bootstrap's p-value were replaced by this test wherever a table
says two arms "differ": with intraclass correlation 0.3 McNemar rejects a true null in about a third of runs, and
the bootstrap p reaches its floor with one to four informative tasks (docs/inference.md has the simulation).
"""

from __future__ import annotations

import gc
import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix, issparse
from statsmodels.stats.multitest import multipletests

from tfr_helpers.analysis.inference.clustered import EXACT_BELOW, Cells, IntegerProduct, group_sums, integral
from tfr_helpers.analysis.inference.measures import joint_cells, paired

MIN_INFORMATIVE_TASKS = 6
"""Fewest informative tasks with a p-value: the smallest count whose exact two-sided p can fall below 0.05."""
EXACT_UP_TO = 14
"""Up to this many informative tasks every swap pattern is enumerated (``2^14`` patterns)."""
N_PERMUTATIONS = 9999
"""Random swap patterns above :data:`EXACT_UP_TO` informative tasks."""
SEED = 0
"""Seed of the random patterns (same data, same p)."""
BLOCK_CELLS = 2**20
"""Summed cells handed to a statistic at once (8 MB): the patterns go in blocks of this many cells over ``k``."""
Status = Literal["tested", "too few tasks", "undefined"]
TESTED: Status = "tested"
"""Status of a result with a p-value."""
TOO_FEW: Status = "too few tasks"
"""Status of a result with fewer than :data:`MIN_INFORMATIVE_TASKS` informative tasks: no p-value."""
UNDEFINED: Status = "undefined"
"""Status when the statistic itself is undefined on the observed data (e.g. MCC without a negative): no p-value."""


@dataclass(frozen=True)
class TaskTest:
    """The observed statistic and its task-level permutation p-value (None unless ``status`` is ``tested``)."""

    value: float
    """The statistic on the observed data (arm A minus arm B)."""
    p_value: float | None
    """Two-sided permutation p-value of "the arms are exchangeable within tasks"; None without a test."""
    tasks: int
    """Tasks holding the compared instances."""
    informative_tasks: int
    """Tasks with at least one discordant instance (the only ones whose swap changes the statistic)."""
    method: str
    """``task swap permutation (exact, 2^m patterns)`` or ``(Monte Carlo, N patterns)``, or why there is no test."""
    status: Status

    @property
    def tested(self) -> bool:
        """Whether there is a p-value."""
        return self.status == TESTED

    def rejects(self, alpha: float = 0.05) -> bool:
        """Whether the test rejects at ``alpha`` (never without a p-value)."""
        return self.p_value is not None and self.p_value < alpha


@dataclass(frozen=True)
class TaskIndex:
    """Each row's task as its position among the sorted task names: made once (:meth:`of`) for the many tests on
    the same rows, and accepted wherever the tests take the rows' task labels."""

    of_row: np.ndarray
    """Shape ``(rows,)``: the row's task, numbered in the order of the task names as text."""

    @classmethod
    def of(cls, tasks: Sequence[Hashable] | np.ndarray | TaskIndex) -> TaskIndex:
        """The index of task labels (returned unchanged when already one)."""
        if isinstance(tasks, TaskIndex):
            return tasks
        return cls(np.unique(np.asarray([str(t) for t in tasks]), return_inverse=True)[1].reshape(-1))

    def __len__(self) -> int:
        return int(self.of_row.size)


Tasks = Sequence[Hashable] | np.ndarray | TaskIndex
"""Task of each row: the labels, or their :class:`TaskIndex`."""


def _task_sums(idx: np.ndarray, values: Cells) -> np.ndarray:
    return group_sums(idx, values, int(idx.max()) + 1 if idx.size else 0)


def swap_test(
    tasks: Tasks,
    cells: Cells,
    swapped: Cells,
    stat: Callable[[np.ndarray], np.ndarray],
    *,
    min_informative: int = MIN_INFORMATIVE_TASKS,
    n_permutations: int = N_PERMUTATIONS,
    seed: int = SEED,
) -> TaskTest:
    """The general test: ``stat`` of the summed ``cells``, against whole tasks swapped to their ``swapped`` cells.

    Args:
        tasks: Task of each row (or their :class:`TaskIndex`).
        cells: Shape ``(rows, k)``: each row's contribution with the arms as observed (dense, or a sparse matrix
            for one-hot cells over many columns).
        swapped: Shape ``(rows, k)``: the same row's contribution with the two arms' labels exchanged.
        stat: Maps summed cells of shape ``(..., k)`` to one value per leading index (A minus B: swapping every
            task must negate it).
        min_informative: Fewest informative tasks with a p-value.
        n_permutations: Random patterns when there are more than :data:`EXACT_UP_TO` informative tasks.
        seed: Seed of the random patterns.

    Raises:
        ValueError: If the shapes differ or do not match ``tasks``.
    """
    options = {"min_informative": min_informative, "n_permutations": n_permutations, "seed": seed}
    return swap_tests(tasks, cells, swapped, [stat], **options)[0]


def swap_tests(
    tasks: Tasks,
    cells: Cells,
    swapped: Cells,
    stats: Sequence[Callable[[np.ndarray], np.ndarray]],
    *,
    min_informative: int = MIN_INFORMATIVE_TASKS,
    n_permutations: int = N_PERMUTATIONS,
    seed: int = SEED,
) -> list[TaskTest]:
    """:func:`swap_test` of several statistics of the same cells (the measures of one pair of screeners), one
    result each: the patterns are drawn and multiplied with the cells once for all of them, the same numbers as
    one :func:`swap_test` per statistic."""
    if issparse(cells) or issparse(swapped):
        cells, swapped = csr_matrix(cells, dtype=float), csr_matrix(swapped, dtype=float)
    else:
        cells, swapped = np.asarray(cells, dtype=float), np.asarray(swapped, dtype=float)
    if cells.ndim != 2 or cells.shape != swapped.shape or cells.shape[0] != len(tasks):
        raise ValueError("cells and swapped must both have shape (rows, k), one row per task label")
    idx = TaskIndex.of(tasks).of_row
    per_task, delta = _task_sums(idx, cells), _task_sums(idx, swapped - cells)
    informative = np.flatnonzero(np.abs(delta).sum(axis=1) > 1e-12)
    m, n_tasks = informative.size, per_task.shape[0]
    total = per_task.sum(axis=0)
    values = [float(stat(total[None, :])[0]) for stat in stats]
    tested = [i for i, value in enumerate(values) if math.isfinite(value)] if m >= min_informative else []
    draws = {}
    if tested:
        patterns, method = _patterns(m, n_permutations, seed)
        draws = dict(zip(tested, _draws([stats[i] for i in tested], total, delta[informative], patterns), strict=True))
    out = []
    for i, value in enumerate(values):
        if not math.isfinite(value):
            out.append(TaskTest(value, None, n_tasks, m, "statistic undefined on the observed data", UNDEFINED))
        elif m < min_informative:
            out.append(TaskTest(value, None, n_tasks, m, f"fewer than {min_informative} informative tasks", TOO_FEW))
        else:
            extreme = np.abs(np.nan_to_num(draws[i], nan=0.0)) >= abs(value) - 1e-12 * max(1.0, abs(value))
            count, n = int(extreme.sum()), draws[i].shape[0]
            p = count / n if m <= EXACT_UP_TO else (1 + count) / (1 + n)
            out.append(TaskTest(value, min(1.0, p), n_tasks, m, method, TESTED))
    return out


@lru_cache(maxsize=4)
def _patterns(m: int, n_permutations: int, seed: int) -> tuple[np.ndarray, str]:
    """The swap patterns over ``m`` informative tasks (1: swapped) and the method's name: every pattern up to
    :data:`EXACT_UP_TO` tasks, else ``n_permutations`` from ``default_rng(seed)``. Kept for the next tests (read
    only): a pair's AUROC test often has as many informative tasks as its other measures."""
    if m <= EXACT_UP_TO:
        patterns = ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)
        method = f"task swap permutation (exact, {2**m} patterns)"
    else:
        patterns = np.random.default_rng(seed).integers(0, 2, size=(n_permutations, m)).astype(float)
        method = f"task swap permutation (Monte Carlo, {n_permutations} patterns)"
    patterns.setflags(write=False)
    return patterns, method


def _draws(
    stats: Sequence[Callable[[np.ndarray], np.ndarray]], total: np.ndarray, delta: np.ndarray, patterns: np.ndarray
) -> list[np.ndarray]:
    """Each statistic under every pattern: ``stat(total + patterns @ delta)``, one value per pattern.

    When ``delta`` is whole numbers (counts of cells, as every measure's are) the product is exact in any order
    of summation: then the patterns go in blocks of :data:`BLOCK_CELLS` summed cells (a statistic maps each row
    of summed cells to its value alone, so the values are the same; 10,000 patterns of AUROC's 13,000 cells need
    not exist at once, 1 GB), each multiplied by :class:`IntegerProduct` (which skips AUROC's zeros). Otherwise it
    is the one product of all patterns, as numpy rounds it.
    """
    if not (integral(delta) and float(np.abs(delta).sum(axis=0).max(initial=0.0)) < EXACT_BELOW):
        counts = total[None, :] + patterns @ delta
        return [stat(counts) for stat in stats]
    rows, product = max(1, BLOCK_CELLS // max(1, total.size)), IntegerProduct.of(delta)
    parts: list[list[np.ndarray]] = [[] for _ in stats]
    for start in range(0, patterns.shape[0], rows):
        counts = total[None, :] + product(patterns[start : start + rows])
        for part, stat in zip(parts, stats, strict=True):
            part.append(stat(counts))
    return [np.concatenate(part) for part in parts]


def _rate_difference(c: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (c[..., 0] - c[..., 1]) / c[..., 2]


def paired_task_test(
    tasks: Tasks,
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    among: Sequence[bool] | np.ndarray | None = None,
    **options: int,
) -> TaskTest:
    """Arm A's pooled rate minus arm B's on the same rows, with its task-level permutation p-value.

    The public entry point for two arms observed on the same instances (feedback vs a control, two trajectory
    steps): ``sum(a - b) / n`` over the rows with ``among`` (all when None), tested by flipping the sign of each
    task's sum of differences (:func:`swap_test`; ``options``: its ``min_informative``, ``n_permutations``,
    ``seed``).

    Args:
        tasks: Task of each row.
        a: Arm A's outcome per row (a 0/1 transition, say, or any number).
        b: Arm B's outcome on the same row.
        among: Rows that count (the denominator); None for all.

    >>> t = paired_task_test(list("abcdef"), [1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0])
    >>> t.value, t.p_value, t.informative_tasks, t.status
    (1.0, 0.03125, 6, 'tested')
    >>> paired_task_test(["a"] * 5, [1] * 5, [0] * 5).status
    'too few tasks'
    """
    den = np.ones(len(tasks)) if among is None else np.asarray(among, dtype=float)
    x, y = np.asarray(a, dtype=float) * den, np.asarray(b, dtype=float) * den
    return swap_test(tasks, np.column_stack([x, y, den]), np.column_stack([y, x, den]), _rate_difference, **options)


def paired_measure_test(
    tasks: Tasks,
    accepted_a: np.ndarray,
    accepted_b: np.ndarray,
    reliable: np.ndarray,
    measure: Callable[[np.ndarray], np.ndarray],
    **options: int,
) -> TaskTest:
    """Screener A's classifier ``measure`` (of confusion counts) minus screener B's on the same feedback, tested by
    swapping the two screeners' decisions within whole tasks (:func:`swap_test`)."""
    return paired_measure_tests(tasks, accepted_a, accepted_b, reliable, [measure], **options)[0]


def paired_measure_tests(
    tasks: Tasks,
    accepted_a: np.ndarray,
    accepted_b: np.ndarray,
    reliable: np.ndarray,
    measures: Sequence[Callable[[np.ndarray], np.ndarray]],
    **options: int,
) -> list[TaskTest]:
    """:func:`paired_measure_test` of several measures of the same two screeners, one swap of their decisions
    for all (:func:`swap_tests`: the same numbers as one test each)."""
    cells = joint_cells(accepted_a, accepted_b, reliable)
    swapped = joint_cells(accepted_b, accepted_a, reliable)
    return swap_tests(tasks, cells, swapped, [paired(measure) for measure in measures], **options)


def holm(frame: pd.DataFrame, family: list[str], column: str, alpha: float = 0.05) -> pd.Series:
    """Holm-adjusted ``column`` within each family (rows sharing ``family``'s values); rows without a p stay NaN.

    ``statsmodels.stats.multitest.multipletests(method="holm")``; a row without a test (too few tasks) is not
    in its family's count, and can never "differ".
    """
    out = pd.Series(np.nan, index=frame.index, dtype=float)
    if frame.empty:
        return out
    gc.freeze()  # multipletests' Holm branch calls gc.collect(): frozen objects make that cheap
    try:
        for _, group in frame.groupby(family):
            p = pd.to_numeric(group[column], errors="coerce").astype(float)
            ok = p.notna()
            if ok.any():
                out.loc[p[ok].index] = multipletests(p[ok].to_numpy(), alpha=alpha, method="holm")[1]
    finally:
        gc.unfreeze()
    return out
