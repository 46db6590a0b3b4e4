"""The case browser's rows of the replayed trajectories: one ``trajectory step`` case per step of every set (real
data), listed by set, task and step so that filtering to a set and a task steps through one trajectory attempt by
attempt.

Facets: ``set``, ``task``, ``step class``, ``transition``, ``step`` (the step's index). Sections: the code before,
the diff to the code after, the feedback as logged, the failing tests with tfr's verdicts (the code before, the
reference, the code after), and the transition.
"""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.analysis.arms.trajectory_steps import (
    LoggedSets,
    attempts_of,
    class_text,
    code_diff,
    failing_tests_text,
    logged_sets,
    set_label,
    step_title,
    transition_text,
)
from tfr_helpers.records import Results
from tfr_helpers.records.trajectories import TrajectoryStepEvaluation
from tfr_helpers.views.case_rows import CaseRow, CaseSection, cap, register_case_rows
from tfr_helpers.views.trajectories import with_trajectories

KIND = "trajectory step"


def step_row(step: TrajectoryStepEvaluation, logs: LoggedSets) -> CaseRow:
    """The case row of one step."""
    before, after = attempts_of(logs.of(step), step.step)
    missing = f"not available: the set's log could not be read ({logs.missing_note() or 'no such trajectory'})"
    sections = [
        CaseSection(f"Code before (attempt {step.step})", cap(before.code) if before else missing, "code"),
        CaseSection(
            f"Diff to the code after (attempt {step.step} -> {step.step + 1})",
            cap(code_diff(before.code, after.code, step.step)) if before and after else missing,
            "code",
        ),
        CaseSection(
            f"Feedback shown to the model, as logged ({step.feedback_format})",
            cap(before.feedback) if before and before.feedback else ("no feedback text logged" if before else missing),
        ),
        CaseSection(f"Step class: {class_text(step)}", failing_tests_text(step, before)),
        CaseSection(f"Transition: {step.transition or 'no verdict'}", transition_text(step)),
    ]
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
