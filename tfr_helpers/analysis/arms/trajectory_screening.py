"""RQ3 on real refinement steps: what the reference-free screeners decide on the feedback models really received, and
what that would have changed downstream (the logged transitions).

The screened items are the reproduced failing tests of every judged trajectory step (stage
``screen_trajectory_steps``); a test is unreliable when the reference fails it too. A step is **screened out** when a
strategy rejects every one of its reproduced failing tests (the refiner saw a step's failing tests together: with none
left, no refinement is made and the code before is kept). Then a Pass->Fail step screened out is a regression
**prevented**, a Fail->Pass step screened out a fix **lost**; a step with some tests kept is still refined (its
logged transition was made with all of the feedback, so it counts as refined). Every row is one set (one model under
one published protocol), never pooled; intervals are cluster bootstraps over tasks, and each strategy is compared with
refining every step (``accept_all``) by the task-level paired test (:func:`.inference.paired_tasks.paired_task_test`).
The consensus screeners see one code sample per step and accept every test: they are one row, saying so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.inference.paired_tasks import paired_task_test
from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, clustered_rows, share_columns
from tfr_helpers.analysis.tables import share_cell
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.records import Results

CONSENSUS_PREFIX = "consensus_"
ONE_SAMPLE = "consensus (every consensus_* screener: one code sample per step, no consensus: accepts every test)"
"""The row the consensus screeners collapse into when each of them accepts every test."""
BASELINE = "accept_all"
NOTE = (
    "Real refinement steps replayed from published logs (not simulated). Screened out: the strategy rejects every "
    "reproduced failing test of the step, so the step would not be refined and the code before is kept; a step with "
    "some tests kept is still refined. Prevented: Pass->Fail steps screened out; lost: Fail->Pass steps screened out. "
    "Intervals: 95% cluster bootstrap over tasks; p: task-level paired permutation test against refining every step."
)
EMPTY = "no trajectory step was screened in this run (it replays no trajectory set, or none of its steps was judged)"
STEP_COLUMNS = ["dataset", "model", "task_id", "step", "strategy", "tests", "rejected", "screened_out", "transition"]
TEST_COLUMNS = ["dataset", "model", "task_id", "step", "strategy", "unreliable", "rejected"]


def present(results: Results) -> bool:
    """Whether the run screened trajectory steps."""
    return results.trajectories is not None and bool(results.trajectories.screening)


def strategies(results: Results) -> list[str]:
    """The strategies that screened the steps, in the order they ran."""
    found: dict[str, None] = {}
    for s in results.trajectories.screening if results.trajectories else []:
        for t in s.tests:
            found.update(dict.fromkeys(t.decisions))
    return list(found)


def tests_frame(results: Results) -> pd.DataFrame:
    """One row per (reproduced failing test, strategy): its label and whether the strategy rejected it."""
    rows = [
        {
            "dataset": s.dataset,
            "model": s.model,
            "task_id": s.task_id,
            "step": s.step,
            "strategy": name,
            "unreliable": t.unreliable,
            "rejected": decision == "reject",
        }
        for s in (results.trajectories.screening if results.trajectories else [])
        for t in s.tests
        for name, decision in t.decisions.items()
    ]
    return pd.DataFrame(rows, columns=TEST_COLUMNS)


def steps_frame(results: Results) -> pd.DataFrame:
    """One row per (judged step, strategy): its tests, how many were rejected, screened out, its logged transition."""
    part = results.trajectories
    if part is None:
        return pd.DataFrame(columns=STEP_COLUMNS)
    transition = {(e.dataset, e.task_id, e.step): e.transition for e in part.steps}
    rows = [
        {
            "dataset": s.dataset,
            "model": s.model,
            "task_id": s.task_id,
            "step": s.step,
            "strategy": name,
            "tests": len(s.tests),
            "rejected": sum(t.decisions.get(name) == "reject" for t in s.tests),
            "screened_out": s.screened_out(name),
            "transition": transition.get((s.dataset, s.task_id, s.step)),
        }
        for s in part.screening
        for name in strategies(results)
    ]
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def _collapsed(results: Results) -> list[tuple[str, str]]:
    """(row name, strategy whose decisions it shows): consensus screeners that accept every test are one row."""
    tests = tests_frame(results)
    names = strategies(results)
    silent = [n for n in names if n.startswith(CONSENSUS_PREFIX) and not tests[tests["strategy"] == n]["rejected"].any()]
    rows = []
    for n in names:
        if n in silent:
            if n == silent[0]:
                rows.append((ONE_SAMPLE, n))
            continue
        rows.append((n, n))
    return rows


def _paired(tasks: np.ndarray, screened: np.ndarray, event: np.ndarray, among: np.ndarray, prefix: str) -> dict[str, Any]:
    """Refining unless screened out minus refining every step, of P(event | among), with its task-level test."""
    test = paired_task_test(tasks, event & ~screened, event, among)
    return {
        f"{prefix}diff_pp": None if np.isnan(test.value) else round(100 * test.value, 1),
        f"{prefix}p": test.p_value,
        f"{prefix}test": test.method if test.tested else test.status,
    }


def downstream(results: Results) -> pd.DataFrame:
    """Per set and strategy: steps screened out, regressions prevented, fixes lost, the rate of Pass->Fail among the
    steps that passed before with screening, and the paired tests against refining every step."""
    steps = steps_frame(results)
    tests = tests_frame(results)
    judged = steps[steps["transition"].notna() & (steps["transition"] != "no_code")]
    rows = []
    for dataset in dict.fromkeys(judged["dataset"]):
        for row_name, name in _collapsed(results):
            sel = judged[(judged["dataset"] == dataset) & (judged["strategy"] == name)]
            mine = tests[(tests["dataset"] == dataset) & (tests["strategy"] == name)]
            if sel.empty:
                continue
            tasks = sel["task_id"].astype(str).to_numpy()
            rs = clustered_rows(tasks.tolist())
            t = sel["transition"].astype(str).to_numpy()
            screened = sel["screened_out"].astype(bool).to_numpy()
            passed, failed = np.char.startswith(t.astype(str), "pass->"), np.char.startswith(t.astype(str), "fail->")
            regress, fix = t == "pass->fail", t == "fail->pass"
            test_rs = clustered_rows(mine["task_id"].astype(str).tolist())
            unreliable, rejected = mine["unreliable"].astype(bool).to_numpy(), mine["rejected"].astype(bool).to_numpy()
            rows.append(
                {
                    "dataset": dataset,
                    "model": str(sel["model"].iloc[0]),
                    "strategy": row_name,
                    "steps": len(sel),
                    "tasks": int(sel["task_id"].nunique()),
                    "partly_screened": int(((sel["rejected"] > 0) & ~sel["screened_out"].astype(bool)).sum()),
                    **share_columns(test_rs, rejected, unreliable, "rejects_unreliable_"),
                    **share_columns(test_rs, rejected, ~unreliable, "rejects_reliable_"),
                    **share_columns(rs, screened, None, "screened_out_"),
                    **share_columns(rs, screened, regress, "prevented_"),
                    **share_columns(rs, screened, fix, "lost_"),
                    **share_columns(rs, regress & ~screened, passed, "pass_fail_screened_"),
                    **_paired(tasks, screened, regress, passed, "pass_fail_"),
                    **_paired(tasks, screened, fix, failed, "fail_pass_"),
                }
            )
    shares = ("rejects_unreliable_", "rejects_reliable_", "screened_out_", "prevented_", "lost_", "pass_fail_screened_")
    paired = [f"{p}{c}" for p in ("pass_fail_", "fail_pass_") for c in ("diff_pp", "p", "test")]
    head = ["dataset", "model", "strategy", "steps", "tasks", "partly_screened"]
    return pd.DataFrame(rows, columns=head + [p + c for p in shares for c in SHARE_COLUMNS] + paired)


def _count(r: pd.Series, prefix: str) -> str:
    return f"{int(r[prefix + 'k'])}/{int(r[prefix + 'n'])} {share_cell(r, prefix)}"


def _p(r: pd.Series, prefix: str) -> str:
    """The paired test's p-value, or why there is none."""
    value = r[prefix + "p"]
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "no difference" if r[prefix + "diff_pp"] in (0, 0.0) else str(r[prefix + "test"])
    return f"{float(value):.3f}"


def downstream_table(results: Results) -> Styler:
    """Notebook 03's table "Screening real refinement steps": one row per set and strategy."""
    out = [
        {
            "Set": r["dataset"],
            "Model": r["model"],
            "Strategy": r["strategy"],
            "Steps": int(r["steps"]),
            "Rejects unreliable tests": _count(r, "rejects_unreliable_"),
            "Rejects reliable tests": _count(r, "rejects_reliable_"),
            "Screened out": _count(r, "screened_out_"),
            "Partly screened": int(r["partly_screened"]),
            "Pass->Fail prevented": _count(r, "prevented_"),
            "Fail->Pass lost": _count(r, "lost_"),
            "P(Pass->Fail | passed), screened": _count(r, "pass_fail_screened_"),
            "p (Pass->Fail)": _p(r, "pass_fail_"),
            "p (Fail->Pass)": _p(r, "fail_pass_"),
        }
        for _, r in downstream(results).iterrows()
    ]
    if not out:
        return pd.DataFrame({"Screening real refinement steps": [EMPTY]}).style
    return pd.DataFrame(out).style.set_caption(NOTE)


def summary_section(results: Results) -> dict[str, Any]:
    """``{"trajectory_screening": {...}}`` (real data), or ``{}`` when the run screened no trajectory step."""
    if not present(results):
        return {}
    return {"trajectory_screening": {"note": NOTE, "real": True, "rows": frame_records(downstream(results))}}
