"""The selection is verified under the study's own limits: a reference that fails its benchmark tests with the
study's budget (BigCodeBench/1103: its test runs a script that sleeps 20 s; the budget is 10 s) is excluded, with
the reason in the selection file, and ``tfr benchmarks verify`` uses the study's limits by default."""

from __future__ import annotations

import pytest

from tfr_helpers.benchmarks import load_selection, load_tasks
from tfr_helpers.benchmarks.verify import reference_failures
from tfr_helpers.cli.sandbox_cmds import _study_limits
from tfr_helpers.pipeline.config.sections import SandboxSettings
from tfr_helpers.sandbox import Sandbox


def test_verify_defaults_to_the_studys_limits() -> None:
    study = SandboxSettings()
    limits = _study_limits(None)
    assert (limits.timeout_s, limits.memory_mb, limits.nofile) == (study.timeout_s, study.memory_mb, study.nofile)
    assert _study_limits(30.0).timeout_s == 30.0


def test_a_reference_that_times_out_under_the_studys_budget_is_excluded_with_its_reason() -> None:
    selection = load_selection()
    assert "BigCodeBench/1103" not in selection.selected
    reason = selection.excluded["BigCodeBench/1103"]
    assert reason.startswith("sandbox:") and "timeout" in reason and "10 s" in reason


@pytest.mark.slow
def test_bigcodebench_1103_fails_its_own_tests_under_the_studys_limits() -> None:
    (task,) = [t for t in load_tasks("bigcodebench", selected=False) if t.task_id == "BigCodeBench/1103"]
    with Sandbox(_study_limits(None), workers=1) as sandbox:
        failures = reference_failures([task], sandbox)
    assert "timeout" in failures["BigCodeBench/1103"].problem
