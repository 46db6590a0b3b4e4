"""Real refinement trajectories, in numbers: each set's step classes, the faults that removed steps, RQ1's causes,
and RQ2 on the logged refinements (per set, step class and position, with task-clustered intervals).

Every row is one trajectory set: one model under one published protocol (Reflexion: feedback -> verbal
self-reflection -> new code), never pooled with another set or with the simulated model. The task is the cluster
of every interval (the steps of one trajectory are not independent): :func:`~.inference.units.clustered_rows`.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from tfr_helpers.analysis.inference.units import SHARE_COLUMNS, clustered_rows, share_columns
from tfr_helpers.arms.trajectories.arm import part_in
from tfr_helpers.arms.trajectories.records.trajectories import STEP_CLASSES, TrajectoriesResults
from tfr_helpers.records import Results

JUDGED = ("reliable", "unreliable", "mixed")
"""Classes whose feedback tfr reproduced and judged against the reference."""
JUDGED_GROUP = "judged (reliable, unreliable or mixed)"
"""The steps whose feedback tfr reproduced and judged on an evaluable task: the population of the headline rows."""
GROUPS: dict[str, tuple[str, ...]] = {
    "all steps with a verdict": ("reliable", "unreliable", "mixed", "indeterminate", "not_reproduced"),
    JUDGED_GROUP: JUDGED,
    **{c: (c,) for c in STEP_CLASSES if c != "not_evaluable"},
}
"""The step-class groups RQ2 reports (not evaluable steps have no benchmark verdict)."""
POSITIONS = {"all": None, "first": True, "later": False}
"""First steps (attempt 0 -> 1) apart from later ones."""

STEP_COLUMNS = [
    "dataset",
    "model",
    "task_id",
    "benchmark",
    "step",
    "first",
    "feedback_format",
    "step_class",
    "reason",
    "benchmark_before",
    "benchmark_after",
    "transition",
    "plus_before",
    "plus_after",
    "logged_tests_after",
]


def present(results: Results) -> bool:
    """Whether the run replayed trajectories."""
    return part_in(results) is not None


def _part(results: Results) -> TrajectoriesResults:
    return part_in(results) or TrajectoriesResults()


def steps_frame(results: Results) -> pd.DataFrame:
    """One row per judged step (columns :data:`STEP_COLUMNS`; ``plus_*``: the EvalPlus plus tier where it exists)."""
    rows = [
        {
            "dataset": s.dataset,
            "model": s.model,
            "task_id": s.task_id,
            "benchmark": s.benchmark,
            "step": s.step,
            "first": s.step == 0,
            "feedback_format": s.feedback_format,
            "step_class": s.step_class,
            "reason": s.reason,
            "benchmark_before": s.benchmark_before,
            "benchmark_after": s.benchmark_after,
            "transition": s.transition,
            "plus_before": s.tiers_before.plus if s.tiers_before else None,
            "plus_after": s.tiers_after.plus if s.tiers_after else None,
            "logged_tests_after": s.logged_tests_after,
        }
        for s in _part(results).steps
    ]
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def step_classes(results: Results) -> pd.DataFrame:
    """Per set: its model, steps judged, steps the reader could not use, and the steps in each class."""
    part = _part(results)
    frame = steps_frame(results)
    rows: list[dict[str, object]] = []
    for info in part.sets:
        mine = frame[frame["dataset"] == info.name]
        counts: Counter[str] = Counter(mine["step_class"].astype(str))
        unusable = sum(1 for u in part.unusable if u.dataset == info.name and u.step >= 0)
        rows.append(
            {
                "dataset": info.name,
                "model": info.model,
                "benchmark": info.benchmark,
                "protocol": info.protocol,
                "origin": info.origin,
                "tasks": int(mine["task_id"].nunique()),
                "steps": len(mine),
                "unusable": unusable,
                **{c: int(counts.get(c, 0)) for c in STEP_CLASSES},
            }
        )
    columns = ["dataset", "model", "benchmark", "protocol", "origin", "tasks", "steps", "unusable", *STEP_CLASSES]
    return pd.DataFrame(rows, columns=columns)


def _fault(reason: str) -> str:
    """A reason without its specifics (the library, the attempt index), to count steps per kind of fault."""
    if reason.startswith("attempt "):
        return "a logged body, not a whole function"
    if reason.startswith("excluded from the study's BigCodeBench selection: "):
        kind = reason.removeprefix("excluded from the study's BigCodeBench selection: ").split(":")[0]
        return f"BigCodeBench task excluded from the selection ({kind})"
    if reason.startswith("no feedback was logged"):
        return "no feedback logged after the attempt"
    if reason.startswith("bad line"):
        return "a malformed line"
    return reason.split(" (")[0]


def faults(results: Results) -> pd.DataFrame:
    """Per set and kind of fault: the steps it removed from the judged classes (unusable in the log, not
    reproduced, not evaluable)."""
    part = _part(results)
    found: Counter[tuple[str, str, str]] = Counter()
    for u in part.unusable:
        found[(u.dataset, "unusable", _fault(u.reason))] += 1
    for s in part.steps:
        if s.step_class in ("not_reproduced", "not_evaluable"):
            found[(s.dataset, s.step_class, _fault(s.reason))] += 1
    rows = [{"dataset": d, "removed_as": a, "fault": f, "steps": n} for (d, a, f), n in sorted(found.items())]
    return pd.DataFrame(rows, columns=["dataset", "removed_as", "fault", "steps"])


def causes(results: Results) -> pd.DataFrame:
    """Per set: RQ1's cause of every reproduced failing test the reference fails too."""
    found: Counter[tuple[str, str]] = Counter()
    for s in _part(results).steps:
        for v in s.tests:
            if v.reproduced and v.cause is not None:
                found[(s.dataset, v.cause)] += 1
    rows = [{"dataset": d, "cause": c, "tests": n} for (d, c), n in sorted(found.items())]
    return pd.DataFrame(rows, columns=["dataset", "cause", "tests"])


RQ2_COLUMNS = ["dataset", "model", "benchmark", "step_class", "position", "steps", "tasks"]


def _rates(rows: pd.DataFrame) -> dict[str, object]:
    """P(Pass->Fail | passed), P(Fail->Pass | failed), the plus tier's P(Pass->Fail | passed) where there is one,
    and the generated-test diagnostic (misleading: the code after passes the logged failing tests but fails the
    benchmark), each with its task-clustered interval."""
    rs = clustered_rows(rows["task_id"].astype(str).tolist())
    before = rows["benchmark_before"].astype(bool).to_numpy()
    after = rows["benchmark_after"].astype(bool).to_numpy()
    plus = rows["plus_before"].notna().to_numpy()
    plus_before = rows["plus_before"].fillna(False).astype(bool).to_numpy()
    plus_after = rows["plus_after"].fillna(False).astype(bool).to_numpy()
    passes_logged = rows["logged_tests_after"].fillna(False).astype(bool).to_numpy()
    return {
        **share_columns(rs, before & ~after, before, "pass_fail_"),
        **share_columns(rs, ~before & after, ~before, "fail_pass_"),
        **share_columns(rs, plus & plus_before & ~plus_after, plus & plus_before, "plus_pass_fail_"),
        **share_columns(rs, passes_logged & ~after, passes_logged, "misleading_"),
    }


def rq2_rows(results: Results) -> pd.DataFrame:
    """RQ2 on the logged refinements: per set, step-class group (:data:`GROUPS`) and position (:data:`POSITIONS`)."""
    frame = steps_frame(results)
    judged = frame[frame["transition"].notna()]
    rows = []
    for info in _part(results).sets:
        mine = judged[judged["dataset"] == info.name]
        for group, classes in GROUPS.items():
            for position, first in POSITIONS.items():
                sel = mine[mine["step_class"].isin(classes)]
                if first is not None:
                    sel = sel[sel["first"] == first]
                if sel.empty:
                    continue
                head = {
                    "dataset": info.name,
                    "model": info.model,
                    "benchmark": info.benchmark,
                    "step_class": group,
                    "position": position,
                    "steps": len(sel),
                    "tasks": int(sel["task_id"].nunique()),
                }
                rows.append(head | _rates(sel))
    prefixes = ("pass_fail_", "fail_pass_", "plus_pass_fail_", "misleading_")
    return pd.DataFrame(rows, columns=RQ2_COLUMNS + [p + c for p in prefixes for c in SHARE_COLUMNS])


def headline(results: Results) -> pd.DataFrame:
    """Every set of the run, one row each (none selected): steps, the judged steps and their share of the steps,
    each class, and P(Pass->Fail | passed) and P(Fail->Pass | failed) over the judged steps (:data:`JUDGED_GROUP`,
    the answer rows' population), with their intervals."""
    classes = step_classes(results)
    classes["judged"] = classes[list(JUDGED)].sum(axis=1).astype(int)
    classes["judged_pct"] = [
        round(100 * j / n, 1) if n else None for j, n in zip(classes["judged"], classes["steps"], strict=True)
    ]
    rq2 = rq2_rows(results)
    top = rq2[(rq2["step_class"] == JUDGED_GROUP) & (rq2["position"] == "all")]
    rates = [f"{p}{c}" for p in ("pass_fail_", "fail_pass_") for c in SHARE_COLUMNS]
    out = classes.merge(top[["dataset", *rates]], on="dataset", how="left")
    return out.astype(object).where(out.notna(), None)
