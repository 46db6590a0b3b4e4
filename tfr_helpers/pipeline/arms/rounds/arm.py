"""Multi-round backprompting, declared once: when it is on, its stages, its part of ``Results``, its calls."""

from __future__ import annotations

from collections.abc import Iterable

from tfr_helpers.pipeline.arms.declaration import Arm
from tfr_helpers.pipeline.arms.rounds import backprompt_rounds, evaluate_round_suites, generate_round_tests
from tfr_helpers.pipeline.arms.rounds.results import rounds_results
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.records import ModelCallRecord
from tfr_helpers.records.rounds import RoundsResults


def rounds_enabled(config: ExperimentConfig) -> bool:
    """On when ``refinement.rounds`` asks for more than one round."""
    return config.refinement.rounds > 1


def rounds_calls(part: RoundsResults) -> Iterable[tuple[str, ModelCallRecord]]:
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


ARM = Arm(
    "rounds",
    enabled=rounds_enabled,
    stages=(generate_round_tests.STAGE, evaluate_round_suites.STAGE, backprompt_rounds.STAGE),
    field="rounds",
    results=rounds_results,
    calls=rounds_calls,
    beyond_one=True,
    switch="refinement.rounds > 1",
    summarize=lambda config: f"{config.refinement.rounds} rounds",
)
