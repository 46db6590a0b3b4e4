"""Stage evaluate_round_suites: the reference on every fresh suite (rounds 2..R).

Measurement only: whether the reference passes a test gives the suite's precision and the reliability of the
feedback that test produces; neither is ever shown to the refiner. One sandbox run per suite (all its tests),
first run only (RQ1's reliability label is the first run's verdict too; causes are not broken down per round).
Round 1's suite is ``generate_tests``', whose reference verdicts are in ``evaluate_code_test_pairs``' records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.arms.rounds.records import RoundSuite, RoundTests
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.pair_runs import test_spec
from tfr_helpers.records import GeneratedTest, Task

register_record_type(RoundSuite)


@dataclass(frozen=True)
class SuiteJob:
    """Run the reference of ``task`` on coder ``model``'s suite of round ``round``."""

    model: str
    task: Task
    round: int
    tests: tuple[GeneratedTest, ...]

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}|r{self.round}"

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


def suite_tests(generated: Sequence[RoundTests]) -> dict[tuple[str, str, int], list[GeneratedTest]]:
    """(coder, task, round) -> the round's suite in suite order (EBTs, then PBTs), from the fresh suites."""
    suites: dict[tuple[str, str, int], list[GeneratedTest]] = {}
    for kind in ("ebt", "pbt"):
        for rt in generated:
            if rt.kind == kind:
                suites.setdefault((rt.model, rt.task_id, rt.round), []).extend(rt.tests)
    return suites


def suite_items(ctx: RunContext, inputs: InputRecords) -> list[SuiteJob]:
    """One job per fresh suite, in (coder, task, round) order of the suites generated."""
    suites = suite_tests(inputs.of(RoundTests))
    return [SuiteJob(m, ctx.tasks[t], r, tuple(tests)) for (m, t, r), tests in suites.items()]


def evaluate_round_suites(items: Sequence[SuiteJob], ctx: RunContext) -> list[RoundSuite]:
    """Run each suite on its task's reference.

    Args:
        items: One job per (coder, task, round >= 2).
        ctx: The run context.

    Returns:
        One :class:`RoundSuite` per job, in order.
    """
    runnable = [item for item in items if item.tests]
    runs = ctx.run_programs(
        [(i.task.reference, [test_spec(t) for t in i.tests]) for i in runnable],
        desc="round suites: reference",
        generated=True,
    )
    by_item = {id(item): run for item, run in zip(runnable, runs, strict=True)}
    out = []
    for item in items:
        run = by_item.get(id(item))
        passed = [o.status == "passed" for o in run.outcomes] if run is not None else []
        out.append(
            RoundSuite(
                model=item.model,
                task_id=item.task.task_id,
                round=item.round,
                test_ids=[t.test_id for t in item.tests],
                reference_passed=passed,
            )
        )
    return out


STAGE = Stage(
    "evaluate_round_suites",
    evaluate_round_suites,
    suite_items,
    "round_suites",
    lambda r: f"{r.model}|{r.task_id}|r{r.round}",
    sandboxed=True,
    inputs=Inputs(records=(RoundTests,), settings=("refinement.rounds", "refinement.round_tests", *PROGRAM_RUN_PARTS)),
    produces=(RoundSuite,),
)
