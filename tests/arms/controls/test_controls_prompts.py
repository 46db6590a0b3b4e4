"""The control arm's prompt templates live in its package and reach the renderer through its declaration: same
names, versions and content hashes as when they sat beside the base study's, so no run's fingerprint changed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tfr_helpers.arms.controls import ARM, prompts
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.prompts import TEMPLATES, render
from tfr_helpers.records.arm_registry import register_arm, unregister_arm

KNOWN = {
    "template:retry": "version 1, sha256 ae6f62ee82e8c91e",
    "template:placebo": "version 1, sha256 e7fee2f4eb5aa29e",
}
"""The two templates' fingerprint parts as runs made before the move recorded them (``config.json``)."""


def test_the_arm_templates_load_from_its_package_with_their_old_fingerprint() -> None:
    assert ARM.prompts == prompts.__name__ and set(prompts.TEMPLATES) <= set(TEMPLATES)
    folder = Path(str(prompts.__file__)).parent
    assert all((folder / f"{name}.txt").is_file() for name in prompts.TEMPLATES)
    assert not any((Path(str(render.__file__)).parent / f"{name}.txt").exists() for name in prompts.TEMPLATES)
    fingerprint = config_from_dict({}).fingerprint()  # every template, whether or not the arm is on
    assert {key: fingerprint[key] for key in KNOWN} == KNOWN


def test_an_arm_template_named_like_another_is_refused() -> None:
    register_arm(dataclasses.replace(ARM, name="twin", field="twin"))  # declares the same templates again
    try:
        with pytest.raises(ConfigError, match="arm 'twin' declares the prompt template 'retry', already taken"):
            render._arm_files.cache_clear()
            render._arm_files()
    finally:
        unregister_arm("twin")
        render._arm_files.cache_clear()
