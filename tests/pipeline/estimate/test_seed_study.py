"""The live study's recipe (papermill_params/seed_study.yaml): it validates, names the study's three models with both
judges, carries the dated price table of docs/cost_and_batch.md, and ``tfr estimate`` prints its cost offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.pipeline.estimate.test_estimate import tfr_estimate
from tfr_helpers.pipeline.config.experiment import load_config
from tfr_helpers.pipeline.estimate.dry_run import estimate

ROOT = Path(__file__).resolve().parents[3]
PARAMS = ROOT / "papermill_params" / "seed_study.yaml"
MODELS = ["anthropic:claude-sonnet-5", "openai-compatible:deepseek-ai/DeepSeek-V3.1", "openai:gpt-5-mini"]


def docs_prices() -> dict[str, tuple[float, float]]:
    """The rows of the dated price table in docs/cost_and_batch.md: spec -> (input, output) USD per million tokens."""
    text = (ROOT / "docs" / "cost_and_batch.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| ([\d.]+) \| ([\d.]+) \|", text, flags=re.MULTILINE)
    return {spec: (float(i), float(o)) for spec, i, o in rows}


def test_the_recipe_validates_with_the_studys_models_judges_and_dated_prices(shared_benchmarks: Path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        config = load_config(PARAMS)
    assert [c if isinstance(c, str) else c.model for c in config.models.coders] == MODELS
    assert config.models.judge is None and {"llm_judge", "llm_judge_reasoning"} <= set(config.screening)
    assert sorted(config.benchmarks) == ["bigcodebench", "humaneval", "mbpp"] and config.tasks == "all"
    assert (config.ebts_per_task, config.pbts_per_task) == (3, 1)
    prices = {k: (v.input_per_mtok, v.output_per_mtok) for k, v in config.model_settings.prices.items()}
    assert prices == {m: docs_prices()[m] for m in MODELS}
    assert "2026-12-05" in (ROOT / "docs" / "cost_and_batch.md").read_text(encoding="utf-8")


@pytest.mark.slow  # planning even two tasks per benchmark for three models took 38 s on two busy cores
def test_the_estimate_prices_every_model_of_a_cut_recipe(shared_benchmarks: Path) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        config = load_config(PARAMS, {"tasks": 2})
        result = estimate(config)
    costs = result.cost_by_model()
    assert sorted(costs) == sorted(MODELS)
    assert all(0 < low <= point <= high for low, point, high in costs.values())
    # the same calls for every model: its price alone orders the costs (Sonnet 5 > GPT-5 mini > DeepSeek-V3.1 out)
    assert costs[MODELS[0]][1] > costs[MODELS[2]][1] > costs[MODELS[1]][1]


@pytest.mark.slow  # the full recipe's 929 tasks are planned: a minute or more on two busy cores
def test_tfr_estimate_on_the_recipe_exits_0_and_prints_a_cost(tmp_path: Path, shared_benchmarks: Path) -> None:
    proc = tfr_estimate("papermill_params/seed_study.yaml", tmp_path, shared_benchmarks)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^total: \$\d+\.\d\d \(\$\d+\.\d\d-\$\d+\.\d\d\)$", proc.stdout, flags=re.MULTILINE), proc.stdout
    for model in MODELS:
        assert f"total {model}: $" in proc.stdout
