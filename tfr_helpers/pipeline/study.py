"""The study: its stages in run order, as one list, and ``run_study``, which runs them once or once per seed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from tfr_helpers.pipeline.arms.controls import control_evaluate, control_refine
from tfr_helpers.pipeline.arms.oracle import oracle_evaluate_refined, oracle_refine_codes, oracle_repair_tests
from tfr_helpers.pipeline.arms.rounds import backprompt_rounds, evaluate_round_suites, generate_round_tests
from tfr_helpers.pipeline.arms.trajectories import evaluate_trajectory_steps, screen_trajectory_steps
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine import runner
from tfr_helpers.pipeline.engine.run_summary import RunSummary
from tfr_helpers.pipeline.engine.stage import Stage, register_stage, registered_stages
from tfr_helpers.pipeline.seeds import run_seeds
from tfr_helpers.pipeline.stages import (
    evaluate_code_test_pairs,
    evaluate_refined_codes,
    finalize_results,
    generate_codes,
    generate_tests,
    refine_codes,
    screen_feedback,
)

RUN_ORDER: tuple[Stage, ...] = (
    generate_codes.STAGE,
    generate_tests.STAGE,
    evaluate_code_test_pairs.STAGE,
    screen_feedback.STAGE,
    refine_codes.STAGE,
    evaluate_refined_codes.STAGE,
    oracle_repair_tests.STAGE,
    oracle_refine_codes.STAGE,
    oracle_evaluate_refined.STAGE,
    *control_refine.STAGES,
    control_evaluate.STAGE,
    generate_round_tests.STAGE,
    evaluate_round_suites.STAGE,
    backprompt_rounds.STAGE,
    evaluate_trajectory_steps.STAGE,
    screen_trajectory_steps.STAGE,
    finalize_results.STAGE,
)
"""The study's stages in the order they run: the base study, the oracle-repaired arm, the controls, the rounds, the
replayed trajectories and their screening, and the consolidation into ``results.json``. Each is registered with
order 10, 20, 30... by its place here."""

ORDER_STEP = 10
"""Orders between two of the study's stages (11..19 after the first) are free for plugin stages."""

for _position, _stage in enumerate(RUN_ORDER, start=1):
    register_stage(dataclasses.replace(_stage, order=ORDER_STEP * _position))

STAGES = [stage.name for stage in registered_stages()]
"""The pipeline stages in run order once the study and the ``tfr.stages`` plugins are registered."""

CHECKPOINTS = {stage.name: stage.checkpoint for stage in registered_stages() if stage.checkpoint is not None}
"""Checkpoint file (``checkpoints/<name>.jsonl``) of each resumable stage."""


def run_study(
    config: ExperimentConfig,
    run_dir: Path | None = None,
    stages: str | Sequence[str] = "all",
    progress: bool = True,
) -> RunSummary:
    """Run the study's stages (see :func:`tfr_helpers.pipeline.engine.runner.run_stages` for the arguments and
    errors): in ``run_dir`` itself, or, when ``config.seeds`` is set, once per seed under ``<run_dir>/seeds/<seed>/``
    (:func:`tfr_helpers.pipeline.seeds.run_seeds`)."""
    if config.seeds is not None:
        return run_seeds(config, run_dir, stages, progress=progress)
    return runner.run_stages(config, run_dir, stages, progress=progress)
