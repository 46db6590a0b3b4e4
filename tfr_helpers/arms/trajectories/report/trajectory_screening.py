"""RQ3 on real refinement steps: what the reference-free screeners decide on the feedback models really received, and
what that would have changed downstream, on a defined counterfactual.

The screened items are the reproduced failing tests of every judged trajectory step (stage
``screen_trajectory_steps``); a test is unreliable when the reference fails it too. A step is **screened out** when a
strategy rejects every one of its reproduced failing tests (the refiner saw a step's failing tests together: with none
left, no refinement is made and the code before is kept).

**The counterfactual.** A screener that stops a step stops the trajectory there: the logged steps after it would
never have happened, so they have no counterfactual and are not evaluated. Each trajectory (task) is judged at its
**first** screened-out step only; the steps before it are refined as logged, so nothing changes there. At that step
the code before is kept instead of the code after: a Pass->Fail step is a regression **prevented** (+1), a
Fail->Pass step a fix **lost** (-1), a Pass->Pass or Fail->Fail step changes nothing (0). The **net effect** is
prevented minus lost, per task in {-1, 0, +1}; its mean over the set's trajectories is tested by the study's task-level
sign-flip test (:func:`.inference.paired_tasks.paired_task_test`: prevented against lost, one row per task), Holm-
corrected over the strategies of a set. A step with some tests kept is still refined (partly screened: counted, not
a counterfactual). Every row is one set (one model under one published protocol), never pooled. The screeners that
compare code samples (their declaration: ``samples > 1``, the consensus screeners) see one code sample per step and
accept every test: they are one row, saying so.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.inference.paired_tasks import holm, paired_task_test
from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, clustered_rows, share_columns
from tfr_helpers.analysis.tables import share_cell
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.analysis.tidy.screeners import compares_samples
from tfr_helpers.arms.trajectories.arm import part_in
from tfr_helpers.records import Results

ONE_SAMPLE = "consensus (every screener comparing code samples: one code sample per step, no consensus: accepts every test)"
"""The row the screeners comparing code samples collapse into when each of them accepts every test."""
BASELINE = "accept_all"
NOTE = (
    "Real refinement steps replayed from published logs (not simulated). Screened out: the strategy rejects every "
    "reproduced failing test of the step, so the step would not be refined and the code before is kept; a step with "
    "some tests kept is still refined. Each trajectory is evaluated at its first screened-out step only (the logged "
    "steps after it would never have happened): prevented if that step was Pass->Fail, lost if Fail->Pass. Net per "
    "trajectory: (prevented - lost) / trajectories; p: task-level sign-flip test of prevented against lost "
    "(Holm over the set's strategies). Intervals: 95% cluster bootstrap over tasks."
)
EMPTY = "no trajectory step was screened in this run (it replays no trajectory set, or none of its steps was judged)"
STEP_COLUMNS = ["dataset", "model", "task_id", "step", "strategy", "tests", "rejected", "screened_out", "transition"]
TEST_COLUMNS = ["dataset", "model", "task_id", "step", "strategy", "unreliable", "rejected"]


def present(results: Results) -> bool:
    """Whether the run screened trajectory steps."""
    return (p := part_in(results)) is not None and bool(p.screening)


def strategies(results: Results) -> list[str]:
    """The strategies that screened the steps, in the order they ran."""
    found: dict[str, None] = {}
    for s in p.screening if (p := part_in(results)) else []:
        for t in s.tests:
            found.update(dict.fromkeys(t.decisions))
    return list(found)


def tests_frame(results: Results) -> pd.DataFrame:
    """One row per (reproduced failing test, strategy): its label and whether the strategy rejected it."""
    part = part_in(results)
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
        for s in (part.screening if part else [])
        for t in s.tests
        for name, decision in t.decisions.items()
    ]
    return pd.DataFrame(rows, columns=TEST_COLUMNS)


def steps_frame(results: Results) -> pd.DataFrame:
    """One row per (judged step, strategy): its tests, how many were rejected, screened out, its logged transition."""
    part = part_in(results)
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
    """(row name, strategy whose decisions it shows): the screeners comparing code samples (as they declare) that
    accept every test are one row."""
    tests = tests_frame(results)
    names = strategies(results)
    silent = [n for n in names if compares_samples(n) and not tests[tests["strategy"] == n]["rejected"].any()]
    rows = []
    for n in names:
        if n in silent:
            if n == silent[0]:
                rows.append((ONE_SAMPLE, n))
            continue
        rows.append((n, n))
    return rows


def first_screened(steps: pd.DataFrame) -> pd.DataFrame:
    """Per trajectory (set, task) and strategy: its first screened-out step with a transition, the only step the
    counterfactual evaluates (the steps after it would never have happened); trajectories with none are left out."""
    screened = steps[steps["screened_out"].astype(bool)].sort_values(["dataset", "task_id", "strategy", "step"])
    return screened.drop_duplicates(["dataset", "task_id", "strategy"], keep="first")


def _net(tasks: list[str], first: pd.DataFrame) -> dict[str, Any]:
    """The net effect over a set's trajectories (``tasks``, one row each) of keeping the code before at each
    trajectory's first screened-out step: prevented, lost, net per trajectory, and the sign-flip test of prevented
    against lost."""
    by_task = first.set_index("task_id")["transition"].astype(str).to_dict()
    prevented = np.array([by_task.get(t) == "pass->fail" for t in tasks], dtype=float)
    lost = np.array([by_task.get(t) == "fail->pass" for t in tasks], dtype=float)
    test = paired_task_test(np.asarray(tasks), prevented, lost)
    return {
        "first_screened": len(first),
        "prevented": int(prevented.sum()),
        "lost": int(lost.sum()),
        "net": int(prevented.sum() - lost.sum()),
        "net_per_task_pp": None if np.isnan(test.value) else round(100 * test.value, 1),
        "net_p": test.p_value,
        "net_test": test.method if test.tested else test.status,
        "informative_tasks": test.informative_tasks,
    }


def downstream(results: Results) -> pd.DataFrame:
    """Per set and strategy: the tests it rejects (unreliable and reliable), steps screened out and partly screened,
    and the counterfactual at each trajectory's first screened-out step: prevented, lost, the net effect per
    trajectory with its task-level sign-flip test (``net_p``; ``net_p_holm`` over the set's strategies)."""
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
            rs = clustered_rows(sel["task_id"].astype(str).tolist())
            screened = sel["screened_out"].astype(bool).to_numpy()
            test_rs = clustered_rows(mine["task_id"].astype(str).tolist())
            unreliable, rejected = mine["unreliable"].astype(bool).to_numpy(), mine["rejected"].astype(bool).to_numpy()
            tasks = list(dict.fromkeys(sel["task_id"].astype(str)))
            rows.append(
                {
                    "dataset": dataset,
                    "model": str(sel["model"].iloc[0]),
                    "strategy": row_name,
                    "steps": len(sel),
                    "tasks": len(tasks),
                    "partly_screened": int(((sel["rejected"] > 0) & ~sel["screened_out"].astype(bool)).sum()),
                    **share_columns(test_rs, rejected, unreliable, "rejects_unreliable_"),
                    **share_columns(test_rs, rejected, ~unreliable, "rejects_reliable_"),
                    **share_columns(rs, screened, None, "screened_out_"),
                    **_net(tasks, first_screened(sel)),
                }
            )
    shares = ("rejects_unreliable_", "rejects_reliable_", "screened_out_")
    head = ["dataset", "model", "strategy", "steps", "tasks", "partly_screened"]
    net = ["first_screened", "prevented", "lost", "net", "net_per_task_pp", "net_p", "net_test", "informative_tasks"]
    frame = pd.DataFrame(rows, columns=head + [p + c for p in shares for c in SHARE_COLUMNS] + net)
    frame["net_p_holm"] = holm(frame, ["dataset"], "net_p").astype(object).where(lambda f: f.notna(), None)
    return frame


def _count(r: pd.Series, prefix: str) -> str:
    return f"{int(r[prefix + 'k'])}/{int(r[prefix + 'n'])} {share_cell(r, prefix)}"


def _p(r: pd.Series) -> str:
    """The net effect's p-value (Holm-adjusted beside it), or why there is none."""
    value = r["net_p"]
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "no effect" if not r["informative_tasks"] else str(r["net_test"])
    return f"{float(value):.3f} (Holm {float(r['net_p_holm']):.3f})"


def downstream_table(results: Results) -> Styler:
    """Notebook 03's table "Screening real refinement steps": one row per set and strategy (the row labels), the
    step-level shares and the trajectory-level effect in six columns, so that it reads as one table."""
    out = [
        {
            "Set": f"{r['model']} · {r['dataset']}",
            "Strategy": r["strategy"],
            "Steps": int(r["steps"]),
            "Rejects unreliable tests": _count(r, "rejects_unreliable_"),
            "Rejects reliable tests": _count(r, "rejects_reliable_"),
            "Steps screened out (partly)": f"{_count(r, 'screened_out_')} ({int(r['partly_screened'])})",
            "Trajectories stopped: Pass->Fail prevented, Fail->Pass lost": (
                f"{int(r['first_screened'])}/{int(r['tasks'])}: {int(r['prevented'])}, {int(r['lost'])}"
            ),
            "Net per trajectory (pp), p": f"{_pp(r['net_per_task_pp'])}, {_p(r)}",
        }
        for _, r in downstream(results).iterrows()
    ]
    if not out:
        return pd.DataFrame({"Screening real refinement steps": [EMPTY]}).style
    return pd.DataFrame(out).set_index(["Set", "Strategy"]).style.set_caption(NOTE)


def _pp(value: object) -> str:
    return "--" if value is None or (isinstance(value, float) and np.isnan(value)) else f"{float(value):+.1f}"  # type: ignore[arg-type]


def summary_section(results: Results) -> dict[str, Any]:
    """``{"trajectory_screening": {...}}`` (real data), or ``{}`` when the run screened no trajectory step."""
    if not present(results):
        return {}
    return {"trajectory_screening": {"note": NOTE, "real": True, "rows": frame_records(downstream(results))}}
