"""``tfr estimate``: its call counts against the calls a run on the fake OpenAI-compatible server makes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.checkpoints import log_lines
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.pipeline.study_server import MODEL, RIGHT_KEY, Responder, params, study_tasks
from tfr_helpers.cli.estimate_cmds import parse_fail_rate
from tfr_helpers.errors import ConfigError
from tfr_helpers.models import credentials
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict, load_config
from tfr_helpers.pipeline.estimate.dry_run import estimate

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.slow  # the tests read one study run against the fake provider, or run `tfr estimate`
FIRST = ["generate_codes", "generate_tests", "evaluate_code_test_pairs"]


@pytest.fixture(scope="module")
def study(shared_benchmarks: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The fake-server study: estimate first, run the outcome stages, estimate again, run the rest."""
    root = tmp_path_factory.mktemp("estimate")
    with pytest.MonkeyPatch.context() as mp, FakeLLMServer(responder=Responder(study_tasks()), api_key=RIGHT_KEY) as srv:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.setenv("OPENAI_COMPATIBLE_API_KEY", RIGHT_KEY)
        mp.setenv("TFR_CACHE_DIR", str(root / "cache"))
        mp.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
        mp.setattr(credentials, "_dotenv_loaded", True)
        config = config_from_dict(params(srv.base_url))
        run = root / "run"
        out: dict[str, Any] = {"config": config, "run": run, "before": estimate(config)}
        run_stages(config, run, FIRST, progress=False)
        out["evaluated"] = estimate(config, run)
        run_stages(config, run, "all", progress=False)
        out["finished"] = estimate(config, run)
        out["fresh_dir_same_cache"] = estimate(config, root / "other-run")
        yield out


def _sent(run: Path, stage: str) -> int:
    lines = log_lines(run / "calls" / f"{stage}.jsonl")
    return sum(not json.loads(line)["cached"] for line in lines)


def test_outcome_free_stages_are_counted_exactly_before_the_run(study: dict[str, Any]) -> None:
    before = study["before"]
    for stage, role in (("generate_codes", "coder"), ("generate_tests", "tester")):
        assert before.modes[stage] == "exact"
        low, point, high = before.calls_by(stage, role)
        assert low == point == high == _sent(study["run"], stage) == 5


def test_feedback_stages_are_projected_within_the_stated_range(study: dict[str, Any]) -> None:
    before = study["before"]
    for stage in ("screen_feedback", "refine_codes"):
        assert before.modes[stage] == "projected"
        low, _, high = before.calls_by(stage)
        assert low <= _sent(study["run"], stage) <= high, stage
    assert any("fail rate of 10%-50%" in line for line in before.table())


def test_an_evaluated_run_makes_the_feedback_stages_exact(study: dict[str, Any]) -> None:
    evaluated = study["evaluated"]
    assert evaluated.modes["generate_codes"] == evaluated.modes["generate_tests"] == "done"
    assert evaluated.done_calls == 10
    for stage, role in (("screen_feedback", "judge"), ("refine_codes", "refiner")):
        assert evaluated.modes[stage] == "exact"
        assert evaluated.calls_by(stage, role) == (2, 2, 2) == (_sent(study["run"], stage),) * 3


def test_prices_give_the_cost_and_a_finished_run_costs_nothing(study: dict[str, Any]) -> None:
    before = study["before"]
    low, point, high = before.cost_by_model()[MODEL]
    assert 0 < low < point < high  # priced at 1 / 2 USD per million tokens in the study params
    assert study["finished"].total_cost == (0, 0, 0) and study["finished"].lines == []


def test_calls_the_cache_answers_are_free_and_measure_the_token_approximation(study: dict[str, Any]) -> None:
    fresh = study["fresh_dir_same_cache"]  # a new run directory on the finished run's response cache
    answered = [line for line in fresh.lines if line.stage in ("generate_codes", "generate_tests")]
    assert [line.cached for line in answered] == [5, 5]
    assert all(line.calls == (0, 0, 0) and line.cost_usd == (0, 0, 0) for line in answered)
    assert len(fresh.ratios) == 10  # the fake server reports usage: the approximation is compared with it
    assert any(line.startswith("  measured: 10 cached replies") for line in fresh.table())


def test_fail_rate_option_is_checked() -> None:
    assert parse_fail_rate("0.2,0.3") == (0.2, 0.3)
    with pytest.raises(ConfigError, match="LOW,HIGH"):
        parse_fail_rate("half")
    with pytest.raises(ConfigError, match="0 <= LOW <= HIGH <= 1"):
        parse_fail_rate("0.6,0.2")


def tfr_estimate(params: str, home: Path, shared_benchmarks: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``tfr estimate --params <params>`` offline (no key, a fresh cache), as a user would run it."""
    tfr = Path(sys.executable).parent / "tfr"
    base = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TFR_CACHE_DIR": str(home)}
    return subprocess.run(
        [str(tfr), "estimate", "--params", params],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=base | {"TFR_BENCHMARK_DIR": str(shared_benchmarks)} | env,
    )


def test_cli_prints_the_table_offline_for_the_openai_params(tmp_path: Path, shared_benchmarks: Path) -> None:
    proc = tfr_estimate("papermill_params/openai.yaml", tmp_path, shared_benchmarks)
    assert proc.returncode == 0, proc.stderr
    assert "generate_codes     openai:gpt-5-mini              coder                  60" in proc.stdout
    assert "total openai:gpt-5-mini: $" in proc.stdout and "projected" in proc.stdout


def test_batch_mode_prices_its_provider_at_half(study: dict[str, Any]) -> None:
    config = study["config"]
    settings = config.model_settings.model_copy(update={"batch": {"openai-compatible": True}})
    batched = estimate(config.model_copy(update={"model_settings": settings}))
    live, half = estimate(config).cost_by_model()[MODEL], batched.cost_by_model()[MODEL]
    assert live[2] > 0 and half == pytest.approx(tuple(c / 2 for c in live))


def test_the_budget_is_compared_with_the_cost_range(study: dict[str, Any]) -> None:
    config = study["config"]
    low, _, high = estimate(config).total_cost
    for cap, verdict in ((high * 2, "above the high estimate"), (low / 2, "below the low estimate")):
        table = estimate(config.model_copy(update={"budget_usd": cap})).table()
        assert any(line.startswith(f"budget_usd: ${cap:.4f}, {verdict}") for line in table)


def test_every_strategy_of_the_main_job_is_estimated_including_those_that_run_programs(shared_benchmarks: Path) -> None:
    """The main job's screening list holds a strategy that executes prompt examples (``learned_gold_free``): an
    estimate runs no program, so the strategy meets ``not_run`` outcomes and the estimate still completes."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        config = load_config(ROOT / "papermill_params" / "default.yaml", {"tasks": 2, "models": {"coders": ["sim:default"]}})
        assert "learned_gold_free" in config.screening
        result = estimate(config)
    assert any(line.stage == "screen_feedback" for line in result.lines)
