"""RQ2 numbers: benchmark transitions after refinement, and how often passing the generated test misleads."""

from __future__ import annotations

from typing import get_args

import pandas as pd

from tfr_helpers.analysis.frames import refinements_frame
from tfr_helpers.analysis.stats import share_columns, wilson
from tfr_helpers.records import Reliability, Results, Transition

TRANSITIONS: tuple[str, ...] = get_args(Transition)
RELIABILITIES: tuple[str, ...] = get_args(Reliability)
QUADRANTS = ("gen_pass_bench_pass", "gen_pass_bench_fail", "gen_fail_bench_pass", "gen_fail_bench_fail")
"""Refined code: generated test passed/failed x benchmark tests passed/failed."""


def refinement_outcomes(results: Results) -> pd.DataFrame:
    """Per model, feedback reliability and benchmark transition: count and share of the attempts.

    Returns:
        Columns ``model, reliability, transition, k, n, pct, low, high`` (``n``: attempts of that model
        and reliability, so the ``k`` of one (model, reliability) add up to ``n``).
    """
    ref = refinements_frame(results)
    rows = []
    for model in sorted(ref["model"].unique()):
        for rel in RELIABILITIES:
            group = ref[(ref["model"] == model) & (ref["reliability"] == rel)]
            for tr in TRANSITIONS:
                k = int((group["transition"] == tr).sum())
                rows.append(
                    {
                        "model": model,
                        "reliability": rel,
                        "transition": tr,
                        **share_columns(wilson(k, len(group))),
                    }
                )
    return pd.DataFrame(rows, columns=["model", "reliability", "transition", "k", "n", "pct", "low", "high"])


def generated_test_diagnostic(results: Results) -> pd.DataFrame:
    """After refinement: generated-test verdict vs benchmark verdict, by feedback reliability.

    Only attempts with usable refined code count. ``misleading`` is the share of refined programs that pass
    the generated test but fail the benchmark tests, among those passing the generated test.

    Returns:
        One row per reliability: ``reliability, attempts, usable`` and the four quadrant counts, then
        ``k, n, pct, low, high`` for the misleading share (``k`` = gen_pass_bench_fail,
        ``n`` = gen_pass_bench_pass + gen_pass_bench_fail).
    """
    ref = refinements_frame(results)
    rows = []
    for rel in RELIABILITIES:
        group = ref[ref["reliability"] == rel]
        usable = group[group["usable_code"] & group["generated_test_passed"].notna()]
        gen = usable["generated_test_passed"].astype(bool)
        bench = usable["benchmark_after"].astype(bool)
        counts = {
            "gen_pass_bench_pass": int((gen & bench).sum()),
            "gen_pass_bench_fail": int((gen & ~bench).sum()),
            "gen_fail_bench_pass": int((~gen & bench).sum()),
            "gen_fail_bench_fail": int((~gen & ~bench).sum()),
        }
        n = counts["gen_pass_bench_pass"] + counts["gen_pass_bench_fail"]
        rows.append(
            {
                "reliability": rel,
                "attempts": len(group),
                "usable": len(usable),
                **counts,
                **share_columns(wilson(counts["gen_pass_bench_fail"], n)),
            }
        )
    cols = ["reliability", "attempts", "usable", *QUADRANTS, "k", "n", "pct", "low", "high"]
    return pd.DataFrame(rows, columns=cols)
