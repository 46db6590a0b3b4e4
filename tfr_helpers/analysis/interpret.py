"""Interpretation sentences for the notebooks, built from the computed numbers (no fixed conclusions)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.inference import pairwise
from tfr_helpers.analysis.inference.stats import pct
from tfr_helpers.analysis.tables import SIMULATED_NOTE
from tfr_helpers.analysis.tidy.sources import source_label, source_of
from tfr_helpers.records import Results

ALPHA = 0.05
"""Level at which the text states a difference (the test's p-value, Holm-adjusted where there are several)."""


def _share(row: Mapping[str, Any], prefix: str = "") -> str:
    """``pct% [low, high] (k/n)`` from share columns (the cluster-bootstrap interval)."""
    if not row[f"{prefix}n"]:
        return "n/a (no cases)"
    return (
        f"{row[f'{prefix}pct']}% [{row[f'{prefix}low']}, {row[f'{prefix}high']}] ({row[f'{prefix}k']}/{row[f'{prefix}n']})"
    )


LABELS = {"f1": "F1", "mcc": "MCC", "net_change_per_code": "net change per code sample (pp)"}
"""How the text names a compared measure."""


def _pc(x: Any) -> str:
    return "n/a" if x is None or pd.isna(x) else f"{x}%"


def _prefix(results: Results) -> str:
    return f"Note: {SIMULATED_NOTE}. " if results.simulated else ""


def _verdict(p: float) -> str:
    if pd.isna(p):
        return "no test is possible on this sample"
    return "the test shows a difference" if p < ALPHA else "the test does not show a difference"


def evidence_kind(results: Results, model: str) -> str:
    """``real`` (replayed or live) or ``simulated``: two rows are compared only when their kinds are equal."""
    return "simulated" if source_of(results, model).source == "simulated" else "real"


class MixedSourcesError(ValueError):
    """A comparison was asked between a simulated and a real row (a demo is never tested against evidence)."""


def check_comparable(results: Results, a: str, b: str) -> None:
    """Refuse a test or interval of a difference between a simulated and a real model.

    Raises:
        MixedSourcesError: one of ``a``, ``b`` is simulated and the other is not.
    """
    if evidence_kind(results, a) != evidence_kind(results, b):
        raise MixedSourcesError(f"no comparison of {a} ({evidence_kind(results, a)}) with {b} ({evidence_kind(results, b)})")


def rq1_comparisons(results: Results) -> list[tuple[pd.Series, pd.Series, Any]]:
    """RQ1's range per kind of evidence: (highest row, lowest row, their difference) among the real rows and among
    the simulated rows of :func:`rq1.by_benchmark`, never across them."""
    by = rq1.by_benchmark(results)
    rows = by[by["n"] > 0]
    out = []
    for kind in ("real", "simulated"):
        mine = rows[[evidence_kind(results, str(m)) == kind for m in rows["model"]]]
        if len(mine) < 2:
            continue
        hi, lo = mine.loc[mine["pct"].idxmax()], mine.loc[mine["pct"].idxmin()]
        check_comparable(results, str(hi["model"]), str(lo["model"]))
        diff = rq1.unreliable_difference(results, (hi["benchmark"], hi["model"]), (lo["benchmark"], lo["model"]))
        out.append((hi, lo, diff))
    return out


def interpret_rq1(results: Results) -> str:
    """A few sentences per model (never pooled across models) on how much test-fail feedback is unreliable,
    and its most frequent cause; each model's sentence names its source (simulated, replayed, live). Two rows
    are said to differ only when the bootstrap test of their difference says so."""
    by = rq1.by_benchmark(results)
    causes = rq1.unreliable_causes(results)
    text = [_prefix(results).strip()] if results.simulated else []
    for model, mine in by.groupby("model", sort=True):
        share = rq1.unreliable_share(results, str(model))
        text.append(
            f"{model} ({source_label(results, str(model))}): of {int(mine['tests'].sum())} (code sample, test) pairs, "
            f"{int(mine['feedback'].sum())} failed on the generated code; {_share(share)} of that test-fail feedback "
            f"is unreliable (the reference fails the test too; interval: {share['method']}, {share['clusters']} "
            f"tasks; mean of per-task shares {share['task_mean_pct']}%)."
        )
        top = causes[(causes["model"] == model) & (causes["kind"] == "all") & (causes["k"] > 0)]
        if len(top):
            row = top.sort_values("k", ascending=False).iloc[0]
            text.append(f"Its most frequent cause is {row['cause'].replace('_', ' ')}: {_share(row)}.")
    for hi, lo, diff in rq1_comparisons(results):
        kind = evidence_kind(results, str(hi["model"]))
        text.append(
            f"Among the {kind} rows, the unreliable share ranges from {lo['pct']}% ({lo['model']}, {lo['benchmark']}) "
            f"to {hi['pct']}% ({hi['model']}, {hi['benchmark']}); the difference, {pct(diff.value)} pp "
            + (
                f"[{pct(diff.low)}, {pct(diff.high)}] (bootstrap p = {diff.p_value:.3f}): "
                if not pd.isna(diff.p_value)
                else "(a share at 0 or 100% has no bootstrap spread): "
            )
            + f"{_verdict(diff.p_value)}."
        )
    if {evidence_kind(results, str(m)) for m in by["model"]} == {"real", "simulated"}:
        text.append("Simulated rows are a demo: no simulated row is compared with a real one.")
    return " ".join(text)


def interpret_rq2(results: Results) -> str:
    """Per model: how often refinement broke code that passed and fixed code that failed, by feedback reliability."""
    cond = rq2.conditional_transitions(results)
    text = [_prefix(results).strip()] if results.simulated else []
    for (model, rel), g in cond.groupby(["model", "reliability"], sort=True):
        rows = g.set_index("transition")
        if not (rows["attempts"] > 0).any():
            continue
        broke, fixed = rows.loc["pass->fail"], rows.loc["fail->pass"]
        text.append(
            f"{model} ({source_label(results, str(model))}), after {rel} feedback: refinement broke code that passed "
            f"before in {_share(broke)} of attempts on such code ({broke['unique_attempts']} distinct prompts) and "
            f"fixed code that failed before in {_share(fixed)} ({fixed['unique_attempts']} distinct prompts)."
        )
    diag = rq2.generated_test_diagnostic(results)
    for _, r in diag.iterrows():
        if r["n"]:
            text.append(
                f"{r['model']}, with {r['reliability']} feedback: {_share(r)} of refined programs "
                "that pass the generated test still fail the benchmark tests."
            )
    return " ".join(text)


def _against_baseline(tests: pd.DataFrame, model: str, strategy: str, measure: str) -> str:
    """``S - accept_all`` on ``measure`` from the pairwise table (its rows are ``accept_all - S``), with Holm's p."""
    row = tests[(tests["model"] == model) & (tests["a"] == rq3.BASELINE) & (tests["b"] == strategy)]
    row = row[row["measure"] == measure]
    if row.empty or pd.isna(row["diff_pp"].iloc[0]):
        return f"{LABELS.get(measure, measure)}: no paired test on this sample"
    r = row.iloc[0]
    shown = f"{LABELS.get(measure, measure)} {0.0 - r['diff_pp']:+.1f} [{0.0 - r['high']:.1f}, {0.0 - r['low']:.1f}]"
    if pd.isna(r["p_holm"]):
        return f"{shown} ({r['test']}: {r['informative_tasks']} informative tasks, {_verdict(r['p_holm'])})"
    family = "" if r.get("family") == "primary" else ", exploratory"
    return f"{shown} (p_Holm = {r['p_holm']:.3f}{family}: {_verdict(r['p_holm'])})"


def interpret_rq3(results: Results) -> str:
    """A few sentences per model on each screening strategy's classifier measures and its downstream effect.

    Differences from ``accept_all`` are those of the paired comparison (:mod:`pairwise`): the text states a
    difference only when its Holm-adjusted p-value is below 0.05."""
    nums = rq3.screening_and_downstream(results)
    tests = pairwise.pairwise_comparisons(results)
    text = [_prefix(results).strip()] if results.simulated else []
    for _, r in nums.iterrows():
        who = f"{r['model']} ({source_label(results, r['model'])})"
        if r["strategy"] == rq3.BASELINE:
            text.append(
                f"{who}: refinement {r['refinement']}; {r['decisions']} feedback decided by every strategy."
                if r["refinement"] != "run"
                else f"{who}, on the {r['decisions']} feedback every strategy decided: accepting all feedback changes "
                f"the benchmark pass rate by {r['net_change_per_code_pct']} pp per code sample "
                f"[{r['net_change_per_code_low']}, {r['net_change_per_code_high']}] ({r['net_change_pp']} pp per "
                "refinement attempt)."
            )
            continue
        measures = (
            f"{who}: {r['strategy']} accepts {r['accept_pct']}% of feedback "
            + (f"(abstaining on {r['abstain_pct']}%) " if r["abstained"] else "")
            + f"with precision {_pc(r['precision_pct'])}, recall {_pc(r['recall_pct'])} and specificity "
            f"{_pc(r['specificity_pct'])}; against accept_all, "
            + "; ".join(_against_baseline(tests, r["model"], r["strategy"], m) for m in ("f1", "mcc"))
        )
        if r["refinement"] != "run":
            text.append(f"{measures} (downstream effect {r['refinement']}).")
            continue
        text.append(
            f"{measures}. Downstream it avoids {r['regressions_avoided']} regressions, loses {r['fixes_lost']} fixes; "
            + _against_baseline(tests, r["model"], r["strategy"], "net_change_per_code")
            + "."
        )
    return " ".join(text)
