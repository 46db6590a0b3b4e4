"""Screening strategies defined outside the package, named in a params file by import path."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import STRATEGIES, load_config, load_results, run_stages
from tfr_helpers.pipeline.screening.registry import resolve_strategy

_MODULE = '''
from tfr_helpers.pipeline.screening.registry import Verdict


def reject_long_feedback(items, ctx):
    """Reject feedback longer than 200 characters."""
    return [
        Verdict("reject" if len(i.feedback.text) > 200 else "accept", f"{len(i.feedback.text)} chars",
                score=len(i.feedback.text) / 1000)
        for i in items
    ]


NOT_A_FUNCTION = 3
'''
NAME = "tfr_test_screens:reject_long_feedback"


@pytest.fixture
def outside_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "tfr_test_screens.py").write_text(textwrap.dedent(_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    yield
    for key in [k for k in STRATEGIES if k.startswith("tfr_test_screens:")]:
        STRATEGIES.pop(key)
    sys.modules.pop("tfr_test_screens", None)


@pytest.mark.slow
def test_a_strategy_in_a_module_outside_the_package_runs_from_a_params_file(
    outside_module: None, pipeline_env: Path, write_params, tmp_path: Path
) -> None:
    params = write_params(
        {
            "run_name": "plugin",
            "benchmarks": ["humaneval"],
            "tasks": {"humaneval": ["HumanEval/0", "HumanEval/2"]},
            "ebts_per_task": 2,
            "pbts_per_task": 0,
            "screening": [NAME],
        }
    )
    config = load_config(params)
    assert config.screening == ["accept_all", NAME]
    run_stages(config, tmp_path / "run")
    decisions = [d for d in load_results(tmp_path / "run").screening if d.strategy == NAME]
    feedback = {
        p.feedback.feedback_id: p.feedback.text for p in load_results(tmp_path / "run").pair_evaluations if p.feedback
    }
    assert decisions and len(decisions) == len(feedback)
    for d in decisions:
        assert d.decision == ("reject" if len(feedback[d.feedback_id]) > 200 else "accept")
        assert d.reasoning == f"{len(feedback[d.feedback_id])} chars"
        assert d.score == len(feedback[d.feedback_id]) / 1000 and d.abstained is False  # the plugin's typed score


def test_bad_import_paths_are_config_errors_naming_the_fix(outside_module: None) -> None:
    with pytest.raises(ConfigError, match="cannot import no_such_module_xyz"):
        resolve_strategy("no_such_module_xyz:f")
    with pytest.raises(ConfigError, match="has no attribute 'missing'"):
        resolve_strategy("tfr_test_screens:missing")
    with pytest.raises(ConfigError, match="is not a function"):
        resolve_strategy("tfr_test_screens:NOT_A_FUNCTION")
    with pytest.raises(ConfigError, match="unknown strategy 'nope'.*'package.module:function'"):
        resolve_strategy("nope")
    assert resolve_strategy(NAME).decide.__name__ == "reject_long_feedback"


def test_a_strategy_declared_as_a_tfr_screening_entry_point_is_found_by_name(
    outside_module: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfr_helpers import plugins

    dist = tmp_path / "plugins" / "tfr_test_screens-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tfr-test-screens\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[tfr.screening]\nreject_long = {NAME}\n")
    monkeypatch.setattr(plugins, "_LOADED", {})  # the group is read afresh, now that the plugin is installed
    try:
        assert resolve_strategy("reject_long").decide.__name__ == "reject_long_feedback"
    finally:
        STRATEGIES.pop("reject_long", None)
