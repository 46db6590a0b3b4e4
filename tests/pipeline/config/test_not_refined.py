""" "This coder was not refined" is one record: the base study's skipped work, the rounds' ``not_run`` and the
arms' refinement status all come from :func:`scope.not_refined`."""

from __future__ import annotations

from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import config_from_dict

REPLAYED = "replay:reflexion-gpt4-humaneval"


def test_a_coder_without_a_refiner_is_not_refined_in_every_statement_of_it() -> None:
    config = config_from_dict({"benchmarks": ["humaneval"], "models": {"coders": ["sim:default", REPLAYED]}})
    skips = scope.not_refined(config, "backprompt_rounds")
    assert [(s.model, s.stage, s.reason) for s in skips] == [(REPLAYED, "backprompt_rounds", scope.NO_REFINER)]
    assert scope.not_refined(config, "refine_codes", ["sim:default"]) == []
    assert scope.refinement_status(config) == {"sim:default": "run", REPLAYED: scope.NO_REFINER}
    assert list(scope.refinement_status(config)) == ["sim:default", REPLAYED]  # coder order
    base = [s for s in scope.skipped_work(config, {}) if s.stage == "refine_codes"]
    assert [(s.model, s.reason) for s in base] == [(REPLAYED, scope.NO_REFINER)]
