"""Building trajectories from logged attempts, step by step: a step that cannot be used is recorded with its reason.

Shared by both readers (the Reflexion log adapter and the package's own import format): each hands over, per task,
the logged id, the entry point it names and the attempts (code, feedback, tests). Here the task is joined to the
project's benchmark loaders by id and checked by entry-point name (never by prompt text: MultiPL-E rewrote the
HumanEval prompts), and each step (attempt k -> k+1) is kept or recorded as unusable:

- the task id is unknown, or names a task whose entry point differs from the logged one: every step;
- attempt k or k+1 is not a whole function (it does not define the entry point: a logged body);
- no feedback was logged after attempt k.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.registry import benchmark_of_id
from tfr_helpers.errors import DataError
from tfr_helpers.records import Task
from tfr_helpers.replay.trajectories.logged import Trajectory, TrajectoryAttempt, UnusableStep

_MULTIPL_E = re.compile(r"^(HumanEval|mbpp)_(\d+)_(\w+)$")
_PREFIX = {"HumanEval": "HumanEval/", "mbpp": "MBPP/"}


def native_id(logged: str) -> str:
    """The benchmark's own id of a logged task name: ``BigCodeBench/13`` as is, MultiPL-E's ``HumanEval_85_add``
    -> ``HumanEval/85`` (``mbpp_3_is_not_prime`` -> ``MBPP/3``)."""
    found = _MULTIPL_E.match(logged.strip())
    return f"{_PREFIX[found.group(1)]}{found.group(2)}" if found else logged.strip()


@dataclass(frozen=True)
class LoggedRow:
    """One task as a log holds it, before the join."""

    name: str
    """The logged id (``task_id`` or ``name``)."""
    entry_point: str | None
    """The entry point the log names (None: not logged, the benchmark's is used)."""
    attempts: tuple[TrajectoryAttempt, ...]
    prompt: str = ""
    """The prompt the model was given, where logged (only its import lines are used)."""


_IMPORT = re.compile(r"^(?:import [\w., ]+|from [\w.]+ import [\w., *]+)\s*$")


def preamble(*prompts: str) -> str:
    """The top-level, one-line import statements of ``prompts`` (``from __future__`` imports left out), in order and
    each once: what a benchmark's prompt puts before the completion it runs."""
    lines = [line.rstrip() for text in prompts for line in text.split("\n")]
    kept = [line for line in lines if _IMPORT.match(line) and not line.startswith("from __future__")]
    return "\n".join(dict.fromkeys(kept))


def _tasks(benchmark: str) -> dict[str, Task]:
    return {t.task_id: t for t in load_tasks(benchmark, selected=False)}


def defines(code: str, entry_point: str) -> bool:
    """Whether ``code`` is a whole function: it defines ``entry_point`` at the top level."""
    return re.search(rf"^(async\s+)?def\s+{re.escape(entry_point)}\s*\(", code, re.MULTILINE) is not None


def _step_problem(attempts: Sequence[TrajectoryAttempt], k: int, entry_point: str) -> str | None:
    if attempts[k].feedback is None:
        return f"no feedback was logged after attempt {k}"
    for index in (k, k + 1):
        if not defines(attempts[index].code, entry_point):
            return f"attempt {index} is not a whole function (it does not define {entry_point}): the log holds a body"
    return None


def build_trajectories(dataset: str, rows: Sequence[LoggedRow]) -> tuple[list[Trajectory], list[UnusableStep]]:
    """Join logged rows to benchmark tasks and sort their steps into usable and unusable ones.

    Args:
        dataset: The set's name (for the records).
        rows: The logged tasks, in log order.

    Returns:
        The trajectories (rows with at least one attempt and a known task) and every unusable step with its reason.
    """
    trajectories: list[Trajectory] = []
    unusable: list[UnusableStep] = []
    loaded: dict[str, dict[str, Task]] = {}
    for row in rows:
        steps = range(len(row.attempts) - 1)
        task_id = native_id(row.name)
        try:
            benchmark = benchmark_of_id(task_id).name
            task = loaded.setdefault(benchmark, _tasks(benchmark)).get(task_id)
        except DataError as exc:
            unusable += [UnusableStep(dataset=dataset, task=row.name, step=k, reason=str(exc)) for k in steps]
            continue
        if task is None or (row.entry_point and row.entry_point != task.entry_point):
            reason = (
                f"{task_id!r} is not a task of {benchmark}"
                if task is None
                else f"the log's entry point {row.entry_point!r} is not {task_id}'s ({task.entry_point!r})"
            )
            unusable += [UnusableStep(dataset=dataset, task=row.name, step=k, reason=reason) for k in steps]
            continue
        usable = []
        for k in steps:
            problem = _step_problem(row.attempts, k, task.entry_point)
            if problem is None:
                usable.append(k)
            else:
                unusable.append(UnusableStep(dataset=dataset, task=task_id, step=k, reason=problem))
        trajectories.append(
            Trajectory(
                dataset=dataset,
                task_id=task_id,
                benchmark=benchmark,
                entry_point=task.entry_point,
                attempts=list(row.attempts),
                usable_steps=usable,
                preamble=preamble(task.description, task.signature, row.prompt),
            )
        )
    return trajectories, unusable


def benchmarks_of(trajectories: Sequence[Trajectory], where: str) -> str:
    """The benchmarks of a set's trajectories, sorted and joined by ``+`` (a set may mix benchmarks).

    Raises:
        DataError: The set holds no trajectory of a known task.
    """
    benchmarks = sorted({t.benchmark for t in trajectories})
    if not benchmarks:
        raise DataError(f"{where}: no row names a task of a known benchmark; see docs/replay.md for task ids")
    return "+".join(benchmarks)
