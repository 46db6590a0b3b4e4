"""Interpretation sentences for the notebooks, built from the computed numbers (no fixed conclusions)."""

from __future__ import annotations

import pandas as pd

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.sources import source_label
from tfr_helpers.analysis.stats import pct, wilson
from tfr_helpers.analysis.tables import SIMULATED_NOTE
from tfr_helpers.records import Results


def _share(k: int, n: int) -> str:
    s = wilson(k, n)
    if n == 0:
        return "n/a (no cases)"
    return f"{pct(s.share)}% [{pct(s.low)}, {pct(s.high)}] ({k}/{n})"


def _prefix(results: Results) -> str:
    return f"Note: {SIMULATED_NOTE}. " if results.simulated else ""


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return not (a[1] < b[0] or b[1] < a[0])


def interpret_rq1(results: Results) -> str:
    """A few sentences per model (never pooled across models) on how much test-fail feedback is unreliable,
    and its most frequent cause; each model's sentence names its source (simulated, replayed, live)."""
    by = rq1.by_benchmark(results)
    causes = rq1.unreliable_causes(results)
    text = [_prefix(results).strip()] if results.simulated else []
    for model, mine in by.groupby("model", sort=True):
        fb, unrel = int(mine["n"].sum()), int(mine["k"].sum())
        text.append(
            f"{model} ({source_label(results, str(model))}): of {int(mine['tests'].sum())} (code sample, test) pairs, "
            f"{fb} failed on the generated code; {_share(unrel, fb)} of that test-fail feedback is unreliable "
            "(the reference fails the test too)."
        )
        top = causes[(causes["model"] == model) & (causes["kind"] == "all") & (causes["k"] > 0)]
        if len(top):
            row = top.sort_values("k", ascending=False).iloc[0]
            text.append(
                f"Its most frequent cause is {row['cause'].replace('_', ' ')}: {_share(int(row['k']), int(row['n']))}."
            )
    rows = by[by["n"] > 0]
    if len(rows) > 1:
        hi, lo = rows.loc[rows["pct"].idxmax()], rows.loc[rows["pct"].idxmin()]
        overl = _overlap((hi["low"], hi["high"]), (lo["low"], lo["high"]))
        text.append(
            f"The unreliable share ranges from {lo['pct']}% ({lo['model']}, {lo['benchmark']}) to "
            f"{hi['pct']}% ({hi['model']}, {hi['benchmark']}); the intervals "
            f"{'overlap, so this sample does not separate them' if overl else 'do not overlap'}."
        )
    return " ".join(text)


def interpret_rq2(results: Results) -> str:
    """A few sentences comparing refinement outcomes after reliable vs unreliable feedback."""
    nums = rq2.refinement_outcomes(results)
    pooled = nums.groupby(["reliability", "transition"])[["k", "n"]].sum()
    text = [_prefix(results).strip()] if results.simulated else []
    for rel in rq2.RELIABILITIES:
        if (rel, "pass->fail") not in pooled.index:
            continue
        n = int(pooled.loc[(rel, "pass->fail"), "n"])
        reg = int(pooled.loc[(rel, "pass->fail"), "k"])
        fix = int(pooled.loc[(rel, "fail->pass"), "k"])
        text.append(
            f"After {rel} feedback ({n} attempts), refinement broke passing code in {_share(reg, n)} "
            f"and fixed failing code in {_share(fix, n)} of attempts."
        )
    diag = rq2.generated_test_diagnostic(results)
    for _, r in diag.iterrows():
        if r["n"]:
            text.append(
                f"With {r['reliability']} feedback, {_share(int(r['k']), int(r['n']))} of refined programs "
                "that pass the generated test still fail the benchmark tests."
            )
    return " ".join(text)


def interpret_rq3(results: Results) -> str:
    """A few sentences on each screening strategy's precision/recall and its downstream effect."""
    nums = rq3.screening_and_downstream(results)
    text = [_prefix(results).strip()] if results.simulated else []
    for _, r in nums.iterrows():
        who = f"{r['model']} ({source_label(results, r['model'])})"
        if r["strategy"] == rq3.BASELINE:
            text.append(
                f"{who}: refinement {r['refinement']}."
                if r["refinement"] != "run"
                else f"{who}: accepting all feedback changes the benchmark pass rate by {r['net_change_pp']} pp per "
                f"attempt [{r['net_change_low']}, {r['net_change_high']}]."
            )
            continue
        if r["refinement"] != "run":
            text.append(
                f"{who}: {r['strategy']} accepts {r['accept_pct']}% of feedback with precision "
                f"{r['precision_pct']}% and recall {r['recall_pct']}% (downstream effect {r['refinement']})."
            )
            continue
        sign = (
            "gains"
            if (r["diff_vs_accept_all_pp"] or 0) > 0
            else "loses"
            if (r["diff_vs_accept_all_pp"] or 0) < 0
            else "changes"
        )
        zero_in = not pd.isna(r["diff_low"]) and r["diff_low"] <= 0 <= r["diff_high"]
        text.append(
            f"{who}: {r['strategy']} accepts {r['accept_pct']}% of feedback with precision {r['precision_pct']}% "
            f"and recall {r['recall_pct']}%; against accept_all it avoids {r['regressions_avoided']} "
            f"regressions, loses {r['fixes_lost']} fixes and {sign} "
            f"{abs(r['diff_vs_accept_all_pp'] or 0)} pp "
            f"[{r['diff_low']}, {r['diff_high']}]" + (", an interval that includes zero." if zero_in else ".")
        )
    return " ".join(text)
