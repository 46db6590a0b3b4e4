"""RQ1 numbers: the four cases, test-fail feedback per benchmark, and causes of unreliable feedback.

Every function returns a long DataFrame of numbers (counts; percentages with one decimal and their 95%
Wilson bounds in ``pct``, ``low``, ``high``) from which the tables and ``summary.json`` are both built.
"""

from __future__ import annotations

from typing import get_args

import pandas as pd

from tfr_helpers.analysis.frames import pairs_frame
from tfr_helpers.analysis.stats import share_columns, wilson
from tfr_helpers.records import Case, Cause, Results

CASES: tuple[str, ...] = get_args(Case)
CAUSES: tuple[str, ...] = get_args(Cause)
KINDS = ("ebt", "pbt")


def four_cases(results: Results) -> pd.DataFrame:
    """Per model, test kind and case: count and share of that (model, kind)'s pair evaluations.

    A pair is one (code sample, generated test); identical programs and tests ran once, so ``unique`` (the
    distinct executions behind the ``n`` pairs) may be smaller than ``n``.

    Returns:
        Columns ``model, source, kind, case, k, n, unique, pct, low, high`` (``n``: pairs of that model and
        kind; ``source``: simulated / replayed / live).
    """
    pairs = pairs_frame(results)
    rows = []
    for (model, kind), group in pairs.groupby(["model", "kind"], sort=True):
        unique = int(group["run_key"].nunique())
        for case in CASES:
            k = int((group["case"] == case).sum())
            share = share_columns(wilson(k, len(group)))
            rows.append(
                {"model": model, "source": group["source"].iloc[0], "kind": kind, "case": case, **share, "unique": unique}
            )
    return pd.DataFrame(rows, columns=["model", "source", "kind", "case", "k", "n", "unique", "pct", "low", "high"])


def by_benchmark(results: Results) -> pd.DataFrame:
    """Per benchmark and model: tests, test-fail feedback, and the unreliable share of that feedback.

    Returns:
        Columns ``benchmark, model, source, tests, feedback, k, n, pct, low, high`` where ``tests`` counts
        (code sample, test) pairs, ``k`` is unreliable feedback and ``n`` equals ``feedback``.
    """
    pairs = pairs_frame(results)
    rows = []
    for (bench, model), group in pairs.groupby(["benchmark", "model"], sort=True):
        fb = group[group["feedback"]]
        k = int((fb["reliability"] == "unreliable").sum())
        rows.append(
            {
                "benchmark": bench,
                "model": model,
                "source": group["source"].iloc[0],
                "tests": len(group),
                "feedback": len(fb),
                **share_columns(wilson(k, len(fb))),
            }
        )
    cols = ["benchmark", "model", "source", "tests", "feedback", "k", "n", "pct", "low", "high"]
    return pd.DataFrame(rows, columns=cols)


def unreliable_causes(results: Results) -> pd.DataFrame:
    """Unreliable test-fail feedback by model, cause and test kind (``kind="all"`` pools both kinds).

    Models are never pooled: a simulated and a real model's causes are different evidence.

    Returns:
        Columns ``model, source, cause, kind, k, n, pct, low, high``: ``n`` is the model's unreliable
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
            for cause in causes:
                k = int(sub["cause"].isna().sum()) if cause == "unknown" else int((sub["cause"] == cause).sum())
                share = share_columns(wilson(k, len(sub)))
                rows.append({"model": model, "source": source, "cause": cause, "kind": kind, **share})
    return pd.DataFrame(rows, columns=["model", "source", "cause", "kind", "k", "n", "pct", "low", "high"])
