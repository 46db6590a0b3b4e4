"""Selection over seeds of drawn sub-studies: Menet et al.'s Table 2 format (pass@1 mean +- SE over 5 seeds of
``m = n = 10`` draws) and its soft-versus-hard comparison, on any stored matrices.

Each seed draws, per task, ``n`` code samples and ``m`` test samples (:func:`.subsample.draw`) and runs every
strategy on the drawn matrix; a task's pass@1 is the expected pass@1 over the top tie level (the random baseline,
``c / n`` of the drawn samples, when a strategy ranks nothing). A seed's number is the mean over tasks; a row is
the mean over seeds with its standard error (sample standard deviation over seeds / sqrt(seeds)), as the paper
reports. That SE measures the draw only: tasks are fixed.

The soft-versus-hard verdict of a family is paired by task, the unit of analysis: each task's soft pass@1 minus
its hard pass@1, averaged over seeds; the mean difference with a 95% percentile bootstrap interval over tasks
(``scipy.stats.bootstrap``), the Wilcoxon signed-rank test of the per-task differences (``scipy.stats.wilcoxon``,
zero differences dropped), Holm-corrected over the families compared (``statsmodels``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.multitest import multipletests

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.ranked_pass_at_k import random_pass_at_k, task_pass_at_k
from tfr_helpers.consensus.rankers.builtin import resolve_selector
from tfr_helpers.consensus.replication.subsample import draw

RANDOM = "random"
"""The row of random selection among the drawn code samples."""
FAMILIES: dict[str, tuple[str, str]] = {
    "MBR-Exec": ("mbr_exec_hard", "mbr_exec_soft"),
    "MaxPass": ("maxpass_hard", "maxpass_soft"),
    "CodeT": ("codet_hard", "codet_soft"),
    "MBR-Exec over outputs (AlphaCode / FunCoder)": ("mbr_outputs_hard", "mbr_outputs_soft"),
}
"""Family -> (hard strategy, soft strategy), the rows of Menet et al.'s Table 2."""
B4_PAIR: tuple[str, str] = ("maxpass_soft", "b4")
"""B4 against MaxPass Soft (the paper's Table S7): (baseline, B4)."""
STRATEGIES: tuple[str, ...] = (*(s for pair in FAMILIES.values() for s in pair), "b4", "codet")
"""Every strategy the table runs (``codet``: CodeT's released sqrt score, for reference)."""


@dataclass(frozen=True)
class SeedDraws:
    """pass@1 of every strategy on every task under every seed's draw."""

    values: np.ndarray
    """Shape (seeds, tasks, strategies): pass@1 in [0, 1]."""
    strategies: list[str]
    """Column names: :data:`RANDOM` first, then the strategies."""
    tasks: list[str]
    seeds: list[int]
    fallback: np.ndarray
    """Shape (seeds, strategies): tasks without a ranking (random fallback) under each seed."""

    def of(self, strategy: str) -> np.ndarray:
        """Shape (seeds, tasks): one strategy's pass@1."""
        return self.values[:, :, self.strategies.index(strategy)]


def draw_tasks(
    matrices: Sequence[TaskMatrix],
    truths: Mapping[str, TaskTruth],
    entry_points: Mapping[str, str],
    test_samples: Mapping[str, int],
    seed: int,
    n: int = 10,
    m: int = 10,
    only_suites: bool = False,
) -> list[tuple[TaskMatrix, TaskTruth]]:
    """One seed's draw of every task (one generator per seed, tasks in the given order; see :func:`run_draws`)."""
    rng = np.random.default_rng(seed)
    out = []
    for matrix in matrices:
        task = matrix.task_id
        out.append(draw(matrix, truths[task], rng, n, m, test_samples[task], entry_points[task], only_suites))
    return out


def run_draws(
    matrices: Sequence[TaskMatrix],
    truths: Mapping[str, TaskTruth],
    entry_points: Mapping[str, str],
    test_samples: Mapping[str, int],
    seeds: Sequence[int] = (0, 1, 2, 3, 4),
    n: int = 10,
    m: int = 10,
    strategies: Sequence[str] = STRATEGIES,
    only_suites: bool = False,
) -> SeedDraws:
    """Every strategy's pass@1 on each task's draw, per seed.

    Args:
        matrices: The whole matrices.
        truths: Their benchmark verdicts by task id.
        entry_points: The function under test by task id.
        test_samples: Test samples each task had in all (the empty ones included).
        seeds: The draws' seeds.
        n: Code samples per task.
        m: Test samples per task.
        strategies: Registered strategy names.
        only_suites: Draw among the test samples that hold a test only.
    """
    selectors = [resolve_selector(s) for s in strategies]
    values = np.zeros((len(seeds), len(matrices), len(strategies) + 1))
    fallback = np.zeros((len(seeds), len(strategies) + 1), dtype=int)
    for a, seed in enumerate(seeds):
        drawn = draw_tasks(matrices, truths, entry_points, test_samples, seed, n, m, only_suites)
        for t, (small, truth) in enumerate(drawn):
            values[a, t, 0] = random_pass_at_k(small, truth, 1)
            for s, select in enumerate(selectors, start=1):
                ranking = select(small)
                values[a, t, s] = task_pass_at_k(small, truth, ranking, 1)
                fallback[a, s] += not ranking.levels
    return SeedDraws(values, [RANDOM, *strategies], [m.task_id for m in matrices], list(seeds), fallback)


def seed_table(draws: SeedDraws) -> pd.DataFrame:
    """One row per strategy: pass@1 in percent, mean over seeds and its SE, and the mean fallback tasks."""
    per_seed = 100 * draws.values.mean(axis=1)  # (seeds, strategies)
    se = per_seed.std(axis=0, ddof=1) / np.sqrt(per_seed.shape[0]) if per_seed.shape[0] > 1 else np.nan
    return pd.DataFrame(
        {
            "pass@1 mean": per_seed.mean(axis=0),
            "SE": se,
            "fallback tasks": draws.fallback.mean(axis=0),
        },
        index=pd.Index(draws.strategies, name="strategy"),
    )


def compare(draws: SeedDraws, pairs: Mapping[str, tuple[str, str]], resamples: int = 9999, seed: int = 0) -> pd.DataFrame:
    """Paired by task: the second strategy of each pair minus the first (percentage points), with its bootstrap
    interval over tasks, the Wilcoxon signed-rank p-value and its Holm adjustment over ``pairs``.

    Args:
        draws: The seeds' pass@1.
        pairs: Name -> (baseline, contender), e.g. :data:`FAMILIES` (hard, soft).
        resamples: Bootstrap resamples.
        seed: The bootstrap's seed.
    """
    rows = []
    for name, (base, other) in pairs.items():
        diff = 100 * (draws.of(other) - draws.of(base)).mean(axis=0)  # per task, averaged over seeds
        ci = stats.bootstrap(
            (diff,), np.mean, n_resamples=resamples, method="percentile", random_state=np.random.default_rng(seed)
        ).confidence_interval
        nonzero = diff[np.abs(diff) > 1e-12]
        p = float(stats.wilcoxon(nonzero).pvalue) if nonzero.size else 1.0
        rows.append(
            {
                "pair": name,
                "baseline": base,
                "contender": other,
                "difference": float(diff.mean()),
                "low": float(ci.low),
                "high": float(ci.high),
                "tasks": diff.size,
                "tasks better": int((diff > 1e-12).sum()),
                "tasks worse": int((diff < -1e-12).sum()),
                "p": p,
            }
        )
    frame = pd.DataFrame(rows).set_index("pair")
    frame["p (Holm)"] = multipletests(frame["p"].to_numpy(), method="holm")[1] if len(frame) else []
    return frame


def verdict(row: pd.Series, contender: str, baseline: str, alpha: float = 0.05) -> str:
    """``soft beats hard`` / ``hard beats soft`` / ``no difference detected`` from one :func:`compare` row."""
    if row["p (Holm)"] >= alpha:
        return f"no difference detected between {contender} and {baseline}"
    return f"{contender} beats {baseline}" if row["difference"] > 0 else f"{baseline} beats {contender}"
