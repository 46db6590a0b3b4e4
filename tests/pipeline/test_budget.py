"""Acceptance: ``budget_usd`` stops a run mid-stage within the cap; a rerun with a higher cap finishes identically.

Every role runs through the real openai SDK against the fake OpenAI-compatible server, which reports usage as
characters / 4 so that costs vary with the prompts like real ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.checkpoints import log_lines, log_paths
from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.errors import ConfigError
from tfr_helpers.models import credentials
from tfr_helpers.models.budget import Budget, BudgetExhausted
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.faults import RunIncomplete

from .study_server import MODEL, RIGHT_KEY, Responder, params, study_tasks
from .test_faults_study import comparable

pytestmark = pytest.mark.slow
CAP = 0.0025
"""About four calls' worth at the study's prices (1 / 2 USD per million tokens, max_tokens 256)."""


@pytest.fixture(scope="module")
def server(shared_benchmarks: Path) -> Iterator[tuple[FakeLLMServer, pytest.MonkeyPatch]]:
    with pytest.MonkeyPatch.context() as mp, FakeLLMServer(responder=Responder(study_tasks()), api_key=RIGHT_KEY) as srv:
        srv.usage_from_text = True
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.setenv("OPENAI_COMPATIBLE_API_KEY", RIGHT_KEY)
        mp.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
        mp.setattr(credentials, "_dotenv_loaded", True)
        yield srv, mp


def _config(base_url: str, budget: float | None) -> Any:
    data = params(base_url)
    data["sampling"] = {"max_tokens": 256}
    if budget is not None:
        data["budget_usd"] = budget
    return config_from_dict(data)


def _logged(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for path in log_paths(run / "calls", "*.jsonl") for line in log_lines(path)]


def test_the_cap_stops_mid_stage_within_budget_and_a_higher_cap_finishes_identically(server, tmp_path: Path) -> None:
    srv, mp = server
    mp.setenv("TFR_CACHE_DIR", str(tmp_path / "cache-uncapped"))
    run_stages(_config(srv.base_url, None), tmp_path / "uncapped", progress=False)

    mp.setenv("TFR_CACHE_DIR", str(tmp_path / "cache-capped"))
    capped = tmp_path / "capped"
    with pytest.raises(RunIncomplete) as info:
        run_stages(_config(srv.base_url, CAP), capped, progress=False)
    message = str(info.value)
    assert "The run stopped early: The budget is reached: budget_usd is $0.0025" in message
    assert "Raise budget_usd in the params" in message and "rerun with the same --run-dir" in message
    calls = _logged(capped)
    costs = [c["usage"]["cost_usd"] for c in calls if not c["cached"]]
    assert 0 < len(costs) < 14  # some calls were sent, not all
    assert sum(costs) <= CAP + max(costs)  # one call in flight at a time (concurrency 1)
    assert sum(costs) <= CAP  # reservations are upper bounds of these prompts' costs
    done = {p.stem: len(log_lines(p)) for p in log_paths(capped / "checkpoints", "*.jsonl")}
    assert 0 < done.get("generated_codes", 0) + done.get("generated_tests", 0) < 10  # it fell inside a stage
    assert info.value.summary is not None and info.value.summary.invocation_calls.not_sent > 0

    summary = run_stages(_config(srv.base_url, 1.0), capped, progress=False)  # same run directory, higher cap
    assert summary.invocation_calls.failed == 0
    results, uncapped = comparable(capped), comparable(tmp_path / "uncapped")
    assert results["config"].pop("budget_usd") == 1.0 and uncapped["config"].pop("budget_usd") is None
    assert results == uncapped
    resent = [c for c in _logged(capped) if not c["cached"]]
    assert len(resent) == 14  # every call made once across both invocations: nothing paid twice


def test_spent_starts_from_the_run_and_refusal_names_the_numbers() -> None:
    budget = Budget(1.0, spent_usd=0.6)
    held = budget.reserve(0.3)
    with pytest.raises(BudgetExhausted, match=r"\$0.6000 is spent in this run, \$0.3000 is reserved by 1 call"):
        budget.reserve(0.2)
    budget.settle(held, 0.1)
    assert budget.spent_usd == pytest.approx(0.7) and budget.reserved_usd == 0 and budget.in_flight == 0
    assert budget.reserve(0.3) == 0.3


def test_a_budget_needs_the_price_of_every_paid_model() -> None:
    data = {"models": {"coders": [MODEL]}, "budget_usd": 5}
    with pytest.raises(ConfigError, match=r"budget_usd needs the price of 'openai-compatible:fake-coder'"):
        config_from_dict(data)
    assert config_from_dict({"budget_usd": 5}).budget_usd == 5  # the simulated model is free
    priced = {**data, "model_settings": {"prices": {MODEL: {"input_per_mtok": 1, "output_per_mtok": 2}}}}
    assert config_from_dict(priced).config_hash() == config_from_dict({**priced, "budget_usd": 9}).config_hash()
