"""The rounds arm records EvalPlus's tiers as the base study does: a tiny offline study (simulated model) with
``plus_tiers: mini``, whose HumanEval chains carry their twins' tiers at every round and whose MBPP chains (no
twin under ``mini``) carry none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.smoke import run_params_study
from tfr_helpers.arms.rounds import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundStep
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results

PARAMS: dict[str, Any] = {
    "run_name": "rounds_tiers",
    "seed": 1,
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 3, "mbpp": 2},
    "models": {"coders": ["sim:default"]},
    "ebts_per_task": 3,
    "pbts_per_task": 0,
    "screening": [],
    "plus_tiers": "mini",
    "refinement": {"rounds": 2, "round_tests": "same", "stop_when_passing": True},
    "concurrency": {"sandbox_workers": 2},
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> Results:
    return load_results(run_params_study(tmp_path_factory.mktemp("rounds_tiers"), PARAMS, shared_benchmarks))


def _chains(results: Results, benchmark: str) -> list[RoundChain]:
    return [c for c in results.part(ARM).chains if c.benchmark == benchmark]


@pytest.mark.slow
def test_humaneval_rounds_carry_their_twins_tiers(results: Results) -> None:
    chains = _chains(results, "humaneval")
    assert chains and any(s.action == "refined" for c in chains for s in c.steps)
    verdicts = {(v.task_id, v.code_index): v for v in results.benchmark_verdicts if v.subject == "generated"}
    for chain in chains:
        assert chain.initial_tiers is not None and chain.initial_tiers == verdicts[(chain.task_id, chain.code_index)].tiers
        before = chain.initial_tiers
        for step in chain.steps:
            assert step.tiers_after is not None and step.tiers_after.benchmark == "humaneval_plus_mini"
            assert step.tiers_after.base or not step.tiers_after.plus
            if step.action != "refined":  # nothing refined: the input code's tiers, as its verdict
                assert step.tiers_after == before
            before = step.tiers_after


@pytest.mark.slow
def test_round_one_has_the_base_studys_tiers_for_the_same_refinement(results: Results) -> None:
    refined = {r.feedback_id: r for r in results.refined_evaluations}
    single = [
        c.steps[0] for c in _chains(results, "humaneval") if c.steps[0].action == "refined" and len(c.steps[0].failed) == 1
    ]
    assert single
    for step in single:  # the same request, the same code, the same twin: the same tiers
        assert step.tiers_after == refined[step.failed[0]].tiers_after


@pytest.mark.slow
def test_mbpp_rounds_carry_no_tiers_under_mini(results: Results) -> None:
    chains = _chains(results, "mbpp")
    assert chains and all(c.initial_tiers is None and all(s.tiers_after is None for s in c.steps) for c in chains)


def test_records_from_before_tiers_still_load() -> None:
    step = RoundStep.model_validate(
        {"round": 1, "action": "carried", "suite_size": 0, "suite_reference_passed": 0, "benchmark_before": True}
        | {"benchmark_after": True}
    )
    assert step.tiers_after is None
    chain = RoundChain.model_validate(
        {"chain_id": "m|t|c0", "model": "m", "refiner": "m", "task_id": "t", "benchmark": "humaneval"}
        | {"round_tests": "same", "initial_passed": False, "steps": [step.model_dump()]}
    )
    assert chain.initial_tiers is None and chain.steps[0].tiers_after is None
