"""Stage generate_round_tests: fresh test suites for rounds 2..R (``refinement.round_tests: fresh``).

A suite comes from the task description alone, like ``generate_tests``' (round 1's suite), so every round's
suite is generated up front, before any chain runs. Round k's suite of a (coder, task, kind) is the tester's
samples ``(k-1)*n .. k*n-1`` where ``n`` is the coder's ``test_samples_per_task``: round 1 is samples
``0..n-1`` (``generate_tests``), so a fresh suite is the tester's next answers to the same prompt (the
simulated tester draws new tests for another sample index; a live provider gets another sample).
A replayed tester cannot write more suites: its coder's chains use round 1's suite (``rounds_chains``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.models import parse_tests
from tfr_helpers.models.jobs import CallJob, task_variables
from tfr_helpers.models.providers import is_replayed
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.artifacts import save_call
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, call_fault, note_truncation
from tfr_helpers.pipeline.engine.stage import CONTROL_ARM_PARTS, Stage, StageRecords
from tfr_helpers.records import GeneratedTest, Task, TestGenerationFailure, TestKind, sample_index_suffix
from tfr_helpers.records.rounds import RoundTests

register_record_type(RoundTests)

SUITE_UNAFFECTED_BY = (
    "screening",
    "refinement.oracle_repair",
    "refinement.stop_when_passing",
    "refinement.rounds",
    "refinement.round_tests",
    *CONTROL_ARM_PARTS,
)
"""Parts whose change leaves the fresh suites valid: round k's suite does not depend on R, on the suite mode (with
``same`` there are no items, so no suite is loaded), on stopping, screening, the oracle arm or the controls."""


@dataclass(frozen=True)
class RoundTestJob:
    """Ask coder ``model``'s tester for round ``round``'s ``kind`` tests of ``task`` (``samples`` calls)."""

    model: str
    tester: str
    task: Task
    kind: TestKind
    count: int
    round: int
    samples: int

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}|{self.kind}|r{self.round}"


def fresh_suites(ctx: RunContext, coder: str) -> bool:
    """Whether ``coder``'s chains get a fresh suite per round (``fresh`` and a tester that can write one)."""
    return ctx.config.refinement.round_tests == "fresh" and not is_replayed(ctx.config.models.tester_for(coder))


def round_test_items(ctx: RunContext, records: StageRecords) -> list[RoundTestJob]:
    """One job per (refined coder with fresh suites, task, kind, round 2..R); none when ``rounds`` is 1."""
    config = ctx.config
    rounds = config.refinement.rounds
    counts: list[tuple[TestKind, int]] = [("ebt", config.ebts_per_task), ("pbt", config.pbts_per_task)]
    jobs = []
    for model in config.models.coder_names:
        if rounds < 2 or not scope.refines(config, model) or not fresh_suites(ctx, model):
            continue
        tester, samples = config.models.tester_for(model), config.test_samples_for(model)
        for task in scope.coder_tasks(config, ctx.tasks, model):
            for kind, n in counts:
                jobs += [RoundTestJob(model, tester, task, kind, n, r, samples) for r in range(2, rounds + 1) if n]
    return jobs


def generate_round_tests(items: Sequence[RoundTestJob], ctx: RunContext) -> list[RoundTests | Undone]:
    """Call the tester for each round's suite and split the replies into tests.

    Args:
        items: One job per (coder, task, kind, round).
        ctx: The run context.

    Returns:
        One :class:`RoundTests` per job, or :class:`Undone` when one of its calls got no reply.
    """

    jobs = [
        CallJob(
            item.tester,
            "tester",
            item.kind,
            {**task_variables(item.task), "n_tests": str(item.count)},
            item.task,
            sample_index=(item.round - 1) * item.samples + s,
        )
        for item in items
        for s in range(item.samples)
    ]
    results = iter(ctx.call_models(jobs, stage="generate_round_tests"))
    out: list[RoundTests | Undone] = []
    for item in items:
        mine = [next(results) for _ in range(item.samples)]
        faults = [f for f in map(call_fault, mine) if f is not None]
        if faults:
            out.append(Undone(item.key, faults[0]))
            continue
        task_id = item.task.task_id
        tests: list[GeneratedTest] = []
        failures: list[TestGenerationFailure] = []
        for s, result in enumerate(mine):
            sample = (item.round - 1) * item.samples + s
            call = save_call(ctx, item.model, task_id, f"r{item.round}_{item.kind}" + sample_index_suffix(s), result)
            parsed = parse_tests(result.text or "", item.kind, item.task.entry_point, max_tests=item.count)
            dropped = [f"{d.name}: {d.reason}" for d in parsed.dropped]
            if not parsed.tests:
                error = note_truncation(parsed.error or "no test found in the response", call)
                failures.append(
                    TestGenerationFailure(
                        model=item.model,
                        task_id=task_id,
                        kind=item.kind,
                        parse_error=error,
                        call=call,
                        sample_index=sample,
                        dropped_tests=dropped,
                    )
                )
            for test in parsed.tests:
                index = len(tests)
                name = f"rounds/r{item.round}/tests/{item.kind}_{index}.py"
                tests.append(
                    GeneratedTest(
                        test_id=f"{item.model}|{task_id}|{item.kind}|r{item.round}|{index}",
                        model=item.model,
                        task_id=task_id,
                        kind=item.kind,
                        index=index,
                        sample_index=sample,
                        name=test.name,
                        source=test.source,
                        call=call,
                        test_path=ctx.store.artifact(item.model, task_id, name, test.source),
                        dropped_tests=dropped,
                    )
                )
        out.append(
            RoundTests(model=item.model, task_id=task_id, kind=item.kind, round=item.round, tests=tests, failures=failures)
        )
    return out


STAGE = Stage(
    "generate_round_tests",
    generate_round_tests,
    round_test_items,
    "round_tests",
    lambda r: f"{r.model}|{r.task_id}|{r.kind}|r{r.round}",
    unaffected_by=SUITE_UNAFFECTED_BY,
)
