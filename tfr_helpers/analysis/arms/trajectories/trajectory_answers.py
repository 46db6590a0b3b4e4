"""The replayed trajectories' answer rows: RQ2 on real self-repair, the first rows of notebook 02's headline box,
of ``summary.json``'s ``answers.rq2`` and of the ``tfr run`` terminal table; and the steps notebook 04 browses.

Per set (a model under one published run): P(Pass->Fail | the code passed) and P(Fail->Pass | it failed) over the
judged steps (:data:`~.trajectories.JUDGED_GROUP`), with the arm's task-clustered intervals, taken from
:func:`~.trajectories.rq2_rows` (never computed a second way). Registered at import (``summary`` imports this
module, and everything under ``tfr_helpers.analysis`` imports ``summary``).
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from tfr_helpers.analysis.answers import KINDS, Answer, AnswerKind, register_answer_kind, share_answer
from tfr_helpers.analysis.arms.trajectories.trajectories import JUDGED_GROUP, present, rq2_rows, step_classes
from tfr_helpers.analysis.arms.trajectories.trajectory_cases import set_label
from tfr_helpers.records import Results

KIND = "rq2_trajectories"
CASES_KIND = "cases_trajectory_steps"
SOURCE_LABEL = "replayed: a published self-repair log"
MEASURES = {
    "pass_fail_": "P(Pass->Fail | the code passed) over real repair steps",
    "fail_pass_": "P(Fail->Pass | the code failed) over real repair steps",
}
POPULATION = (
    "steps classed reliable, unreliable or mixed (the logged failing tests reproduced by tfr, the task evaluable), "
    "every step k -> k+1 of a trajectory"
)
"""The population of every row (its note; the intervals' cluster, the task, is in the box's footer)."""


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
    """Two rows per replayed set: P(Pass->Fail | passed) and P(Fail->Pass | failed) over its judged steps."""
    if not present(results):
        return []
    kind = KINDS[KIND]
    table = rq2_rows(results).astype(object).where(lambda f: f.notna(), None)
    judged = table[table["step_class"] == JUDGED_GROUP]
    out = []
    for dataset, rows in judged.groupby("dataset", sort=False):
        every = rows[rows["position"] == "all"]
        if every.empty:
            continue
        row, model = every.iloc[0], set_label(str(every.iloc[0]["model"]), str(dataset))
        for prefix, measure in MEASURES.items():
            note = f"{POPULATION}; {_first(rows, prefix)}"
            out.append(_real(share_answer(results, kind, model, row, prefix=prefix, measure=measure, note=note)))
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
    if answer.measure == MEASURES["pass_fail_"]:
        return (
            "P(Pass->Fail | passed) is how often a real model's own repair step broke code that already passed the "
            "benchmark; each set is one published run, its own population, never pooled with another or with a "
            "simulated row."
        )
    return ""


for _kind in (
    AnswerKind(
        KIND,
        "rq2",
        MEASURES["pass_fail_"],
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
