"""The execution cache in the study: results with it on (filled or served) equal results with it off (the shared
smoke study, ``tests/helpers/smoke.py``, runs with the cache off).

The filling run is the shared command run (``tfr stage all`` with the execution cache on and an empty cache, the
determinism test's second study); the serving run is the same command on a copy of the cache it filled, in a
process of its own as well: a cache key holds the process's view of the sandbox (its sources, Python, the installed
packages), which a test process may not share with the command's after other tests ran in it."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.helpers.smoke import SmokeCommandRun, SmokeStudy, run_smoke_command


@pytest.mark.slow
def test_smoke_results_are_identical_with_the_cache_off_filling_and_serving(
    tmp_path: Path,
    shared_benchmarks: Path,
    smoke_study: SmokeStudy,
    smoke_command_run: SmokeCommandRun,
) -> None:
    off = smoke_study.summary  # TFR_EXEC_CACHE=0
    assert off.exec_cache[0] == 0 and not (smoke_study.cache_dir / "executions").exists()
    filling_runs = _count(r"^this invocation: .*, (\d+) sandbox runs$", smoke_command_run.stdout)
    assert filling_runs > 0 and (smoke_command_run.cache_dir / "executions").is_dir()
    cache = tmp_path / "cache"
    shutil.copytree(smoke_command_run.cache_dir, cache)  # the shared run's cache stays as it is
    serving = run_smoke_command(tmp_path, shared_benchmarks, cache=cache, busy=False)  # a new run dir: every stage
    hits = _count(r"^execution cache: (\d+) hits", serving.stdout)
    runs = _count(r"^this invocation: .*, (\d+) sandbox runs$", serving.stdout)
    # served: everything but the reference's nondeterminism reruns and runs that timed out or crashed
    assert hits > 0 and runs < filling_runs / 2, serving.stdout
    assert hits + runs >= filling_runs
    expected = smoke_study.results
    assert smoke_command_run.results == expected
    assert serving.results == expected


def _count(pattern: str, text: str) -> int:
    found = re.search(pattern, text, re.M)
    assert found is not None, text
    return int(found[1])
