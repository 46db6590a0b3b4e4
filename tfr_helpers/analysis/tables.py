"""The six paper tables: one function per table, each ``Results -> pandas Styler`` with plain-text labels.

Cells hold the numbers of :mod:`rq1`, :mod:`rq2`, :mod:`rq3` verbatim: counts, and percentages with their 95%
interval as ``25.0 [12.0, 44.9]`` (``--`` when undefined). :mod:`export` escapes them for LaTeX.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.records import Results

SIMULATED_NOTE = "simulated model: demo numbers, not evidence"
"""Prefix of every caption when the run used the simulated model."""
CASE_LABELS = {
    "pass_pass": "Pass/Pass",
    "pass_fail": "Pass/Fail (wrong pass)",
    "fail_pass": "Fail/Pass (reliable)",
    "fail_fail": "Fail/Fail (unreliable)",
}
TRANSITION_LABELS = {
    "pass->pass": "Pass->Pass",
    "pass->fail": "Pass->Fail",
    "fail->pass": "Fail->Pass",
    "fail->fail": "Fail->Fail",
    "no_code": "No code",
}
CAPTIONS = {
    "rq1_four_cases": "Four cases of generated tests on generated code vs reference, "
    "per model and test kind: "
    "count (percent of tests [95 percent Wilson interval]). Code verdict / reference verdict.",
    "rq1_by_benchmark": "Generated tests run on the generated code, and test-fail feedback, per benchmark "
    "and model; percent of feedback "
    "that is unreliable [95 percent Wilson interval].",
    "rq1_unreliable_causes": "Unreliable test-fail feedback by cause and test kind: count (percent of the "
    "unreliable feedback of that kind [95 percent Wilson interval]).",
    "rq2_refinement_outcomes": "Benchmark transition of the refined code per model and feedback reliability: "
    "count (percent of attempts [95 percent Wilson interval]).",
    "rq2_generated_test_diagnostic": "Refined code with usable code: generated test vs benchmark verdict. "
    "Misleading: percent failing the benchmark among those passing the "
    "generated test [95 percent Wilson interval].",
    "rq3_screening_and_downstream": "Screening strategies as classifiers of reliable feedback (percent, 95 "
    "percent Wilson interval; F1 x 100 with bootstrap interval) and the "
    "downstream effect of refining only on accepted feedback (undecided counts "
    "as reject; changes in percentage points per refinement attempt, bootstrap "
    "over tasks).",
}


def _num(x: Any) -> str:
    return "--" if x is None or pd.isna(x) else f"{x:.1f}"


def share_cell(row: Mapping[str, Any], prefix: str = "", with_count: bool = False) -> str:
    """Format ``<prefix>pct [<prefix>low, <prefix>high]`` (optionally preceded by the count ``k``)."""
    if row.get(f"{prefix}pct") is None or pd.isna(row.get(f"{prefix}pct")):
        text = "--"
    else:
        text = f"{_num(row[f'{prefix}pct'])} [{_num(row[f'{prefix}low'])}, {_num(row[f'{prefix}high'])}]"
    return f"{int(row[f'{prefix}k'])} ({text})" if with_count else text


def caption(name: str, results: Results) -> str:
    """Caption of a table, prefixed with the simulated-model warning when the run is simulated."""
    text = CAPTIONS[name]
    return f"{SIMULATED_NOTE.capitalize()}. {text}" if results.simulated else text


def _styler(frame: pd.DataFrame, name: str, results: Results) -> Styler:
    return frame.style.set_caption(caption(name, results))


def rq1_four_cases_table(results: Results) -> Styler:
    """Per model and test kind: tests, and each case as count (share [CI])."""
    nums = rq1.four_cases(results)
    rows = []
    for (model, kind), g in nums.groupby(["model", "kind"], sort=True):
        row = {"Model": model, "Kind": kind.upper(), "Tests": str(int(g["n"].iloc[0]))}
        row.update({CASE_LABELS[r["case"]]: share_cell(r, with_count=True) for _, r in g.iterrows()})
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["Model", "Kind", "Tests", *CASE_LABELS.values()]).set_index(["Model", "Kind"])
    return _styler(frame, "rq1_four_cases", results)


def rq1_by_benchmark_table(results: Results) -> Styler:
    """Per benchmark and model: tests, test-fail feedback, unreliable count and share [CI]."""
    nums = rq1.by_benchmark(results)
    frame = pd.DataFrame(
        {
            "Benchmark": nums["benchmark"],
            "Model": nums["model"],
            "Tests": nums["tests"].astype(str),
            "Test-fail feedback": nums["feedback"].astype(str),
            "Unreliable": [share_cell(r, with_count=True) for _, r in nums.iterrows()],
        }
    ).set_index(["Benchmark", "Model"])
    return _styler(frame, "rq1_by_benchmark", results)


def rq1_unreliable_causes_table(results: Results) -> Styler:
    """Unreliable feedback by cause (rows) and test kind (EBT, PBT, All)."""
    nums = rq1.unreliable_causes(results)
    frame = nums.assign(cell=[share_cell(r, with_count=True) for _, r in nums.iterrows()])
    wide = frame.pivot(index="cause", columns="kind", values="cell")
    wide = wide.reindex(index=list(dict.fromkeys(nums["cause"])), columns=["ebt", "pbt", "all"])
    wide.index = [c.replace("_", " ") for c in wide.index]
    wide.index.name = "Cause"
    wide.columns = ["EBT", "PBT", "All"]
    return _styler(wide, "rq1_unreliable_causes", results)


def rq2_refinement_outcomes_table(results: Results) -> Styler:
    """Per model and reliability: attempts, and each benchmark transition as count (share [CI])."""
    nums = rq2.refinement_outcomes(results)
    rows = []
    for (model, rel), g in nums.groupby(["model", "reliability"], sort=True):
        row = {"Model": model, "Feedback": rel, "Attempts": str(int(g["n"].iloc[0]))}
        row.update({TRANSITION_LABELS[r["transition"]]: share_cell(r, with_count=True) for _, r in g.iterrows()})
        rows.append(row)
    cols = ["Model", "Feedback", "Attempts", *TRANSITION_LABELS.values()]
    return _styler(pd.DataFrame(rows, columns=cols).set_index(["Model", "Feedback"]), "rq2_refinement_outcomes", results)


def rq2_generated_test_diagnostic_table(results: Results) -> Styler:
    """By reliability: the refined code's generated-test vs benchmark verdicts and the misleading share."""
    nums = rq2.generated_test_diagnostic(results)
    labels = {
        "gen_pass_bench_pass": "Gen pass, bench pass",
        "gen_pass_bench_fail": "Gen pass, bench fail",
        "gen_fail_bench_pass": "Gen fail, bench pass",
        "gen_fail_bench_fail": "Gen fail, bench fail",
    }
    frame = pd.DataFrame(
        {
            "Feedback": nums["reliability"],
            "Attempts": nums["attempts"].astype(str),
            "With code": nums["usable"].astype(str),
            **{lab: nums[col].astype(str) for col, lab in labels.items()},
            "Misleading": [share_cell(r) for _, r in nums.iterrows()],
        }
    ).set_index("Feedback")
    return _styler(frame, "rq2_generated_test_diagnostic", results)


def rq3_screening_and_downstream_table(results: Results) -> Styler:
    """Metrics (rows) per screening strategy (columns), downstream effect against ``accept_all``."""
    nums = rq3.screening_and_downstream(results)
    rows: dict[str, dict[str, str]] = {}
    for _, r in nums.iterrows():
        rows[r["strategy"]] = {
            "Decisions": str(r["decisions"]),
            "Accepted": str(r["accepted"]),
            "Rejected": str(r["rejected"]),
            "Undecided": str(r["undecided"]),
            "Accept rate": share_cell(r, "accept_"),
            "Accuracy": share_cell(r, "accuracy_"),
            "Precision": share_cell(r, "precision_"),
            "Recall": share_cell(r, "recall_"),
            "F1": share_cell({"k": 0, **{k: r[f"f1_{s}"] for k, s in (("pct", "pct"), ("low", "low"), ("high", "high"))}}),
            "Refinement attempts": str(r["attempts"]),
            "Regressions avoided": str(r["regressions_avoided"]),
            "Fixes lost": str(r["fixes_lost"]),
            "Net pass-rate change (pp)": share_cell(
                {"pct": r["net_change_pp"], "low": r["net_change_low"], "high": r["net_change_high"]}
            ),
            "Difference vs accept all (pp)": share_cell(
                {"pct": r["diff_vs_accept_all_pp"], "low": r["diff_low"], "high": r["diff_high"]}
            ),
        }
    frame = pd.DataFrame(rows)
    frame.index.name = "Metric"
    return _styler(frame, "rq3_screening_and_downstream", results)


TABLES: dict[str, Callable[[Results], Styler]] = {
    "rq1_four_cases": rq1_four_cases_table,
    "rq1_by_benchmark": rq1_by_benchmark_table,
    "rq1_unreliable_causes": rq1_unreliable_causes_table,
    "rq2_refinement_outcomes": rq2_refinement_outcomes_table,
    "rq2_generated_test_diagnostic": rq2_generated_test_diagnostic_table,
    "rq3_screening_and_downstream": rq3_screening_and_downstream_table,
}
"""Table name (file stem of the ``.tex``) -> function building it."""
