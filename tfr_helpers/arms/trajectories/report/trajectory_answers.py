"""The replayed trajectories' answer rows: RQ2 on real self-repair, the first rows of notebook 02's headline box,
of ``summary.json``'s ``answers.rq2`` and of the ``tfr run`` terminal table; and the steps notebook 04 browses.

Per set (a model under one published run) and step class (reliable, unreliable, mixed: as the simulated rows are
split by feedback reliability): P(Pass->Fail | the code passed) and P(Fail->Pass | it failed), with the arm's
task-clustered intervals and the class's steps counted, taken from
:func:`~.trajectories.rq2_rows` (never computed a second way). Registered at import (``summary`` imports this
module, and everything under ``tfr_helpers.analysis`` imports ``summary``).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from tfr_helpers.analysis.answers import KINDS, Answer, AnswerKind, register_answer_kind, share_answer
from tfr_helpers.arms.trajectories.report.trajectories import present, rq2_rows, step_classes
from tfr_helpers.arms.trajectories.report.trajectory_cases import set_label
from tfr_helpers.records import Results

KIND = "rq2_trajectories"
CASES_KIND = "cases_trajectory_steps"
SOURCE_LABEL = "replayed: a published self-repair log"
CLASSES = ("reliable", "unreliable", "mixed")
"""The step classes a row is split by (the judged classes, :data:`~.trajectories.JUDGED`), as the simulated rows
are split by feedback reliability."""
MEASURES = {
    "pass_fail_": "P(Pass->Fail | passed before), {} feedback",
    "fail_pass_": "P(Fail->Pass | failed before), {} feedback",
}
GIVEN = {"pass_fail_": "passed", "fail_pass_": "failed"}


def _first(rows: pd.DataFrame, prefix: str) -> str:
    """The first steps' share (attempt 0 -> 1), as the arm reports them apart."""
    first = rows[rows["position"] == "first"]
    if first.empty or not first.iloc[0][f"{prefix}n"]:
        return "first steps: none"
    r = first.iloc[0]
    interval = f" [{r[f'{prefix}low']}, {r[f'{prefix}high']}]" if r[f"{prefix}low"] is not None else ""
    return f"first steps alone: {r[f'{prefix}pct']}%{interval} ({int(r[f'{prefix}k'])} of {int(r[f'{prefix}n'])})"


def _real(answer: Answer) -> Answer:
    return replace(answer, source="replayed", source_label=SOURCE_LABEL)


def trajectory_rows(results: Results) -> list[Answer]:
    """Per replayed set and judged step class (:data:`CLASSES`): P(Pass->Fail | passed) and P(Fail->Pass | failed)
    over the class's steps, each where some step of the class is in its denominator (the other row's note says
    when none is: every class with steps has a row, and its steps are counted)."""
    if not present(results):
        return []
    kind = KINDS[KIND]
    table = rq2_rows(results).astype(object).where(lambda f: f.notna(), None)
    out = []
    for dataset, rows in table.groupby("dataset", sort=False):
        for cls in CLASSES:
            mine = rows[rows["step_class"] == cls]
            every = mine[mine["position"] == "all"]
            if every.empty:
                continue
            row = every.iloc[0]
            model = set_label(str(row["model"]), str(dataset))
            n, tasks = int(row["steps"]), int(row["tasks"])
            steps = f"{n:,} {cls} step{'' if n == 1 else 's'} on {tasks:,} task{'' if tasks == 1 else 's'}"
            empty = [p for p in MEASURES if not row[f"{p}n"]]
            for prefix, measure in MEASURES.items():
                if prefix in empty:
                    continue
                none = [f"no {cls} step {GIVEN[p]} before" for p in empty]
                note = "; ".join([steps, *none, _first(mine, prefix)])
                answer = share_answer(results, kind, model, row, prefix=prefix, measure=measure.format(cls), note=note)
                out.append(_real(answer))
    return out


def step_count_rows(results: Results) -> list[Answer]:
    """Per replayed set: its steps (every class, judged or not), each a case of notebook 04's browser."""
    if not present(results):
        return []
    kind = KINDS[CASES_KIND]
    out = []
    for _, r in step_classes(results).iterrows():
        row = {"n": int(r["steps"]), "clusters": int(r["tasks"])}
        unusable = int(r["unusable"])
        note = f"{unusable} more steps the log reader could not use (summary.json lists their reasons)" if unusable else ""
        answer = share_answer(results, kind, set_label(str(r["model"]), str(r["dataset"])), row, note=note)
        out.append(_real(replace(answer, value=float(r["steps"]), percent=False, n=None)))
    return out


def _meaning(answer: Answer) -> str:
    if answer.measure.startswith("P(Pass->Fail") and answer.measure.endswith(" unreliable feedback"):
        return (
            "P(Pass->Fail | passed) after unreliable feedback is how often a real model's own repair step, shown a "
            "test the reference fails too, broke code that already passed the benchmark; each set is one published "
            "run, its own population, never pooled with another or with a simulated row."
        )
    return ""


for _kind in (
    AnswerKind(
        KIND,
        "rq2",
        "P(Pass->Fail | passed) and P(Fail->Pass | failed) over real repair steps, per step class",
        "repair steps",
        trajectory_rows,
        order=0,
        meaning=_meaning,
    ),
    AnswerKind(
        CASES_KIND,
        "cases",
        "replayed trajectory steps, each browsable below (kind: trajectory step)",
        "repair steps",
        step_count_rows,
        order=20,
    ),
):
    register_answer_kind(_kind)
