"""Notebook views of the replayed trajectories (real data): RQ2's real rows for notebook 02, a step-by-step
browser of one real trajectory for notebook 04 (each step's code diff, the feedback's failing tests with tfr's
verdict on the reference, the transition), and the offline case browser's ``trajectory step`` rows: one case per
step of every set, listed by set, task and step (facets ``set``, ``task``, ``step class``, ``transition``,
``step``), so that filtering to a set and a task steps through one trajectory attempt by attempt.

A run whose stages have not all finished has no ``results.json`` yet: the steps are then read from the arm's
checkpoint (and their screening from its own), so notebook 02 shows them as soon as its stages ran.
"""

from __future__ import annotations

import html
from pathlib import Path

from tfr_helpers.arms.trajectories.arm import ARM, part_in
from tfr_helpers.arms.trajectories.records.list_doses import TaskDose
from tfr_helpers.arms.trajectories.records.trajectories import TrajectoryStepEvaluation
from tfr_helpers.arms.trajectories.records.trajectory_outcomes import TrajectoryOutcome
from tfr_helpers.arms.trajectories.records.trajectory_screening import TrajectoryStepScreening
from tfr_helpers.arms.trajectories.report.trajectories import present
from tfr_helpers.arms.trajectories.report.trajectories_report import interpretation, rq2_table
from tfr_helpers.arms.trajectories.report.trajectory_cases import (
    LoggedSets,
    config_entries,
    logged_sets,
    set_label,
    step_order,
    step_sections,
    step_title,
)
from tfr_helpers.arms.trajectories.report.trajectory_figure import plot_real_rq2
from tfr_helpers.arms.trajectories.report.trajectory_rewards import plot_rewards
from tfr_helpers.arms.trajectories.report.trajectory_screening import downstream_table
from tfr_helpers.arms.trajectories.report.trajectory_steps_report import all_sets_table, bounds_table, contrast_table
from tfr_helpers.arms.trajectories.stages import (
    evaluate_trajectory_steps,
    judge_trajectory_outcomes,
    measure_test_lists,
    screen_trajectory_steps,
    trajectories_part,
)
from tfr_helpers.arms.trajectories.stages.screening_items import current_screening
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import Results
from tfr_helpers.replay.trajectories.logged import Trajectory
from tfr_helpers.replay.trajectories.sets import load_trajectories
from tfr_helpers.screener.dataset import checkpoint_records
from tfr_helpers.views.case_rows import CaseRow, CaseSection, RowSource, cap, register_row_source
from tfr_helpers.views.progress import results_so_far
from tfr_helpers.views.provenance import split_source
from tfr_helpers.views.render import _details, _pre, diff_html


def with_trajectories(results: Results, run_dir: str | Path) -> Results:
    """``results`` with its trajectories part, read from the arm's checkpoint while ``results.json`` is not written
    (unchanged when it has the part already, or the run replays no trajectory)."""
    entries = config_entries(results)
    if part_in(results) is not None or not entries:
        return results
    store = RunStore(Path(run_dir))
    steps = checkpoint_records(store, evaluate_trajectory_steps.CHECKPOINT, TrajectoryStepEvaluation)
    strategies = results.config.get("screening")
    screening = current_screening(
        checkpoint_records(store, screen_trajectory_steps.SCREENING_CHECKPOINT, TrajectoryStepScreening),
        [str(s) for s in strategies] if isinstance(strategies, list) else [],
    )
    outcomes = checkpoint_records(store, judge_trajectory_outcomes.CHECKPOINT, TrajectoryOutcome)
    doses = checkpoint_records(store, measure_test_lists.CHECKPOINT, TaskDose)
    part = trajectories_part(entries, steps, screening, outcomes, doses)
    return results.model_copy(update={"arm_parts": {**results.arm_parts, ARM.name: part}})


def trajectory_results(run_dir: str | Path) -> Results:
    """The run's results with its trajectories part (from the checkpoint while ``results.json`` is not written)."""
    return with_trajectories(results_so_far(run_dir), run_dir)


def trajectories_report(run_dir: str | Path) -> None:
    """Notebook 02's real RQ2 table (one row per set and feedback class), then, collapsed, each set's step classes,
    the conditional contrast and the bounds on the steps left out; or how to replay some."""
    from IPython.display import HTML, Markdown, display  # notebooks only

    results = trajectory_results(run_dir)
    if not present(results):
        display(Markdown("> This run replays no real trajectory: name sets in `trajectories` (docs/replay.md)."))
        return
    display(rq2_table(results))
    said = interpretation(results)
    if said:
        display(Markdown("> " + said))
    more = "".join(t.to_html() for t in (all_sets_table(results), contrast_table(results), bounds_table(results)))
    display(HTML(_details("Per set: step classes, the conditional contrast, the steps left out (bounds)", more)))


def real_rq2_figure(run_dir: str | Path) -> None:
    """Notebook 02's first figure: transitions by the feedback's step class per set, with the dose series
    (:func:`~tfr_helpers.arms.trajectories.report.trajectory_figure.plot_real_rq2`); or how to replay some."""
    from IPython.display import Markdown, display  # notebooks only

    results = trajectory_results(run_dir)
    if not present(results):
        display(Markdown("> This run replays no real trajectory: name sets in `trajectories` (docs/replay.md)."))
        return
    import matplotlib.pyplot as plt

    figure = plot_real_rq2(results)
    display(figure)
    plt.close(figure)  # shown once: the inline backend would draw an open figure again at the cell's end


def trajectory_rewards_figure(run_dir: str | Path) -> None:
    """Notebook 02's figure: own logged tests (r_obs) against the benchmark (r) per iteration, one panel per set
    (Menet et al.'s Figure 3 from real logs), or how to replay some."""
    from IPython.display import Markdown, display  # notebooks only

    results = trajectory_results(run_dir)
    if not present(results):
        display(Markdown("> This run replays no real trajectory: name sets in `trajectories` (docs/replay.md)."))
        return
    import matplotlib.pyplot as plt

    figure = plot_rewards(results)
    display(figure)
    plt.close(figure)  # shown once: the inline backend would draw an open figure again at the cell's end


def _trajectory(results: Results, dataset: str, task_id: str) -> Trajectory:
    for entry in config_entries(results):
        found = load_trajectories(entry)
        if found.name == dataset:
            return next(t for t in found.trajectories if t.task_id == task_id)
    raise KeyError(f"no trajectory of {task_id} in set {dataset}")


def _verdict(passed: bool | None) -> str:
    return "--" if passed is None else ("pass" if passed else "fail")


def step_html(trajectory: Trajectory, step: TrajectoryStepEvaluation) -> str:
    """One step: its class and transition, the code diff, the failing tests with tfr's verdicts, the raw feedback."""
    before, after = trajectory.attempts[step.step], trajectory.attempts[step.step + 1]
    head = (
        f"step {step.step} (attempt {step.step} -> {step.step + 1}): {step.step_class}"
        f"{' (' + step.reason + ')' if step.reason else ''}; benchmark {_verdict(step.benchmark_before)} -> "
        f"{_verdict(step.benchmark_after)} ({step.transition or 'no verdict'})"
    )
    rows = "".join(
        f"<tr><td><code>{html.escape(v.name[:120])}</code></td><td>{v.on_code}</td><td>{v.on_reference}</td>"
        f"<td>{v.after}</td><td>{v.cause or ''}</td></tr>"
        for v in step.tests
    )
    table = (
        "<table><tr><th>failing test (logged)</th><th>tfr: code before</th><th>tfr: reference</th>"
        f"<th>tfr: code after</th><th>cause</th></tr>{rows}</table>"
        if rows
        else "<i>no failing test run again</i>"
    )
    body = (
        _details("code diff (attempt k -> k+1)", diff_html(before.code, after.code), open_=True)
        + _details("failing tests, with tfr's verdicts", table, open_=True)
        + (_details("the benchmark test the code after failed", _pre(step.failure_after)) if step.failure_after else "")
        + _details(f"feedback shown to the model ({step.feedback_format})", _pre(before.feedback))
    )
    return _details(head, body, open_=True)


def trajectory_html(results: Results, dataset: str, task_id: str) -> str:
    """Every step of one real trajectory, attempt by attempt (HTML)."""
    part = results.part(ARM)
    steps = sorted((s for s in part.steps if s.dataset == dataset and s.task_id == task_id), key=lambda s: s.step)
    trajectory = _trajectory(results, dataset, task_id)
    title = f"<h4>{html.escape(dataset)} · {html.escape(task_id)} · real data, {len(steps)} steps</h4>"
    return title + "".join(step_html(trajectory, s) for s in steps)


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


def trajectory_step_rows(results: Results, run_dir: Path) -> list[CaseRow]:
    """Every replayed trajectory step of the run as a case row (none when the run replays no trajectory)."""
    results = with_trajectories(results, run_dir)
    trajectories = part_in(results)
    if trajectories is None:
        return []
    logs = logged_sets(results)
    steps = sorted(trajectories.steps, key=step_order)
    return [step_row(s, logs) for s in steps]


register_row_source(RowSource("trajectories", cases=trajectory_step_rows, order=30))


def provenance_rows(results: Results) -> list[dict[str, str]]:
    """One provenance row per replayed trajectory set of the run (``tfr_helpers.views.provenance.COLUMNS``)."""
    rows = []
    for info in p.sets if (p := part_in(results)) else []:
        repo, commit = split_source(info.source)
        kind = "self-repair trajectories" + ("" if info.origin == "published" else " (hand-written, not evidence)")
        rows.append(
            {"data": info.name, "kind": kind, "model": info.model, "spec": f"replay:{info.name}", "repository": repo}
            | {"commit": commit}
            | {"licence": info.license}
        )
    return rows


def screening_tables(results: Results) -> list[object]:
    """Notebook 03's tables of the reference-free strategies on the replayed steps' failing tests (one row per set
    and strategy: :func:`~.report.trajectory_screening.downstream_table`)."""
    return [downstream_table(results)]
