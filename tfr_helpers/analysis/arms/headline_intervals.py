"""The headline numbers of one run, each with its own 95% interval over tasks: what repeated seeds average.

One row per (model, number): ``value`` in percent (or percentage points), ``low``/``high`` the run's 95% interval
and ``interval`` what that interval is over. Models are never pooled. The numbers (definitions in
:data:`DEFINITIONS`) come from the same functions as the paper tables (:mod:`rq2`, :mod:`rq3`), so a seed's row
equals the cell of that seed's own table. More numbers plug in with :func:`register_headline`.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from tfr_helpers.analysis import rq1, rq2, rq3
from tfr_helpers.analysis.arms import oracle, rounds
from tfr_helpers.analysis.inference.units import clustered_rows, samples_per_task, share_columns
from tfr_helpers.analysis.tidy.sources import source_label
from tfr_helpers.records import Results

COLUMNS = ["model", "source", "number", "value", "low", "high", "interval"]
DEFINITIONS = {
    "code_pass_at_1": "Percent of generated code samples passing all benchmark tests (pass@1 of one sample).",
    "unreliable_feedback": "Percent of test-fail feedback that is unreliable (the reference fails the test too).",
    "fail_to_pass_reliable": "Percent of refinement attempts on reliable feedback whose transition is Fail->Pass.",
    "pass_to_fail_unreliable": "Percent of refinement attempts on unreliable feedback whose transition is Pass->Fail.",
    "net_change_per_code_accept_all_pp": "net_change_per_code_pp of accept_all: the expected change in benchmark "
    "pass rate over all the model's code samples when each is refined once with a feedback accepted by accept_all "
    "(percentage points; the headline downstream number, rq3).",
    "net_change_accept_all_pp": "net_change_pp of accept_all: change in benchmark pass rate per refinement attempt "
    "when every feedback is used (percentage points; per attempt, beside the per-code-sample number).",
    "f1:<strategy>": "F1 x 100 of the screening strategy as a classifier of reliable feedback.",
    "diff_per_code_pp:<strategy>": "net_change_per_code_pp(strategy) - net_change_per_code_pp(accept_all), "
    "percentage points, paired over the same resamples.",
    "diff_vs_accept_all_pp:<strategy>": "net_change_pp(strategy) - net_change_pp(accept_all), percentage points, "
    "per attempt.",
}
"""Headline number -> definition (``<strategy>``: every screening strategy but accept_all)."""

CLUSTERED = "95% {} over {}"
"""Interval label of a share: its method (``task bootstrap``, ``task>code bootstrap``, or ``wilson over tasks`` at
0 or 100%) and its instances. Instances of a task are not independent: every share is resampled by task."""
BOOTSTRAP = "95% bootstrap over tasks"
PER_CODE = "95% bootstrap over tasks, then code samples; per code sample"
PER_ATTEMPT = "95% bootstrap over tasks, then code samples; per refinement attempt"

Headline = Callable[[Results], list[dict[str, object]]]
HEADLINES: dict[str, Headline] = {}
"""Registered headline functions, in table order: ``fn(results) -> rows`` (columns :data:`COLUMNS`)."""


def register_headline(name: str, definitions: dict[str, str] | None = None) -> Callable[[Headline], Headline]:
    """Register ``fn(results) -> rows`` as headline numbers (and add their definitions to :data:`DEFINITIONS`)."""

    def register(fn: Headline) -> Headline:
        HEADLINES[name] = fn
        DEFINITIONS.update(definitions or {})
        return fn

    return register


def _row(
    results: Results, model: str, number: str, value: object, low: object, high: object, over: str
) -> dict[str, object]:
    return {
        "model": model,
        "source": source_label(results, model),
        "number": number,
        "value": value,
        "low": low,
        "high": high,
        "interval": over,
    }


def _share_row(results: Results, model: str, number: str, share: dict[str, object], over: str) -> dict[str, object]:
    """A row from :func:`~tfr_helpers.analysis.inference.units.share_columns` (clustered by task, then code sample)."""
    method = CLUSTERED.format(share["method"], over)
    return _row(results, model, number, share["pct"], share["low"], share["high"], method)


@register_headline("generation")
def generation_numbers(results: Results) -> list[dict[str, object]]:
    """Code pass@1 and the unreliable share of test-fail feedback, per model."""
    rows = []
    verdicts = [v for v in results.benchmark_verdicts if v.subject == "generated"]
    for model in sorted({v.model for v in verdicts}):
        mine = [v for v in verdicts if v.model == model]
        rs = clustered_rows([v.task_id for v in mine], [v.code_index for v in mine], samples_per_task(results, model))
        passed = share_columns(rs, [v.passed for v in mine])
        rows.append(_share_row(results, model, "code_pass_at_1", passed, "code samples"))
        unreliable = rq1.unreliable_share(results, model)
        rows.append(_share_row(results, model, "unreliable_feedback", unreliable, "test-fail feedback"))
    return rows


@register_headline("refinement")
def refinement_numbers(results: Results) -> list[dict[str, object]]:
    """Fail->Pass on reliable and Pass->Fail on unreliable feedback, per model (rq2's refinement outcomes)."""
    out = rq2.refinement_outcomes(results)
    rows = []
    for name, rel, tr in (
        ("fail_to_pass_reliable", "reliable", "fail->pass"),
        ("pass_to_fail_unreliable", "unreliable", "pass->fail"),
    ):
        for _, r in out[(out["reliability"] == rel) & (out["transition"] == tr)].iterrows():
            rows.append(_share_row(results, r["model"], name, r.to_dict(), "refinement attempts"))
    return rows


@register_headline("screening")
def screening_numbers(results: Results) -> list[dict[str, object]]:
    """accept_all's net change, and each other strategy's F1 and difference vs accept_all (rq3's table)."""
    rows = []
    for _, r in rq3.screening_and_downstream(results).iterrows():
        model, strategy = r["model"], r["strategy"]
        if strategy == rq3.BASELINE:
            per_code = (r["net_change_per_code_pct"], r["net_change_per_code_low"], r["net_change_per_code_high"])
            rows.append(_row(results, model, "net_change_per_code_accept_all_pp", *per_code, PER_CODE))
            net = (r["net_change_pp"], r["net_change_low"], r["net_change_high"])
            rows.append(_row(results, model, "net_change_accept_all_pp", *net, PER_ATTEMPT))
            continue
        rows.append(_row(results, model, f"f1:{strategy}", r["f1_pct"], r["f1_low"], r["f1_high"], BOOTSTRAP))
        per_code = (r["diff_per_code_pct"], r["diff_per_code_low"], r["diff_per_code_high"])
        rows.append(_row(results, model, f"diff_per_code_pp:{strategy}", *per_code, PER_CODE))
        diff = (r["diff_vs_accept_all_pp"], r["diff_low"], r["diff_high"])
        rows.append(_row(results, model, f"diff_vs_accept_all_pp:{strategy}", *diff, PER_ATTEMPT))
    return rows


@register_headline(
    "rounds",
    {
        "pass_at_1_round:<k>": "Multi-round runs: percent of chains whose code after round k passes the benchmark "
        "tests (round 0: the generated code), over all the coder's benchmarks (analysis.rounds.per_round).",
        "suite_precision_round:<k>": "Percent of round k's suite tests that the reference passes.",
        "collision_round:<k>": "Percent of round k's refined programs equal to a program of an earlier round of the "
        "same chain.",
    },
)
def round_numbers(results: Results) -> list[dict[str, object]]:
    """Pass@1, suite precision and collision per round (``benchmark == all`` rows), when the run has rounds."""

    if not rounds.present(results):
        return []
    rows = []
    frame = rounds.per_round(results)
    for _, r in frame[frame["benchmark"] == rounds.ALL].iterrows():
        model, k = r["model"], int(r["round"])
        for number, col, over in (
            ("pass_at_1_round", "pass", "chains"),
            ("suite_precision_round", "suite_precision", "suite tests"),
            ("collision_round", "collision", "refined programs"),
        ):
            if k == 0 and number != "pass_at_1_round":
                continue
            value = r["pass_at_1" if col == "pass" else col if col != "collision" else "collision_probability"]
            cells = (100 * value, 100 * r[f"{col}_low"], 100 * r[f"{col}_high"])
            rows.append(_row(results, model, f"{number}:{k}", *cells, CLUSTERED.format(r[f"{col}_method"], over)))
    return rows


@register_headline(
    "oracle",
    {
        "oracle_net_change_pp:<scope>": "Oracle-repaired arm (uses the reference: an upper bound): net_change_pp of "
        "refinement on the repaired feedback, per scope of analysis.oracle.oracle_comparison.",
        "oracle_diff_vs_original_pp:<scope>": "net_change_pp(oracle-repaired) - net_change_pp(original) on the same "
        "instances, per scope.",
    },
)
def oracle_numbers(results: Results) -> list[dict[str, object]]:
    """The oracle-repaired arm's net change and its difference from the original feedback, per model and scope."""

    if not oracle.present(results):
        return []
    rows = []
    frame = oracle.oracle_comparison(results)
    for _, r in frame[frame["arm"] != "original"].iterrows():
        model, scope = r["model"], str(r["scope"]).replace(" ", "_")
        net = (r["net_change_pp"], r["net_change_low"], r["net_change_high"])
        rows.append(_row(results, model, f"oracle_net_change_pp:{scope}", *net, BOOTSTRAP))
        diff = (r["diff_vs_original_pp"], r["diff_low"], r["diff_high"])
        rows.append(_row(results, model, f"oracle_diff_vs_original_pp:{scope}", *diff, BOOTSTRAP))
    return rows


def headline_numbers(results: Results) -> pd.DataFrame:
    """Every registered headline number of one run (columns :data:`COLUMNS`; undefined values are NaN)."""
    rows = [row for fn in HEADLINES.values() for row in fn(results)]
    frame = pd.DataFrame(rows, columns=COLUMNS)
    for col in ("value", "low", "high"):
        frame[col] = pd.to_numeric(frame[col], errors="coerce").astype(float)
    return frame
