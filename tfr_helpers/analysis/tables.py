"""The six paper tables: one function per table, each ``Results -> pandas Styler`` with plain-text labels.

Cells hold the numbers of :mod:`rq1`, :mod:`rq2`, :mod:`rq3` verbatim: counts, and percentages with their 95%
interval as ``25.0 [12.0, 44.9]`` (``--`` when undefined). Percentages are pooled ratios over instances (the
estimand); intervals are the cluster bootstrap over tasks, then code samples (docs/inference.md). :mod:`export`
escapes them for LaTeX.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.tidy.sources import real_note, source_label
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
MEASURE_LABELS = {
    "accept": "Accept rate",
    "accuracy": "Accuracy",
    "precision": "Precision",
    "recall": "Recall",
    "specificity": "Specificity",
    "f1": "F1",
    "balanced_accuracy": "Balanced accuracy",
    "mcc": "MCC",
    "auroc": "AUROC",
}
"""RQ3 measure (column prefix) -> row label."""
CI = "95 percent cluster-bootstrap interval over tasks, then code samples"
"""How every interval of the tables is made (docs/inference.md)."""
ESTIMAND = "Percent: pooled over instances; task mean: mean of per-task shares (each task once)."
POOLED = "Percent: pooled over instances."
CAPTIONS = {
    "rq1_four_cases": "Four cases of generated tests on generated code vs reference, "
    f"per model and test kind: count (percent of (code sample, test) pairs [{CI}]). Code verdict / reference "
    "verdict. Unique runs: distinct (program, test) executions behind the pairs (identical ones ran once). " + ESTIMAND,
    "rq1_by_benchmark": "Generated tests run on the generated code, and test-fail feedback, per benchmark "
    f"and model; percent of feedback that is unreliable [{CI}], and the mean of per-task unreliable shares "
    "[same interval method]; unique: distinct (program, test) executions behind the feedback. " + ESTIMAND,
    "rq1_unreliable_causes": "Unreliable test-fail feedback by cause and test kind: count (percent of the "
    f"unreliable feedback of that kind [{CI}]). " + POOLED,
    "rq2_refinement_outcomes": "Benchmark transition of the refined code per model and feedback reliability: "
    f"count (percent of attempts [{CI}]). Identical refinement prompts share one cached reply: unique prompts "
    "counts them once. " + POOLED,
    "rq2_conditional_transitions": "Refinement outcome conditional on the code's state before, per model and "
    f"feedback reliability: P(Pass->Fail | passed before) and P(Fail->Pass | failed before), percent [{CI}]; "
    "per attempt (multiplicity-weighted) and per distinct refinement prompt (unique-weighted: identical prompts "
    "share one cached reply and count once), with the attempts and distinct prompts behind each. " + ESTIMAND,
    "rq2_generated_test_diagnostic": "Refined code with usable code, per model: generated test vs benchmark "
    "verdict. Misleading: percent failing the benchmark among those passing the "
    f"generated test [{CI}]. Unique prompts: distinct refinement prompts behind the attempts. " + POOLED,
    "rq3_screening_and_downstream": "Screening strategies as classifiers of reliable feedback on each model's "
    f"common feedback set (percent [{CI}]; F1, balanced accuracy, MCC and AUROC x 100; AUROC only for strategies "
    "that state a score) and the downstream effect of refining only on accepted feedback: per code sample "
    "(refine once with one accepted feedback drawn at random, expectation over the draw; all code samples) and "
    "per refinement attempt, in percentage points. Undecided counts as reject; abstained: a consensus screener "
    "found no evidence and accepted as accept all would. Unique feedback: distinct (code sample, feedback text) "
    "prompts behind the decisions (identical prompts share one cached reply). " + POOLED,
    "rq3_pairwise": "Paired comparison of screening strategies on each model's common feedback set: "
    f"difference in F1 x 100, row strategy minus column strategy [{CI}, the same resamples for both], and "
    "the Holm-adjusted bootstrap p-value (within the model and measure); a star marks p_Holm < 0.05.",
    "rq3_undecided_sensitivity": "Strategies with undecided judge replies: measures with undecided read as "
    f"reject, as accept, and left out (percent [{CI}]).",
}


CI_SHORT = "95% CI clustered by task"
PAPER_CAPTIONS = {
    "rq1_four_cases": "Generated tests run on each model's generated code and on the reference, per test kind: count "
    f"and percent [{CI_SHORT}] of (code sample, generated test) pairs in each verdict case (code / reference).",
    "rq1_by_benchmark": "Test-fail feedback per benchmark and model, over the (code sample, generated test) pairs "
    f"whose code failed the test: percent unreliable (the reference fails the test too) [{CI_SHORT}].",
    "rq1_unreliable_causes": "Unreliable test-fail feedback by cause and test kind: count and percent "
    f"[{CI_SHORT}] of each model's unreliable feedback of that kind.",
    "rq1_failure_modes": "Test-fail feedback by how the generated code failed, per model: percent unreliable of "
    f"the reliable and unreliable feedback of each mode [{CI_SHORT}]; indeterminate feedback counted apart.",
    "rq2_refinement_outcomes": "Benchmark transition of the refined code per model and feedback reliability: "
    f"count and percent [{CI_SHORT}] of refinement attempts.",
    "rq2_conditional_transitions": "P(Pass->Fail | passed before) and P(Fail->Pass | failed before) per model and "
    f"feedback reliability [{CI_SHORT}], over refinement attempts and over distinct refinement prompts.",
    "rq2_generated_test_diagnostic": "Refined code with usable code per model and feedback reliability: its "
    "generated-test verdict against its benchmark verdict; misleading: percent failing the benchmark among those "
    f"passing the generated test [{CI_SHORT}].",
    "rq3_screening_and_downstream": "Screening strategies as classifiers of reliable feedback on each model's common "
    f"set of test-fail feedback (percent [{CI_SHORT}]), and the effect of refining only on accepted feedback "
    "(percentage points).",
    "rq3_pairwise": "Paired differences in F1 x 100 between screening strategies (row minus column) on each model's "
    f"common feedback set [{CI_SHORT}], with Holm-adjusted p-values; a star marks p < 0.05.",
    "rq3_undecided_sensitivity": "Strategies with undecided judge replies, on each model's common feedback set: "
    f"measures with undecided read as reject, as accept, and left out (percent [{CI_SHORT}]).",
}
"""A paper table's caption: what it shows and over which population, in one or two sentences (the full caption,
with its definitions, goes to the ``.tex`` file's ``%`` comments)."""


def _num(x: Any) -> str:
    return "--" if x is None or pd.isna(x) else f"{x:.1f}"


def share_cell(row: Mapping[str, Any], prefix: str = "", with_count: bool = False) -> str:
    """Format ``<prefix>pct [<prefix>low, <prefix>high]`` (optionally preceded by the count ``k``)."""
    if row.get(f"{prefix}pct") is None or pd.isna(row.get(f"{prefix}pct")):
        text = "--"
    else:
        text = f"{_num(row[f'{prefix}pct'])} [{_num(row[f'{prefix}low'])}, {_num(row[f'{prefix}high'])}]"
    return f"{int(row[f'{prefix}k'])} ({text})" if with_count else text


def error_bar(row: Mapping[str, Any], prefix: str = "") -> list[list[float]] | None:
    """Matplotlib's asymmetric error bar of ``<prefix>pct`` from its ``<prefix>low``/``<prefix>high`` bounds; None
    (a point or bar without a whisker) when the interval was not computed (one task: one cluster, no bootstrap)."""
    value, low, high = (row.get(f"{prefix}{k}") for k in ("pct", "low", "high"))
    if value is None or low is None or high is None or pd.isna(value) or pd.isna(low) or pd.isna(high):
        return None
    return [[float(value) - float(low)], [float(high) - float(value)]]


def caption(name: str, results: Results) -> str:
    """Caption of a table: the simulated-model warning first when the run is simulated, and the replayed
    datasets with the models that produced them when any model is replayed (the Source column tells rows apart)."""
    return caption_with(CAPTIONS[name], results)


def caption_with(text: str, results: Results) -> str:
    """A caption ``text`` with the run's simulated warning and replayed-data note, as :func:`caption` gives them."""
    real = real_note(results)
    if not results.time_limit.startswith("time limit: fixed"):  # the EvalPlus policy: named in every caption
        text = f"{text} ({results.time_limit.capitalize()}.)"
    if results.simulated and real:
        return f"Rows whose source is simulated: {SIMULATED_NOTE}. {real} {text}"
    if results.simulated:
        return f"{SIMULATED_NOTE.capitalize()}. {text}"
    return f"{real} {text}" if real else text


HEADLINE_COLUMNS = ["model", "source", "number", "value", "low", "high", "interval"]
"""Columns of a headline row (:mod:`tfr_helpers.analysis.headlines`): one number of one model with its interval."""
CLUSTERED = "95% {} over {}"
"""Interval label of a share: its method (``task bootstrap``, ``task>code bootstrap``, or ``wilson over tasks`` at
0 or 100%) and its instances. Instances of a task are not independent: every share is resampled by task."""
BOOTSTRAP = "95% bootstrap over tasks"
PER_CODE = "95% bootstrap over tasks, then code samples; per code sample"
PER_ATTEMPT = "95% bootstrap over tasks, then code samples; per refinement attempt"


def headline_row(
    results: Results, model: str, number: str, value: object, low: object, high: object, over: str
) -> dict[str, object]:
    """One headline row (:data:`HEADLINE_COLUMNS`): ``value`` in percent (or points), its interval and what it is
    over, the model labelled with its source."""
    return {
        "model": model,
        "source": source_label(results, model),
        "number": number,
        "value": value,
        "low": low,
        "high": high,
        "interval": over,
    }


def share_row(results: Results, model: str, number: str, share: Mapping[str, Any], over: str) -> dict[str, object]:
    """A headline row from :func:`~tfr_helpers.analysis.inference.units.share_columns` (clustered by task, then
    code sample)."""
    method = CLUSTERED.format(share["method"], over)
    return headline_row(results, model, number, share["pct"], share["low"], share["high"], method)


def _styler(frame: pd.DataFrame, name: str, results: Results) -> Styler:
    """The table with its own caption only: a report says once, under its first table, what the sources are
    (:func:`tfr_helpers.views.sources_table`); the LaTeX export and summary.json add the note (:func:`caption`)."""
    return frame.style.set_caption(CAPTIONS[name])


def rq1_four_cases_table(results: Results) -> Styler:
    """Per model and test kind: tests, and each case as count (share [CI])."""
    nums = rq1.four_cases(results)
    rows = []
    for (model, kind), g in nums.groupby(["model", "kind"], sort=True):
        row = {
            "Model": model,
            "Kind": kind.upper(),
            "Source": source_label(results, model),
            "Pairs": str(int(g["n"].iloc[0])),
            "Unique runs": str(int(g["unique"].iloc[0])),
        }
        row.update({CASE_LABELS[r["case"]]: share_cell(r, with_count=True) for _, r in g.iterrows()})
        rows.append(row)
    cols = ["Model", "Kind", "Source", "Pairs", "Unique runs", *CASE_LABELS.values()]
    frame = pd.DataFrame(rows, columns=cols).set_index(["Model", "Kind"])
    return _styler(frame, "rq1_four_cases", results)


def rq1_by_benchmark_table(results: Results) -> Styler:
    """Per benchmark and model: tests, test-fail feedback, unreliable count and share [CI]."""
    nums = rq1.by_benchmark(results)
    frame = pd.DataFrame(
        {
            "Benchmark": nums["benchmark"],
            "Model": nums["model"],
            "Source": [source_label(results, m) for m in nums["model"]],
            "Pairs": nums["tests"].astype(str),
            "Test-fail feedback": nums["feedback"].astype(str),
            "Unique feedback": nums["unique_feedback"].astype(str),
            "Unreliable": [share_cell(r, with_count=True) for _, r in nums.iterrows()],
            "Unreliable, task mean": [share_cell(r, "task_mean_") for _, r in nums.iterrows()],
            "Tasks": nums["clusters"].astype(str),
        }
    ).set_index(["Benchmark", "Model"])
    return _styler(frame, "rq1_by_benchmark", results)


KINDS = {"ebt": "EBT", "pbt": "PBT", "all": "All"}


def _cause_cells(results: Results) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The causes' cells (count (share [CI])) and the (model, kind) columns: a kind with no unreliable feedback of
    that model is left out."""
    nums = rq1.unreliable_causes(results)
    frame = nums.assign(cell=[share_cell(r, with_count=True) for _, r in nums.iterrows()])
    columns = [
        (model, kind)
        for model in dict.fromkeys(nums["model"])
        for kind in KINDS
        if kind == "all" or int(nums[(nums["model"] == model) & (nums["kind"] == kind)]["n"].max()) > 0
    ]
    return frame, columns


def rq1_unreliable_causes_table(results: Results) -> Styler:
    """Unreliable feedback by cause (rows), per model and test kind (columns ``<model> (<source>) EBT``, ``PBT``,
    ``All``; a kind with no unreliable feedback of that model is left out)."""
    frame, columns = _cause_cells(results)
    wide = frame.pivot(index="cause", columns=["model", "kind"], values="cell")
    wide = wide.reindex(index=list(dict.fromkeys(frame["cause"])), columns=pd.MultiIndex.from_tuples(columns))
    wide.index = [c.replace("_", " ") for c in wide.index]
    wide.index.name = "Cause"
    wide.columns = [f"{m} ({source_label(results, m)}) {KINDS[k]}" for m, k in columns]
    return _styler(wide, "rq1_unreliable_causes", results)


def rq1_unreliable_causes_by_model(results: Results) -> Styler:
    """The same numbers with the models as rows (``Model``, ``Cause``) and the test kinds as columns: the paper
    table's shape, as wide as three kinds however many models a run has (a kind a model has no unreliable
    feedback of is left blank)."""
    frame, columns = _cause_cells(results)
    kinds = [k for k in KINDS if any(kind == k for _, kind in columns)]
    cells = {(r["model"], r["cause"], r["kind"]): r["cell"] for _, r in frame.iterrows()}
    rows = {
        (model, cause.replace("_", " ")): [cells.get((model, cause, k), "") if (model, k) in columns else "" for k in kinds]
        for model in dict.fromkeys(frame["model"])
        for cause in dict.fromkeys(frame["cause"])
    }
    index = pd.MultiIndex.from_tuples(list(rows), names=["Model", "Cause"])
    long = pd.DataFrame(list(rows.values()), index=index, columns=[KINDS[k] for k in kinds])
    return _styler(long, "rq1_unreliable_causes", results)


def rq2_refinement_outcomes_table(results: Results) -> Styler:
    """Per model and reliability: attempts, and each benchmark transition as count (share [CI])."""
    nums = rq2.refinement_outcomes(results)
    rows = []
    for (model, rel), g in nums.groupby(["model", "reliability"], sort=True):
        row = {"Model": model, "Feedback": rel, "Source": source_label(results, model), "Attempts": str(int(g["n"].iloc[0]))}
        row["Unique prompts"] = str(int(g["unique"].sum()))
        row.update({TRANSITION_LABELS[r["transition"]]: share_cell(r, with_count=True) for _, r in g.iterrows()})
        rows.append(row)
    for skip in results.skipped:  # a coder whose feedback no model refined says so instead of a number
        if skip.stage == "refine_codes" and skip.task_id is None:
            row = {"Model": skip.model, "Feedback": "all", "Source": source_label(results, skip.model)}
            cells = dict.fromkeys(["Attempts", "Unique prompts", *TRANSITION_LABELS.values()], skip.reason)
            rows.append(row | cells)
    cols = ["Model", "Feedback", "Source", "Attempts", "Unique prompts", *TRANSITION_LABELS.values()]
    return _styler(pd.DataFrame(rows, columns=cols).set_index(["Model", "Feedback"]), "rq2_refinement_outcomes", results)


def rq2_generated_test_diagnostic_table(results: Results) -> Styler:
    """Per model and reliability: the refined code's generated-test vs benchmark verdicts and the misleading share."""
    nums = rq2.generated_test_diagnostic(results)
    labels = {
        "gen_pass_bench_pass": "Gen pass, bench pass",
        "gen_pass_bench_fail": "Gen pass, bench fail",
        "gen_fail_bench_pass": "Gen fail, bench pass",
        "gen_fail_bench_fail": "Gen fail, bench fail",
    }
    frame = pd.DataFrame(
        {
            "Model": nums["model"],
            "Feedback": nums["reliability"],
            "Source": [source_label(results, m) for m in nums["model"]],
            "Attempts": nums["attempts"].astype(str),
            "Unique prompts": nums["unique"].astype(str),
            "With code": nums["usable"].astype(str),
            **{lab: nums[col].astype(str) for col, lab in labels.items()},
            "Misleading": [share_cell(r) for _, r in nums.iterrows()],
        }
    ).set_index(["Model", "Feedback"])
    return _styler(frame, "rq2_generated_test_diagnostic", results)


SCREENING_GROUPS = {
    "Decisions": ["Decisions (common set)", "Unique feedback", "Accepted", "Rejected", "Undecided", "Abstained"],
    "Measures (percent)": ["Accept rate", "Accuracy", "Precision", "Recall", "Specificity"],
    "Summary measures (x 100)": ["F1", "Balanced accuracy", "MCC", "AUROC", "Tasks"],
    "Downstream per code sample (pp)": [
        "Code samples",
        "Net change per code sample (pp)",
        "Difference vs accept all per code sample (pp)",
    ],
    "Downstream per attempt (pp)": [
        "Refinement attempts",
        "Regressions avoided",
        "Fixes lost",
        "Net pass-rate change per attempt (pp)",
        "Difference vs accept all per attempt (pp)",
    ],
}
"""The RQ3 table's columns by meaning: the paper table splits at these groups when it is too wide for a page."""
DOWNSTREAM_GROUPS = ("Downstream per code sample (pp)", "Downstream per attempt (pp)")


def rq3_screening_by_strategy(results: Results) -> Styler:
    """Per model and screening strategy (rows ``Model``, ``Strategy``): the decisions, the measures and the
    downstream effect against ``accept_all`` (``not run: no refiner`` for a model whose feedback was not refined),
    the columns grouped by :data:`SCREENING_GROUPS`."""
    nums = rq3.screening_and_downstream(results)
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for _, r in nums.iterrows():
        row = {
            "Decisions (common set)": str(r["decisions"]),
            "Unique feedback": str(r["unique_feedback"]),
            "Accepted": str(r["accepted"]),
            "Rejected": str(r["rejected"]),
            "Undecided": str(r["undecided"]),
            "Abstained": f"{r['abstained']} ({share_cell(r, 'abstain_')})",
            **{label: share_cell(r, f"{m}_") for m, label in MEASURE_LABELS.items()},
            "Tasks": str(r["f1_clusters"]),
            "Code samples": str(r["codes"]),
            "Net change per code sample (pp)": share_cell(r, "net_change_per_code_"),
            "Difference vs accept all per code sample (pp)": share_cell(r, "diff_per_code_"),
            "Refinement attempts": str(r["attempts"]),
            "Regressions avoided": str(r["regressions_avoided"]),
            "Fixes lost": str(r["fixes_lost"]),
            "Net pass-rate change per attempt (pp)": share_cell(
                {"pct": r["net_change_pp"], "low": r["net_change_low"], "high": r["net_change_high"]}
            ),
            "Difference vs accept all per attempt (pp)": share_cell(
                {"pct": r["diff_vs_accept_all_pp"], "low": r["diff_low"], "high": r["diff_high"]}
            ),
        }
        if r["refinement"] != "run":  # no refiner: the downstream cells say so instead of a number
            row.update(dict.fromkeys([c for g in DOWNSTREAM_GROUPS for c in SCREENING_GROUPS[g]], str(r["refinement"])))
        rows[(r["model"], r["strategy"])] = row
    columns = pd.MultiIndex.from_tuples([(g, c) for g, cs in SCREENING_GROUPS.items() for c in cs])
    index = pd.MultiIndex.from_tuples(list(rows), names=["Model", "Strategy"])
    frame = pd.DataFrame([[row[c] for _, c in columns] for row in rows.values()], index=index, columns=columns)
    return _styler(frame, "rq3_screening_and_downstream", results)


SCREENING_ORDER = [*SCREENING_GROUPS["Decisions"], *MEASURE_LABELS.values(), "Tasks"]
SCREENING_ORDER += [c for g in DOWNSTREAM_GROUPS for c in SCREENING_GROUPS[g]]


def rq3_screening_and_downstream_table(results: Results) -> Styler:
    """Metrics (rows) per model and screening strategy (columns ``<model> (<source>): <strategy>``), downstream
    effect against ``accept_all`` (``not run: no refiner`` for a model whose feedback was not refined)."""
    long = rq3_screening_by_strategy(results).data.droplevel(0, axis=1)
    frame = long.T.reindex(SCREENING_ORDER)
    frame.columns = [f"{m} ({source_label(results, m)}): {s}" for m, s in long.index]
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
LATEX_SHAPES: dict[str, Callable[[Results], Styler]] = {
    "rq1_unreliable_causes": rq1_unreliable_causes_by_model,
    "rq3_screening_and_downstream": rq3_screening_by_strategy,
}
"""Tables whose paper shape differs from the report's: models as rows, so the width does not grow with the models."""
