"""The study: its stages in run order, as one list, and ``run_study``, which runs them once or once per seed."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from tfr_helpers.pipeline.arms.declaration import Arm, from_declaration, register_arm, registered_arms
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
from tfr_helpers.records.arm_registry import arms

BASE_STUDY: tuple[Stage, ...] = (
    generate_codes.STAGE,
    generate_tests.STAGE,
    evaluate_code_test_pairs.STAGE,
    screen_feedback.STAGE,
    refine_codes.STAGE,
    evaluate_refined_codes.STAGE,
)
"""The base study's stages, in the order they run."""

ARMS: tuple[Arm, ...] = tuple(from_declaration(arm) for arm in arms())
"""The study's arms: the arm packages of the arms' registry (``tfr_helpers.records.arm_registry.arms``, each
``tfr_helpers/arms/<arm>/``), then the arms still declared in ``pipeline/arms/<arm>/arm.py``. Their stages run after
the base study's, in this order; ``finalize_results``, the view of a run in progress and the call totals iterate
over them (``arms.declaration.registered_arms``)."""

RUN_ORDER: tuple[Stage, ...] = (*BASE_STUDY, *(stage for arm in ARMS for stage in arm.stages), finalize_results.STAGE)
"""The study's stages in the order they run: the base study, the rounds, the oracle-repaired arm, the controls, the
replayed trajectories and their screening, and the consolidation into ``results.json``. Each is registered with
order 10, 20, 30... by its place here."""

ORDER_STEP = 10
"""Orders between two of the study's stages (11..19 after the first) are free for plugin stages."""

for _arm in ARMS:
    register_arm(_arm)
for _position, _stage in enumerate(RUN_ORDER, start=1):
    register_stage(dataclasses.replace(_stage, order=ORDER_STEP * _position))

STAGES = [stage.name for stage in registered_stages()]
"""The pipeline stages in run order once the study and the ``tfr.stages`` plugins are registered."""

CHECKPOINTS = {stage.name: stage.checkpoint for stage in registered_stages() if stage.checkpoint is not None}
"""Checkpoint file (``checkpoints/<name>.jsonl``) of each resumable stage."""

GROUPS: dict[str, tuple[str, ...]] = {
    "refinement": (
        refine_codes.STAGE.name,
        evaluate_refined_codes.STAGE.name,
        *(stage.name for arm in ARMS for stage in arm.stages),
    ),
    "screening": (
        screen_feedback.STAGE.name,
        *(stage.name for arm in ARMS for stage in arm.stages if "screening" in stage.selects),
    ),
}
"""Names that stand for several stages in ``run_study``'s ``stages``: ``refinement`` is the base study's refinement
and its evaluation, then every arm's stages (no work unless an arm's keys turn it on); ``screening`` is the
screening of the feedback, then every arm's stage that screens its own (its items chosen by ``screening``)."""


def include_new_arms() -> None:
    """Take in the arms added to the arms' registry since this module loaded (``register_arm`` of a plugin or a
    test): register each one and its stages after every stage registered so far, ``finalize_results`` moving on to
    stay last. :func:`run_study` calls it before it runs anything."""
    known = {arm.name for arm in registered_arms()}
    for declaration in arms():
        if declaration.name in known:
            continue
        arm = register_arm(from_declaration(declaration))
        final = next(stage for stage in registered_stages() if stage.name == finalize_results.STAGE.name)
        for stage in arm.stages:
            final = register_stage(dataclasses.replace(final, order=final.order + ORDER_STEP))
            register_stage(dataclasses.replace(stage, order=final.order - ORDER_STEP))


def expand_groups(stages: str | Sequence[str]) -> str | list[str]:
    """``stages`` with each group name (:data:`GROUPS`) replaced by its stages; ``all`` and names pass through."""
    if stages == "all":
        return stages
    names = [stages] if isinstance(stages, str) else list(stages)
    return [stage for name in names for stage in GROUPS.get(name, (name,))]


def run_study(
    config: ExperimentConfig,
    run_dir: Path | None = None,
    stages: str | Sequence[str] = "all",
    progress: bool = True,
) -> RunSummary:
    """Run the study's stages (see :func:`tfr_helpers.pipeline.engine.runner.run_stages` for the arguments and
    errors): in ``run_dir`` itself, or, when ``config.seeds`` is set, once per seed under ``<run_dir>/seeds/<seed>/``
    (:func:`tfr_helpers.pipeline.seeds.run_seeds`). ``stages`` may name a group of stages (:data:`GROUPS`)."""
    include_new_arms()
    stages = expand_groups(stages)
    if config.seeds is not None:
        return run_seeds(config, run_dir, stages, progress=progress)
    return runner.run_stages(config, run_dir, stages, progress=progress)
