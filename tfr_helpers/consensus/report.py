"""The selection table: pass@k of every strategy over a set of tasks, with the random baseline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.ranked_pass_at_k import (
    SELECTION_ESTIMATOR,
    Estimator,
    mean_or_nan,
    random_pass_at_k,
    task_pass_at_k,
)
from tfr_helpers.consensus.rankers.builtin import resolve_selector, selector_names
from tfr_helpers.errors import DataError

RANDOM = "random"
"""Row name of the baseline (the unbiased estimator over all samples)."""


@dataclass(frozen=True)
class StrategyRow:
    """One strategy's results over the tasks."""

    strategy: str
    pass_at: dict[int, float]
    """k -> mean pass@k over the tasks, in [0, 1]."""
    fallbacks: int = 0
    """Tasks without a ranking (scored by the random baseline), as the method's release does."""
    fallback_reasons: dict[str, int] = field(default_factory=dict)
    """Why those tasks have no ranking -> count."""
    info: dict[str, float] = field(default_factory=dict)
    """Diagnostics summed over tasks (e.g. tasks whose iteration did not converge)."""
    per_task: dict[int, tuple[float, ...]] = field(default_factory=dict)
    """k -> each task's pass@k, in the order of :attr:`SelectionReport.task_ids` (for intervals over tasks)."""


@dataclass(frozen=True)
class SelectionReport:
    """pass@k per strategy and for the random baseline."""

    rows: list[StrategyRow]
    tasks: int
    """Tasks averaged over."""
    ks: tuple[int, ...]
    skipped: dict[str, str] = field(default_factory=dict)
    """Task id -> why it was left out of every average (no code sample)."""
    estimator: str = SELECTION_ESTIMATOR
    """How a ranking's pass@k was computed (:data:`~tfr_helpers.consensus.ranked_pass_at_k.ESTIMATORS`)."""
    task_ids: tuple[str, ...] = ()
    """The tasks averaged over, in the order of each row's :attr:`StrategyRow.per_task`."""

    def frame(self) -> pd.DataFrame:
        """One row per strategy (random last): pass@k in percent, fallback tasks."""
        data = [
            {"strategy": r.strategy, **{f"pass@{k}": 100 * r.pass_at[k] for k in self.ks}, "fallback tasks": r.fallbacks}
            for r in self.rows
        ]
        return pd.DataFrame(data).set_index("strategy")

    def row(self, strategy: str) -> StrategyRow:
        """The row of one strategy (or ``random``)."""
        return next(r for r in self.rows if r.strategy == strategy)


def expand_strategies(names: Sequence[str]) -> list[str]:
    """``all`` -> every registered strategy; otherwise the names, each checked.

    Raises:
        ConfigError: An unknown name.
    """
    if not names or list(names) == ["all"]:
        return selector_names()
    for name in names:
        resolve_selector(name)
    return list(names)


def selection_report(
    matrices: Sequence[TaskMatrix],
    truths: Mapping[str, TaskTruth],
    strategies: Sequence[str] = ("all",),
    ks: Sequence[int] = (1, 2, 10),
    params: Mapping[str, Mapping[str, object]] | None = None,
    estimator: Estimator = SELECTION_ESTIMATOR,
) -> SelectionReport:
    """pass@k of each strategy over the tasks, plus the random baseline.

    Args:
        matrices: One matrix per task.
        truths: Task id -> benchmark verdicts of its programs.
        strategies: Strategy names, or ``all``.
        ks: The k values.
        params: Strategy name -> keyword parameters (e.g. ``{"codet": {"gamma": 1.0}}``).
        estimator: pass@k of a ranking: ``without_replacement`` (like the random baseline) or ``codet_released``
            (CodeT's evaluator, to reproduce its paper); equal at k = 1.

    Returns:
        The report; tasks without any code sample are left out and listed in ``skipped``.

    Raises:
        DataError: A task has no truth, or its truth does not fit its matrix; a task is given twice; no task has
            a code sample.
        ConfigError: An unknown strategy.
    """

    names, params = expand_strategies(strategies), params or {}
    ids = [m.task_id for m in matrices]
    twice = sorted({t for t in ids if ids.count(t) > 1})
    if twice:
        raise DataError(f"tasks {twice[:5]} have more than one matrix; give each task once")
    kept = [m for m in matrices if m.n_samples > 0]
    skipped = {m.task_id: "no code sample" for m in matrices if m.n_samples == 0}
    if not kept:
        raise DataError(
            f"no task has a code sample to select from ({len(matrices)} tasks given); check the generations"
            " (--replay, or --codes and --tests)"
        )
    missing = [m.task_id for m in kept if m.task_id not in truths]
    if missing:
        raise DataError(f"no benchmark verdicts for {missing[:5]}; run the selection through `tfr select` to build them")
    rows = []
    for name in names:
        fn = resolve_selector(name)
        values: dict[int, list[float]] = {k: [] for k in ks}
        reasons: dict[str, int] = {}
        not_converged = 0
        for m in kept:
            ranking = fn(m, **params.get(name, {}))
            if ranking.fallback:
                reasons[ranking.fallback] = reasons.get(ranking.fallback, 0) + 1
            if ranking.info.get("converged") is False:
                not_converged += 1
            for k in ks:
                values[k].append(task_pass_at_k(m, truths[m.task_id], ranking, k, estimator))
        info = {"not_converged": float(not_converged)} if not_converged else {}
        means = {k: mean_or_nan(v) for k, v in values.items()}
        per_task = {k: tuple(v) for k, v in values.items()}
        rows.append(StrategyRow(name, means, sum(reasons.values()), reasons, info, per_task))
    random = {k: tuple(random_pass_at_k(m, truths[m.task_id], k) for m in kept) for k in ks}
    rows.append(StrategyRow(RANDOM, {k: mean_or_nan(v) for k, v in random.items()}, per_task=random))
    return SelectionReport(rows, len(kept), tuple(ks), skipped, estimator, tuple(m.task_id for m in kept))


def reports_frame(reports: Mapping[str, SelectionReport]) -> pd.DataFrame:
    """One table of several reports (e.g. one per coder), indexed by (name, strategy); empty when none."""
    if not reports:
        return pd.DataFrame(columns=["pass@1", "fallback tasks"])
    return pd.concat({name: r.frame() for name, r in reports.items()}, names=["coder", "strategy"])


def pass_at_1_by_strategy(reports: Mapping[str, SelectionReport]) -> dict[str, dict[str, float]]:
    """Name -> strategy -> pass@1 in percent (rounded to 2 decimals): headline numbers."""
    return {
        name: {r.strategy: round(100 * r.pass_at[1], 2) for r in rep.rows if 1 in r.pass_at} for name, rep in reports.items()
    }
