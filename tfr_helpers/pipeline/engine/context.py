"""What every stage receives: configuration, tasks, the run store, one sandbox and one model client.

The sandbox and the model client are created on first use, so a rerun of a finished run starts neither;
:class:`Counters` count the sandbox runs and model calls actually made.
"""

from __future__ import annotations

import json
import os
import resource
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tfr_helpers.benchmarks import get_benchmark
from tfr_helpers.executors import make_executor
from tfr_helpers.models import ModelClient, make_request
from tfr_helpers.models.calllog import CallCounts
from tfr_helpers.models.jobs import CallJob, CallResult
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import ProgramRun, Task
from tfr_helpers.sandbox import Limits
from tfr_helpers.sandbox.cache import ExecutionCache
from tfr_helpers.sandbox.preload import LIGHT_PRELOAD as SANDBOX_LIGHT_PRELOAD

LIGHT_PRELOAD = (*SANDBOX_LIGHT_PRELOAD, "hypothesis")
"""Worker preload for runs without BigCodeBench: the light workers' stdlib set plus Hypothesis (for PBTs)."""

ProgramBenchmarks = Callable[[ExperimentConfig], Iterable[str]]
"""``fn(config) -> benchmark names`` whose programs a run executes besides its tasks' (a replayed trajectory set's)."""

_PROGRAM_BENCHMARKS: list[ProgramBenchmarks] = []


def register_program_benchmarks(fn: ProgramBenchmarks) -> ProgramBenchmarks:
    """Register ``fn`` (:data:`ProgramBenchmarks`): a stage running programs of other tasks than the run's says
    which benchmarks they come from, so the sandbox workers preload what they import. Returns ``fn``."""
    if fn not in _PROGRAM_BENCHMARKS:
        _PROGRAM_BENCHMARKS.append(fn)
    return fn


RERUN_SEED_OFFSET = 1_000_003
"""Added to the run seed for the reference's second run, so a reference whose verdict depends on its random
draws shows up as nondeterministic instead of failing twice the same way."""


@dataclass
class Counters:
    """Work done by this process (not read from checkpoints)."""

    model_calls: int = 0
    """Model requests issued through the client (cache hits included)."""
    sandbox_runs: int = 0
    """Programs run in the sandbox (executed now, not served from the execution cache)."""
    exec_cache_hits: int = 0
    """Program runs served from the execution cache (``tfr_helpers.sandbox.cache``)."""
    exec_cache_misses: int = 0
    """Program runs looked up and executed (absent, corrupt, uncacheable or bypassed)."""


@dataclass
class RunContext:
    """Shared state of one pipeline run.

    Attributes:
        config: The experiment configuration; while a stage that declares its inputs runs, its view of it
            (:meth:`reading`).
        store: The run directory.
        tasks: Task id -> task, in run order.
        counters: Sandbox runs and model calls made by this process.
    """

    config: ExperimentConfig
    store: RunStore
    tasks: dict[str, Task]
    counters: Counters = field(default_factory=Counters)
    _sandbox: Any = None
    """The executor of sandbox batches (``tfr_helpers.executors``), started on first use."""
    _client: Any = None
    _exec_cache: Any = None
    _preload: tuple[tuple[str, ...] | None] | None = None
    """The workers' preload, worked out once (:meth:`preload`; wrapped, since ``None`` is one of its values)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Guards the lazily made executor and cache and the sandbox counters (chunks may run in threads)."""
    _verdicts: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False)
    """(reference, stripped test source) -> the reference passed it in RQ1 (see :meth:`measured_verdicts`)."""
    _on_close: list[Callable[[], None]] = field(default_factory=list, repr=False)
    """Called by :meth:`close` before the sandbox stops (see :meth:`on_close`)."""
    _run_config: ExperimentConfig | None = field(default=None, repr=False)
    """The whole configuration, for the engine's own choices (set from ``config`` when the context is made)."""

    def __post_init__(self) -> None:
        self._run_config = self.config

    @property
    def run_config(self) -> ExperimentConfig:
        """The whole configuration, whichever stage runs: for the engine's own choices (chunk sizes, the executor,
        the workers' preload), never for a stage's records."""
        assert self._run_config is not None
        return self._run_config

    @contextmanager
    def reading(self, view: Any) -> Iterator[None]:
        """``config`` is ``view`` (a stage's :class:`~.settings_view.SettingsView`) inside the block."""
        self.config = view
        try:
            yield
        finally:
            self.config = self.run_config

    def on_close(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` when the context closes, before its sandbox stops: work started in the background (a
        strategy's prepared runs) stops taking new programs there, so none runs on a closed sandbox."""
        with self._lock:
            self._on_close.append(fn)

    # sandbox ------------------------------------------------------------------------------------
    def limits(self, generated: bool, rerun: bool = False, budget_factor: float = 1.0, examples_factor: int = 1) -> Any:
        """Sandbox limits for benchmark tests (``generated=False``) or generated tests.

        ``seed`` is the run seed (``random``/numpy in programs are seeded per (seed, test)); a rerun
        (the reference's nondeterminism check) gets a different seed, :data:`RERUN_SEED_OFFSET` away.
        """

        s = self.config.sandbox
        return Limits(
            seed=self.config.seed + (RERUN_SEED_OFFSET if rerun else 0),
            timeout_s=(s.generated_test_timeout_s if generated else s.timeout_s) * budget_factor,
            memory_mb=s.memory_mb,
            nproc=s.nproc,
            fsize_mb=s.fsize_mb,
            nofile=s.nofile,
            output_cap=s.output_cap,
            hypothesis_max_examples=s.hypothesis_max_examples * examples_factor,
            hypothesis_derandomize=s.hypothesis_derandomize,
            # every generated test on a freshly loaded program: no test's state reaches the next one
            fresh_per_test=generated,
        )

    def preload(self) -> tuple[str, ...] | None:
        """Modules the sandbox workers import once.

        The sandbox default (numpy, pandas, matplotlib, sklearn...) when the run executes programs of a benchmark
        declaring ``heavy_programs`` (BigCodeBench: a task of the run, or of what a registered
        :data:`ProgramBenchmarks` names, such as a replayed trajectory set), else only what HumanEval/MBPP programs
        and Hypothesis tests use, with what the benchmarks' own test harnesses import in every program
        (``program_preloads``: numpy for EvalPlus's): starting the workers is then much faster. Without the heavy
        workers, every BigCodeBench program would import pandas and its kin again in its own child (a second or
        more each); without numpy preloaded, every HumanEval+ or MBPP+ program would import it in its own child
        (about 0.2 s of CPU each).
        """
        if self._preload is None:
            names = {task.benchmark for task in self.tasks.values()}
            names.update(name for fn in _PROGRAM_BENCHMARKS for name in fn(self.run_config))
            entries = [get_benchmark(name) for name in sorted(names)]
            if any(entry.heavy_programs for entry in entries):
                self._preload = (None,)
            else:
                extra = sorted({module for entry in entries for module in entry.program_preloads} - set(LIGHT_PRELOAD))
                self._preload = ((*LIGHT_PRELOAD, *extra),)
        return self._preload[0]

    def run_programs(
        self,
        jobs: Sequence[tuple[str, Sequence[Any]]],
        desc: str = "",
        generated: bool = False,
        rerun: bool = False,
        budget_factor: float = 1.0,
        examples_factor: int = 1,
    ) -> list[ProgramRun]:
        """Run programs against test specs in parallel; order preserved.

        Args:
            jobs: ``(program, test specs)`` pairs.
            desc: Progress bar label.
            generated: The tests are generated tests (their own, lower timeout) rather than benchmark tests.
            rerun: A second run to detect nondeterminism: programs get another seed than the first run's.
            budget_factor: Times the study's time budget (the run alone of a test that timed out: 3).
            examples_factor: Times the study's Hypothesis examples (the reference's harder check of a PBT).
        """
        if not jobs:
            return []

        with self._lock:
            if self._exec_cache is None:
                self._exec_cache = ExecutionCache()
        cache = self._exec_cache
        limits = self.limits(generated, rerun, budget_factor, examples_factor)
        context = json.dumps({"preload": self.preload(), "root": os.geteuid() == 0})
        runs = cache.run_many(jobs, limits, lambda todo: self._execute(todo, desc, limits), context=context, use=not rerun)
        with self._lock:  # this context is the cache's only user: its totals are this run's
            self.counters.exec_cache_hits = cache.stats.hits
            self.counters.exec_cache_misses = cache.stats.misses
        return runs

    def _execute(self, jobs: list[tuple[str, Sequence[Any]]], desc: str, limits: Any) -> list[ProgramRun]:
        """Run ``jobs`` on the configured executor (``concurrency.executor``; started on first use)."""
        with self._lock:
            if self._sandbox is None:
                c = self.run_config.concurrency
                self._sandbox = make_executor(
                    c.executor, self.limits(generated=False), c.sandbox_workers, self.preload(), c.ray_address
                )
        runs = self._sandbox.run_many(jobs, desc, limits)
        with self._lock:
            self.counters.sandbox_runs += len(jobs)
        take = getattr(self._sandbox, "take_timings", None)  # the local executor's: its pool's view of each run
        if take is not None and self.store is not None:  # a context without a run (a unit test) keeps no log
            self.store.log_executions(take())
        return runs

    def cpu_times(self) -> tuple[float, float]:
        """User and system CPU seconds so far of this process, its reaped children and the live sandbox workers
        with the programs they forked (the local executor's; a Ray cluster's nodes are not counted)."""
        me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        workers = getattr(self._sandbox, "cpu_times", None)
        user, system = workers() if workers is not None else (0.0, 0.0)
        return me.ru_utime + children.ru_utime + user, me.ru_stime + children.ru_stime + system

    def measured_verdicts(self, verdicts: Iterable[tuple[str, str, bool]]) -> None:
        """Note RQ1's ``(reference, test source, reference passed)``: the ground truth the simulated judge is
        granted (privileged, like the full tasks) instead of running each test on the reference again."""
        for reference, source, passed in verdicts:
            self._verdicts.setdefault((reference, source.strip()), passed)

    def _measured(self, reference: str, source: str) -> bool | None:
        return self._verdicts.get((reference, source.strip()))

    # models -------------------------------------------------------------------------------------
    def client(self) -> Any:
        """The model client of this run (created on first use)."""
        if self._client is None:
            # the full tasks go only to providers that declare needs_reference (the simulated model)
            self._client = ModelClient(
                self.config.resolved_model_settings(),
                self.store.root,
                self.tasks.__getitem__,
                budget_usd=self.config.budget_usd,
                verdicts=self._measured,
            )
        return self._client

    def call_models(self, jobs: Sequence[CallJob], stage: str) -> list[CallResult]:
        """Render each job's prompt and call the models concurrently; order preserved, never raises."""
        if not jobs:
            return []

        calls, prompts = [], []
        require = getattr(self.config, "require_template", None)  # a stage's view checks what it renders
        for job in jobs:
            if require is not None:
                require(job.template)
            request = make_request(
                job.template, role=job.role, sample_index=job.sample_index, task=job.task, **job.variables
            )
            prompts.append("\n\n".join(f"## {m.role}\n\n{m.content}" for m in request.messages))
            calls.append((job.model, request))
        self.counters.model_calls += len(calls)
        replies = self.client().call_many(calls, stage=stage, progress=False)
        return [CallResult(r.text, r.record, p) for r, p in zip(replies, prompts, strict=True)]

    def model_stop(self) -> str | None:
        """Why the model client stopped calling (a wrong key, an unknown model, no quota), or None."""
        stop = getattr(self._client, "stop", None)
        return stop.message if stop is not None else None

    def call_counts(self) -> Any:
        """This process's model calls: sent, from the cache, failed, retries, spent (``CallCounts``)."""

        return self._client.call_counts() if self._client is not None else CallCounts()

    def close(self) -> None:
        """Release the sandbox's worker pool and the model client."""
        with self._lock:
            hooks, self._on_close = self._on_close, []
        for fn in hooks:
            fn()
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None
        if self._client is not None and hasattr(self._client, "close"):
            self._client.close()
        self._client = None
