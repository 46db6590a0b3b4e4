"""Estimator diagnostics (as Menet et al.'s): how well each hard and soft score separates correct programs from
wrong ones within a task, and the features of a dataset that decide it.

Per task, over its executed code samples (a program counted once per sample it stands for), with the benchmark
verdict as correctness:

- **signal-to-noise**: (mean score of the correct samples - mean score of the wrong ones) / standard deviation of
  the score over all the task's samples (a standardized gap; 0: the score carries no signal);
- **Spearman** and **Kendall** (tau-b) correlation of the score with correctness (``scipy.stats``).

Only tasks with both correct and wrong executed samples and a score that varies are defined for an estimator; the
summary gives the median and mean over those tasks and their count. The scores are the raw estimators
(:data:`ESTIMATORS`), before a ranker drops programs scoring 0.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from tfr_helpers.consensus.matrix import TaskMatrix, TaskTruth
from tfr_helpers.consensus.rankers.maxpass import mean_rate
from tfr_helpers.consensus.rankers.mbr_exec import neighbourhood
from tfr_helpers.consensus.rankers.mbr_outputs import output_agreement, output_guard


def _outputs(matrix: TaskMatrix, hard: bool) -> np.ndarray:
    if output_guard(matrix):
        return np.full(len(matrix.program_ids), np.nan)
    sim = output_agreement(matrix)
    if hard:
        sim = (np.round(sim, 12) == 1.0).astype(float)
    w = np.array([len(s) if o is not None else 0 for s, o in zip(matrix.program_samples, matrix.outputs, strict=True)])
    return np.asarray(sim @ w / max(w.sum(), 1), dtype=float)


ESTIMATORS: dict[str, Callable[[TaskMatrix], np.ndarray]] = {
    "p(N^inf) (MBR-Exec hard)": lambda m: neighbourhood(m, hard=True),
    "p(N^1) (MBR-Exec soft)": lambda m: neighbourhood(m, hard=False),
    "E[R^inf] (MaxPass hard)": lambda m: mean_rate(m, hard=True),
    "E[R] (MaxPass soft)": lambda m: mean_rate(m, hard=False),
    "p(N^inf) E[R] (CodeT hard)": lambda m: neighbourhood(m, hard=True) * mean_rate(m, hard=False),
    "p(N^1) E[R] (CodeT soft)": lambda m: neighbourhood(m, hard=False) * mean_rate(m, hard=False),
    "outputs p(N^inf) (AlphaCode)": lambda m: _outputs(m, hard=True),
    "outputs p(N^1) (FunCoder)": lambda m: _outputs(m, hard=False),
}
"""Estimator -> its score per unique program (Menet et al.'s Table 1 notation, the family in brackets)."""


def task_diagnostics(matrix: TaskMatrix, truth: TaskTruth) -> dict[str, tuple[float, float, float]]:
    """Estimator -> (signal-to-noise, Spearman, Kendall) on one task; NaN where undefined (see the module doc)."""
    ran = matrix.ran
    weights = matrix.weights.astype(int)
    correct = np.repeat(np.asarray(truth.correct, dtype=float)[ran], weights[ran])
    out: dict[str, tuple[float, float, float]] = {}
    for name, score in ESTIMATORS.items():
        if not matrix.tests or not ran.any():
            out[name] = (np.nan, np.nan, np.nan)
            continue
        s = np.repeat(score(matrix)[ran], weights[ran])
        if np.isnan(s).any() or correct.min() == correct.max() or np.ptp(s) < 1e-12:
            out[name] = (np.nan, np.nan, np.nan)
            continue
        snr = (s[correct == 1].mean() - s[correct == 0].mean()) / s.std()
        rho = stats.spearmanr(s, correct).statistic
        tau = stats.kendalltau(s, correct).statistic
        out[name] = (float(snr), float(rho), float(tau))
    return out


def diagnostics(matrices: Sequence[TaskMatrix], truths: Mapping[str, TaskTruth]) -> pd.DataFrame:
    """One row per estimator: median and mean over tasks of signal-to-noise, Spearman and Kendall, and the tasks
    where each is defined."""
    per_task = [task_diagnostics(m, truths[m.task_id]) for m in matrices]
    rows = []
    for name in ESTIMATORS:
        values = np.array([d[name] for d in per_task])  # (tasks, 3)
        defined = ~np.isnan(values[:, 0])
        v = values[defined]
        rows.append(
            {
                "estimator": name,
                "tasks": int(defined.sum()),
                "SNR median": float(np.median(v[:, 0])) if len(v) else np.nan,
                "SNR mean": float(v[:, 0].mean()) if len(v) else np.nan,
                "Spearman mean": float(v[:, 1].mean()) if len(v) else np.nan,
                "Kendall mean": float(v[:, 2].mean()) if len(v) else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("estimator")


def data_profile(matrices: Sequence[TaskMatrix], truths: Mapping[str, TaskTruth]) -> dict[str, float]:
    """What decides hard against soft on a dataset, measured (shares in percent; means over the matrices):

    - ``suites_one_case``: suites (test samples with a test) holding a single case: there ``R = R^inf``;
    - ``cases_per_suite``: mean cases per suite;
    - ``samples_failing_all``: executed code samples that pass no test (they agree with each other on every case),
      over the tasks with a test;
    - ``top_cluster_wrong``: tasks whose largest cluster of identical pass vectors (with a test passed or not) is
      wrong, among tasks with a correct sample;
    - ``all_fail_cluster_largest``: tasks whose largest identical cluster passes no test;
    - ``top_level_tied``: tasks where MaxPass soft's best score is shared by programs of both verdicts.
    """
    suites = [len(s) for m in matrices for s in m.suites if s]
    failing = executed = 0
    wrong_top = with_correct = all_fail_top = tied = 0
    for m in matrices:
        t = truths[m.task_id]
        ran = m.ran
        w = m.weights
        p = m.matrix
        if not ran.any() or not m.tests:
            continue
        executed += int(w[ran].sum())
        failing += int(w[ran & ~p.any(axis=1)].sum())
        rows: dict[str, float] = {}
        for i in np.flatnonzero(ran):
            rows[m.passes[i]] = rows.get(m.passes[i], 0.0) + w[i]
        largest = max(rows, key=lambda k: rows[k])
        ok = np.asarray(t.correct, dtype=bool)
        if (ok & ran).any():
            with_correct += 1
            wrong_top += not any(ok[i] for i in np.flatnonzero(ran) if m.passes[i] == largest)
        all_fail_top += "1" not in largest
        score = mean_rate(m, hard=False)
        best = ran & np.isclose(score, score[ran].max())
        tied += bool((ok & best).any() and (~ok & best).any())
    n = max(len(matrices), 1)
    return {
        "suites": float(len(suites)),
        "suites_one_case": 100 * float(np.mean([s == 1 for s in suites])) if suites else float("nan"),
        "cases_per_suite": float(np.mean(suites)) if suites else float("nan"),
        "samples_failing_all": 100 * failing / max(executed, 1),
        "top_cluster_wrong": 100 * wrong_top / max(with_correct, 1),
        "tasks_with_correct": float(with_correct),
        "all_fail_cluster_largest": 100 * all_fail_top / n,
        "top_level_tied": 100 * tied / n,
    }
