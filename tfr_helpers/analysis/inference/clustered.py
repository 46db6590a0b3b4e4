"""The study's one uncertainty method: a cluster bootstrap over tasks (then code samples within a drawn task).

Feedback instances of one task are not independent (one per generated test for each code sample), so every share,
rate and difference is resampled by task. A :class:`Resampler` draws the weights once for one set of rows (one
model's feedback, say): each resample draws ``n_tasks`` tasks with replacement and, when the coder has several
code samples per task, draws that task's code samples with replacement inside every draw of the task (two levels).
Every statistic of those rows, and every paired difference between two statistics, is computed on the same
weights. Intervals are 95% Wald intervals with a bootstrap standard error and a small-cluster correction (the
estimate plus or minus a t quantile times the resamples' standard deviation), on the logit scale for a share
(:func:`draws_interval`: chosen over the percentile and BCa intervals by the coverage simulation of
:mod:`calibration`); the method, resamples, seed, clusters and design effect travel with each :class:`Interval`
(see docs/inference.md).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
from scipy import stats as sps
from scipy.sparse import csr_matrix, issparse, sparray, spmatrix

N_RESAMPLES = 2000
"""Bootstrap resamples of every interval."""
SEED = 0
"""Seed of every resampler (same data, same interval)."""
METHODS = {1: "task bootstrap", 2: "task>code bootstrap"}
"""Method label by the number of levels resampled."""
Scale = Literal["logit", "atanh", "identity"]
"""The scale an interval is built on: ``logit`` for a share in [0, 1], ``atanh`` for a correlation in [-1, 1]
(MCC), ``identity`` for a difference or an unbounded mean."""
INTERVAL_FORM = (
    "95 percent Wald interval with a bootstrap standard error and a small-cluster correction: estimate +- "
    "t(0.975, tasks - 1) x sqrt(tasks / (tasks - 1)) x the bootstrap standard deviation, on the logit scale for "
    "a share (atanh for MCC, the raw scale for a difference)"
)
"""How every interval of :func:`draws_interval` is built, in words (summary.json's ``intervals`` block)."""


@dataclass(frozen=True)
class Interval:
    """The study's one interval type: a statistic on the full sample with its 95% interval (NaN when undefined).

    The interval is the cluster bootstrap's (:func:`draws_interval`) or, for a share of independent units or at 0
    or 100%, Wilson's (:func:`~tfr_helpers.analysis.inference.stats.wilson`); ``method`` says which. A share is a
    count ``k`` of ``n`` with such an interval (:func:`~tfr_helpers.analysis.inference.units.share_columns`)."""

    value: float
    low: float
    high: float
    method: str
    resamples: int
    clusters: int
    design_effect: float
    """Bootstrap variance over the variance the same rows would have if they were independent (NaN if unknown)."""
    p_value: float = math.nan
    """Two-sided bootstrap p-value of "the statistic is 0" (read it for differences): see :func:`bootstrap_p`."""


Cells: TypeAlias = np.ndarray | spmatrix | sparray
"""Rows of cells: a dense array, or a sparse matrix for one-hot cells over many columns (AUROC's score levels)."""


def group_sums(group: np.ndarray, values: Cells, size: int) -> np.ndarray:
    """Sums of the rows of ``values`` (shape ``(rows, k)``, dense or sparse) per group (``group``: each row's, below
    ``size``), shape ``(size, k)``, dense: one sparse product for all columns, each group's rows added in row order as
    ``np.bincount`` adds them (the same floating-point sums; a sparse ``values`` only leaves out its zeros)."""
    indicator = csr_matrix((np.ones(group.size), (group, np.arange(group.size))), shape=(size, group.size))
    summed = indicator @ values
    summed = summed.toarray() if issparse(summed) else summed
    return np.asarray(summed, dtype=float).reshape(size, values.shape[1])


EXACT_BELOW = 2.0**52
"""Integer-valued float64 sums are exact (whatever their order) while every partial sum stays below this."""
SPARSE_BELOW = 1 / 16
"""Share of non-zero entries under which :class:`IntegerProduct` multiplies a sparse right operand."""


@dataclass(frozen=True)
class IntegerProduct:
    """``left @ right`` for one ``right`` and any ``left`` (:meth:`of`, then call it): the same float64 numbers as
    numpy's product, C-ordered, cheaper when both are whole numbers and ``right`` is mostly zeros (as AUROC's
    one-hot cells over thousands of score levels are).

    A product of whole numbers whose partial sums all stay below :data:`EXACT_BELOW` in magnitude is exact, so any
    order of summation gives the same number: then a ``right`` with fewer than :data:`SPARSE_BELOW` non-zero
    entries is multiplied as a sparse matrix (its zeros skipped: about 1% of the dense product's work for the AUROC
    cells of 3,000 score levels). Otherwise (a non-integer or a too large value, or a dense ``right``) it is numpy's
    own product, unchanged.
    """

    right: np.ndarray
    sparse_t: csr_matrix | None
    """``right.T`` as a sparse matrix (made once, for every ``left``), or None when numpy's product is used."""
    largest: float
    """The largest ``|right|`` (with the row sums of ``|left|``, a bound of every partial sum)."""

    @classmethod
    def of(cls, right: np.ndarray) -> IntegerProduct:
        """The product by ``right`` (shape ``(n, k)``)."""
        mostly_zeros = right.ndim == 2 and right.size and np.count_nonzero(right) < SPARSE_BELOW * right.size
        if not (mostly_zeros and integral(right)):
            return cls(right, None, math.inf)
        return cls(right, csr_matrix(right.T), float(np.abs(right).max()))

    def __call__(self, left: np.ndarray) -> np.ndarray:
        """``left @ right`` (``left`` of shape ``(r, n)``)."""
        if self.sparse_t is None or left.ndim != 2:
            return left @ self.right
        # |partial sum| <= the largest row sum of |left| x the largest |right|
        if not (float(np.abs(left).sum(axis=1).max(initial=0.0)) * self.largest < EXACT_BELOW and integral(left)):
            return left @ self.right
        out = np.empty((left.shape[0], self.right.shape[1]))
        for start in range(0, left.shape[0], 64):  # the sparse product comes transposed: 64 rows at a time to C order
            out[start : start + 64] = (self.sparse_t @ left[start : start + 64].T).T
        return out


def integral(x: np.ndarray) -> bool:
    """Whether every entry is a finite whole number."""
    return bool(np.isfinite(x).all() and (x == np.rint(x)).all())


@dataclass(frozen=True)
class Resampler:
    """Bootstrap weights for the rows of one frame (build with :func:`resampler`)."""

    unit_of_row: np.ndarray
    """Shape ``(rows,)``: the resampling unit (code sample, or task at one level) of each row."""
    task_of_unit: np.ndarray
    """Shape ``(units,)``: the task index of each unit (units are sorted by task)."""
    task_starts: np.ndarray
    """Shape ``(tasks,)``: the first unit of each task."""
    weights: np.ndarray
    """Shape ``(resamples, units)``: how many times each unit is drawn in each resample."""
    task_weights: np.ndarray
    """Shape ``(resamples, tasks)``: how many times each task is drawn in each resample."""
    levels: int

    @property
    def clusters(self) -> int:
        """Number of tasks (the top-level clusters)."""
        return int(self.task_starts.size)

    @property
    def method(self) -> str:
        """Method label (``task bootstrap`` or ``task>code bootstrap``)."""
        return METHODS[self.levels]

    @property
    def resamples(self) -> int:
        """Number of resamples."""
        return int(self.weights.shape[0])

    def sums(self, values: Cells) -> tuple[np.ndarray, np.ndarray]:
        """Column sums of ``values`` (shape ``(rows, k)``) on the full sample ``(k,)`` and per resample ``(R, k)``
        (the weights are counts: a product with counts per unit skips their zeros, :class:`IntegerProduct`)."""
        per_unit = self.unit_sums(values)
        return per_unit.sum(axis=0), IntegerProduct.of(per_unit)(self.weights)

    def unit_sums(self, values: Cells) -> np.ndarray:
        """Sums of ``values`` (shape ``(rows, k)``, dense or sparse) per unit, shape ``(units, k)``."""
        if not issparse(values):
            values = np.asarray(values, dtype=float)
            values = values[:, None] if values.ndim == 1 else values
        return group_sums(self.unit_of_row, values, self.task_of_unit.size)

    def task_sums(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-task sums of one row quantity: on the full sample ``(tasks,)`` and per resample ``(R, tasks)``."""
        per_unit = self.unit_sums(values)[:, 0]
        if not self.task_starts.size:
            return np.zeros(0), np.zeros((self.resamples, 0))
        return np.add.reduceat(per_unit, self.task_starts), np.add.reduceat(
            self.weights * per_unit, self.task_starts, axis=1
        )


def resampler(
    tasks: Sequence[Hashable],
    samples: Sequence[int] | None = None,
    *,
    samples_per_task: Mapping[str, int] | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> Resampler:
    """Resampling weights for rows labelled by task (and code sample index within the task).

    Args:
        tasks: Task of each row; the tasks present are the clusters.
        samples: Code-sample index (0-based) of each row; None resamples tasks only.
        samples_per_task: Code samples the coder produced per task (rows may cover only some of them; a task's
            undrawn samples still take part in the second level). Defaults to one past the largest index seen.
        n_resamples: Resamples.
        seed: RNG seed.

    Returns:
        The weights; two levels when some task has more than one code sample. They depend on nothing but the
        arguments, and the analysis asks for the same rows' weights again and again (every table of a coder's rows):
        the last ones made are kept (:data:`KEPT_BYTES`) and handed out again, read-only.

    Raises:
        ValueError: If ``samples`` and ``tasks`` differ in length or an index is negative.
    """
    per_task = tuple(sorted((str(k), int(v)) for k, v in (samples_per_task or {}).items()))
    code = None if samples is None else tuple(np.asarray(samples, dtype=int).reshape(-1).tolist())
    labels = [str(t) for t in tasks]
    key = (tuple(labels), code, per_task, n_resamples, seed)
    kept = _kept.made.get(key)
    if kept is not None:
        _kept.made.move_to_end(key)
        return kept
    made = _resampler(labels, samples, dict(per_task), n_resamples, seed)
    for array in (made.unit_of_row, made.task_of_unit, made.task_starts, made.weights, made.task_weights):
        array.setflags(write=False)
    _kept.keep(key, made)
    return made


KEPT_BYTES = 2**28
"""Weights :func:`resampler` keeps for reuse, at most (256 MB; the main job's analysis asks for 673 resamplers
of 125 kinds, 250 MB of weights in all)."""


class _Kept:
    """The resamplers made last, the least recently used first, and the bytes of their weights."""

    def __init__(self) -> None:
        self.made: OrderedDict[tuple[object, ...], Resampler] = OrderedDict()
        self.bytes = 0

    def keep(self, key: tuple[object, ...], made: Resampler) -> None:
        """Keep ``made``; forget the least recently used beyond :data:`KEPT_BYTES` (the last one made stays)."""
        self.made[key] = made
        self.bytes += made.weights.nbytes + made.task_weights.nbytes
        while len(self.made) > 1 and self.bytes > KEPT_BYTES:
            _, old = self.made.popitem(last=False)
            self.bytes -= old.weights.nbytes + old.task_weights.nbytes


_kept = _Kept()


def _resampler(
    labels: list[str],
    samples: Sequence[int] | None,
    samples_per_task: Mapping[str, int],
    n_resamples: int,
    seed: int,
) -> Resampler:
    names, task_idx = np.unique(np.asarray(labels), return_inverse=True)
    code = np.zeros(len(task_idx), dtype=int) if samples is None else np.asarray(samples, dtype=int)
    if code.shape != task_idx.shape or (code < 0).any():
        raise ValueError("samples must hold one non-negative code-sample index per row of tasks")
    per_task = {str(k): v for k, v in samples_per_task.items()}
    m = np.array([max(1, int(per_task.get(str(name), 0))) for name in names], dtype=int)
    np.maximum.at(m, task_idx, code + 1)
    starts = (np.cumsum(m) - m).astype(int)
    rng = np.random.default_rng(seed)
    n_tasks = names.size
    task_w = (
        rng.multinomial(n_tasks, np.full(n_tasks, 1 / n_tasks), size=n_resamples)
        if n_tasks
        else np.zeros((n_resamples, 0), dtype=int)
    )
    weights = np.zeros((n_resamples, int(m.sum())))
    for size in np.unique(m):  # tasks with the same number of code samples are drawn together
        group = np.flatnonzero(m == size)
        cols = (starts[group][:, None] + np.arange(size)[None, :]).ravel()
        drawn = rng.multinomial(task_w[:, group] * size, np.full(size, 1 / size)) if size > 1 else task_w[:, group, None]
        weights[:, cols] = drawn.reshape(n_resamples, -1)
    return Resampler(
        unit_of_row=starts[task_idx] + code,
        task_of_unit=np.repeat(np.arange(n_tasks), m),
        task_starts=starts,
        weights=weights,
        task_weights=task_w.astype(float),
        levels=2 if (m > 1).any() else 1,
    )


def bootstrap_p(boot: np.ndarray) -> float:
    """Two-sided p-value of 0 from resampled statistics: ``min(1, 2 min(#(b <= 0) + 1, #(b >= 0) + 1) / (B + 1))``.

    Twice the smaller tail beyond 0, with the usual +1 so it is never 0 (its floor is ``2 / (B + 1)``).

    >>> bootstrap_p(np.array([1.0, 2.0, 3.0])), bootstrap_p(np.zeros(3))
    (0.5, 1.0)
    """
    kept = boot[np.isfinite(boot)]
    if not kept.size:
        return math.nan
    tail = min(int((kept <= 0).sum()), int((kept >= 0).sum())) + 1
    return min(1.0, 2 * tail / (kept.size + 1))


_FORWARD: dict[str, Callable[[Any], Any]] = {
    "logit": lambda x: np.log(x / (1 - x)),
    "atanh": np.arctanh,
    "identity": lambda x: x,
}
_BACK: dict[str, Callable[[Any], Any]] = {"logit": lambda x: 1 / (1 + np.exp(-x)), "atanh": np.tanh, "identity": lambda x: x}
_LIMITS = {"logit": (0.0, 1.0), "atanh": (-1.0, 1.0)}


def wald_bootstrap_se(
    value: float, boot: np.ndarray, clusters: int, scale: Scale = "identity", eps: float = 1e-6
) -> tuple[float, float]:
    """The 95% Wald bounds with a bootstrap standard error, ``value +- t(0.975, G - 1) sqrt(G / (G - 1)) sd(boot)``
    on ``scale``, mapped back. (Not a bootstrap-t interval: nothing is studentised within the resamples.)

    ``G`` is the number of tasks. The bootstrap's variance over ``G`` clusters is short by the factor
    ``(G - 1) / G``, and its normal quantile by the t quantile with ``G - 1`` degrees of freedom; both matter
    at 15 or 20 tasks. On the logit (atanh) scale the bounds stay inside [0, 1] ([-1, 1]); values are clipped
    ``eps`` inside the limits first (``eps`` is half a count over the denominator). NaN with fewer than 2 tasks.
    """
    if clusters < 2 or boot.size < 2:
        return math.nan, math.nan
    forward, back = _FORWARD[scale], _BACK[scale]
    lo_lim, hi_lim = _LIMITS.get(scale, (-math.inf, math.inf))
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = forward(np.clip(value, lo_lim + eps, hi_lim - eps))
        spread = float(np.std(forward(np.clip(boot, lo_lim + eps, hi_lim - eps)), ddof=1))
    if spread <= 1e-12:  # every resample gives the estimate (up to rounding): no spread on any scale
        return value, value
    half = float(sps.t.ppf(0.975, clusters - 1)) * math.sqrt(clusters / (clusters - 1)) * spread
    # the estimate clipped inside the scale's limits stays inside its own interval
    return min(float(back(centre - half)), value), max(float(back(centre + half)), value)


def draws_interval(
    value: float,
    boot: np.ndarray,
    iid_var: float,
    rs: Resampler,
    scale: Scale = "identity",
    eps: float = 1e-6,
    clusters: int | None = None,
) -> Interval:
    """The 95% interval of resampled statistics ``boot`` (NaN resamples dropped) around ``value``
    (:func:`wald_bootstrap_se` over ``clusters`` tasks: those holding the statistic's rows, ``rs``'s tasks when
    None), with the design effect and the descriptive bootstrap p."""
    clusters = rs.clusters if clusters is None else clusters
    kept = boot[np.isfinite(boot)]
    if not np.isfinite(value) or kept.size < 2:
        nan = math.nan
        return Interval(value if np.isfinite(value) else nan, nan, nan, rs.method, rs.resamples, clusters, nan)
    low, high = wald_bootstrap_se(float(value), kept, clusters, scale, eps)
    var = float(np.var(kept, ddof=1))
    deff = var / iid_var if iid_var > 0 else (1.0 if var == 0 and iid_var == 0 else math.nan)
    return Interval(float(value), low, high, rs.method, rs.resamples, clusters, deff, bootstrap_p(kept))


def _share_scale(num: np.ndarray, den: np.ndarray) -> tuple[Scale, float]:
    """``logit`` when every row's numerator lies in [0, its denominator] (a share), else ``identity``."""
    total = float(den.sum())
    if total > 0 and (den >= 0).all() and (num >= 0).all() and (num <= den).all():
        return "logit", 0.5 / total
    return "identity", 1e-6


def ratio(
    rs: Resampler, num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray, scale: Scale | None = None
) -> Interval:
    """Pooled ratio ``sum(num) / sum(den)`` over rows, with its cluster-bootstrap interval.

    ``scale`` None: the logit scale when every numerator lies in [0, its denominator] (a share), else the raw
    scale; pass ``identity`` for a mean of differences or gains, which may happen to be all in [0, 1].

    The design effect divides the bootstrap variance by the linearised variance of the same ratio over
    independent rows, ``sum((num - r den)^2) / sum(den)^2`` (``p(1-p)/n`` for a share).
    """
    value, boot, iid = ratio_draws(rs, num, den)
    a, b = np.asarray(num, float), np.asarray(den, float)
    inferred, eps = _share_scale(a, b)
    held = int(np.unique(rs.task_of_unit[rs.unit_of_row[(a != 0) | (b != 0)]]).size)  # tasks holding the ratio
    return draws_interval(value, boot, iid, rs, scale or inferred, eps, held)


def ratio_draws(
    rs: Resampler, num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray
) -> tuple[float, np.ndarray, float]:
    """The pooled ratio, its resampled values ``(R,)`` and its variance over independent rows (see :func:`ratio`)."""
    a, b = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    full, boot = rs.sums(np.column_stack([a, b]))
    value = full[0] / full[1] if full[1] else math.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        stats = boot[:, 0] / boot[:, 1]
    iid = float(((a - value * b) ** 2).sum() / full[1] ** 2) if full[1] else math.nan
    return value, stats, iid


def unpaired_difference(a: tuple[float, np.ndarray, float], b: tuple[float, np.ndarray, float], rs: Resampler) -> Interval:
    """Difference ``a - b`` of two :func:`ratio_draws` from independent resamplers (different seeds).

    For rows of different models or benchmarks. When the two share tasks, resampling them independently
    ignores the positive correlation, so the interval is wider than a paired one (conservative).
    """
    return draws_interval(a[0] - b[0], a[1] - b[1], a[2] + b[2], rs)


def share(rs: Resampler, hits: Sequence[bool] | np.ndarray, among: Sequence[bool] | np.ndarray | None = None) -> Interval:
    """Share of rows with ``hits`` among the rows with ``among`` (all rows when None)."""
    den = np.ones(len(rs.unit_of_row)) if among is None else np.asarray(among, dtype=float)
    return ratio(rs, np.asarray(hits, dtype=float) * den, den)


def task_mean(rs: Resampler, num: Sequence[float] | np.ndarray, den: Sequence[float] | np.ndarray) -> Interval:
    """Mean over tasks of the per-task ratio ``sum_task(num) / sum_task(den)`` (tasks with ``den`` 0 left out)."""
    n_full, n_boot = rs.task_sums(np.asarray(num, dtype=float))
    d_full, d_boot = rs.task_sums(np.asarray(den, dtype=float))
    ok = d_full > 0
    value = float((n_full[ok] / d_full[ok]).mean()) if ok.any() else math.nan
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(d_boot > 0, n_boot / np.where(d_boot > 0, d_boot, 1), 0.0)
        present = rs.task_weights * (d_boot > 0)
        boot = (present * per).sum(axis=1) / present.sum(axis=1)
    iid = float(np.var(n_full[ok] / d_full[ok], ddof=1) / ok.sum()) if ok.sum() > 1 else math.nan
    scale, eps = _share_scale(np.asarray(num, float), np.asarray(den, float))
    return draws_interval(value, boot, iid, rs, scale, 0.5 / max(1, int(ok.sum())) if scale == "logit" else eps)


def cells_stat(
    rs: Resampler,
    cells: Cells,
    stat: Callable[[np.ndarray], np.ndarray],
    *,
    iid_seed: int = SEED,
    scale: Scale = "identity",
) -> Interval:
    """A function of the summed one-hot ``cells`` (rows, c) (confusion counts, say), with its interval.

    ``stat`` maps counts of shape ``(..., c)`` to one value per leading index. The design effect's denominator
    is the variance of the same statistic under an instance bootstrap (the counts redrawn from a multinomial on
    the observed cells, as if the rows were independent).
    """
    return counts_stat(rs, *rs.sums(cells), stat, iid_seed=iid_seed, scale=scale)


def counts_stat(
    rs: Resampler,
    full: np.ndarray,
    boot: np.ndarray,
    stat: Callable[[np.ndarray], np.ndarray],
    *,
    iid_seed: int = SEED,
    scale: Scale = "identity",
) -> Interval:
    """:func:`cells_stat` from the cell counts already summed (``rs.sums(cells)``), to reuse them across statistics.

    ``scale``: ``logit`` for a proportion, ``atanh`` for MCC, ``identity`` (the default) for a paired difference."""
    value = float(stat(full[None, :])[0])
    n = int(full.sum())
    iid_var = math.nan
    if n:
        iid = np.random.default_rng(iid_seed).multinomial(n, full / n, size=rs.resamples).astype(float)
        iid_stats = stat(iid)
        iid_stats = iid_stats[np.isfinite(iid_stats)]
        iid_var = float(np.var(iid_stats, ddof=1)) if iid_stats.size > 1 else math.nan
    return draws_interval(value, stat(boot), iid_var, rs, scale, 0.5 / n if n else 1e-6)
