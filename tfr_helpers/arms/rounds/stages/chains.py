"""The chains of multi-round backprompting and their suites, built from the records of earlier stages.

One chain per (coder with a refiner, task, code sample with usable code). Round 1's suite is the unit's
``generate_tests`` suite, and the code's outcomes on it are the RQ1 pair records (the same runs and the same
feedback texts the base study refines on). Rounds 2..R use the fresh suites of ``generate_round_tests`` with
the reference verdicts of ``evaluate_round_suites`` (``round_tests: fresh``), or round 1's suite again
(``same``; also for a coder whose tester is replayed and cannot write new suites).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundSuite, RoundTests
from tfr_helpers.arms.rounds.stages.evaluate_round_suites import suite_tests
from tfr_helpers.arms.rounds.stages.generate_round_tests import fresh_suites
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.pipeline.steps.lookups import tests_by_id
from tfr_helpers.records import BenchmarkVerdict, GeneratedCode, GeneratedTest, PairEvaluation, Task, TierVerdicts


@dataclass(frozen=True)
class SuiteEntry:
    """One test of a round's suite, with the reference's verdict (measurement only) and, in round 1, the
    generated code's pair record (its outcome and feedback on this test)."""

    test: GeneratedTest
    reference_passed: bool
    pair: PairEvaluation | None = None


@dataclass(frozen=True)
class ChainJob:
    """Refine one code sample for up to R rounds."""

    model: str
    refiner: str
    task: Task
    code_index: int
    code: str
    """Round 0: the generated code."""
    initial_passed: bool
    round_tests: Literal["fresh", "same"]
    """The suite mode this chain runs with."""
    suites: tuple[tuple[SuiteEntry, ...], ...]
    """Suite of round k at position k-1 (R suites)."""
    initial_tiers: TierVerdicts | None = None
    """Round 0's EvalPlus tiers (the generated code's benchmark verdict's)."""

    @property
    def key(self) -> str:
        """Checkpoint key, also the chain id."""
        return chain_id(self.model, self.task.task_id, self.code_index)

    @property
    def unit(self) -> tuple[str, str]:
        """The (coder, task id) whose undone items in earlier stages hold this one back."""
        return self.model, self.task.task_id


def chain_id(model: str, task_id: str, code_index: int) -> str:
    """``<model>|<task_id>|c<code sample>``."""
    return f"{model}|{task_id}|c{code_index}"


def chain_items(ctx: RunContext, inputs: InputRecords) -> list[ChainJob]:
    """One job per chain in canonical order (coders, tasks, code samples); none when ``rounds`` is 1."""
    config = ctx.config
    if not ARM.enabled(config):
        return []
    rounds = ARM.settings(config).rounds
    tests = tests_by_id(inputs.of(GeneratedTest))
    pairs: dict[tuple[str, str, int], list[PairEvaluation]] = {}
    for p in inputs.of(PairEvaluation):
        pairs.setdefault((p.model, p.task_id, p.code_index), []).append(p)
    verdicts = {(v.model, v.task_id, v.code_index): v for v in inputs.of(BenchmarkVerdict)}
    fresh = _fresh_suites(inputs)
    jobs = []
    for code in inputs.of(GeneratedCode):
        unit = (code.model, code.task_id, code.sample_index)
        if not code.code or unit not in verdicts or not scope.refines(config, code.model):
            continue
        first = tuple(SuiteEntry(tests[p.test_id], p.reference.status == "passed", p) for p in pairs.get(unit, []))
        mode: Literal["fresh", "same"] = "fresh" if fresh_suites(ctx, code.model) else "same"
        later = [fresh.get((code.model, code.task_id, k)) if mode == "fresh" else first for k in range(2, rounds + 1)]
        if any(suite is None for suite in later):  # its fresh suite is undone (the ledger says why)
            continue
        jobs.append(
            ChainJob(
                model=code.model,
                refiner=config.models.refiner_for(code.model),
                task=ctx.tasks[code.task_id],
                code_index=code.sample_index,
                code=code.code,
                initial_passed=verdicts[unit].passed,
                round_tests=mode,
                suites=(first, *[s for s in later if s is not None]),
                initial_tiers=verdicts[unit].tiers,
            )
        )
    return jobs


def _fresh_suites(inputs: InputRecords) -> dict[tuple[str, str, int], tuple[SuiteEntry, ...]]:
    """(coder, task, round) -> the fresh suite with the reference's verdicts, for suites whose verdicts exist."""
    tests = suite_tests(inputs.of(RoundTests))
    out = {}
    for suite in inputs.of(RoundSuite):
        mine = tests_by_id(tests.get((suite.model, suite.task_id, suite.round), []))
        entries = zip(suite.test_ids, suite.reference_passed, strict=True)
        out[(suite.model, suite.task_id, suite.round)] = tuple(SuiteEntry(mine[i], ok) for i, ok in entries)
    return out
