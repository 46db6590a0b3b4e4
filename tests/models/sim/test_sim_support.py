"""Shared helpers of the simulated-model tests (real tasks from TFR_BENCHMARK_DIR, one call per request)."""

from __future__ import annotations

import asyncio
from functools import cache

from tests.helpers.env import benchmark_dir
from tfr_helpers.models.base import ModelRequest, ModelSpec, SamplingParams
from tfr_helpers.models.sim import SimProvider
from tfr_helpers.records import Task

ROLES = {
    "codegen": "coder",
    "ebt": "tester",
    "pbt": "tester",
    "refine": "refiner",
    "judge": "judge",
    "judge_reasoning": "judge",
}


@cache
def tasks(benchmark: str, n: int = 8) -> tuple[Task, ...]:
    """The first ``n`` tasks of a benchmark (BigCodeBench: of the committed selection)."""
    from tfr_helpers.benchmarks import load_tasks

    benchmark_dir()  # the snapshots ($TFR_BENCHMARK_DIR); missing: skip, or fail in CI
    return tuple(load_tasks(benchmark)[:n])


def ask(
    provider: SimProvider,
    template: str,
    task: Task | None,
    model: str = "sim:default",
    sample_index: int = 0,
    **variables: object,
) -> str:
    """One simulated answer (the provider is granted the full task, as the model client grants it)."""
    if task is not None:
        provider.grant_tasks({task.task_id: task}.__getitem__)
    request = ModelRequest(
        messages=(),
        role=ROLES.get(template, "coder"),
        template=template,  # type: ignore[arg-type]
        template_version="1",
        sample_index=sample_index,
        variables=tuple(sorted((k, str(v)) for k, v in variables.items())),
        task=task.view() if task is not None else None,
    )
    reply = asyncio.run(provider.generate(ModelSpec.parse(model), request, SamplingParams()))
    return reply.text


def test_support_loads_real_tasks_of_each_benchmark() -> None:
    for benchmark in ("humaneval", "mbpp", "bigcodebench"):
        loaded = tasks(benchmark)
        assert loaded and all(t.benchmark == benchmark and t.reference for t in loaded)
