"""Stage oracle_repair_tests: each unreliable EBT feedback's test repaired from the reference.

The oracle-repaired arm uses the reference: it is an upper bound on what refinement could achieve with right tests,
never a screening strategy. For each test-fail feedback that is unreliable and comes from an EBT:

1. :func:`~tfr_helpers.arms.oracle.stages.rewrite.repair_source` rewrites the failed ``assert ... == expected`` to
   expect the reference's output (only a wrong expected value qualifies; an input the reference rejects, a test
   code error, a wrong exception expectation... are reported with a reason, not repaired);
2. the reference runs on the repaired test in the sandbox: it must pass (a later assert it fails is repaired the
   same way, up to :data:`MAX_REPAIRS` asserts), else the test is not repaired and the reason says so;
3. the generated code runs on the repaired test: its failure is the repaired feedback (built by the same
   :func:`~tfr_helpers.pipeline.steps.feedback.build_feedback` as the original); a pass is recorded (the original
   feedback was the test's fault alone) and gets no refinement.

Nothing runs unless ``refinement.oracle_repair`` is on. Replayed coders' tests are repaired and reported too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tfr_helpers.arms.oracle.arm import ARM
from tfr_helpers.arms.oracle.records import RepairedTest
from tfr_helpers.arms.oracle.stages.rewrite import ineligible, repair_source
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.fingerprint import PROGRAM_RUN_PARTS
from tfr_helpers.pipeline.engine.codec import register_record_type
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords, Inputs, Stage
from tfr_helpers.pipeline.steps.feedback import build_feedback
from tfr_helpers.pipeline.steps.lookups import code_texts, tests_by_id
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation, Task, TestOutcome, sample_suffix
from tfr_helpers.sandbox import TestSpec

MAX_REPAIRS = 5
"""Asserts of one test repaired at most (each one verified by one more reference run)."""


@dataclass(frozen=True)
class RepairJob:
    """Repair the test behind one unreliable EBT feedback of coder ``pair.model``'s code sample ``code``."""

    task: Task
    pair: PairEvaluation
    test: GeneratedTest
    code: str

    @property
    def key(self) -> str:
        """Checkpoint key: the original feedback's id."""
        return self.pair.pair_id

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.pair.model, self.task.task_id

    @property
    def model(self) -> str:
        """The coder (with ``task``: the unit this job belongs to)."""
        return self.pair.model


def repaired_spec(test: GeneratedTest, source: str) -> object:
    """The sandbox spec of a repaired test (the generated test's name, the repaired source)."""

    return TestSpec(name=test.name, source=source, kind="function")


def _record(item: RepairJob, **fields: object) -> RepairedTest:
    p = item.pair
    assert p.cause is not None  # unreliable feedback always has its cause
    return RepairedTest(
        feedback_id=p.pair_id,
        test_id=p.test_id,
        code_index=p.code_index,
        model=p.model,
        task_id=p.task_id,
        benchmark=p.benchmark,
        cause=p.cause,
        **fields,  # type: ignore[arg-type]
    )


Run = tuple[TestOutcome | None, TestOutcome | None]
"""A program's outcome on one repaired test, and its load failure (None when it loaded)."""


def _run_grouped(ctx: RunContext, wanted: Sequence[tuple[str, GeneratedTest, str]], desc: str) -> list[Run]:
    """Each ``(program, test, repaired source)``'s outcome: one sandbox run per distinct program with its distinct
    repaired tests (as stage 3 runs a program with all its tests), identical ones once; order kept."""
    groups: dict[str, dict[str, GeneratedTest]] = {}
    for program, test, source in wanted:
        groups.setdefault(program, {}).setdefault(source, test)
    programs = list(groups)
    jobs = [(p, [repaired_spec(t, src) for src, t in groups[p].items()]) for p in programs]
    found: dict[tuple[str, str], Run] = {}
    for program, run in zip(programs, ctx.run_programs(jobs, desc=desc, generated=True), strict=True):
        for j, source in enumerate(groups[program]):
            found[(program, source)] = (run.outcomes[j] if j < len(run.outcomes) else run.load_error, run.load_error)
    return [found[(program, source)] for program, _, source in wanted]


def _verify(
    ctx: RunContext, items: Sequence[RepairJob]
) -> tuple[dict[str, tuple[str, TestOutcome]], dict[str, RepairedTest]]:
    """Repair and verify against the reference: key -> (repaired source, reference outcome), and the refusals."""
    refused: dict[str, RepairedTest] = {}
    pending: dict[str, tuple[str, set[int | None]]] = {}
    for item in items:
        reason = ineligible(item.test.kind, item.pair.cause)
        plan = repair_source(item.test.source, item.task.entry_point, item.pair.reference) if reason is None else None
        if plan is None or plan.source is None:
            refused[item.key] = _record(item, status="not_repaired", reason=reason or (plan.reason if plan else None))
        else:
            pending[item.key] = (plan.source, {plan.line})
    by_key = {item.key: item for item in items}
    verified: dict[str, tuple[str, TestOutcome]] = {}
    for _ in range(MAX_REPAIRS):
        if not pending:
            break
        keys = list(pending)
        wanted = [(by_key[k].task.reference, by_key[k].test, pending[k][0]) for k in keys]
        runs = _run_grouped(ctx, wanted, "oracle: reference on repaired tests")
        again: dict[str, tuple[str, set[int | None]]] = {}
        for key, (outcome, _) in zip(keys, runs, strict=True):
            source, lines = pending[key]
            if outcome is not None and outcome.status == "passed":
                verified[key] = (source, outcome)
                continue
            plan = repair_source(source, by_key[key].task.entry_point, outcome) if outcome else None
            if plan is not None and plan.source is not None and plan.line not in lines:
                again[key] = (plan.source, lines | {plan.line})
                continue
            why = plan.reason if plan is not None and plan.reason else "the same assert fails again"
            why = "it gave no outcome" if outcome is None else why
            refused[key] = _record(
                by_key[key], status="not_repaired", reason=f"the reference fails the repaired test: {why}", reference=outcome
            )
        pending = again
    for key in pending:
        refused[key] = _record(by_key[key], status="not_repaired", reason=f"more than {MAX_REPAIRS} asserts to repair")
    return verified, refused


def oracle_repair_tests(items: Sequence[RepairJob], ctx: RunContext) -> list[RepairedTest]:
    """Repair, verify and run the generated code on the test of each unreliable EBT feedback.

    Args:
        items: One job per unreliable EBT test-fail feedback.
        ctx: The run context.

    Returns:
        One :class:`RepairedTest` per job, in order: ``not_repaired`` with its reason, or ``repaired`` with the
        reference's (passing) and the generated code's outcome on the repaired test, and the repaired feedback
        when the code fails it.
    """
    verified, out = _verify(ctx, items)
    done = [item for item in items if item.key in verified]
    wanted = [(item.code, item.test, verified[item.key][0]) for item in done]
    runs = _run_grouped(ctx, wanted, "oracle: generated code on repaired tests")
    for item, (generated, load_error) in zip(done, runs, strict=True):
        source, reference = verified[item.key]
        feedback = None
        if generated is not None and generated.status != "passed":
            feedback = build_feedback(item.test.test_id, source, generated, load_error)
            feedback = feedback.model_copy(update={"feedback_id": item.key})
        if not scope.compact_artifacts(ctx.config, item.pair.model):  # many samples: results.json holds them
            stem = f"oracle/{item.test.kind}_{item.test.index}{sample_suffix(item.key)}"
            ctx.store.artifact(item.pair.model, item.task.task_id, f"{stem}_repaired_test.py", source)
            if feedback is not None:
                ctx.store.artifact(item.pair.model, item.task.task_id, f"{stem}_feedback.md", feedback.text)
        out[item.key] = _record(
            item, status="repaired", source=source, reference=reference, generated=generated, feedback=feedback
        )
    return [out[item.key] for item in items]


def repair_items(ctx: RunContext, inputs: InputRecords) -> list[RepairJob]:
    """One job per unreliable EBT test-fail feedback (none unless ``refinement.oracle_repair``)."""
    if not ARM.enabled(ctx.config):
        return []
    code_of = code_texts(inputs.of(GeneratedCode))
    test_of = tests_by_id(inputs.of(GeneratedTest))
    return [
        RepairJob(ctx.tasks[p.task_id], p, test_of[p.test_id], code_of[(p.model, p.task_id, p.code_index)])
        for p in inputs.of(PairEvaluation)
        if p.feedback is not None and p.reliability == "unreliable" and p.kind == "ebt"
    ]


register_record_type(RepairedTest)
STAGE = Stage(
    "oracle_repair_tests",
    oracle_repair_tests,
    repair_items,
    "oracle_repaired_tests",
    lambda r: r.feedback_id,
    sandboxed=True,
    inputs=Inputs(
        records=(GeneratedCode, GeneratedTest, PairEvaluation),
        settings=("refinement.oracle_repair", *PROGRAM_RUN_PARTS),
    ),
    produces=(RepairedTest,),
)
