"""RQ2 numbers: benchmark transitions after refinement, and how often passing the generated test misleads.

Every number is per model (a simulated and a real model are different evidence) and every interval is the
cluster bootstrap over that model's tasks, then code samples (:mod:`units`). An attempt is one refinement of one
test-fail feedback; identical refinement prompts (same task, code sample and feedback text) share one cached
reply, so ``unique`` counts the distinct prompts and the ``unique_*`` rates count each of them once.
"""

from __future__ import annotations

from typing import get_args

import pandas as pd

from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, rows_resampler, share_columns
from tfr_helpers.analysis.tidy.frames import refinements_frame
from tfr_helpers.records import Reliability, Results, Transition

TRANSITIONS: tuple[str, ...] = get_args(Transition)
RELIABILITIES: tuple[str, ...] = get_args(Reliability)
QUADRANTS = ("gen_pass_bench_pass", "gen_pass_bench_fail", "gen_fail_bench_pass", "gen_fail_bench_fail")
"""Refined code: generated test passed/failed x benchmark tests passed/failed."""
CONDITIONAL = {"pass->fail": True, "fail->pass": False}
"""Transition -> the benchmark verdict before refinement it is conditional on (``passed before``)."""


def refinement_outcomes(results: Results) -> pd.DataFrame:
    """Per model, feedback reliability and benchmark transition: count and share of the attempts.

    Returns:
        Columns ``model, reliability, transition, unique`` and the share columns (``n``: attempts of that
        model and reliability, so the ``k`` of one (model, reliability) add up to ``n``; ``unique``: distinct
        refinement prompts among the ``k``).
    """
    ref = refinements_frame(results)
    rows = []
    for model in sorted(ref["model"].unique()):
        for rel in RELIABILITIES:
            group = ref[(ref["model"] == model) & (ref["reliability"] == rel)]
            rs = rows_resampler(results, group, str(model))
            for tr in TRANSITIONS:
                hits = group["transition"] == tr
                rows.append(
                    {
                        "model": model,
                        "reliability": rel,
                        "transition": tr,
                        "unique": int(group.loc[hits, "prompt_key"].nunique()),
                        **share_columns(rs, hits),
                    }
                )
    return pd.DataFrame(rows, columns=["model", "reliability", "transition", "unique", *SHARE_COLUMNS])


def conditional_transitions(results: Results) -> pd.DataFrame:
    """P(Pass->Fail | the code passed before) and P(Fail->Pass | it failed before), per model and reliability.

    An attempt counts once; ``no_code`` (no usable refined code: the code is kept) counts in the denominator and
    never in the numerator. Beside the multiplicity-weighted rate (every attempt), the ``unique_`` columns count
    each distinct refinement prompt once.

    Returns:
        Columns ``model, reliability, transition, attempts, unique_attempts`` (the conditioning attempts and
        their distinct prompts), the share columns, and the same share columns prefixed ``unique_``.
    """
    ref = refinements_frame(results)
    rows = []
    for model in sorted(ref["model"].unique()):
        for rel in RELIABILITIES:
            mine = ref[(ref["model"] == model) & (ref["reliability"] == rel)]
            first = mine.drop_duplicates("prompt_key")
            rs, rs_unique = rows_resampler(results, mine, str(model)), rows_resampler(results, first, str(model))
            for tr, before in CONDITIONAL.items():
                among = mine["benchmark_before"] == before
                rows.append(
                    {
                        "model": model,
                        "reliability": rel,
                        "transition": tr,
                        "attempts": int(among.sum()),
                        "unique_attempts": int(mine.loc[among, "prompt_key"].nunique()),
                        **share_columns(rs, mine["transition"] == tr, among),
                        **share_columns(
                            rs_unique, first["transition"] == tr, first["benchmark_before"] == before, "unique_"
                        ),
                    }
                )
    cols = ["model", "reliability", "transition", "attempts", "unique_attempts", *SHARE_COLUMNS]
    return pd.DataFrame(rows, columns=cols + [f"unique_{c}" for c in SHARE_COLUMNS])


def generated_test_diagnostic(results: Results) -> pd.DataFrame:
    """After refinement: generated-test verdict vs benchmark verdict, per model and feedback reliability.

    Only attempts with usable refined code count. ``misleading`` is the share of refined programs that pass
    the generated test but fail the benchmark tests, among those passing the generated test.

    Returns:
        One row per model and reliability: ``model, reliability, attempts, unique, usable`` and the four quadrant
        counts, then the share columns for the misleading share (``k`` = gen_pass_bench_fail,
        ``n`` = gen_pass_bench_pass + gen_pass_bench_fail).
    """
    ref = refinements_frame(results)
    rows = []
    for model in sorted(ref["model"].unique()):
        for rel in RELIABILITIES:
            group = ref[(ref["model"] == model) & (ref["reliability"] == rel)]
            usable = group[group["usable_code"] & group["generated_test_passed"].notna()]
            gen = usable["generated_test_passed"].astype(bool)
            bench = usable["benchmark_after"].astype(bool)
            counts = {
                "gen_pass_bench_pass": int((gen & bench).sum()),
                "gen_pass_bench_fail": int((gen & ~bench).sum()),
                "gen_fail_bench_pass": int((~gen & bench).sum()),
                "gen_fail_bench_fail": int((~gen & ~bench).sum()),
            }
            rs = rows_resampler(results, usable, str(model))
            rows.append(
                {
                    "model": model,
                    "reliability": rel,
                    "attempts": len(group),
                    "unique": int(group["prompt_key"].nunique()),
                    "usable": len(usable),
                    **counts,
                    **share_columns(rs, gen & ~bench, gen),
                }
            )
    cols = ["model", "reliability", "attempts", "unique", "usable", *QUADRANTS, *SHARE_COLUMNS]
    return pd.DataFrame(rows, columns=cols)
