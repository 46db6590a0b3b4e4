"""A tester's replies as test records: the call asking for one sample, and one reply's tests or its failure.

The base study's suites (``generate_tests``) and the rounds' fresh suites (``generate_round_tests``) ask and
read the same way; only the test ids and artifact names differ, and each stage names its own.
"""

from __future__ import annotations

from collections.abc import Callable

from tfr_helpers.models import parse_tests
from tfr_helpers.models.jobs import CallJob, CallResult, task_variables
from tfr_helpers.pipeline.config.fingerprint import MODEL_CALL_PARTS
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import note_truncation
from tfr_helpers.records import GeneratedTest, ModelCallRecord, Task, TestGenerationFailure, TestKind

TestPlace = Callable[[int], tuple[str, str]]
"""A test's index -> its test id and its artifact name under ``<model>/<task>/``."""

TESTER_PARTS = (
    "models.coders",
    "models.tester",
    "test_samples_per_task",
    "ebts_per_task",
    "pbts_per_task",
    *MODEL_CALL_PARTS,
    "template:ebt",
    "template:pbt",
)
"""What a tester's suites depend on (a stage asking for them declares these among its reads): who writes them, how
many of each kind, the call's settings and the two test templates."""


def tester_call(tester: str, task: Task, kind: TestKind, count: int | None, sample_index: int) -> CallJob:
    """The call asking ``tester`` for ``count`` tests of ``kind`` for ``task`` (None: as many as it writes)."""
    n_tests = str(count) if count is not None else "several"
    return CallJob(tester, "tester", kind, {**task_variables(task), "n_tests": n_tests}, task, sample_index=sample_index)


def reply_tests(
    ctx: RunContext,
    model: str,
    task: Task,
    kind: TestKind,
    reply: tuple[CallResult, ModelCallRecord, int],
    count: int | None,
    first: int,
    place: TestPlace,
    durable: bool = True,
) -> list[GeneratedTest | TestGenerationFailure]:
    """The tests of one reply (``reply``: the result, its saved call and its sample index), numbered from
    ``first``, each written as an artifact; or the reply's one :class:`TestGenerationFailure`."""
    result, call, sample = reply
    task_id = task.task_id
    parsed = parse_tests(result.text or "", kind, task.entry_point, max_tests=count)
    dropped = [f"{d.name}: {d.reason}" for d in parsed.dropped]  # extras beyond count, broken tests
    if not parsed.tests:
        error = note_truncation(parsed.error or "no test found in the response", call)
        failure = TestGenerationFailure(
            model=model,
            task_id=task_id,
            kind=kind,
            parse_error=error,
            call=call,
            sample_index=sample,
            dropped_tests=dropped,
        )
        return [failure]
    out: list[GeneratedTest | TestGenerationFailure] = []
    for index, test in enumerate(parsed.tests, start=first):
        test_id, name = place(index)
        out.append(
            GeneratedTest(
                test_id=test_id,
                model=model,
                task_id=task_id,
                kind=kind,
                index=index,
                sample_index=sample,
                name=test.name,
                source=test.source,
                call=call,
                test_path=ctx.store.artifact(model, task_id, name, test.source, durable),
                dropped_tests=dropped,
            )
        )
    return out
