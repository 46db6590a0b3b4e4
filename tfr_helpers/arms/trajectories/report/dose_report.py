"""RQ2's dose series in a run's outputs: summary.json's ``rq2_dose`` section and the lines ``tfr analyze`` prints.

The numbers come from :mod:`.dose` (the measured doses, the outcomes per task) and :mod:`.dose_response` (the
slopes, the extremes' contrast, the natural controls). Real data only: published logs replayed, never simulated.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.arms.trajectories.report import dose, dose_response
from tfr_helpers.records import Results

NAME = "rq2_dose"
"""The section of summary.json."""
NOTE = (
    "Real data (published Reflexion logs replayed; not simulated). The dose is each fixed test list's valid share, "
    "measured by running every test on the reference; the outcomes are per task, intention to treat."
)


def summary_section(results: Results) -> dict[str, Any]:
    """``{"rq2_dose": {...}}`` when the run measured a fixed test list, else ``{}``."""
    if not dose.present(results):
        return {}
    frame = dose.outcomes_frame(results)
    series, left = dose.dose_series(frame)
    in_series = frame[frame["dataset"].isin(series)]
    extremes = dose_response.extremes(frame, series)
    return {
        NAME: {
            "note": NOTE,
            "real": True,
            "definitions": {
                "outcomes": dose.OUTCOMES,
                "doses": dose_response.DOSES,
                "slope": f"change per {dose_response.PER:g} percentage points of valid tests: log-odds for the 0/1 "
                "outcomes, steps for steps; GEE with an exchangeable working correlation, clustered by task "
                "(statsmodels); 95% sandwich interval; p Holm-adjusted over the outcomes of one dose",
                "paired": "treated minus control over the tasks judged in both; p: task-level sign-flip test "
                "(exact up to 14 informative tasks), Holm-adjusted over the outcomes",
                "valid": "a test the reference passes; indeterminate tests (a verdict that depends on the machine) "
                "are counted and kept out of the share; interval: cluster bootstrap over tasks",
            },
            "doses": {"rows": frame_records(dose.dose_table(results))},
            "outcomes": {
                "counts": frame_records(dose.outcome_counts(results)),
                "per_set": frame_records(dose.per_set_outcomes(frame)) if len(frame) else [],
            },
            "series": {"sets": series, "left_out": left},
            "dose_response": {"rows": frame_records(dose_response.dose_response(in_series)) if series else []},
            "extremes": {"lists": list(dose_response.EXTREMES), "rows": frame_records(extremes)},
            "natural_controls": [
                c | {"rows": frame_records(pd.DataFrame(c["rows"]))} for c in dose_response.natural_controls(frame)
            ],
        }
    }


def _p(value: object) -> str:
    return "--" if value is None else f"{float(value):.3g}"  # type: ignore[arg-type]


def _slope(r: dict[str, Any]) -> str:
    if r.get("estimate") is None:
        return f"{r['outcome']} on {r['dose']}: {r.get('note')}"
    return (
        f"{r['outcome']} on {r['dose']}: {r['estimate']:+.3f} {r['scale']} per {dose_response.PER:g} points "
        f"[{r['low']:+.3f}, {r['high']:+.3f}], p {_p(r['p'])} (Holm {_p(r.get('p_holm'))}); {r['rows']} runs x tasks, "
        f"{r['tasks']} tasks, {r['lists']} lists"
    )


def _paired(r: dict[str, Any]) -> str:
    return (
        f"{r['outcome']}: {r['treated_mean']} vs {r['control_mean']}, difference {r['difference']} over {r['tasks']} "
        f"tasks ({r['informative_tasks']} informative), sign-flip p {_p(r['p'])} (Holm {_p(r.get('p_holm'))})"
    )


def lines(summary: dict[str, Any]) -> list[str]:
    """What ``tfr analyze`` prints of the section: each list's measured valid share, each slope, the extremes'
    contrast and each natural control."""
    section = summary.get(NAME)
    if not section:
        return []
    out = []
    for r in section["doses"]["rows"]:
        share = (
            f"{r['valid_pct']}% [{r['valid_low']}, {r['valid_high']}] ({r['valid_k']}/{r['valid_n']})"
            if r.get("valid_n")
            else "--"
        )
        out.append(
            f"rq2 dose [real]: list {r['test_list']} (upstream {r['upstream']}; sets {r['sets']}): {r['tasks']} tasks "
            f"({r['not_evaluable_tasks']} not evaluable), {r['tests']} tests, valid {share}, {r['indeterminate']} "
            "indeterminate"
        )
    out.append(f"rq2 dose [real]: series {', '.join(section['series']['sets']) or '(none)'}")
    out += [f"rq2 dose-response [real]: {_slope(r)}" for r in section["dose_response"]["rows"]]
    lists = " - ".join(section["extremes"]["lists"])
    out += [f"rq2 extremes [real] {lists}: {_paired(r)}" for r in section["extremes"]["rows"]]
    for c in section["natural_controls"]:
        head = f"rq2 control [real] {c['treated']} - {c['control']}"
        if not c["passes"]:
            out.append(f"{head}: {c['verdict']}")
        out += [f"{head}: {_paired(r)}" for r in c["rows"]]
    return out
