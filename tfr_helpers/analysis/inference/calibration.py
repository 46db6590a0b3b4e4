"""Size and coverage of the study's tests and intervals on simulated clustered data (the numbers behind the choice).

The data mimic the study's shape: ``n_tasks`` tasks, each with ``1 + Poisson(mean_size)`` instances whose outcome is
Bernoulli with a task rate drawn from a Beta of mean ``share`` and intraclass correlation ``icc``
(``Beta(share s, (1 - share) s)``, ``s = (1 - icc) / icc``). Sizes and rates are independent, so the pooled share's
target is ``share``.

- :func:`coverage_of_intervals`: how often each 95% interval of a pooled share covers ``share``: the package's own
  interval (:func:`~tfr_helpers.analysis.inference.clustered.wald_bootstrap_se` on the logit scale), the former
  percentile interval, BCa (``scipy.stats.bootstrap`` over the tasks' (hits, instances) pairs) and Wilson over
  instances.
- :func:`size_of_tests`: how often each test rejects at 0.05 when there is no effect: two arms with exchangeable
  outcomes on the same instances (the controls' comparison), and two screeners of equal quality (the RQ3 MCC
  comparison). The package's task-level test (:mod:`paired_tasks`), the cluster bootstrap's p and the exact
  McNemar test over instances.
- :func:`primary_size_by_code_sample`: the primary test's size when reliability and decisions both vary by code
  sample within a task (the study's CodeT coder has ten code samples per task), beside the same test stratified by
  code sample.
- :func:`primary_rejection`: how often the primary test of a screener (its MCC = 0, reliability labels permuted
  within tasks, :mod:`label_permutation`) and the former one (the screener against ``accept_all``'s MCC, decisions
  swapped within tasks) reject, for a screener that rejects about 30% of feedback at random (the size) or more
  often when the feedback is unreliable (the power).

Every configuration draws one set of bootstrap weights with the package's seeded :func:`resampler` and uses it
for all its replications (as every table of a run does for its rows), so the work is matrix products over the
replications. ``benchmarks/stats/size_and_coverage.py`` prints the full table; a CI test runs a reduced one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest, bootstrap

from tfr_helpers.analysis.inference.clustered import bootstrap_p, resampler, wald_bootstrap_se
from tfr_helpers.analysis.inference.label_permutation import mcc_zero_test
from tfr_helpers.analysis.inference.measures import confusion_cells, mcc
from tfr_helpers.analysis.inference.paired_tasks import paired_measure_test, paired_task_test
from tfr_helpers.analysis.inference.stats import wilson

INTERVALS = ("Wald, bootstrap SE, logit (used)", "percentile (former)", "BCa", "Wilson over instances")
"""Coverage columns, in order."""
TESTS = ("task swap permutation", "cluster bootstrap p", "McNemar over instances", "task swap, MCC of screeners")
"""Rejection-rate columns, in order."""
PRIMARY = ("labels permuted within tasks (now)", "against accept_all, task swap (former)")
"""The primary test's columns: the test the study uses and the one it replaced (one code sample per task, where
permuting within tasks and within code samples are the same test)."""
BY_CODE_SAMPLE = ("labels permuted within tasks", "within code samples of tasks (used)")
"""The primary test's two strata when feedback also clusters by code sample."""


@dataclass(frozen=True)
class Clustered:
    """One simulated data set: per-task instance counts and, per instance, its task and its outcome rate."""

    sizes: np.ndarray
    task_of_row: np.ndarray
    rate_of_row: np.ndarray


def clustered_rates(rng: np.random.Generator, icc: float, share: float, n_tasks: int) -> np.ndarray:
    """Task rates ``~ Beta(share s, (1 - share) s)``, ``s = (1 - icc) / icc``: mean ``share``, ICC ``icc``."""
    s = (1 - icc) / icc
    return rng.beta(share * s, (1 - share) * s, n_tasks)


def clustered(rng: np.random.Generator, n_tasks: int, icc: float, share: float, mean_size: float = 10) -> Clustered:
    """Tasks of ``1 + Poisson(mean_size)`` instances with task rates ``~ Beta`` of mean ``share`` and ICC ``icc``."""
    sizes = 1 + rng.poisson(mean_size, n_tasks)
    rates = clustered_rates(rng, icc, share, n_tasks)
    tasks = np.repeat(np.arange(n_tasks), sizes)
    return Clustered(sizes, tasks, rates[tasks])


def _ratio_stat(hits: np.ndarray, size: np.ndarray, axis: int = -1) -> np.ndarray:
    return hits.sum(axis=axis) / size.sum(axis=axis)


def coverage_of_intervals(
    n_tasks: int,
    icc: float,
    share: float,
    *,
    replications: int = 500,
    n_resamples: int = 2000,
    seed: int = 0,
    mean_size: float = 10,
) -> dict[str, float]:
    """Share of ``replications`` in which each interval of :data:`INTERVALS` covers the true pooled share."""
    rng = np.random.default_rng(seed)
    weights = resampler(range(n_tasks), n_resamples=n_resamples, seed=seed).task_weights
    covered = dict.fromkeys(INTERVALS, 0)
    for _ in range(replications):
        data = clustered(rng, n_tasks, icc, share, mean_size)
        hits = np.bincount(data.task_of_row, weights=rng.random(data.task_of_row.size) < data.rate_of_row)
        hits = np.pad(hits, (0, n_tasks - hits.size)).astype(float)
        size = data.sizes.astype(float)
        value = hits.sum() / size.sum()
        boot = (weights @ hits) / (weights @ size)
        bounds = {
            INTERVALS[0]: wald_bootstrap_se(value, boot, n_tasks, "logit", 0.5 / size.sum()),
            INTERVALS[1]: tuple(np.percentile(boot, [2.5, 97.5])),
        }
        if 0 < value < 1:
            ci = bootstrap((hits, size), _ratio_stat, paired=True, vectorized=True, n_resamples=n_resamples,
                           method="BCa", random_state=rng).confidence_interval  # fmt: skip
            bounds[INTERVALS[2]] = (ci.low, ci.high)
        else:
            bounds[INTERVALS[2]] = (value, value)
        w = wilson(int(hits.sum()), int(size.sum()))
        bounds[INTERVALS[3]] = (w.low, w.high)
        for name, (low, high) in bounds.items():
            covered[name] += bool(low <= share <= high)
    return {name: count / replications for name, count in covered.items()}


def _mcnemar(a: np.ndarray, b: np.ndarray) -> float:
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    return 1.0 if only_a + only_b == 0 else float(binomtest(only_a, only_a + only_b, 0.5).pvalue)


def size_of_tests(
    n_tasks: int,
    icc: float,
    *,
    share: float = 0.3,
    replications: int = 500,
    n_resamples: int = 2000,
    n_permutations: int = 999,
    seed: int = 0,
    mean_size: float = 10,
    alpha: float = 0.05,
) -> dict[str, float]:
    """Rejection rate at ``alpha`` of each test of :data:`TESTS` with no effect, plus ``too few tasks`` (the share
    of replications where the task-level test gives no p) and ``difference interval coverage`` (how often the
    paired difference's interval covers 0).

    Arms: each arm has its own task rates, drawn from the same Beta (so the arms are exchangeable and the mean
    effect is 0, but a task may favour either arm: the clustering that breaks McNemar). Screeners: reliability is
    Bernoulli with the task's rate, and each of two screeners errs with its own task-level error rate ``~ Beta``
    of mean 0.2 and ICC ``icc`` (equal quality).
    """
    rng = np.random.default_rng(seed)
    weights = resampler(range(n_tasks), n_resamples=n_resamples, seed=seed).task_weights
    rejected = dict.fromkeys(TESTS, 0)
    too_few = covers_zero = 0
    for _ in range(replications):
        data = clustered(rng, n_tasks, icc, share, mean_size)
        rows = data.task_of_row.size
        other = clustered_rates(rng, icc, share, n_tasks)[data.task_of_row]  # arm B's own task rates
        a, b = (rng.random(rows) < data.rate_of_row), (rng.random(rows) < other)
        test = paired_task_test(data.task_of_row, a, b, n_permutations=n_permutations, seed=seed)
        too_few += not test.tested
        rejected[TESTS[0]] += test.rejects(alpha)
        diff = np.bincount(data.task_of_row, weights=a.astype(float) - b, minlength=n_tasks)
        boot = (weights @ diff) / (weights @ data.sizes)
        rejected[TESTS[1]] += bootstrap_p(boot) < alpha
        low, high = wald_bootstrap_se(float(diff.sum() / rows), boot, n_tasks)
        covers_zero += bool(low <= 0 <= high)
        rejected[TESTS[2]] += _mcnemar(a, b) < alpha
        reliable = rng.random(rows) < data.rate_of_row
        acc_a = reliable ^ (rng.random(rows) < clustered_rates(rng, icc, 0.2, n_tasks)[data.task_of_row])
        acc_b = reliable ^ (rng.random(rows) < clustered_rates(rng, icc, 0.2, n_tasks)[data.task_of_row])
        rejected[TESTS[3]] += paired_measure_test(
            data.task_of_row, acc_a, acc_b, reliable, mcc, n_permutations=n_permutations, seed=seed
        ).rejects(alpha)
    out = {name: count / replications for name, count in rejected.items()}
    return out | {"too few tasks": too_few / replications, "difference interval coverage": covers_zero / replications}


def primary_rejection(
    n_tasks: int,
    icc: float,
    effect: float,
    *,
    share: float = 0.3,
    reject: float = 0.3,
    replications: int = 500,
    n_permutations: int = 999,
    seed: int = 0,
    mean_size: float = 10,
    alpha: float = 0.05,
) -> dict[str, float]:
    """Rejection rate at ``alpha`` of each test of :data:`PRIMARY`, and ``mean MCC``, the simulated screener's MCC
    averaged over the replications.

    Reliability is Bernoulli with the task's rate (mean ``share``, ICC ``icc``, as :func:`clustered` draws it).
    The screener rejects with its own task-level rate ``q_t ~ Beta`` of mean ``reject`` and ICC ``icc``, shifted
    by ``effect``: probability ``q_t + effect`` on unreliable feedback and ``q_t - effect`` on reliable feedback
    (clipped to [0, 1]). With ``effect`` 0 its decisions are independent of reliability (MCC 0: the size).
    """
    rng = np.random.default_rng(seed)
    rejected = dict.fromkeys(PRIMARY, 0)
    mccs = []
    for _ in range(replications):
        data = clustered(rng, n_tasks, icc, share, mean_size)
        rows = data.task_of_row.size
        reliable = rng.random(rows) < data.rate_of_row
        q = clustered_rates(rng, icc, reject, n_tasks)[data.task_of_row]
        accepted = rng.random(rows) >= np.clip(np.where(reliable, q - effect, q + effect), 0, 1)
        mccs.append(float(mcc(confusion_cells(accepted, reliable).sum(axis=0))))
        rejected[PRIMARY[0]] += mcc_zero_test(data.task_of_row, accepted, reliable).rejects(alpha)
        rejected[PRIMARY[1]] += paired_measure_test(
            data.task_of_row, np.ones(rows, dtype=bool), accepted, reliable, mcc, n_permutations=n_permutations,
            seed=seed,
        ).rejects(alpha)  # fmt: skip
    out = {name: count / replications for name, count in rejected.items()}
    return out | {"mean MCC": float(np.mean(mccs))}


def primary_size_by_code_sample(
    n_tasks: int,
    icc_code: float,
    *,
    codes: int = 10,
    mean_size: float = 3,
    icc: float = 0.3,
    share: float = 0.3,
    reject: float = 0.3,
    replications: int = 300,
    seed: int = 0,
    alpha: float = 0.05,
) -> dict[str, float]:
    """Rejection rate at ``alpha`` of the primary test with no effect, when the feedback of one code sample shares
    more than its task: labels within tasks and within code samples.

    Each task has ``codes`` code samples of ``1 + Poisson(mean_size)`` feedback. The task's reliable share and
    rejection rate are drawn as in :func:`primary_rejection` (means ``share`` and ``reject``, ICC ``icc``); each
    code sample draws its own rates around its task's (``Beta`` with ICC ``icc_code`` among the task's code
    samples), independently for reliability and decisions (no effect).
    """
    rng = np.random.default_rng(seed)
    rejected = dict.fromkeys(BY_CODE_SAMPLE, 0)
    for _ in range(replications):
        task_rel = np.clip(clustered_rates(rng, icc, share, n_tasks), 0.02, 0.98)
        task_rej = np.clip(clustered_rates(rng, icc, reject, n_tasks), 0.02, 0.98)
        rel_rate = np.concatenate([clustered_rates(rng, icc_code, float(r), codes) for r in task_rel])
        rej_rate = np.concatenate([clustered_rates(rng, icc_code, float(r), codes) for r in task_rej])
        sizes = 1 + rng.poisson(mean_size, n_tasks * codes)
        code_of_row = np.repeat(np.arange(n_tasks * codes), sizes)
        reliable = rng.random(code_of_row.size) < rel_rate[code_of_row]
        accepted = rng.random(code_of_row.size) >= rej_rate[code_of_row]
        task_of_row = code_of_row // codes
        rejected[BY_CODE_SAMPLE[0]] += mcc_zero_test(task_of_row, accepted, reliable).rejects(alpha)
        rejected[BY_CODE_SAMPLE[1]] += mcc_zero_test(task_of_row, accepted, reliable, within=code_of_row).rejects(alpha)
    return {name: count / replications for name, count in rejected.items()}
