"""Stage 2, generate_tests: EBT and PBT responses from the task description alone, one record per test."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.pipeline._artifacts import save_call
from tfr_helpers.pipeline.context import CallJob, RunContext, task_variables
from tfr_helpers.pipeline.stages import Stage, StageRecords, register_stage
from tfr_helpers.pipeline.undone import Undone, call_fault, note_truncation
from tfr_helpers.records import GeneratedTest, Task, TestGenerationFailure, TestKind


@dataclass(frozen=True)
class TestJob:
    """Ask the tester of coder ``model`` for ``count`` tests of one kind for ``task``."""

    model: str
    tester: str
    task: Task
    kind: TestKind
    count: int

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}|{self.kind}"


def generate_tests(items: Sequence[TestJob], ctx: RunContext) -> list[GeneratedTest | TestGenerationFailure | Undone]:
    """Call the tester once per (coder, task, kind) and split each response into independent tests.

    The tester sees the task description only, never the generated code.

    Args:
        items: One job per (coder model, task, kind).
        ctx: The run context.

    Returns:
        Up to ``count`` :class:`GeneratedTest` per job, or one :class:`TestGenerationFailure` when the
        response held no parseable test, or :class:`Undone` when the call got no reply.
    """
    from tfr_helpers.models import parse_tests

    jobs = [
        CallJob(
            item.tester,
            "tester",
            item.kind,
            {**task_variables(item.task), "n_tests": str(item.count)},
            item.task,
        )
        for item in items
    ]
    out: list[GeneratedTest | TestGenerationFailure | Undone] = []
    for item, result in zip(items, ctx.call_models(jobs, stage="generate_tests"), strict=True):
        fault = call_fault(result)
        if fault is not None:
            out.append(Undone(item.key, fault))
            continue
        task_id = item.task.task_id
        call = save_call(ctx, item.model, task_id, item.kind, result)
        parsed = parse_tests(result.text or "", item.kind, item.task.entry_point, max_tests=item.count)
        tests = list(parsed.tests)
        dropped = [f"{d.name}: {d.reason}" for d in parsed.dropped]  # extras beyond count, broken tests
        if not tests:
            out.append(
                TestGenerationFailure(
                    model=item.model,
                    task_id=task_id,
                    kind=item.kind,
                    parse_error=note_truncation(parsed.error or "no test found in the response", call),
                    call=call,
                    dropped_tests=dropped,
                )
            )
            continue
        for index, test in enumerate(tests):
            path = ctx.store.artifact(item.model, task_id, f"tests/{item.kind}_{index}.py", test.source)
            out.append(
                GeneratedTest(
                    test_id=f"{item.model}|{task_id}|{item.kind}|{index}",
                    model=item.model,
                    task_id=task_id,
                    kind=item.kind,
                    index=index,
                    name=test.name,
                    source=test.source,
                    call=call,
                    test_path=path,
                    dropped_tests=dropped,
                )
            )
    return out


def test_items(ctx: RunContext, records: StageRecords) -> list[TestJob]:
    """One job per (tester of a coder, task, test kind)."""
    from tfr_helpers.pipeline import inputs  # local: inputs imports this module's job type

    return inputs.test_jobs(ctx)


register_stage(
    Stage("generate_tests", 20, generate_tests, test_items, "generated_tests", lambda r: f"{r.model}|{r.task_id}|{r.kind}")
)
