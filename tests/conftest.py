"""Shared fixtures: where the benchmark snapshots live, an environment isolated from the user's caches, and
the CI rule: under ``CI=true`` a skipped test is a failed test (see ``tests/helpers/env.py``)."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from tests.helpers.env import NOT_APPLICABLE, benchmark_dir, in_ci
from tests.helpers.smoke import SmokeStudy, run_smoke_study

pytest_plugins = ["pytester", "tests.helpers.tiers"]  # pytester: tests/test_ci_skips.py runs small pytest runs

REPO = Path(__file__).resolve().parents[1]


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


SHARED_STUDY_FIXTURES = ("smoke_study", "smoke_series")
"""Session fixtures that run a whole study: under pytest-xdist (``addopts`` in ``pyproject.toml``) their users share
one worker, so the study runs once per pytest run, not once per worker."""
SHARED_STUDY_MODULES = ("tests/browser/",)
"""Modules that fetch those fixtures lazily (``request.getfixturevalue``), so pytest cannot see the use."""


WORKERS_MAX = 4
"""At most this many pytest-xdist workers (``-n auto``)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores, at most :data:`WORKERS_MAX`. A third of a worker's time is
    spent waiting on the programs, kernels and browsers it started (CPU time was 64% of two cores' wall time
    with two workers), so one more worker fills the cores."""
    return min((len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1) + 1, WORKERS_MAX)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give every test an ``xdist_group`` (``--dist loadgroup`` runs a group on one worker): ``shared-study`` for
    the users of a shared study, else its own module, so that a module's fixtures are built once. Without xdist
    the mark changes nothing."""
    for item in items:
        uses = set(getattr(item, "fixturenames", ())) & set(SHARED_STUDY_FIXTURES)
        shared = uses or item.nodeid.startswith(SHARED_STUDY_MODULES)
        item.add_marker(pytest.mark.xdist_group("shared-study" if shared else item.nodeid.split("::")[0]))


@pytest.fixture(scope="session")
def shared_benchmarks() -> Path:
    """The benchmark snapshots (``$TFR_BENCHMARK_DIR``, set by CI); missing: skip, or fail in CI."""
    return benchmark_dir()


@pytest.fixture(scope="session")
def smoke_study(tmp_path_factory: pytest.TempPathFactory, shared_benchmarks: Path) -> SmokeStudy:
    """The smoke study, run once for every test that only reads it (``tests/helpers/smoke.py``)."""
    return run_smoke_study(tmp_path_factory.mktemp("smoke-study"), shared_benchmarks)


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
