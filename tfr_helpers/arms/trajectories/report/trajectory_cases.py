"""Replayed trajectory steps as cases: one step in words (the logged attempts it joins, the diff between them, its
failing tests with tfr's verdicts, its transition) for the case browser, and ``trajectory_cases_<set>.md``, every
step of one set traced as in ``refinement_cases.md`` (Setup -> RQ1 -> RQ2), linked from the end of that file.

A step is attempt k, the feedback logged after it, attempt k + 1. The step records (the arm's part of ``results.json``) hold
tfr's judgement only; the code and the feedback text are read back from the set's log (the same loader the study
used, cached per process). A log that can no longer be read leaves its steps without code, saying why; the rest
still shows. The arm keeps no artifact files of its own: the links are the published log's, named with its pinned
commit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tfr_helpers.analysis.tidy.diffs import unified_diff
from tfr_helpers.analysis.tidy.screeners import model_callers, run_screeners
from tfr_helpers.arms.trajectories.arm import ARM, part_in
from tfr_helpers.arms.trajectories.records.trajectories import TrajectorySetInfo, TrajectoryStepEvaluation
from tfr_helpers.arms.trajectories.records.trajectory_screening import TrajectoryStepScreening
from tfr_helpers.errors import TfrError
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.records import Results
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory, TrajectoryAttempt
from tfr_helpers.replay.trajectories.sets import load_trajectories

CLASS_MEANING = {
    "reliable": "every reproduced failing test passes the reference: the feedback is right about the code",
    "unreliable": "every reproduced failing test fails the reference too: the feedback blames the code for wrong tests",
    "mixed": "some reproduced failing tests pass the reference, some fail it",
    "indeterminate": "set aside: a failing test's verdict depends on the machine (a guard timeout or crash, again "
    "when run alone)",
    "not_reproduced": "not judged: tfr's run of the logged failing tests on the code before fails none of them, or "
    "the feedback is a harness fault",
    "not_evaluable": "not judged: the task cannot be judged offline",
}
"""Step class -> what it says about the feedback."""


def step_order(step: TrajectoryStepEvaluation) -> tuple[str, list[str | int], int]:
    """Steps by set, task (``HumanEval/2`` before ``HumanEval/10``) and step."""
    task: list[str | int] = [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", step.task_id)]
    return step.dataset, task, step.step


def set_label(model: str, dataset: str) -> str:
    """``GPT-4o · reflexion-gpt4o-bcb``: the model and its published run, the name a set's rows carry."""
    return f"{model} · {dataset}"


def config_entries(results: Results) -> list[str]:
    """The run's ``trajectories`` entries, from its configuration."""
    value = results.config.get("trajectories") or []
    return [str(e) for e in value] if isinstance(value, list) else []


@dataclass(frozen=True)
class LoggedSets:
    """The logged trajectories of a run's sets, by (set, task id), and why a set could not be read."""

    trajectories: Mapping[tuple[str, str], Trajectory] = field(default_factory=dict)
    problems: Mapping[str, str] = field(default_factory=dict)
    """Entry -> the one-line error of a log that could not be read."""

    def of(self, step: TrajectoryStepEvaluation) -> Trajectory | None:
        """The trajectory a step belongs to (None when its log could not be read)."""
        return self.trajectories.get((step.dataset, step.task_id))

    def missing_note(self) -> str:
        """Why some steps have no code ("" when every log was read)."""
        return "; ".join(f"{e}: {p}" for e, p in self.problems.items())


def logged_sets(results: Results) -> LoggedSets:
    """Every configured set's trajectories, read back from its log."""
    found: dict[tuple[str, str], Trajectory] = {}
    problems: dict[str, str] = {}
    for entry in config_entries(results):
        try:
            loaded = load_trajectories(entry)
        except TfrError as exc:
            problems[entry] = str(exc).splitlines()[0]
            continue
        found |= {(loaded.name, t.task_id): t for t in loaded.trajectories}
    return LoggedSets(found, problems)


def set_infos(results: Results) -> dict[str, TrajectorySetInfo]:
    """Set name -> what results.json says of it."""
    part = part_in(results)
    return {s.name: s for s in part.sets} if part is not None else {}


def attempts_of(trajectory: Trajectory | None, step: int) -> tuple[TrajectoryAttempt | None, TrajectoryAttempt | None]:
    """Attempt k and attempt k + 1 of a step (None where the log is not available)."""
    if trajectory is None or step + 1 >= len(trajectory.attempts):
        return None, None
    return trajectory.attempts[step], trajectory.attempts[step + 1]


def code_diff(before: str, after: str, step: int) -> str:
    """Unified diff of attempt k against attempt k + 1 (``identical`` when the model resubmitted the same code)."""
    diff = unified_diff(before, after, f"attempt {step}", f"attempt {step + 1}")
    return diff or f"attempt {step + 1} is identical to attempt {step}"


def _verdict(passed: bool | None) -> str:
    return "no verdict" if passed is None else ("pass" if passed else "fail")


def step_title(step: TrajectoryStepEvaluation) -> str:
    """``step 0 (attempt 0 -> 1) · unreliable · pass->fail``."""
    return (
        f"step {step.step} (attempt {step.step} -> {step.step + 1}) · {step.step_class} · {step.transition or 'no verdict'}"
    )


def class_text(step: TrajectoryStepEvaluation) -> str:
    """The step's class, what it means, and its reason where it was not judged."""
    text = f"{step.step_class}: {CLASS_MEANING[step.step_class]}"
    return text + (f" ({step.reason})" if step.reason else "")


def failing_tests_text(step: TrajectoryStepEvaluation, attempt: TrajectoryAttempt | None) -> str:
    """Each failing test of the feedback: its source as logged, what the log said, and tfr's verdicts on the code
    before, on the reference and on the code after (with RQ1's cause when the reference fails it)."""
    if not step.tests:
        return "no failing test was run again" + (f" ({step.reason})" if step.reason else "")
    logged: dict[str, LoggedTest] = {t.name: t for t in (attempt.tests if attempt else [])}
    blocks = []
    for v in step.tests:
        test = logged.get(v.name)
        lines = [f"{v.name} ({v.kind})"]
        if test is not None:
            source = test.source if v.kind == "assert" else f"{test.name} of the row's test_cases"
            lines.append(f"  test: {source}")
            if test.logged_output is not None:
                lines.append(f"  logged output: {test.logged_output}")
        lines.append(
            f"  tfr: code before {v.on_code or 'not run'} (reproduced: {'yes' if v.reproduced else 'no'}); "
            f"reference {v.on_reference or 'not run'}; code after {v.after or 'not run'}"
        )
        if v.cause or v.reference_message:
            lines.append(f"  the reference fails it: {v.cause or 'unknown cause'}; {v.reference_message or ''}".rstrip("; "))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def transition_text(step: TrajectoryStepEvaluation) -> str:
    """The benchmark verdicts of the code before and after, the plus tier where there is one, the generated-test
    diagnostic, and the benchmark test the code after failed, with its message."""
    if step.transition is None:
        return f"no benchmark verdict: {step.reason or 'the task was not judged'}"
    lines = [f"benchmark tests: code before {_verdict(step.benchmark_before)}, code after {_verdict(step.benchmark_after)}"]
    if step.tiers_before is not None or step.tiers_after is not None:
        before = step.tiers_before.plus if step.tiers_before else None
        after = step.tiers_after.plus if step.tiers_after else None
        lines.append(f"EvalPlus plus tier: code before {_verdict(before)}, code after {_verdict(after)}")
    if step.logged_tests_after is not None:
        lines.append(
            "the code after "
            + ("passes" if step.logged_tests_after else "still fails")
            + " the feedback's reproduced failing tests"
        )
    if step.benchmark_after is False:
        lines.append(
            "the benchmark test the code after failed: " + (step.failure_after or "not recorded (a run from before)")
        )
    return "\n".join(lines)


def judges_offline(results: Results) -> str:
    """What the RQ3 row says of the run's LLM judges (its screeners that call a model, as they declare): a replayed
    step is screened only by the strategies that need no model."""
    judges = model_callers(run_screeners(results))
    if not judges:
        return "the run names no LLM judge (no screener that calls a model)"
    return f"the LLM judges ({', '.join(judges)}) need a model: not run on a replayed step"


def screening_of(results: Results) -> dict[tuple[str, str, int], TrajectoryStepScreening]:
    """(set, task, step) -> the reference-free screeners' decisions on the step's reproduced failing tests."""
    part = part_in(results)
    return {(s.dataset, s.task_id, s.step): s for s in (part.screening if part is not None else [])}


def screening_text(screened: TrajectoryStepScreening | None) -> str:
    """RQ3 on one step, offline: each reference-free strategy's decision on each reproduced failing test
    (``offline, reference-free: accept_all accept; reject_test_code_errors accept``)."""
    if screened is None or not screened.tests:
        return "not screened (no reproduced failing test)"
    strategies = screened.strategies or list(dict.fromkeys(k for t in screened.tests for k in t.decisions))
    decided = [f"{s} {'/'.join(str(t.decisions.get(s, 'none')) for t in screened.tests)}" for s in strategies]
    return f"offline, reference-free: {'; '.join(decided)}"


@dataclass(frozen=True)
class StepSection:
    """One titled block of a step: ``code`` (a program, a diff) or text."""

    title: str
    text: str
    code: bool = False


def step_sections(step: TrajectoryStepEvaluation, logs: LoggedSets) -> list[StepSection]:
    """A step's blocks: the code before, the diff to the code after, the feedback as logged, the class with the failing
    tests and tfr's verdicts, the transition (the case browser's sections, ``trajectory_cases_<set>.md``'s blocks)."""
    before, after = attempts_of(logs.of(step), step.step)
    missing = f"not available: the set's log could not be read ({logs.missing_note() or 'no such trajectory'})"
    feedback = (before.feedback or "no feedback text logged") if before else missing
    return [
        StepSection(f"Code before (attempt {step.step})", before.code if before else missing, True),
        StepSection(
            f"Diff to the code after (attempt {step.step} -> {step.step + 1})",
            code_diff(before.code, after.code, step.step) if before and after else missing,
            True,
        ),
        StepSection(f"Feedback shown to the model, as logged ({step.feedback_format})", feedback),
        StepSection(f"Step class: {class_text(step)}", failing_tests_text(step, before)),
        StepSection(f"Transition: {step.transition or 'no verdict'}", transition_text(step)),
    ]


ORDER = {"unreliable": 0, "mixed": 1, "reliable": 2, "indeterminate": 3, "not_reproduced": 4, "not_evaluable": 5}
"""Steps are listed by task and step; the summary at the top counts them per class in this order."""


def trajectory_file_name(dataset: str) -> str:
    """``trajectory_cases_<set>.md``: the file listing one replayed set's steps."""
    return "trajectory_cases_" + "".join(c if c.isalnum() or c in "-." else "_" for c in dataset) + ".md"


def _fence(text: str, lang: str = "") -> list[str]:
    ticks = "````" if "```" in text else "```"
    return [f"{ticks}{lang}", text.rstrip("\n"), ticks]


def _step(
    number: int,
    step: TrajectoryStepEvaluation,
    logs: LoggedSets,
    previous: int | None,
    screened: TrajectoryStepScreening | None,
    judges: str,
) -> list[str]:
    """A step's table and blocks; its code before is shown in full unless it is the code after of step ``previous``
    listed just above (the same trajectory's step before: its code before with its diff applied); ``judges``: what the
    RQ3 row says of the LLM judges (:func:`judges_offline`)."""
    before = "n/a" if step.benchmark_before is None else ("pass" if step.benchmark_before else "fail")
    lines = [f"## {number}. {step.task_id} · {step_title(step)}", ""]
    lines += [
        "| Study part | Step | Details | Result |",
        "| --- | --- | --- | --- |",
        f"| Setup | Attempt {step.step} | the logged code (below) | benchmark {before} |",
        f"| RQ1 | Feedback after attempt {step.step} | {step.feedback_format} format, {len(step.tests)} failing tests "
        f"run again | {step.step_class} |",
        f"| RQ2 | Attempt {step.step + 1} | diff below | {step.transition or 'no verdict'} |",
        f"| RQ3 | Judges' Accept/Reject of the failing tests | {judges} | {screening_text(screened)} |",
        "",
    ]
    for index, block in enumerate(step_sections(step, logs)):
        if index == 0 and previous is not None:
            lines += [f"**{block.title}**: the code after in {previous}. above (that code before, its diff applied).", ""]
            continue
        lang = ("diff" if block.title.startswith("Diff") else "python") if block.code else ""
        lines += [f"**{block.title}**", "", *_fence(block.text, lang), ""]
    return lines


def render_trajectory_cases(results: Results, info: TrajectorySetInfo, logs: LoggedSets) -> str:
    """Markdown of one set's steps."""
    part = results.part(ARM)
    steps = sorted((s for s in part.steps if s.dataset == info.name), key=step_order)
    counts = {c: sum(s.step_class == c for s in steps) for c in ORDER}
    published = info.origin == "published"
    kind = "real data, replayed" if published else "hand-written worked examples, not evidence"
    lines = [f"# Trajectory cases: {set_label(info.model, info.name)} ({kind}), run {results.run_name}", ""]
    where = "Real self-repair steps from a published log" if published else "Steps written by hand to illustrate the study"
    lines += [
        f"> {where} ({info.source}, {info.license}); protocol: {info.protocol}.",
        "",
        f"{len(steps)} steps of {info.tasks} tasks: " + ", ".join(f"{c} {n}" for c, n in counts.items()) + ".",
        "",
    ]
    screened, judges = screening_of(results), judges_offline(results)
    for number, step in enumerate(steps, start=1):
        last = steps[number - 2] if number > 1 else None
        chained = last is not None and (last.task_id, last.step + 1) == (step.task_id, step.step)
        previous = number - 1 if chained and logs.of(step) is not None else None
        lines += _step(number, step, logs, previous, screened.get((step.dataset, step.task_id, step.step)), judges)
    return "\n".join(lines)


def write_trajectory_cases(results: Results, directory: Path) -> list[tuple[str, TrajectorySetInfo, int]]:
    """Write one ``trajectory_cases_<set>.md`` per replayed set into ``directory``; returns (file name, set, steps)."""
    trajectories = part_in(results)
    if trajectories is None:
        return []
    logs = logged_sets(results)
    written = []
    for info in set_infos(results).values():
        name = trajectory_file_name(info.name)
        atomic_write_text(directory / name, render_trajectory_cases(results, info, logs))
        steps = sum(s.dataset == info.name for s in trajectories.steps)
        written.append((name, info, steps))
    return written
