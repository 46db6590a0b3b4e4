"""A whole run with every role on the fake OpenAI-compatible server (real openai SDK): the reference solutions
and benchmark tests carry a sentinel, and neither a request body the server receives, nor the call log, nor
what a screening strategy receives contains it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.checkpoints import log_lines, log_paths
from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.models import credentials
from tfr_helpers.pipeline import STRATEGIES, Screener, ScreeningItem, Verdict, load_results, run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.records import Task, TaskView

SENTINEL = "# SENTINEL-REFERENCE-7f3a"
SPY = "spy_on_screening_inputs"

CODE = """Here is the code.
```python
def has_close_elements(numbers, threshold):
    return False


def similar_elements(test_tup1, test_tup2):
    return ()
```
"""
TESTS = """```python
def test_has_close_elements():
    assert has_close_elements([1.0, 2.0, 2.05], 0.1) == True


def test_similar_elements():
    assert set(similar_elements((3, 4, 5, 6), (5, 7, 4, 10))) == {4, 5}
```
"""
STAGE_REPLIES = [
    ("generate_codes", CODE),
    ("generate_tests", TESTS),
    ("evaluate_code_test_pairs", None),
    ("screen_feedback", "The test is right.\nDecision: Accept"),
    ("refine_codes", CODE),
    ("evaluate_refined_codes", None),
    ("finalize_results", None),
]
"""Each stage with the one reply the fake server gives to every request of that stage."""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """The fake server, with no base URL or .env from the environment."""
    monkeypatch.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "EMPTY")
    monkeypatch.setattr(credentials, "_dotenv_loaded", True)
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def sentinel_tasks(pipeline_env: Path, monkeypatch: pytest.MonkeyPatch) -> list[Task]:
    """Every loaded task's reference, benchmark tests and test imports carry the sentinel; returns those loaded."""
    import tfr_helpers.benchmarks as benchmarks

    original = benchmarks.load_tasks
    loaded: list[Task] = []

    def load_tasks(benchmark: str, **kwargs: Any) -> list[Task]:
        tasks = [
            t.model_copy(
                update={
                    "reference": f"{t.reference}\n{SENTINEL}\n",
                    "tests": f"{t.tests}\n{SENTINEL}\n",
                    "test_imports": [*t.test_imports, SENTINEL],
                }
            )
            for t in original(benchmark, **kwargs)
        ]
        loaded.extend(tasks)
        return tasks

    monkeypatch.setattr(benchmarks, "load_tasks", load_tasks)
    return loaded


def test_no_request_and_no_screening_input_holds_the_reference(
    server: FakeLLMServer, sentinel_tasks: list[Task], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[ScreeningItem] = []

    def spy(items: Sequence[ScreeningItem], ctx: object) -> list[Verdict]:
        seen.extend(items)
        return [Verdict("accept") for _ in items]

    monkeypatch.setitem(STRATEGIES, SPY, Screener(SPY, spy))
    fake = "openai-compatible:fake-{}"
    config = config_from_dict(
        {
            "run_name": "sentinel",
            "benchmarks": ["humaneval", "mbpp"],
            "tasks": 1,
            "models": {
                "coders": [fake.format("coder")],
                "tester": fake.format("tester"),
                "refiner": fake.format("refiner"),
                "judge": fake.format("judge"),
            },
            "ebts_per_task": 2,
            "pbts_per_task": 0,
            "screening": ["llm_judge", "llm_judge_reasoning", SPY],
            "concurrency": {"sandbox_workers": 2},
            "model_settings": {
                "cache_mode": "off",
                "base_urls": {"openai-compatible": server.base_url + "/v1"},
                "retry": {"max_attempts": 1},
            },
        }
    )
    run_dir = tmp_path / "run"
    for stage, reply in STAGE_REPLIES:
        if reply is not None:
            server.default_text = reply
        run_stages(config, run_dir, stages=stage, progress=False)

    # the run really used the sentinel tasks, and every role really called the server
    assert sentinel_tasks and all(SENTINEL in t.reference and SENTINEL in t.tests for t in sentinel_tasks)
    results = load_results(run_dir)
    assert results.generated_codes and results.generated_tests and results.refinements
    judged = [d for d in results.screening if d.strategy in ("llm_judge", "llm_judge_reasoning")]
    assert judged and all(d.call is not None and d.call.error is None for d in judged)
    models = {r.body.get("model") for r in server.requests}
    assert models == {"fake-coder", "fake-tester", "fake-refiner", "fake-judge"}

    # nothing the server received holds the sentinel
    for request in server.requests:
        assert SENTINEL not in json.dumps(request.body), request.body
    for log in log_paths(run_dir / "calls", "*.jsonl"):
        assert SENTINEL not in "\n".join(log_lines(log)), log

    # a custom strategy got items with the task's view only
    assert seen and len(seen) == len(judged) // 2
    for item in seen:
        assert isinstance(item.task, TaskView) and not hasattr(item.task, "reference")
        assert SENTINEL not in repr(item)
