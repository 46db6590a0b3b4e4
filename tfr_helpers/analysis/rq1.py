"""RQ1 numbers: the four cases, test-fail feedback per benchmark, and causes of unreliable feedback.

Every function returns a long DataFrame of numbers (counts; percentages with one decimal and their 95%
cluster-bootstrap bounds over tasks, then code samples, in ``pct``, ``low``, ``high``; the mean of per-task
shares in ``task_mean_*``; the interval's ``method, resamples, clusters, deff``) from which the tables and
``summary.json`` are both built. Each model is resampled on its own (never pooled).
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import replace
from typing import get_args

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.clustered import SEED, Interval, ratio_draws, unpaired_difference
from tfr_helpers.analysis.inference.paired_tasks import MIN_INFORMATIVE_TASKS
from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, rows_resampler, share_columns
from tfr_helpers.analysis.tidy.frames import pairs_frame
from tfr_helpers.records import Case, Cause, Results
from tfr_helpers.replay.empty_solution import is_empty_solution

CASES: tuple[str, ...] = get_args(Case)
CAUSES: tuple[str, ...] = get_args(Cause)
KINDS = ("ebt", "pbt")


def four_cases(results: Results) -> pd.DataFrame:
    """Per model, test kind and case: count and share of that (model, kind)'s pair evaluations.

    A pair is one (code sample, generated test); identical programs and tests ran once, so ``unique`` (the
    distinct executions behind the ``n`` pairs) may be smaller than ``n``.

    Returns:
        Columns ``model, source, kind, case, unique`` and the share columns (``n``: pairs of that model and
        kind; ``source``: simulated / replayed / live).
    """
    pairs = pairs_frame(results)
    rows = []
    for (model, kind), group in pairs.groupby(["model", "kind"], sort=True):
        unique = int(group["run_key"].nunique())
        rs = rows_resampler(results, group, str(model))
        for case in CASES:
            share = share_columns(rs, group["case"] == case)
            rows.append(
                {"model": model, "source": group["source"].iloc[0], "kind": kind, "case": case, **share, "unique": unique}
            )
    return pd.DataFrame(rows, columns=["model", "source", "kind", "case", "unique", *SHARE_COLUMNS])


def by_benchmark(results: Results) -> pd.DataFrame:
    """Per benchmark and model: tests, test-fail feedback, and the unreliable share of that feedback.

    Returns:
        Columns ``benchmark, model, source, tests, feedback, unique_feedback`` and the share columns, where
        ``tests`` counts (code sample, test) pairs, ``unique_feedback`` the distinct (program, test) executions
        behind the feedback, ``k`` is unreliable feedback and ``n`` equals ``feedback``.
    """
    pairs = pairs_frame(results)
    rows = []
    for (bench, model), group in pairs.groupby(["benchmark", "model"], sort=True):
        fb = group[group["feedback"]]
        rs = rows_resampler(results, fb, str(model))
        rows.append(
            {
                "benchmark": bench,
                "model": model,
                "source": group["source"].iloc[0],
                "tests": len(group),
                "feedback": len(fb),
                "unique_feedback": int(fb["run_key"].nunique()),
                **share_columns(rs, fb["reliability"] == "unreliable"),
            }
        )
    cols = ["benchmark", "model", "source", "tests", "feedback", "unique_feedback", *SHARE_COLUMNS]
    return pd.DataFrame(rows, columns=cols)


def unreliable_causes(results: Results) -> pd.DataFrame:
    """Unreliable test-fail feedback by model, cause and test kind (``kind="all"`` pools both kinds).

    Models are never pooled: a simulated and a real model's causes are different evidence.

    Returns:
        Columns ``model, source, cause, kind`` and the share columns: ``n`` is the model's unreliable
        feedback of that kind; ``cause="unknown"`` counts unreliable feedback whose record names no cause.
    """
    pairs = pairs_frame(results)
    unreliable = pairs[pairs["reliability"] == "unreliable"]
    causes = list(CAUSES) + (["unknown"] if unreliable["cause"].isna().any() else [])
    rows = []
    for model in sorted(pairs["model"].unique()):
        mine = unreliable[unreliable["model"] == model]
        source = pairs.loc[pairs["model"] == model, "source"].iloc[0]
        for kind in (*KINDS, "all"):
            sub = mine if kind == "all" else mine[mine["kind"] == kind]
            rs = rows_resampler(results, sub, str(model))
            for cause in causes:
                hits = sub["cause"].isna() if cause == "unknown" else sub["cause"] == cause
                share = share_columns(rs, hits)
                rows.append({"model": model, "source": source, "cause": cause, "kind": kind, **share})
    return pd.DataFrame(rows, columns=["model", "source", "cause", "kind", *SHARE_COLUMNS])


def _feedback(results: Results, model: str, benchmark: str | None = None) -> pd.DataFrame:
    pairs = pairs_frame(results)
    mine = pairs[pairs["feedback"] & (pairs["model"] == model)]
    return mine if benchmark is None else mine[mine["benchmark"] == benchmark]


def unreliable_share(results: Results, model: str, benchmark: str | None = None) -> dict[str, object]:
    """The share columns of one model's unreliable feedback (all its benchmarks when ``benchmark`` is None)."""
    fb = _feedback(results, model, benchmark)
    return share_columns(rows_resampler(results, fb, model), fb["reliability"] == "unreliable")


def unreliable_difference(results: Results, a: tuple[str, str], b: tuple[str, str]) -> Interval:
    """Unreliable share of ``a`` minus that of ``b``, each a (benchmark, model), resampled independently.

    Args:
        results: A finished run.
        a: (benchmark, model) of the first row of :func:`by_benchmark`.
        b: The second.

    Returns:
        The difference with its interval and two-sided bootstrap p-value (:func:`~clustered.unpaired_difference`);
        NaN bounds and p when a share is 0 or 100% (every resample equal: no bootstrap test), and a NaN p when
        either row has fewer than six tasks (the bootstrap p is far too small with few clusters:
        docs/inference.md).
    """
    draws, tasks = [], []
    for i, (bench, model) in enumerate((a, b)):
        fb = _feedback(results, model, bench)
        rs = rows_resampler(results, fb, model, seed=SEED + i)
        tasks.append(rs.clusters)
        hits = (fb["reliability"] == "unreliable").to_numpy(dtype=float)
        draws.append(ratio_draws(rs, hits, np.ones(len(fb))))
        if hits.size and hits.sum() in (0, hits.size):  # no spread at 0 or 100%: the bootstrap cannot test it
            draws[-1] = (draws[-1][0], np.full_like(draws[-1][1], np.nan), draws[-1][2])
    diff = unpaired_difference(draws[0], draws[1], rs)
    return diff if min(tasks) >= MIN_INFORMATIVE_TASKS else replace(diff, p_value=math.nan)


SOLUTIONS = ("all", "non_empty", "empty")
"""Populations of :func:`unreliable_by_solution`."""


def unreliable_by_solution(results: Results) -> pd.DataFrame:
    """The unreliable share per model over all its feedback, over feedback on non-empty solutions, and on empty
    ones (:func:`~tfr_helpers.replay.empty_solution.is_empty_solution`, the one rule): an empty published solution
    fails every correct assert, so its feedback says nothing about feedback on real code.

    Returns:
        Columns ``model, solution`` (:data:`SOLUTIONS`), ``codes`` (code samples in that population) and the share
        columns (``clusters``: tasks holding the feedback).
    """
    rows = []
    for model in sorted({c.model for c in results.generated_codes}):
        stub = {(c.task_id, c.sample_index): is_empty_solution(c.code) for c in results.generated_codes if c.model == model}
        fb = _feedback(results, model)
        empty = np.array(
            [stub.get((t, int(i)), False) for t, i in zip(fb["task_id"], fb["code_index"], strict=True)], dtype=bool
        )
        rs = rows_resampler(results, fb, model)
        unreliable = fb["reliability"] == "unreliable"
        for solution, among in (("all", None), ("non_empty", ~empty), ("empty", empty)):
            codes = sum(v == (solution == "empty") for v in stub.values()) if solution != "all" else len(stub)
            rows.append({"model": model, "solution": solution, "codes": codes, **share_columns(rs, unreliable, among)})
    return pd.DataFrame(rows, columns=["model", "solution", "codes", *SHARE_COLUMNS])


TEST_POPULATIONS = ("all", "no_placeholder", "placeholder")
"""Populations of :func:`unreliable_by_test`."""
PLACEHOLDER = re.compile(r"^_{3,}$")
"""A name made only of underscores (three or more): the blank of a fill-in-the-blank assert."""


def is_placeholder(source: str | None) -> bool:
    """Whether a generated test is a placeholder assert: some ``assert`` holds a blank name of three or more
    underscores (``assert _________ == has_close_elements(...)``, as CodeT's published test samples often do), so
    it raises NameError on any code; a test that does not parse is not a placeholder.

    >>> is_placeholder("assert _________ == f(1)"), is_placeholder("assert f(1) == 2"), is_placeholder("x = __")
    (True, False, False)
    """
    try:
        tree = ast.parse(source or "")
    except SyntaxError:
        return False
    return any(
        isinstance(node, ast.Name) and PLACEHOLDER.match(node.id)
        for a in ast.walk(tree)
        if isinstance(a, ast.Assert)
        for node in ast.walk(a)
    )


def unreliable_by_test(results: Results) -> pd.DataFrame:
    """The unreliable share per model over all its feedback, over feedback from tests that are not placeholder
    asserts, and from placeholder asserts (:func:`is_placeholder`): a placeholder fails on every code, the
    reference included, so it is unreliable by construction and says nothing about real tests.

    Returns:
        Columns ``model, tests`` (:data:`TEST_POPULATIONS`), ``placeholder_tests`` (the model's generated tests
        that are placeholders) and the share columns (``clusters``: tasks holding the feedback).
    """
    rows = []
    for model in sorted({c.model for c in results.generated_codes}):
        blank = {t.test_id: is_placeholder(t.source) for t in results.generated_tests if t.model == model}
        fb = _feedback(results, model)
        placeholder = np.array([blank.get(t, False) for t in fb["test_id"]], dtype=bool)
        rs = rows_resampler(results, fb, model)
        unreliable = fb["reliability"] == "unreliable"
        for tests, among in (("all", None), ("no_placeholder", ~placeholder), ("placeholder", placeholder)):
            share = share_columns(rs, unreliable, among)
            rows.append({"model": model, "tests": tests, "placeholder_tests": sum(blank.values()), **share})
    return pd.DataFrame(rows, columns=["model", "tests", "placeholder_tests", *SHARE_COLUMNS])


def task_populations(results: Results) -> pd.DataFrame:
    """Per model: its tasks (those it generated code for), the tasks with any generated test, and the tasks with
    test-fail feedback (the population RQ1's share is over)."""
    rows = []
    for model in sorted({c.model for c in results.generated_codes}):
        tested = {t.task_id for t in results.generated_tests if t.model == model}
        fed = set(_feedback(results, model)["task_id"])
        rows.append(
            {
                "model": model,
                "tasks": len({c.task_id for c in results.generated_codes if c.model == model}),
                "tasks_with_tests": len(tested),
                "tasks_with_feedback": len(fed),
                "tests": sum(t.model == model for t in results.generated_tests),
            }
        )
    return pd.DataFrame(rows, columns=["model", "tasks", "tasks_with_tests", "tasks_with_feedback", "tests"])
