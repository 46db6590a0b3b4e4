"""The dose, in numbers: each fixed test list's measured valid share, and RQ2's intention-to-treat outcomes per task.

- **Dose** (:func:`dose_table`): per list, the tests the reference passes among the tests whose verdict does not
  depend on the machine (``indeterminate`` tests are counted, kept out of the share, as the base study does), with
  a cluster-bootstrap interval over tasks (the tests of one task are not independent). Each task's own share is the
  per-task dose (:func:`task_doses`).
- **Outcomes** (:func:`outcomes_frame`): one row per (set, task) judged offline, with the final code's benchmark
  verdict, whether passing code was ever broken (any Pass->Fail), whether the first step broke a first attempt that
  passed (no step: not broken), and the steps taken. No step classification is involved: a task is left out only
  when its benchmark cannot be judged offline (counted per set in :func:`outcome_counts`).
- **The series** (:func:`dose_series`): the sets of one model with one iteration cap (the one its protocol states)
  that refined against fixed lists, at least :data:`MIN_LISTS` of them. Every other set is reported per set, not
  in a dose-response.

Everything here is real (published logs replayed); nothing is simulated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from tfr_helpers.analysis.inference.units import clustered_rows, share_columns
from tfr_helpers.arms.trajectories.arm import part_in
from tfr_helpers.arms.trajectories.records.list_doses import TaskDose
from tfr_helpers.arms.trajectories.records.trajectories import TrajectoriesResults
from tfr_helpers.records import Results

OUTCOMES: dict[str, str] = {
    "final_passed": "the final code passes the benchmark",
    "ever_broken": "passing code was broken at some step (any Pass->Fail)",
    "first_broken": "the first step broke a first attempt that passed (P(Pass->Fail | passed) at step 1; a task "
    "that stopped on its first attempt counts as not broken); tasks whose first attempt fails are left out",
    "steps": "refinement steps taken (attempts after the first)",
}
"""The intention-to-treat outcomes per task, with their definitions."""
BINARY = ("final_passed", "ever_broken", "first_broken")
"""The 0/1 outcomes (``steps`` is a count)."""
MIN_LISTS = 3
"""Fewest lists a series needs for a dose-response."""


def _part(results: Results) -> TrajectoriesResults:
    return part_in(results) or TrajectoriesResults()


def present(results: Results) -> bool:
    """Whether the run measured a fixed test list."""
    return bool(_part(results).doses)


def _list_sets(results: Results) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for dataset, name in _part(results).test_lists.items():
        out.setdefault(name, []).append(dataset)
    return out


def _doses_by_list(results: Results) -> dict[str, list[TaskDose]]:
    out: dict[str, list[TaskDose]] = {}
    for d in _part(results).doses:
        out.setdefault(d.test_list, []).append(d)
    return out


def dose_table(results: Results) -> pd.DataFrame:
    """One row per measured list, in the order of the sets that ran on it: ``test_list, upstream, sets, tasks,
    measured_tasks, not_evaluable_tasks, tests, valid, invalid, indeterminate`` and the valid share of the decided
    tests (``valid_k, valid_n, valid_pct, valid_low, valid_high, valid_method, ...``, clustered by task), with the
    mean of the per-task shares (``valid_task_mean_*``) and the invalid tests' causes (``causes``: cause -> tests)."""
    sets = _list_sets(results)
    rows = []
    for name, doses in _doses_by_list(results).items():
        measured = [d for d in doses if not d.not_evaluable]
        tests = [(d.task_id, t) for d in measured for t in d.tests]
        decided = [(task, t) for task, t in tests if t.validity != "indeterminate"]
        row: dict[str, object] = {
            "test_list": name,
            "upstream": doses[0].upstream,
            "sets": ", ".join(sets.get(name, [])),
            "tasks": len(doses),
            "measured_tasks": len(measured),
            "not_evaluable_tasks": len(doses) - len(measured),
            "tests": len(tests),
            **{v: sum(1 for _, t in tests if t.validity == v) for v in ("valid", "invalid", "indeterminate")},
        }
        if decided:
            rs = clustered_rows([task for task, _ in decided])
            row |= share_columns(rs, np.array([t.validity == "valid" for _, t in decided]), prefix="valid_")
        causes: dict[str, int] = {}
        for _, t in tests:
            if t.validity == "invalid":
                causes[t.cause or "unknown"] = causes.get(t.cause or "unknown", 0) + 1
        row["causes"] = dict(sorted(causes.items(), key=lambda kv: -kv[1]))
        rows.append(row)
    return pd.DataFrame(rows)


def task_doses(results: Results) -> dict[tuple[str, str], float]:
    """(list, task id) -> the task's valid share in that list (tasks with a decided test only)."""
    return {(d.test_list, d.task_id): d.dose for d in _part(results).doses if d.dose is not None}


def list_doses(results: Results) -> dict[str, float]:
    """List -> its pooled valid share (fraction), from :func:`dose_table`."""
    table = dose_table(results)
    if table.empty or "valid_k" not in table:
        return {}
    return {r["test_list"]: r["valid_k"] / r["valid_n"] for _, r in table.iterrows() if r.get("valid_n")}


OUTCOME_COLUMNS = ["dataset", "model", "task_id", "test_list", "cap", "dose_task", "dose_list", *OUTCOMES]


def outcomes_frame(results: Results) -> pd.DataFrame:
    """One row per (set, task) judged offline: :data:`OUTCOME_COLUMNS` (``cap``: the iterations its protocol states,
    else the most attempts it logged; the doses
    NaN where the set ran on no list, or the task has no decided test in it; ``first_broken`` NaN when the first
    attempt fails)."""
    part = _part(results)
    per_task, per_list = task_doses(results), list_doses(results)
    caps: dict[str, int] = {}
    for o in part.outcomes:  # the most attempts logged, where the protocol does not state its iterations
        caps[o.dataset] = max(caps.get(o.dataset, 0), len(o.verdicts))
    for info in part.sets:
        if (stated := re.search(r"(\d+) iterations", info.protocol)) is not None:
            caps[info.name] = int(stated.group(1))
    rows = []
    for o in part.outcomes:
        if not o.evaluable:
            continue
        name = part.test_lists.get(o.dataset)
        rows.append(
            {
                "dataset": o.dataset,
                "model": o.model,
                "task_id": o.task_id,
                "test_list": name,
                "cap": caps[o.dataset],
                "dose_task": per_task.get((name, o.task_id), np.nan) if name else np.nan,
                "dose_list": per_list.get(name, np.nan) if name else np.nan,
                "final_passed": float(bool(o.final_passed)),
                "ever_broken": float(bool(o.ever_broken)),
                "first_broken": np.nan if o.first_broken is None else float(o.first_broken),
                "steps": float(o.steps),
            }
        )
    return pd.DataFrame(rows, columns=OUTCOME_COLUMNS)


def outcome_counts(results: Results) -> pd.DataFrame:
    """Per set: its trajectories, those judged, those left out (not evaluable offline) and the first reason."""
    rows = []
    by_set: dict[str, list[object]] = {}
    for o in _part(results).outcomes:
        by_set.setdefault(o.dataset, []).append(o)
    for dataset, found in by_set.items():
        left = [o for o in found if not getattr(o, "evaluable")]  # noqa: B009 - records of one type
        rows.append(
            {
                "dataset": dataset,
                "trajectories": len(found),
                "judged": len(found) - len(left),
                "not_evaluable": len(left),
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "trajectories", "judged", "not_evaluable"])


def per_set_outcomes(frame: pd.DataFrame) -> pd.DataFrame:
    """Per set: tasks, each binary outcome's share (``<outcome>_k``, ``_n``, ``_pct``) and the mean steps."""
    rows = []
    for dataset, mine in frame.groupby("dataset", sort=False):
        row: dict[str, object] = {"dataset": dataset, "test_list": mine["test_list"].iloc[0], "tasks": len(mine)}
        for name in BINARY:
            values = mine[name].dropna()
            row |= {f"{name}_k": int(values.sum()), f"{name}_n": len(values)}
            row[f"{name}_pct"] = round(100 * values.mean(), 1) if len(values) else None
        row["steps_mean"] = round(float(mine["steps"].mean()), 2)
        rows.append(row)
    return pd.DataFrame(rows)


def dose_series(frame: pd.DataFrame) -> tuple[list[str], dict[str, str]]:
    """The sets of the largest (model, iteration cap) group that refined against at least :data:`MIN_LISTS`
    distinct lists, and every other set with the reason it is not in the series."""
    listed = frame.dropna(subset=["test_list"])
    groups = listed.groupby(["model", "cap"], sort=False)["test_list"].nunique()
    eligible = groups[groups >= MIN_LISTS]
    series: Sequence[str] = []
    if len(eligible):
        model, cap = eligible.idxmax()
        series = list(dict.fromkeys(listed[(listed["model"] == model) & (listed["cap"] == cap)]["dataset"]))
    left = {}
    for dataset, mine in frame.groupby("dataset", sort=False):
        if dataset in series:
            continue
        if mine["test_list"].isna().all():
            left[str(dataset)] = "refined against its own tests, not a fixed list"
        else:
            left[str(dataset)] = (
                f"another model or iteration cap than the series ({mine['model'].iloc[0]}, cap {int(mine['cap'].iloc[0])})"
            )
    return list(series), left
