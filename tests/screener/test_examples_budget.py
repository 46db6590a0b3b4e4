"""The learned screener's prompt examples run on the generated code under the run's budget of a generated test
(``sandbox.generated_test_timeout_s``), not a benchmark test's: a program that loops on an example costs that
budget, and an example the code answers at once still passes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tfr_helpers.pipeline import load_config
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.screener import strategy
from tfr_helpers.screener.features import example_job, example_key

SMOKE = Path(__file__).resolve().parents[2] / "papermill_params" / "smoke.yaml"
PROMPT = 'def f(x):\n    """Double x.\n    >>> f(1)\n    2\n    """\n'
BENCHMARK_BUDGET, GENERATED_BUDGET = 30.0, 1.0


@pytest.fixture
def ctx(tmp_path: Path, shared_benchmarks: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[RunContext]:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    light = {
        "benchmarks": ["humaneval"],
        "tasks": {"humaneval": 1},
        "concurrency": {"sandbox_workers": 1},
        "sandbox": {"timeout_s": BENCHMARK_BUDGET, "generated_test_timeout_s": GENERATED_BUDGET},
    }
    context = RunContext(config=load_config(SMOKE, light), store=RunStore(tmp_path / "run"), tasks={})
    try:
        yield context
    finally:
        context.close()


def _job(code: str) -> tuple[str, list]:
    return example_job(example_key(code, PROMPT, "f", ()))


@pytest.mark.slow  # a sandbox and a program that loops for its budget: 5 s on a quiet machine, 20 s under load
def test_examples_get_the_generated_tests_budget(ctx: RunContext) -> None:
    loops = "def f(x):\n    while True:\n        pass\n"
    doubles = "def f(x):\n    return 2 * x\n"
    looped, passed = strategy._run_examples([_job(loops), _job(doubles)], ctx)
    (outcome,) = looped.outcomes
    assert outcome.status == "timeout"
    assert outcome.duration_s < BENCHMARK_BUDGET / 2  # killed near the generated tests' 1 s, far from the 30 s
    assert [o.status for o in passed.outcomes] == ["passed"]
