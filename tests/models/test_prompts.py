"""Prompt templates: one file per role, versioned, judge prompts see only description, code and feedback."""

from __future__ import annotations

import pytest

from tfr_helpers.arms.controls.stages.requests import TEMPLATES as CONTROL_TEMPLATES
from tfr_helpers.errors import ConfigError
from tfr_helpers.models import TEMPLATE_VERSIONS, TEMPLATES, make_request, render_prompt
from tfr_helpers.models.sim import provider as sim_provider
from tfr_helpers.prompts.render import load_template, templates
from tfr_helpers.replay.provider import SERVED_TEMPLATES

ALL = {
    "description": "DESC-SENTINEL",
    "entry_point": "ENTRY_SENTINEL",
    "signature": "def ENTRY_SENTINEL(x): SIG-SENTINEL",
    "code": "CODE-SENTINEL = '${not_a_var} {braces}'",
    "feedback": "FEEDBACK-SENTINEL",
    "n_tests": "7",
}


def test_every_role_has_a_versioned_template():
    assert set(TEMPLATES) == {"codegen", "ebt", "pbt", "refine", "judge", "judge_reasoning", "retry", "placebo"}
    assert all(TEMPLATE_VERSIONS[name] for name in TEMPLATES)


def test_every_other_list_of_templates_names_the_prompts_own():
    """The template names are written once (``prompts``); the replay datasets and the controls pick from them."""
    assert set(SERVED_TEMPLATES) <= set(TEMPLATES)
    assert set(CONTROL_TEMPLATES.values()) <= set(TEMPLATES)
    assert sim_provider.templates is templates  # the simulated model's error lists the prompts' own names


def test_the_control_templates_hold_no_feedback_slot_but_the_placebo_keeps_the_refine_text():
    assert "feedback" not in load_template("retry").variables  # retry: the task and the code only
    assert "FEEDBACK-SENTINEL" not in "\n".join(m.content for m in render_prompt("retry", **ALL))
    assert load_template("placebo").sections == load_template("refine").sections  # same sections, same framing


@pytest.mark.parametrize("name", ["judge", "judge_reasoning"])
def test_judge_prompts_contain_only_description_code_and_feedback(name):
    assert set(load_template(name).variables) == {"description", "code", "feedback"}
    text = "\n".join(m.content for m in render_prompt(name, **ALL))
    for present in ("DESC-SENTINEL", "CODE-SENTINEL", "FEEDBACK-SENTINEL"):
        assert present in text
    for absent in ("ENTRY_SENTINEL", "SIG-SENTINEL"):
        assert absent not in text
    assert "Accept" in text and "Reject" in text


@pytest.mark.parametrize("forbidden", ["reference", "benchmark_tests", "refined_code", "outcome"])
def test_judge_rejects_any_other_input(forbidden):
    with pytest.raises(ConfigError, match="unknown variables"):
        render_prompt("judge", description="d", code="c", feedback="f", **{forbidden: "x"})


def test_values_are_inserted_verbatim_and_roles_are_system_then_user():
    messages = render_prompt("refine", **ALL)
    assert [m.role for m in messages] == ["system", "user"]
    assert ALL["code"] in messages[1].content and "FEEDBACK-SENTINEL" in messages[1].content


@pytest.mark.parametrize("name", ["ebt", "pbt"])
def test_test_prompts_state_how_to_call_the_function(name):
    text = render_prompt(name, **ALL)[1].content
    assert "from solution import ENTRY_SENTINEL" in text and "def test_" in text and "7" in text
    assert ("@given" in text) == (name == "pbt")


def test_missing_variable_and_unknown_template_are_config_errors():
    with pytest.raises(ConfigError, match="needs variables"):
        render_prompt("codegen", description="d")
    with pytest.raises(ConfigError, match="known templates"):
        render_prompt("nope")


def test_make_request_carries_template_version_and_used_variables():
    req = make_request("judge", role="judge", sample_index=2, **ALL)
    assert req.template == "judge" and req.template_version == TEMPLATE_VERSIONS["judge"]
    assert dict(req.variables) == {
        "description": "DESC-SENTINEL",
        "code": ALL["code"],
        "feedback": "FEEDBACK-SENTINEL",
    }
    assert req.sample_index == 2 and len(req.messages) == 2
