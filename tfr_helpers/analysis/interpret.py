"""Interpretation sentences for the notebooks, built from the computed numbers (no fixed conclusions)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.inference import pairwise
from tfr_helpers.analysis.inference.stats import pct
from tfr_helpers.analysis.tables import SIMULATED_NOTE
from tfr_helpers.analysis.tidy.sources import model_display, source_of
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


WORDS = 150
"""About how many words an interpretation gives (the answer first; the tables above hold the rest)."""


def _who(results: Results, model: str) -> str:
    """A model's display name (``CodeGen-Mono-16B (CodeT)``, ``sim:default (simulated)``)."""
    return model_display(results, model)


def _demo(results: Results, parts: list[str]) -> str:
    """The simulated rows in one sentence, fenced as a demo ("" without any)."""
    return f"Demo, not evidence ({SIMULATED_NOTE}; never compared with a real row): {'; '.join(parts)}." if parts else ""


def interpret_rq1(results: Results) -> str:
    """The answer first, per model (never pooled): how much of its test-fail feedback is unreliable, with its most
    frequent cause; then the range among the real rows, stated as a difference only when the bootstrap test of it
    says so; the simulated rows in one demo sentence."""
    by = rq1.by_benchmark(results)
    causes = rq1.unreliable_causes(results)
    real, demo = [], []
    for model, mine in by.groupby("model", sort=True):
        share = rq1.unreliable_share(results, str(model))
        top = causes[(causes["model"] == model) & (causes["kind"] == "all") & (causes["k"] > 0)]
        cause = ""
        if len(top):
            row = top.sort_values("k", ascending=False).iloc[0]
            cause = f", most often {row['cause'].replace('_', ' ')} ({int(row['k'])})"
        of = f"of {int(mine['feedback'].sum())} test-fail feedback ({share['clusters']} tasks){cause}"
        if evidence_kind(results, str(model)) == "real":
            real.append(f"{_who(results, str(model))}: {_share(share)} {of}")
        else:
            demo.append(f"{_who(results, str(model))} {_share(share)} unreliable")
    text = [f"Unreliable (the reference fails the test too): {'; '.join(real)}."] if real else []
    for hi, lo, diff in rq1_comparisons(results):
        if evidence_kind(results, str(hi["model"])) != "real":
            continue
        spread = (
            f"{pct(diff.value)} pp [{pct(diff.low)}, {pct(diff.high)}], bootstrap p = {diff.p_value:.3f}"
            if not pd.isna(diff.p_value)
            else "a share at 0 or 100% has no bootstrap spread"
        )
        text.append(
            f"The real rows range from {lo['pct']}% ({_who(results, str(lo['model']))}, {lo['benchmark']}) to "
            f"{hi['pct']}% ({_who(results, str(hi['model']))}, {hi['benchmark']}) ({spread}): {_verdict(diff.p_value)}."
        )
    text.append(_demo(results, demo))
    return " ".join(t for t in text if t)


def interpret_rq2(results: Results) -> str:
    """The run's own refinement, the answer first: per real model how often it broke passing code and fixed failing
    code, by feedback reliability; the simulated rows in one demo sentence (the replayed trajectories have their own:
    :func:`tfr_helpers.arms.trajectories.report.trajectories_report.interpretation`)."""
    cond = rq2.conditional_transitions(results)
    real: list[str] = []
    demo: list[str] = []
    for (model, rel), g in cond.groupby(["model", "reliability"], sort=True):
        rows = g.set_index("transition")
        if not (rows["attempts"] > 0).any():
            continue
        broke, fixed = rows.loc["pass->fail"], rows.loc["fail->pass"]
        said = f"after {rel} feedback Pass->Fail {_share(broke)}, Fail->Pass {_share(fixed)}"
        (real if evidence_kind(results, str(model)) == "real" else demo).append(f"{_who(results, str(model))} {said}")
    text = []
    if real:
        text.append(f"The run's own refinement (attempts): {'; '.join(real)}.")
    diag = rq2.generated_test_diagnostic(results)
    for _, r in diag.iterrows():
        if r["n"] and evidence_kind(results, str(r["model"])) == "real":
            text.append(
                f"{_who(results, str(r['model']))}, {r['reliability']} feedback: {_share(r)} of refined programs that "
                "pass the generated test still fail the benchmark."
            )
    text.append(_demo(results, demo))
    return " ".join(t for t in text if t) or "No refinement attempt in this run (no refiner, or no test-fail feedback)."


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


def _best(mine: pd.DataFrame) -> pd.Series | None:
    """The strategy (not accept_all, not abstaining everywhere) with the highest specificity, ties by recall."""
    kept = mine[(mine["strategy"] != rq3.BASELINE) & mine["specificity_pct"].notna()]
    if kept.empty:
        return None
    return kept.sort_values(["specificity_pct", "recall_pct"], ascending=False).iloc[0]


def interpret_rq3(results: Results) -> str:
    """The answer first, per model: the strategy that keeps out the most unreliable feedback (specificity) with the
    reliable feedback it still keeps (recall) and its F1 against ``accept_all`` (the paired comparison of
    :mod:`pairwise`: a difference is stated only when its Holm-adjusted p-value is below 0.05) and, where the run
    refined, its downstream effect; the strategies that abstained on every decision in one line; the simulated rows
    in one demo sentence."""
    nums = rq3.screening_and_downstream(results)
    tests = pairwise.pairwise_comparisons(results)
    text, demo, idle = [], [], []
    if nums.empty or "model" not in nums:
        return "No feedback was screened in this run."
    for model, mine in nums.groupby("model", sort=False):
        who = _who(results, str(model))
        idle += [f"{s} ({who})" for s in rq3.abstained_everywhere(mine)]
        best = _best(mine[~mine["strategy"].isin(rq3.abstained_everywhere(mine))])
        if best is None:
            continue
        said = (
            f"{best['strategy']} keeps out the most unreliable feedback, {_pc(best['specificity_pct'])} of it, and keeps "
            f"{_pc(best['recall_pct'])} of the reliable feedback ({int(best['decisions'])} feedback decided); against "
            f"accept_all, {_against_baseline(tests, str(model), str(best['strategy']), 'f1')}"
        )
        if best["refinement"] == "run":
            said += f"; downstream it avoids {best['regressions_avoided']} regressions, loses {best['fixes_lost']} fixes"
        if evidence_kind(results, str(model)) == "real":
            text.append(f"{who}: {said}.")
        else:
            demo.append(f"{who}: {said}")
    if idle:
        text.append(f"Abstained on every decision (no consensus: they accept all, as accept_all does): {', '.join(idle)}.")
    text.append(_demo(results, demo))
    return " ".join(t for t in text if t)
