"""A refined program's evaluation: the benchmark tests decide its transition, the generated test its outcome.

One job class and one function for every arm that refines: the base study (:mod:`..stages.evaluate_refined_codes`),
the oracle-repaired arm and the control arm. Each gives its own artifact names and record class; what is run and
how the record's verdict fields are filled is the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.steps.evalplus_tiers import tiers_of
from tfr_helpers.pipeline.steps.labels import transition_of
from tfr_helpers.pipeline.steps.time_limits import run_benchmark
from tfr_helpers.records import GeneratedTest, Refinement, Task

R = TypeVar("R")
RefinementT = TypeVar("RefinementT", bound=Refinement)


@dataclass(frozen=True)
class RefinedJob(Generic[RefinementT]):
    """One refinement attempt to evaluate, in any arm; ``before`` is the generated code's benchmark verdict."""

    task: Task
    refinement: RefinementT
    test: GeneratedTest
    """The generated test behind the feedback (in the oracle arm: the repaired test, with its repaired source)."""
    before: bool

    @property
    def key(self) -> str:
        """Checkpoint key: the attempt's (:attr:`Refinement.attempt_key`)."""
        return self.refinement.attempt_key

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.refinement.model, self.refinement.task_id


@dataclass(frozen=True)
class RefinedCheck:
    """One refined program to evaluate (``refinement.code`` None: no program, transition ``no_code``)."""

    refinement: Refinement
    task: Task
    test_spec: object
    """The sandbox spec of the generated test behind the feedback (the repaired test in the oracle arm)."""
    before: bool
    """The generated code's benchmark verdict."""
    benchmark_artifact: str
    """Artifact path (under ``<model>/<task>/``) of the benchmark run."""
    test_artifact: str | None = None
    """Artifact path of the generated-test run (None: not written)."""
    fields: Mapping[str, object] = field(default_factory=dict)
    """Further fields of the record (the control arm's ``control``)."""


def evaluate_refined(items: Sequence[RefinedCheck], ctx: RunContext, label: str, record: Callable[..., R]) -> list[R]:
    """Run each refined program on its task's benchmark tests and on its generated test.

    Args:
        items: The programs.
        ctx: The run context.
        label: Progress label (``refined``, ``oracle refined``...).
        record: The record class (``RefinedEvaluation`` or an arm's subclass with the same fields).

    Returns:
        One record per item, in order.
    """
    runnable = [item for item in items if item.refinement.code]
    jobs = [(i.refinement.code or "", i.task) for i in runnable]
    bench = run_benchmark(ctx, jobs, f"{label}: benchmark tests")  # under the run's time-limit policy
    tiers = tiers_of(ctx, jobs, bench, f"{label}: EvalPlus tiers")
    gen = ctx.run_programs(
        [(i.refinement.code or "", [i.test_spec]) for i in runnable],
        desc=f"{label}: generated test",
        generated=True,
    )
    runs = {id(item): (b, g) for item, b, g in zip(runnable, bench, gen, strict=True)}
    tiers_after = {id(item): t for item, t in zip(runnable, tiers, strict=True)}
    out = []
    for item in items:
        ref = item.refinement
        head = {"feedback_id": ref.feedback_id, "model": ref.model, "task_id": ref.task_id, **item.fields}
        if id(item) not in runs:
            out.append(
                record(
                    **head,
                    benchmark_before=item.before,
                    benchmark_after=None,
                    generated_test_after=None,
                    transition="no_code",
                )
            )
            continue
        bench_run, gen_run = runs[id(item)]
        path = ctx.store.artifact(ref.model, ref.task_id, item.benchmark_artifact, bench_run.model_dump_json(indent=1))
        if item.test_artifact is not None:
            ctx.store.artifact(ref.model, ref.task_id, item.test_artifact, gen_run.model_dump_json(indent=1))
        out.append(
            record(
                **head,
                benchmark_before=item.before,
                benchmark_after=bench_run.passed,
                generated_test_after=gen_run.outcomes[0] if gen_run.outcomes else None,
                transition=transition_of(item.before, bench_run.passed),
                benchmark_run_path=path,
                tiers_after=tiers_after[id(item)],
            )
        )
    return out
