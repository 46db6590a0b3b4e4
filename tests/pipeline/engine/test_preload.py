"""The sandbox workers' preload follows the run's benchmarks: the light set for HumanEval/MBPP, the light set and
numpy for EvalPlus's benchmarks (their test harness imports numpy in every program), the heavy default with
BigCodeBench."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tfr_helpers.benchmarks.registry import get_benchmark
from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import LIGHT_PRELOAD, RunContext

SMOKE = Path(__file__).resolve().parents[3] / "papermill_params" / "smoke.yaml"


def _preload(*benchmarks: str) -> tuple[str, ...] | None:
    config = load_config(SMOKE, {"benchmarks": ["humaneval"], "tasks": {"humaneval": 1}})
    tasks = {f"{name}/{i}": SimpleNamespace(benchmark=name) for i, name in enumerate(benchmarks)}
    return RunContext(config=config, store=None, tasks=tasks).preload()  # type: ignore[arg-type]


@pytest.mark.parametrize("plus", ["humaneval_plus", "mbpp_plus"])
def test_evalplus_runs_preload_what_their_harness_imports(plus: str) -> None:
    assert get_benchmark(plus).program_preloads == ("numpy",)
    assert _preload("humaneval", "mbpp") == LIGHT_PRELOAD
    assert _preload("humaneval", plus) == (*LIGHT_PRELOAD, "numpy")
    assert _preload(plus, "bigcodebench") is None  # the heavy workers' default preload holds numpy already


def test_the_harness_imports_no_other_third_party_module() -> None:
    """``program_preloads`` names every third-party module the harness imports (the rest is the standard library)."""
    from tfr_helpers.benchmarks.evalplus import harness

    source = Path(harness.__file__).read_text(encoding="utf-8")
    imported = {line.split()[1].split(".")[0] for line in source.splitlines() if line.startswith(("import ", "from "))} - {
        "__future__"
    }
    assert imported - set(sys.stdlib_module_names) == set(get_benchmark("humaneval_plus").program_preloads)
