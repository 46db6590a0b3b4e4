"""The case browser's rows of the replayed trajectories: one ``trajectory step`` case per step of every set (real
data), listed by set, task and step so that filtering to a set and a task steps through one trajectory attempt by
attempt.

Facets: ``set``, ``task``, ``step class``, ``transition``, ``step`` (the step's index). Sections: the code before,
the diff to the code after, the feedback as logged, the failing tests with tfr's verdicts (the code before, the
reference, the code after), and the transition.
"""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.analysis.arms.trajectory_steps import LoggedSets, logged_sets, set_label, step_sections, step_title
from tfr_helpers.records import Results
from tfr_helpers.records.trajectories import TrajectoryStepEvaluation
from tfr_helpers.views.case_rows import CaseRow, CaseSection, cap, register_case_rows
from tfr_helpers.views.trajectories import with_trajectories

KIND = "trajectory step"


def step_row(step: TrajectoryStepEvaluation, logs: LoggedSets) -> CaseRow:
    """The case row of one step."""
    sections = [CaseSection(b.title, cap(b.text), "code" if b.code else "text") for b in step_sections(step, logs)]
    return CaseRow(
        id=step.key,
        kind=KIND,
        model=set_label(step.model, step.dataset),
        source="replayed",
        benchmark=step.benchmark,
        task_id=step.task_id,
        summary=f"{step.task_id} · {step_title(step)}",
        facets={
            "set": step.dataset,
            "task": step.task_id,
            "step class": step.step_class,
            "transition": step.transition or "no verdict",
            "step": str(step.step),
        },
        sections=tuple(sections),
    )


@register_case_rows
def trajectory_step_rows(results: Results, run_dir: Path) -> list[CaseRow]:
    """Every replayed trajectory step of the run as a case row (none when the run replays no trajectory)."""
    results = with_trajectories(results, run_dir)
    if results.trajectories is None:
        return []
    logs = logged_sets(results)
    steps = sorted(results.trajectories.steps, key=lambda s: (s.dataset, s.task_id, s.step))
    return [step_row(s, logs) for s in steps]
