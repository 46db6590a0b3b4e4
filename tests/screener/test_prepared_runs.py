"""The learned screener's prompt examples start in the background before the stage's first chunk: a chunk waits
for its own examples only, each runs once, and closing the run stops the ones not started."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from tfr_helpers.screener import strategy
from tfr_helpers.screener.features import example_job, example_key

PROMPT = 'def f(x):\n    """Double x.\n    >>> f(1)\n    2\n    """\n'


class _Context:
    """A run context's part the strategy uses: its sandbox, where the program ``slow`` runs until released."""

    def __init__(self, workers: int) -> None:
        self.config = SimpleNamespace(
            concurrency=SimpleNamespace(executor="local", sandbox_workers=workers),
            sandbox=SimpleNamespace(timeout_s=10.0, generated_test_timeout_s=5.0),
        )
        self.release = threading.Event()
        self.started = threading.Event()
        self.ran: list[str] = []
        self.hooks: list[Any] = []

    def run_programs(self, jobs: list[tuple[str, Any]], desc: str = "", budget_factor: float = 1.0) -> list[Any]:
        assert budget_factor == 0.5  # the examples run under the generated tests' budget, 5 s of the benchmark's 10
        out = []
        for code, specs in jobs:
            self.ran.append(code)
            if "slow" in code:
                self.started.set()
                assert self.release.wait(30), "the slow program was never released"
            out.append(SimpleNamespace(code=code, n=len(specs)))
        return out

    def on_close(self, fn: Any) -> None:
        self.hooks.append(fn)

    def close(self) -> None:
        for fn in self.hooks:
            fn()


def _item(code: str) -> Any:
    return SimpleNamespace(code=code, task=SimpleNamespace(description=PROMPT, entry_point="f", examples=()))


def _job(code: str) -> Any:
    return example_job(example_key(code, PROMPT, "f", ()))


def test_a_chunk_takes_its_own_examples_while_a_slow_one_still_runs() -> None:
    ctx = _Context(workers=2)
    codes = ["def f(x):  # slow\n    return 2 * x\n", "def f(x):\n    return x + x\n", "def f(x):\n    return 3 * x\n"]
    strategy.prepare([_item(c) for c in codes], ctx)  # type: ignore[arg-type]
    try:
        assert ctx.started.wait(30)  # prepare returned while the slow program runs
        fast = strategy._run_examples([_job(codes[1]), _job(codes[2])], ctx)  # type: ignore[arg-type]
        assert [r.code for r in fast] == codes[1:]
        assert not ctx.release.is_set()  # taken without waiting for the slow one
        ctx.release.set()
        (slow,) = strategy._run_examples([_job(codes[0])], ctx)  # type: ignore[arg-type]
        assert slow.code == codes[0] and slow.n == 1
        assert sorted(ctx.ran) == sorted(codes)  # each ran once: the chunks took the prepared runs
        unprepared = "def f(x):\n    return x << 1\n"
        assert [r.code for r in strategy._run_examples([_job(unprepared)], ctx)] == [unprepared]  # type: ignore[arg-type]
    finally:
        ctx.release.set()
        strategy._PREPARED.clear()


def test_closing_the_run_starts_no_more_of_them() -> None:
    ctx = _Context(workers=1)
    codes = ["def f(x):  # slow\n    return 2 * x\n", "def f(x):\n    return x + x\n"]
    strategy.prepare([_item(c) for c in codes], ctx)  # type: ignore[arg-type]
    try:
        assert ctx.started.wait(30)
        ctx.close()  # one worker, busy with the slow program: the other was not started and never is
        ctx.release.set()
        ((_, futures),) = strategy._PREPARED
        assert futures[strategy._job_key(_job(codes[0]))].result(30).code == codes[0]
        assert futures[strategy._job_key(_job(codes[1]))].cancelled()
        assert ctx.ran == [codes[0]]
    finally:
        ctx.release.set()
        strategy._PREPARED.clear()


def test_on_ray_they_run_as_one_batch_before_the_first_chunk() -> None:
    ctx = _Context(workers=2)
    ctx.config.concurrency.executor = "ray"  # one batch at a time: no runs in the background
    batches: list[int] = []
    run_programs = ctx.run_programs

    def counted(jobs: list[tuple[str, Any]], desc: str = "", budget_factor: float = 1.0) -> list[Any]:
        batches.append(len(jobs))
        return run_programs(jobs, desc, budget_factor)

    ctx.run_programs = counted  # type: ignore[method-assign]
    codes = ["def f(x):\n    return x + x\n", "def f(x):\n    return 3 * x\n"]
    strategy.prepare([_item(c) for c in codes], ctx)  # type: ignore[arg-type]
    try:
        assert batches == [2] and not ctx.hooks
        assert [r.code for r in strategy._run_examples([_job(c) for c in codes], ctx)] == codes  # type: ignore[arg-type]
        assert batches == [2]
    finally:
        strategy._PREPARED.clear()
