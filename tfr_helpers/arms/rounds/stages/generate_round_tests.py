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

from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundTests
from tfr_helpers.models.provider_table import is_replayed
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import TASK_PARTS
from tfr_helpers.pipeline.engine.artifacts import save_call
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, item_replies
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.tester_replies import TESTER_PARTS, TestPlace, reply_tests, tester_call
from tfr_helpers.records import GeneratedTest, Task, TestGenerationFailure, TestKind, sample_index_suffix

register_record_type(RoundTests)


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

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


def fresh_suites(ctx: RunContext, coder: str) -> bool:
    """Whether ``coder``'s chains get a fresh suite per round (``fresh`` and a tester that can write one)."""
    return ARM.settings(ctx.config).round_tests == "fresh" and not is_replayed(ctx.config.models.tester_for(coder))


def round_test_items(ctx: RunContext, inputs: InputRecords) -> list[RoundTestJob]:
    """One job per (refined coder with fresh suites, task, kind, round 2..R); none when ``rounds`` is 1."""
    config = ctx.config
    rounds = ARM.settings(config).rounds
    counts: list[tuple[TestKind, int]] = [("ebt", config.ebts_per_task), ("pbt", config.pbts_per_task)]
    jobs = []
    for model in config.models.coder_names:
        if not ARM.enabled(config) or not scope.refines(config, model) or not fresh_suites(ctx, model):
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
        tester_call(item.tester, item.task, item.kind, item.count, sample_index=(item.round - 1) * item.samples + s)
        for item in items
        for s in range(item.samples)
    ]
    out: list[RoundTests | Undone] = []
    for item, mine in item_replies(items, ctx.call_models(jobs, stage="generate_round_tests")):
        if isinstance(mine, Undone):
            out.append(mine)
            continue
        task_id = item.task.task_id
        tests: list[GeneratedTest] = []
        failures: list[TestGenerationFailure] = []
        for s, result in enumerate(mine):
            sample = (item.round - 1) * item.samples + s
            call = save_call(ctx, item.model, task_id, f"r{item.round}_{item.kind}" + sample_index_suffix(s), result)
            place = _round_place(item)
            for record in reply_tests(
                ctx, item.model, item.task, item.kind, (result, call, sample), item.count, len(tests), place
            ):
                if isinstance(record, GeneratedTest):
                    tests.append(record)
                else:
                    failures.append(record)
        out.append(
            RoundTests(model=item.model, task_id=task_id, kind=item.kind, round=item.round, tests=tests, failures=failures)
        )
    return out


def _round_place(item: RoundTestJob) -> TestPlace:
    """A round's test ids and artifacts: ``<coder>|<task>|<kind>|r<k>|<i>``, ``rounds/r<k>/tests/<kind>_<i>.py``."""
    prefix, folder = f"{item.model}|{item.task.task_id}|{item.kind}|r{item.round}", f"rounds/r{item.round}/tests"
    return lambda index: (f"{prefix}|{index}", f"{folder}/{item.kind}_{index}.py")


STAGE = Stage(
    "generate_round_tests",
    generate_round_tests,
    round_test_items,
    "round_tests",
    lambda r: f"{r.model}|{r.task_id}|{r.kind}|r{r.round}",
    inputs=Inputs(settings=("refinement.rounds", "refinement.round_tests", *TASK_PARTS, *TESTER_PARTS)),
    produces=(RoundTests,),
)
