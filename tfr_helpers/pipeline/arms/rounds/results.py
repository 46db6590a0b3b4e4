"""The rounds' part of ``results.json`` (``Results.rounds``), for ``finalize_results``."""

from __future__ import annotations

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.stage import InputRecords
from tfr_helpers.records import GeneratedCode, SkippedWork
from tfr_helpers.records.rounds import RoundChain, RoundsResults, RoundSuite, RoundTests

STAGE = "backprompt_rounds"


def rounds_results(config: ExperimentConfig, records: InputRecords) -> RoundsResults | None:
    """Every chain, fresh suite and reference verdict of the rounds, and the chains not run with the reason.

    Returns:
        None when ``refinement.rounds`` is 1 (the base study: nothing runs, ``results.json`` is unchanged).
    """
    settings = config.refinement
    if settings.rounds < 2:
        return None
    not_run = scope.not_refined(config, STAGE)
    not_run += [
        SkippedWork(
            model=c.model,
            task_id=c.task_id,
            stage=STAGE,
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
