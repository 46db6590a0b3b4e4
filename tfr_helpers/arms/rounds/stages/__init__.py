"""Multi-round backprompting's stages, in the order they run, and its part of ``results.json`` built from their
records (``RoundsResults``) with the model calls it holds."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.arms.rounds.arm import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundsResults, RoundSuite, RoundTests
from tfr_helpers.arms.rounds.stages import backprompt_rounds, evaluate_round_suites, generate_round_tests
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.records import GeneratedCode, ModelCallRecord, SkippedWork

STAGES = (generate_round_tests.STAGE, evaluate_round_suites.STAGE, backprompt_rounds.STAGE)
"""Fresh suites per round, their reference runs, and the chains refined round after round."""


def results(config: ExperimentConfig, records: InputRecords) -> RoundsResults:
    """Every chain, fresh suite and reference verdict of the rounds, and the chains not run with the reason (asked
    when the rounds are on)."""
    settings = ARM.settings(config)
    stage = backprompt_rounds.STAGE.name
    not_run = scope.not_refined(config, stage)
    not_run += [
        SkippedWork(
            model=c.model,
            task_id=c.task_id,
            stage=stage,
            reason=f"not run: code sample {c.sample_index} has no usable code",
        )
        for c in records.of(GeneratedCode)
        if not c.code and scope.refines(config, c.model)
    ]
    return RoundsResults(
        rounds=settings.rounds,
        round_tests=settings.round_tests,
        stop_when_passing=settings.stop_when_passing,
        chains=records.of(RoundChain),
        round_tests_generated=records.of(RoundTests),
        suites=records.of(RoundSuite),
        not_run=not_run,
    )


def calls(part: RoundsResults) -> Iterable[tuple[str, ModelCallRecord]]:
    """Each round's refinement call of every chain, and the tester calls of the fresh suites."""
    for chain in part.chains:
        for step in chain.steps:
            if step.call is not None:
                yield f"round_refine|{chain.chain_id}|{step.round}", step.call
    for suite in part.round_tests_generated:
        for t in suite.tests:
            yield f"round_test|{t.model}|{t.task_id}|{t.kind}|{t.sample_index}", t.call
        for f in suite.failures:
            yield f"round_test|{f.model}|{f.task_id}|{f.kind}|{f.sample_index}", f.call
