"""How ``evaluate_code_test_pairs`` runs its pairs: each distinct program once, with every distinct test of its task.

Every generated test runs against every code sample and the reference. A sandbox run executes one program with a
list of tests and gives one outcome per test, so a (coder, task) unit needs one run per distinct program (and one
for the reference) whatever its number of samples; identical programs and identical tests are added once (a
:class:`_Batch` is keyed by what determines the outcome). For many samples (replayed data, ``code_samples`` > 1)
a program's benchmark tests run in the same run as its generated tests and the reference's non-passes are
rerun together, which halves the runs again; with one sample every run is as it always was.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tfr_helpers.benchmarks import benchmark_tests
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.steps.evalplus_tiers import corrected_reference, tiers_of
from tfr_helpers.pipeline.steps.time_limits import (
    LOAD_BUDGET_FACTOR,
    code_benchmark_specs,
    hard_limit,
    limit_for,
    policy_on,
    reference_benchmark_runs,
    settle_benchmark,
    starved,
    with_limits,
)
from tfr_helpers.records import GeneratedCode, GeneratedTest, ProgramRun, Task, TestOutcome, TierVerdicts
from tfr_helpers.sandbox import TestSpec


@dataclass(frozen=True)
class PairJob:
    """Everything to evaluate for one (coder model, task): its code samples and its generated tests."""

    task: Task
    codes: tuple[GeneratedCode, ...]
    """The code samples, in sample order."""
    tests: tuple[GeneratedTest, ...]

    @property
    def model(self) -> str:
        """The coder."""
        return self.codes[0].model

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return f"{self.model}|{self.task.task_id}"

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


REFERENCE_EXAMPLES_FACTOR = 10
"""The reference's harder check of a PBT it passed: this many times the study's examples, another seed (and as
many times the time budget)."""


def _needs_alone(outcome: TestOutcome, budget_s: float) -> bool:
    """Whether a non-pass (a test's, or a load error's) may be the machine's doing: a crash, or a timeout of the
    sandbox's wall-clock guard (:func:`~.time_limits.starved`). A timeout decided by the test's own time is
    the program's own (a loop that never ends, a sleep past the budget) and is not run again."""
    return starved(outcome, budget_s)


def _rerun(ctx: RunContext, run: ProgramRun, outcome: TestOutcome) -> bool:
    """Whether the reference's non-pass runs again with another seed: not a timeout its own time decided (of the
    test, or of the load that left it ``not_run``): that verdict is final, and another seed cannot change it."""
    budget = reference_hard_limit(ctx)
    if outcome.status == "passed":
        return False
    if outcome.status == "timeout":
        return starved(outcome, budget)
    if outcome.status == "not_run" and run.load_error is not None and run.load_error.status == "timeout":
        return starved(run.load_error, budget)
    return True


def reference_hard_limit(ctx: RunContext) -> float:
    """The reference's kill on a generated test: the budget (under the time-limit policy, with its near-limit band:
    :func:`~.time_limits.hard_limit`)."""
    return hard_limit(ctx, ctx.config.sandbox.generated_test_timeout_s)


def test_spec(test: GeneratedTest) -> object:
    """The sandbox spec of a generated test (a module of ``test_*`` functions)."""

    return TestSpec(name=test.name, source=test.source, kind="function")


def _reference_spec(ctx: RunContext, test: GeneratedTest) -> object:
    """The reference's spec of a generated test: under the time-limit policy with its kill, the cap and its band
    (:func:`reference_hard_limit`), as in its first run; else the run's budget."""
    spec = test_spec(test)
    return dataclasses.replace(spec, timeout_s=reference_hard_limit(ctx)) if policy_on(ctx) else spec  # type: ignore[type-var]


def benchmark_specs(task: Task) -> list[object]:
    """The task's benchmark tests as sandbox specs."""

    return list(benchmark_tests(task))


class _Batch:
    """Sandbox jobs keyed by what determines their outcome: an identical job is added (and run) once."""

    def __init__(self) -> None:
        self.jobs: dict[tuple[str, ...], tuple[str, list[object]]] = {}
        self.runs: dict[tuple[str, ...], ProgramRun] = {}

    def add(self, key: tuple[str, ...], program: str, specs: Sequence[object]) -> tuple[str, ...]:
        self.jobs.setdefault(key, (program, list(specs)))
        return key

    def run(self, ctx: RunContext, desc: str, generated: bool, rerun: bool = False) -> None:
        keys = list(self.jobs)
        done = ctx.run_programs([self.jobs[k] for k in keys], desc=desc, generated=generated, rerun=rerun)
        self.runs = dict(zip(keys, done, strict=True))


@dataclass
class PairRuns:
    """Where each unit finds its runs once the batches ran."""

    bench: dict[tuple[str, ...], ProgramRun]
    """(program, task id) -> the program's run on the benchmark tests."""
    gen: dict[tuple[str, ...], ProgramRun]
    """(program, *distinct test sources) -> the program's run on those tests, in that order."""
    rerun: dict[tuple[str, str], TestOutcome]
    """(reference, test source) -> the reference's second outcome on a test it did not pass."""
    alone: dict[tuple[str, str], TestOutcome] = field(default_factory=dict)
    """(program, test source) -> the outcome of a test that timed out or crashed (on the code or the reference),
    run again alone, serially, with :data:`LOAD_BUDGET_FACTOR` times the budget (:func:`rerun_alone`)."""
    harder: dict[tuple[str, str], TestOutcome] = field(default_factory=dict)
    """(reference, PBT source) -> the reference's outcome on a PBT it passed, run again with
    :data:`REFERENCE_EXAMPLES_FACTOR` times the examples and another seed (:func:`check_reference_harder`)."""
    broken_oracle: dict[str, str] = field(default_factory=dict)
    """Task id -> why its reference fails its own benchmark tests in this run (:func:`check_references`): the
    task is reported and excluded, since every label of it would be judged against a broken oracle."""
    limits: dict[tuple[str, str], float] = field(default_factory=dict)
    """(reference, test source) -> the code's time limit on that generated test under the time-limit policy (the
    budget where the reference did not finish it; the sandbox kills at :func:`~.time_limits.hard_limit` of it;
    absent: the study's fixed budget)."""

    tiers: dict[tuple[str, str], TierVerdicts] = field(default_factory=dict)
    """(program, task id) -> the program's verdicts at EvalPlus's tiers (:mod:`.test_strength`)."""
    corrected: dict[tuple[str, str], TestOutcome] = field(default_factory=dict)
    """(task id, test source) -> the test's outcome on the EvalPlus twin's corrected reference."""


def unique_tests(item: PairJob) -> dict[str, GeneratedTest]:
    """Test source -> its first test, in order of first appearance (identical tests run once)."""
    first: dict[str, GeneratedTest] = {}
    for test in item.tests:
        first.setdefault(test.source, test)
    return first


def _split(run: ProgramRun, start: int, stop: int | None) -> ProgramRun:
    """The part of a run holding the outcomes of specs ``start:stop`` (one outcome per snippet or test spec)."""
    return run.model_copy(update={"outcomes": run.outcomes[start:stop]})


def _combined(ctx: RunContext, item: PairJob, bench_specs: list[Any]) -> bool:
    """Whether a unit's benchmark tests run in the same sandbox run as its generated tests (many samples:
    one run per program instead of two). Only when the limits agree and each benchmark spec gives exactly one
    outcome (snippets: HumanEval's ``check``, MBPP's asserts), so the outcomes split back by position, and only
    when the benchmark tests need no setup: MBPP's ``test_imports`` run in the program's namespace and must
    never reach a generated test (the reference and the refined code run theirs without it)."""
    limits = ctx.config.sandbox
    return (
        scope.compact_artifacts(ctx.config, item.model)
        and (limits.timeout_s == limits.generated_test_timeout_s or policy_on(ctx))
        and all(getattr(spec, "kind", None) == "snippet" and not getattr(spec, "setup", "") for spec in bench_specs)
    )


def run_pairs(ctx: RunContext, items: Sequence[PairJob]) -> PairRuns:
    """Run every distinct program of the chunk on its benchmark tests and its distinct generated tests, the
    references on the generated tests, then the reference's non-passes again."""
    # round 1: benchmark tests on each distinct program; the distinct tests on each distinct program and the
    # reference (for many samples, a program's benchmark tests and generated tests in one run)
    # under the time-limit policy the references run first: their times set the code's limits
    references, ref_gen = reference_benchmark_runs(ctx, [i.task for i in items]), _reference_first(ctx, items)
    bench, gen = _Batch(), _Batch()
    combined: dict[tuple[str, ...], int] = {}  # key of a combined run -> number of benchmark outcomes first
    limits: dict[tuple[str, str], float] = {}
    for item in items:
        distinct = unique_tests(item)
        sources, specs = tuple(distinct), [test_spec(t) for t in distinct.values()]
        bspecs = code_benchmark_specs(ctx, item.task, references)
        ref_run = ref_gen.get((item.task.reference, *sources))
        code_specs = with_limits(ctx, specs, ref_run, generated=True)
        if ref_run is not None and policy_on(ctx):
            cap = ctx.config.sandbox.generated_test_timeout_s
            limits.update(
                {
                    (item.task.reference, s): limit_for(ctx, o, True) or cap
                    for s, o in zip(sources, ref_run.outcomes, strict=True)
                }
            )
        together = bool(sources) and _combined(ctx, item, bspecs)
        if together and policy_on(ctx):  # a benchmark test keeps its own budget in a run of generated tests
            bspecs = [
                s if getattr(s, "timeout_s", None) else dataclasses.replace(s, timeout_s=ctx.config.sandbox.timeout_s)
                for s in bspecs
            ]
        for code in item.codes:
            program = code.code or ""
            if together and code.code:
                key = ("+bench", item.task.task_id, program, *sources)
                combined[gen.add(key, program, bspecs + code_specs)] = len(bspecs)
                continue
            bench.add((program, item.task.task_id), program, bspecs)
            if code.code and sources:
                gen.add((program, *sources), program, code_specs)
        if any(c.code for c in item.codes) and sources and (item.task.reference, *sources) not in ref_gen:
            gen.add((item.task.reference, *sources), item.task.reference, specs)
        if not references:  # the oracle's own check (under the time-limit policy: its full-budget run above)
            bench.add((item.task.reference, item.task.task_id), item.task.reference, bspecs)
    bench.run(ctx, "benchmark tests", generated=False)
    gen.run(ctx, "generated tests", generated=True)
    found = PairRuns(bench=dict(bench.runs), gen=dict(ref_gen), rerun={}, limits=limits)
    for key, run in gen.runs.items():
        if key in combined:  # ("+bench", task id, program, *sources)
            found.bench[(key[2], key[1])] = _split(run, 0, combined[key])
            found.gen[key[2:]] = _split(run, combined[key], None)
        else:
            found.gen[key] = run
    tasks = {i.task.task_id: i.task for i in items}
    if references:  # the limited benchmark tests that timed out starved of CPU, run again alone
        keys = list(found.bench)
        jobs = [(k[0], code_benchmark_specs(ctx, tasks[k[1]], references)) for k in keys]
        found.bench = dict(zip(keys, settle_benchmark(ctx, jobs, [found.bench[k] for k in keys]), strict=True))
    found.bench.update({(tasks[t].reference, t): run for t, run in references.items()})  # the oracle's own check
    found.broken_oracle = check_references(ctx, items, found.bench)

    # round 2: a reference non-pass (but a timeout its own time decided) runs again with another seed, to tell a
    # wrong test from a nondeterministic reference: alone per test (one sample), or all of a unit's non-passes
    # in one run (many samples)
    reruns = _Batch()
    for item in items:
        sources = tuple(unique_tests(item))
        ref_run = found.gen.get((item.task.reference, *sources))
        failing = [s for s, o in zip(sources, ref_run.outcomes, strict=True) if _rerun(ctx, ref_run, o)] if ref_run else []
        if failing and scope.compact_artifacts(ctx.config, item.model):
            reruns.add(
                (item.task.reference, *failing),
                item.task.reference,
                [_reference_spec(ctx, unique_tests(item)[s]) for s in failing],
            )
        else:
            for source in failing:
                reruns.add(
                    (item.task.reference, source), item.task.reference, [_reference_spec(ctx, unique_tests(item)[source])]
                )
    reruns.run(ctx, "reference reruns", generated=True, rerun=True)
    for key, run in reruns.runs.items():
        for source, outcome in zip(key[1:], run.outcomes, strict=False):
            found.rerun[(key[0], source)] = outcome
    found.alone = rerun_alone(ctx, items, found)
    found.harder = check_reference_harder(ctx, items, found)
    keys = list(found.bench)
    tiers = tiers_of(ctx, [(k[0], tasks[k[1]]) for k in keys], [found.bench[k] for k in keys], "EvalPlus tiers")
    found.tiers = {(k[0], k[1]): t for k, t in zip(keys, tiers, strict=True) if t is not None}
    found.corrected = corrected_reference(
        ctx, [(i.task, {s: test_spec(t) for s, t in unique_tests(i).items()}) for i in items if any(c.code for c in i.codes)]
    )
    return found


def _reference_first(ctx: RunContext, items: Sequence[PairJob]) -> dict[tuple[str, ...], ProgramRun]:
    """(reference, *distinct test sources) -> the reference's run on its unit's generated tests, made before the
    code's under the time-limit policy (empty under ``fixed``: the reference runs with the code)."""
    if not policy_on(ctx):
        return {}
    batch = _Batch()
    for item in items:
        distinct = unique_tests(item)
        if any(c.code for c in item.codes) and distinct:
            specs = [_reference_spec(ctx, t) for t in distinct.values()]
            batch.add((item.task.reference, *distinct), item.task.reference, specs)
    batch.run(ctx, "reference: generated tests", generated=True)
    return dict(batch.runs)


def check_reference_harder(ctx: RunContext, items: Sequence[PairJob], found: PairRuns) -> dict[tuple[str, str], TestOutcome]:
    """Every PBT the reference passed, run on the reference again with :data:`REFERENCE_EXAMPLES_FACTOR` times
    the examples and another seed, so that a wrong property the study's examples rarely violate is caught
    (the code's verdict keeps the study's settings). One run per unit.

    Returns:
        (reference, test source) -> the outcome of that run.
    """
    batch = _Batch()
    for item in items:
        distinct = unique_tests(item)
        sources = tuple(distinct)
        run = found.gen.get((item.task.reference, *sources))
        if run is None:
            continue
        passed = [
            s
            for s, o in zip(sources, run.outcomes, strict=True)
            if distinct[s].kind == "pbt" and (found.alone.get((item.task.reference, s)) or o).status == "passed"
        ]
        if passed:
            batch.add((item.task.reference, *passed), item.task.reference, [test_spec(distinct[s]) for s in passed])
    keys = list(batch.jobs)
    runs = ctx.run_programs(
        [batch.jobs[k] for k in keys],
        desc="reference PBTs, harder",
        generated=True,
        rerun=True,
        budget_factor=REFERENCE_EXAMPLES_FACTOR,
        examples_factor=REFERENCE_EXAMPLES_FACTOR,
    )
    out: dict[tuple[str, str], TestOutcome] = {}
    for key, run in zip(keys, runs, strict=True):
        for source, outcome in zip(key[1:], run.outcomes, strict=False):
            out[(key[0], source)] = outcome
    return out


def rerun_alone(ctx: RunContext, items: Sequence[PairJob], found: PairRuns) -> dict[tuple[str, str], TestOutcome]:
    """Every generated test that hit the wall-clock guard or crashed on a program (code or reference), or did
    not run because the program's load did so, run again alone, one at a time, with :data:`LOAD_BUDGET_FACTOR`
    times the budget (:func:`_needs_alone`). A timeout the test's own time decided, its own or its load's, is
    final: the sandbox judged it by the time the program itself took, whatever the machine's load.

    Returns:
        (program, test source) -> the outcome of that run.
    """
    todo: dict[tuple[str, str], tuple[GeneratedTest, float | None]] = {}
    for item in items:
        distinct = unique_tests(item)
        sources = tuple(distinct)
        programs = [c.code for c in item.codes if c.code] + [item.task.reference]
        for program in dict.fromkeys(programs):
            run = found.gen.get((program, *sources))
            if run is None:
                continue
            load_budget = ctx.config.sandbox.generated_test_timeout_s  # the load phase has the run's budget
            load_hit = run.load_error is not None and _needs_alone(run.load_error, load_budget)
            for source, outcome in zip(sources, run.outcomes, strict=True):
                limit = found.limits.get((item.task.reference, source)) if program != item.task.reference else None
                if program == item.task.reference and policy_on(ctx):
                    limit = ctx.config.sandbox.generated_test_timeout_s
                hard = hard_limit(ctx, limit) if limit is not None else ctx.config.sandbox.generated_test_timeout_s
                if _needs_alone(outcome, hard) or (load_hit and outcome.status == "not_run"):
                    todo.setdefault((program, source), (distinct[source], None if limit is None else hard))
    out: dict[tuple[str, str], TestOutcome] = {}
    for (program, source), (test, kill) in todo.items():  # serially: each run alone is the only one this chunk makes
        spec = test_spec(test)
        if kill is not None:
            spec = dataclasses.replace(spec, timeout_s=LOAD_BUDGET_FACTOR * kill)  # type: ignore[type-var]
        (run,) = ctx.run_programs(
            [(program, [spec])], desc="timeouts run alone", generated=True, budget_factor=LOAD_BUDGET_FACTOR
        )
        out[(program, source)] = run.outcomes[0]
    return out


def check_references(ctx: RunContext, items: Sequence[PairJob], bench: dict[tuple[str, ...], ProgramRun]) -> dict[str, str]:
    """The tasks whose reference fails its own benchmark tests in this run, with the reason.

    A reference that does not pass runs its benchmark tests again alone, serially, with
    :data:`LOAD_BUDGET_FACTOR` times the budget (load alone never excludes a task); one that fails again is a
    broken oracle for this run (a test that sleeps past the study's budget, say).

    Returns:
        Task id -> ``reference fails its own benchmark tests in this run: <test>: <status>: <message>``.
    """
    out: dict[str, str] = {}
    for item in items:
        task = item.task
        run = bench[(task.reference, task.task_id)]
        if run.passed or task.task_id in out:
            continue
        (again,) = ctx.run_programs(
            [(task.reference, benchmark_specs(task))],
            desc="reference benchmark tests, alone",
            generated=False,
            budget_factor=LOAD_BUDGET_FACTOR,
        )
        if not again.passed:
            out[task.task_id] = f"reference fails its own benchmark tests in this run: {_first_failure(again)}"
    return out


def _first_failure(run: ProgramRun) -> str:
    """``<test>: <status>: <first line of the message>`` of a run's load error or first non-pass."""
    bad = run.load_error or next((o for o in run.outcomes if o.status != "passed"), None)
    if bad is None:
        return "no benchmark test ran"
    message = (bad.message or bad.exc_type or "").strip().splitlines()
    return f"{bad.name}: {bad.status}" + (f": {message[0][:200]}" if message else "")
