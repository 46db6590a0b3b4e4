"""``trajectory_cases_<set>.md``: every step of one replayed trajectory set, traced as in ``refinement_cases.md``
(Setup -> RQ1 -> RQ2), one file per set, linked from the end of ``refinement_cases.md``.

A step is attempt k, the feedback logged after it, attempt k + 1. Its code comes from the set's log (the arm keeps no
artifact files of its own: the links are the published log's, named with its pinned commit).
"""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.analysis.arms.trajectory_steps import (
    LoggedSets,
    logged_sets,
    set_infos,
    set_label,
    step_sections,
    step_title,
)
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.records import Results
from tfr_helpers.records.trajectories import TrajectorySetInfo, TrajectoryStepEvaluation

ORDER = {"unreliable": 0, "mixed": 1, "reliable": 2, "not_reproduced": 3, "not_evaluable": 4}
"""Steps are listed by task and step; the summary at the top counts them per class in this order."""


def trajectory_file_name(dataset: str) -> str:
    """``trajectory_cases_<set>.md``: the file listing one replayed set's steps."""
    return "trajectory_cases_" + "".join(c if c.isalnum() or c in "-." else "_" for c in dataset) + ".md"


def _fence(text: str, lang: str = "") -> list[str]:
    ticks = "````" if "```" in text else "```"
    return [f"{ticks}{lang}", text.rstrip("\n"), ticks]


def _step(number: int, step: TrajectoryStepEvaluation, logs: LoggedSets) -> list[str]:
    before = "n/a" if step.benchmark_before is None else ("pass" if step.benchmark_before else "fail")
    lines = [f"## {number}. {step.task_id} · {step_title(step)}", ""]
    lines += [
        "| Study part | Step | Details | Result |",
        "| --- | --- | --- | --- |",
        f"| Setup | Attempt {step.step} | the logged code (below) | benchmark {before} |",
        f"| RQ1 | Feedback after attempt {step.step} | {step.feedback_format} format, {len(step.tests)} failing tests "
        f"run again | {step.step_class} |",
        f"| RQ2 | Attempt {step.step + 1} | diff below | {step.transition or 'no verdict'} |",
        "",
    ]
    for block in step_sections(step, logs):
        lang = ("diff" if block.title.startswith("Diff") else "python") if block.code else ""
        lines += [f"**{block.title}**", "", *_fence(block.text, lang), ""]
    return lines


def render_trajectory_cases(results: Results, info: TrajectorySetInfo, logs: LoggedSets) -> str:
    """Markdown of one set's steps."""
    assert results.trajectories is not None
    steps = sorted((s for s in results.trajectories.steps if s.dataset == info.name), key=lambda s: (s.task_id, s.step))
    counts = {c: sum(s.step_class == c for s in steps) for c in ORDER}
    lines = [f"# Trajectory cases: {set_label(info.model, info.name)} (real data, replayed), run {results.run_name}", ""]
    lines += [
        f"> Real self-repair steps from a published log ({info.source}, {info.license}); protocol: {info.protocol}.",
        "",
        f"{len(steps)} steps of {info.tasks} tasks: " + ", ".join(f"{c} {n}" for c, n in counts.items()) + ".",
        "",
    ]
    for number, step in enumerate(steps, start=1):
        lines += _step(number, step, logs)
    return "\n".join(lines)


def write_trajectory_cases(results: Results, directory: Path) -> list[tuple[str, TrajectorySetInfo, int]]:
    """Write one ``trajectory_cases_<set>.md`` per replayed set into ``directory``; returns (file name, set, steps)."""
    if results.trajectories is None:
        return []
    logs = logged_sets(results)
    written = []
    for info in set_infos(results).values():
        name = trajectory_file_name(info.name)
        atomic_write_text(directory / name, render_trajectory_cases(results, info, logs))
        steps = sum(s.dataset == info.name for s in results.trajectories.steps)
        written.append((name, info, steps))
    return written
