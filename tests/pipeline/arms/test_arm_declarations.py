"""Each arm is declared once (``pipeline/arms/<arm>/arm.py``) and listed in ``study.ARMS``; the run order, the
consolidation into results.json and the call totals come from that list."""

from __future__ import annotations

from tfr_helpers.pipeline.arms.declaration import arm_calls, arm_parts, registered_arms
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.study import ARMS, BASE_STUDY, RUN_ORDER, expand_groups
from tfr_helpers.records import Results, arm_registry


def test_the_run_order_is_the_base_study_then_each_arm_s_stages_then_finalize() -> None:
    arm_stages = [stage.name for arm in ARMS for stage in arm.stages]
    assert [s.name for s in RUN_ORDER] == [*(s.name for s in BASE_STUDY), *arm_stages, "finalize_results"]
    assert len(set(arm_stages)) == len(arm_stages)  # a stage belongs to one arm


def test_every_arm_fills_its_own_results_field_and_is_off_unless_configured() -> None:
    assert registered_arms() == list(ARMS)
    fields = [arm.field for arm in ARMS]
    packaged = {arm.field for arm in arm_registry.arms()}  # an arm package's part: Results.arm_parts, under its key
    assert len(set(fields)) == len(fields) and set(fields) <= set(Results.model_fields) | packaged
    off = arm_parts(config_from_dict({"models": {"coders": ["sim:default"]}}), {})
    assert off == dict.fromkeys(fields)
    assert list(arm_calls(off)) == []


def test_an_arm_that_is_on_builds_its_part_from_the_records_by_stage() -> None:
    config = config_from_dict({"models": {"coders": ["sim:default"]}, "refinement": {"controls": ["retry"]}})
    parts = arm_parts(config, {})
    assert parts["controls"] is not None and parts["controls"].controls == ["retry"]
    assert parts["oracle_repair"] is None and parts["rounds"] is None


def test_the_refinement_group_names_the_refinement_and_every_arm_s_stages() -> None:
    expanded = expand_groups(["screen_feedback", "refinement"])
    assert expanded[:3] == ["screen_feedback", "refine_codes", "evaluate_refined_codes"]
    assert expanded[3:] == [stage.name for arm in ARMS for stage in arm.stages]
    assert expand_groups("all") == "all" and expand_groups("refine_codes") == ["refine_codes"]
