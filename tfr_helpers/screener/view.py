"""The narrow, reference-free view of one test-fail feedback that the feature extractor reads.

:class:`FeedbackView` holds what a refiner could see before refining: the task as models see it (prompt, entry
point, the examples shown in the prompt), the generated code, the failing generated test, how the code failed it
(kind, message, expected against actual), the model's other tests on the task with this code's outcome on each,
and, when the coder wrote several code samples, how many of them fail the test. It has no field for the reference,
the benchmark tests, refined code or any label: :func:`build_views` is the one place a view is made, and it reads
only :class:`~tfr_helpers.pipeline.screening.registry.ScreeningItem` (a task view, no reference) and the coder's
code x test matrix built from the generated outcomes (:mod:`tfr_helpers.consensus.from_run`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tfr_helpers.consensus.from_run import RunMatrix
from tfr_helpers.consensus.screening import run_matrices
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.screening.registry import ScreeningItem
from tfr_helpers.pipeline.steps.labels import failure_mode_of
from tfr_helpers.records import FailureMode, split_pair_id


@dataclass(frozen=True)
class Failure:
    """How the generated code failed the generated test (the generated outcome only)."""

    mode: FailureMode | None
    """The failure mode (``pipeline.steps.labels.failure_mode_of`` of the generated outcome)."""
    exc_type: str | None
    message: str
    in_code_under_test: bool
    expected: str | None
    """The sandbox's repr of the right side of a failed ``==`` (None when it was not a comparison)."""
    actual: str | None
    """The repr of the left side."""


@dataclass(frozen=True)
class OtherTest:
    """Another generated test of the same coder on the task, and this code's outcome on it."""

    source: str
    passed: bool


@dataclass(frozen=True)
class FeedbackView:
    """Everything the feature extractor may read about one test-fail feedback (see the module doc)."""

    feedback_id: str
    source: str
    """The coder model (the data source the feedback comes from)."""
    task_id: str
    benchmark: str
    prompt: str
    entry_point: str
    prompt_examples: tuple[str, ...]
    """Example lines the task's prompt shows outside its text (MBPP: the first benchmark assert)."""
    code: str
    test_source: str
    test_kind: str
    failure: Failure
    other_tests: tuple[OtherTest, ...]
    test_share: float
    """Share of the coder's test samples on the task that hold this exact test."""
    n_code_samples: int
    """Code samples of the coder on the task that ran (1 for a single-sample coder)."""
    sample_fail_share: float
    """Share of those code samples that fail this test (1.0 for a single sample: its own failure)."""


def _unit_facts(item: ScreeningItem, run: RunMatrix | None) -> tuple[tuple[OtherTest, ...], float, int, float]:
    if run is None or item.test.test_id not in run.test_index:
        return (), 0.0, 1, 1.0
    m = run.matrix
    j = run.test_index[item.test.test_id]
    code_index = split_pair_id(item.feedback.feedback_id)[1]
    rows = [r for r, samples in enumerate(m.program_samples) if code_index in samples]
    row = rows[0] if rows else None
    passes = m.matrix
    others = tuple(OtherTest(source, bool(row is not None and passes[row, k])) for k, source in enumerate(m.tests) if k != j)
    n_suites = len(m.suites)
    test_share = sum(1 for s in m.suites if j in s) / n_suites if n_suites else 0.0
    ran = m.ran
    weights = m.weights * ran
    n = int(weights.sum())
    fail_share = float((weights * ~passes[:, j]).sum() / weights.sum()) if n else 1.0
    return others, test_share, max(n, 1), fail_share


def build_views(items: Sequence[ScreeningItem], runs: Mapping[tuple[str, str], RunMatrix]) -> list[FeedbackView]:
    """The view of each item, from the item and its coder's matrix on the task (generated outcomes only)."""
    out = []
    for item in items:
        o = item.outcome
        others, test_share, n_samples, fail_share = _unit_facts(item, runs.get((item.coder, item.task.task_id)))
        out.append(
            FeedbackView(
                feedback_id=item.feedback.feedback_id,
                source=item.coder,
                task_id=item.task.task_id,
                benchmark=item.task.benchmark,
                prompt=item.task.description,
                entry_point=item.task.entry_point,
                prompt_examples=tuple(item.task.examples),
                code=item.code,
                test_source=item.test.source,
                test_kind=item.test.kind,
                failure=Failure(failure_mode_of(o), o.exc_type, o.message or "", o.in_code_under_test, o.expected, o.actual),
                other_tests=others,
                test_share=test_share,
                n_code_samples=n_samples,
                sample_fail_share=fail_share,
            )
        )
    return out


def views_from_context(items: Sequence[ScreeningItem], ctx: RunContext) -> list[FeedbackView]:
    """The views of a screening batch: the one function that reads the run context for the extractor.

    It reads the items (task views) and the coders' matrices of generated outcomes, nothing else of ``ctx``
    (not its full tasks, not the reference's outcomes)."""
    return build_views(items, run_matrices(ctx, {(i.coder, i.task.task_id) for i in items}))
