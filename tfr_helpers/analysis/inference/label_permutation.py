"""The primary test of a screener: is its MCC 0? Reliability labels permuted within tasks (exact).

The study permutes within each code sample of a task (``within``: the code sample), which is the same as within
tasks for a coder with one code sample per task: see the last point below.

Under the null, a screener's decisions carry no information about reliability beyond the task: within every
task, any assignment of the task's reliability labels to its feedback is as likely as the observed one. Permuting
the labels within each task keeps every task's counts of accepted and of reliable feedback, so the whole data
set's margins (accepted ``A``, reliable ``R``, feedback ``N``) are fixed, and MCC is a linear function of one
count, the accepted reliable feedback ``TP``: ``MCC = (N TP - A R) / sqrt(A (N - A) R (N - R))``. Within a task,
``TP_t`` is hypergeometric under the permutation (``scipy.stats.hypergeom``: ``n_t`` feedback, ``r_t`` reliable,
``a_t`` accepted); across tasks the permutations are independent, so the distribution of ``TP`` over **all**
within-task permutations is the convolution of the tasks' hypergeometric distributions. The p-value is exact (no
random permutations, no seed): the probability of ``|N TP - A R|`` at least the observed one. It is the exact
conditional test of independence in stratified 2 x 2 tables (the exact form of the Cochran-Mantel-Haenszel test),
two-sided by the distance from the null mean.

- A task is *informative* when it holds both accepted and rejected, and both reliable and unreliable feedback
  (otherwise its permutations change nothing). Below :data:`~.paired_tasks.MIN_INFORMATIVE_TASKS` informative
  tasks there is no p-value (status ``too few tasks``), as for every task-level test of the study: with a handful
  of tasks the result would rest on the exchangeability of feedback within those few tasks.
- A screener that accepts everything or rejects everything, or feedback of one class only, has no MCC to test
  (status ``undefined``).
- The test's assumption is exchangeability within a stratum. Feedback on one code sample may share more than the
  task (a screener's decisions and the labels can both follow the code sample): when they do, permuting within
  whole tasks rejects a true null too often (9.7% at 164 tasks in the simulation of docs/inference.md), and
  permuting within each code sample of a task (``within``) keeps its level. Informative strata are counted, and
  the floor applies, by task.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
from scipy.stats import hypergeom

from tfr_helpers.analysis.inference.measures import confusion_cells, mcc
from tfr_helpers.analysis.inference.paired_tasks import (
    MIN_INFORMATIVE_TASKS,
    TESTED,
    TOO_FEW,
    UNDEFINED,
    TaskTest,
)

METHOD = "labels permuted within tasks (exact)"
"""The ``test`` of a primary row (labels permuted within whole tasks)."""
METHOD_WITHIN = "labels permuted within code samples of tasks (exact)"
"""The ``test`` of a primary row with labels permuted within each code sample of a task."""


def mcc_zero_test(
    tasks: Sequence[Hashable] | np.ndarray,
    accepted: Sequence[bool] | np.ndarray,
    reliable: Sequence[bool] | np.ndarray,
    *,
    within: Sequence[Hashable] | np.ndarray | None = None,
    min_informative: int = MIN_INFORMATIVE_TASKS,
) -> TaskTest:
    """The screener's MCC and the exact p of "MCC = 0" with the reliability labels permuted within tasks.

    Args:
        tasks: Task of each feedback.
        accepted: The screener accepts the feedback.
        reliable: The feedback is reliable (the positive class).
        within: A finer stratum inside the task (the code sample), or None: labels are permuted within each
            (task, stratum).
        min_informative: Fewest informative tasks (tasks holding an informative stratum) with a p-value.

    Raises:
        ValueError: If the three have different lengths.

    >>> t = mcc_zero_test(list("aabbccddeeff"), [1, 0] * 6, [1, 0] * 6)
    >>> round(t.value, 3), round(t.p_value, 5), t.informative_tasks
    (1.0, 0.03125, 6)
    """
    acc, rel = np.asarray(accepted, dtype=bool), np.asarray(reliable, dtype=bool)
    if not len(tasks) == acc.size == rel.size or (within is not None and len(within) != acc.size):
        raise ValueError("tasks, accepted, reliable (and within) need one entry per feedback")
    task_names = np.asarray([str(t) for t in tasks])
    keys = task_names if within is None else np.char.add(task_names, np.asarray([f"\x1f{w}" for w in within]))
    _, task = np.unique(keys, return_inverse=True)
    task_of_stratum = np.unique(task_names, return_inverse=True)[1][np.unique(task, return_index=True)[1]]
    n_t = np.bincount(task).astype(int)
    a_t = np.bincount(task, weights=acc).astype(int)
    r_t = np.bincount(task, weights=rel).astype(int)
    x_t = np.bincount(task, weights=acc & rel).astype(int)
    n, a, r, x = int(n_t.sum()), int(a_t.sum()), int(r_t.sum()), int(x_t.sum())
    value = float(mcc(confusion_cells(acc, rel).sum(axis=0))) if n else float("nan")
    mixed = (a_t > 0) & (a_t < n_t) & (r_t > 0) & (r_t < n_t)
    informative = int(np.unique(task_of_stratum[mixed]).size)
    n_tasks = int(np.unique(task_names).size)
    if n == 0 or a in (0, n) or r in (0, n):
        return TaskTest(value, None, n_tasks, informative, "MCC undefined: one decision or one class only", UNDEFINED)
    if informative < min_informative:
        return TaskTest(value, None, n_tasks, informative, f"fewer than {min_informative} informative tasks", TOO_FEW)
    low = int(np.maximum(0, a_t + r_t - n_t).sum())  # the smallest TP any permutation gives
    # each stratum's hypergeometric pmf over its possible TP counts, all in one call, convolved stratum by stratum
    sizes = np.minimum(a_t, r_t) - np.maximum(0, a_t + r_t - n_t) + 1
    stratum = np.repeat(np.arange(n_t.size), sizes)
    k = np.maximum(0, a_t + r_t - n_t)[stratum] + np.arange(stratum.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    pmf = np.ones(1)
    for part in np.split(hypergeom.pmf(k, n_t[stratum], r_t[stratum], a_t[stratum]), np.cumsum(sizes)[:-1]):
        pmf = np.convolve(pmf, part)
    tp = low + np.arange(pmf.size)
    extreme = np.abs(n * tp - a * r) >= abs(n * x - a * r)  # integers: no rounding in the comparison
    method = METHOD if within is None else METHOD_WITHIN
    return TaskTest(value, min(1.0, float(pmf[extreme].sum())), n_tasks, informative, method, TESTED)
