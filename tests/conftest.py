"""Shared fixtures: where the benchmark snapshots live, an environment isolated from the user's caches, and
the CI rule: under ``CI=true`` a skipped test is a failed test (see ``tests/helpers/env.py``)."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

import tests.helpers.bytecode  # noqa: F401  (first: the bytecode of the modules below is kept; see there)
from tests.helpers.env import NOT_APPLICABLE, benchmark_dir, in_ci
from tests.helpers.smoke import SmokeCommandRun, SmokeStudy, run_smoke_command, run_smoke_study

pytest_plugins = ["pytester", "tests.helpers.tiers"]  # pytester: tests/test_ci_skips.py runs small pytest runs

REPO = Path(__file__).resolve().parents[1]

os.environ.setdefault("OMP_NUM_THREADS", "1")
"""One OpenMP (and OpenBLAS) thread per test process, set before any test imports numpy or scikit-learn (the
studies' subprocesses and notebook kernels inherit it). The workers already take every core: a second thread per
process only spins at the thread pool's barriers, and on a loaded machine that made one screener training (gradient
boosting on 72 rows) take 42-114 s instead of 3-7 s."""


def _fail_skip_in_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not (in_ci() and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if reason.removeprefix("Skipped: ").startswith(NOT_APPLICABLE):
        return
    report.outcome = "failed"
    report.longrepr = f"skipped under CI=true, which counts as a failure: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    """Under ``CI=true`` every skip (``skip``/``skipif`` marks, ``pytest.skip``, ``importorskip``) is a failure,
    except the ``not_applicable`` ones; xfail stays xfail."""
    outcome = yield
    _fail_skip_in_ci(outcome.get_result())  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, None, None]:
    """The same for a whole module skipped at import (``pytest.skip(allow_module_level=True)``, ``importorskip``)."""
    outcome = yield
    _fail_skip_in_ci(outcome.get_result())  # type: ignore[attr-defined]


SHARED_STUDY_FIXTURES = ("smoke_study", "smoke_command_run", "smoke_series")
"""Session fixtures that run a whole study, once per pytest process."""
SHARED_STUDY_MODULES = (
    "tests/analysis/test_smoke_run.py",
    "tests/notebooks/test_series.py",
    "tests/pipeline/engine/test_chunks_in_flight.py",
    "tests/pipeline/test_determinism.py",
    "tests/pipeline/test_exec_cache_study.py",
    "tests/pipeline/test_run_stages.py",
)
"""The modules that use them (``tests/test_xdist_scopes.py`` checks that none is missing): under pytest-xdist they
share one worker, so the study and its notebook series run once per pytest run, not once per worker."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per core (three workers on two cores made the suite slower: 18 min against 16)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def scope_of(nodeid: str) -> str:
    """The scope a test is scheduled in: ``shared-study`` for the users of the shared study, else its module (so
    that a module's fixtures are built once)."""
    module = nodeid.split("::", 1)[0]
    return "shared-study" if module.startswith(SHARED_STUDY_MODULES) else module


SLOW_TEST_WEIGHT = 10.0
"""What a ``slow`` test is taken to cost when scopes are ordered (the marker means "over about 10 s")."""
FAST_TEST_WEIGHT = 0.1
"""What any other test is taken to cost."""


def scope_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items with the heaviest scopes first (a scope's weight: its tests' ``slow`` markers, then their count),
    each scope's tests in their collected order.

    Longest first keeps the workers' finishing times close: the quick scopes fill the end of the run. pytest-xdist's
    own order (the scopes with the most tests first) put the long single-test modules (CodeT's protocol, the
    EvalPlus agreement, papermill against ``tfr run``) last, where one of them ran alone while the other worker
    idled."""
    weight: dict[str, float] = {}
    for item in items:
        scope = scope_of(item.nodeid)
        cost = SLOW_TEST_WEIGHT if item.get_closest_marker("slow") else FAST_TEST_WEIGHT
        weight[scope] = weight.get(scope, 0.0) + cost
    first_seen = {scope: i for i, scope in enumerate(dict.fromkeys(scope_of(item.nodeid) for item in items))}
    return sorted(items, key=lambda item: (-weight[scope_of(item.nodeid)], first_seen[scope_of(item.nodeid)]))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (on each worker; the scheduler keeps this order, :func:`pytest_xdist_make_scheduler`):
    the heaviest scopes first (:func:`scope_order`). Without xdist the collected order stays."""
    if hasattr(config, "workerinput"):
        items[:] = scope_order(items)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """pytest-xdist's scope scheduling (a whole scope goes to one worker) with the scopes of :func:`scope_of`, in
    the workers' collected order (:func:`scope_order`: heaviest first), not reordered by test count."""
    from xdist.scheduler import LoadScopeScheduling  # only where xdist runs the tests

    class SharedStudyScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return scope_of(nodeid)

    config.option.loadscopereorder = False
    return SharedStudyScheduling(config, log)


@pytest.fixture(scope="session")
def shared_benchmarks() -> Path:
    """The benchmark snapshots (``$TFR_BENCHMARK_DIR``, set by CI); missing: skip, or fail in CI."""
    return benchmark_dir()


@pytest.fixture(scope="session")
def smoke_study(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> SmokeStudy:
    """The smoke study, run once for every test that only reads it (``tests/helpers/smoke.py``)."""
    return run_smoke_study(tmp_path_factory.mktemp("smoke-study"), shared_benchmarks)


@pytest.fixture(scope="session")
def smoke_command_run(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> SmokeCommandRun:
    """The smoke study again, by the command ``tfr stage all`` under load (``tests/helpers/smoke.py``): the
    determinism test compares it with :func:`smoke_study`."""
    return run_smoke_command(tmp_path_factory.mktemp("smoke-command"), shared_benchmarks)


@pytest.fixture(scope="session")
def smoke_series(smoke_study: SmokeStudy):  # type: ignore[no-untyped-def]
    """The notebook series executed once on :func:`smoke_study` (its stages are done, so the series resumes)."""
    from tfr_helpers.notebooks import run_notebooks

    return run_notebooks(smoke_study.params, smoke_study.run_dir)


@pytest.fixture
def isolated_benchmarks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Empty tmp cache, no override dir or URL overrides, fresh in-memory tasks; yields the cache root."""
    from tfr_helpers.benchmarks import clear_memory_cache

    cache = tmp_path / "cache"
    monkeypatch.setenv("TFR_CACHE_DIR", str(cache))
    monkeypatch.delenv("TFR_BENCHMARK_DIR", raising=False)
    for name in ("HUMANEVAL", "MBPP", "BIGCODEBENCH"):
        monkeypatch.delenv(f"TFR_BENCHMARK_URL_{name}", raising=False)
    clear_memory_cache()
    yield cache
    clear_memory_cache()
