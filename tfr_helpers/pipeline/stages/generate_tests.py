"""Stage generate_tests: EBT and PBT responses from the task description alone, one record per test."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.models.jobs import CallResult
from tfr_helpers.models.provider_table import is_replayed
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import TASK_PARTS
from tfr_helpers.pipeline.engine.artifacts import save_call
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Undone, item_replies
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.tester_replies import TESTER_PARTS, reply_tests, tester_call
from tfr_helpers.records import GeneratedTest, Task, TestGenerationFailure, TestKind, sample_index_suffix


@dataclass(frozen=True)
class TestJob:
    """Ask the tester of coder ``model`` ``samples`` times for ``count`` tests of one kind for ``task``.

    ``count`` None keeps every test of a reply (a replayed test sample holds its tests as published).
    """

    model: str
    tester: str
    task: Task
    kind: TestKind
    count: int | None
    samples: int = 1

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}|{self.kind}"

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


def generate_tests(items: Sequence[TestJob], ctx: RunContext) -> list[GeneratedTest | TestGenerationFailure | Undone]:
    """Call the tester ``samples`` times per (coder, task, kind) and split each response into independent tests.

    The tester sees the task description only, never the generated code. Tests are numbered on across the
    samples of a job (sample 0's ids are those of a run with one sample).

    Args:
        items: One job per (coder model, task, kind).
        ctx: The run context.

    Returns:
        Per job and sample: up to ``count`` :class:`GeneratedTest`, or one :class:`TestGenerationFailure` when
        the response held no parseable test; one :class:`Undone` for a job one of whose calls got no reply.
    """
    jobs = [
        tester_call(item.tester, item.task, item.kind, item.count, sample_index=i)
        for item in items
        for i in range(item.samples)
    ]
    out: list[GeneratedTest | TestGenerationFailure | Undone] = []
    for item, mine in item_replies(items, ctx.call_models(jobs, stage="generate_tests")):
        if isinstance(mine, Undone):
            out.append(mine)
            continue
        numbered = 0
        for sample, result in enumerate(mine):
            records = _sample_tests(ctx, item, sample, result, first=numbered)
            numbered += sum(isinstance(r, GeneratedTest) for r in records)
            out += records
    return out


def _sample_tests(
    ctx: RunContext, item: TestJob, sample: int, result: CallResult, first: int
) -> list[GeneratedTest | TestGenerationFailure]:
    """The tests of one reply (numbered from ``first``), or its failure record."""

    task_id = item.task.task_id
    call = save_call(ctx, item.model, task_id, item.kind + sample_index_suffix(sample), result)

    def place(index: int) -> tuple[str, str]:
        return f"{item.model}|{task_id}|{item.kind}|{index}", f"tests/{item.kind}_{index}.py"

    durable = not scope.compact_artifacts(ctx.config, item.model)
    return reply_tests(ctx, item.model, item.task, item.kind, (result, call, sample), item.count, first, place, durable)


def test_jobs(ctx: RunContext) -> list[TestJob]:
    """One job per (coder, task, kind) with a positive count and at least one test sample.

    A replayed tester's samples keep all their tests (``count`` None): they hold the tests as published.
    """
    config = ctx.config
    counts: list[tuple[TestKind, int]] = [("ebt", config.ebts_per_task), ("pbt", config.pbts_per_task)]
    jobs = []
    for model in config.models.coder_names:
        tester = config.models.tester_for(model)
        for task in scope.coder_tasks(config, ctx.tasks, model):
            for kind, n in counts:
                samples = scope.test_samples(config, model, task.task_id, kind) if n > 0 else 0
                if samples:
                    jobs.append(TestJob(model, tester, task, kind, None if is_replayed(tester) else n, samples))
    return jobs


def test_items(ctx: RunContext, inputs: InputRecords) -> list[TestJob]:
    """One job per (tester of a coder, task, test kind)."""
    return test_jobs(ctx)


STAGE = Stage(
    "generate_tests",
    generate_tests,
    test_items,
    "generated_tests",
    lambda r: f"{r.model}|{r.task_id}|{r.kind}",
    inputs=Inputs(settings=(*TASK_PARTS, *TESTER_PARTS)),
    produces=(GeneratedTest, TestGenerationFailure),
)
