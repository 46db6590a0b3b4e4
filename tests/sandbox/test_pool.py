"""The worker pool: ordering, bad input, worker death."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tfr_helpers.errors import SandboxError
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec, run_program
from tfr_helpers.sandbox.pool import _Pool

# A stand-in worker: it announces itself, then waits (up to 20 s) to see the other one before its hello
_RENDEZVOUS = """
import json, os, sys, time
here = sys.argv[1]
open(os.path.join(here, str(os.getpid())), "w").close()
end = time.monotonic() + 20
while len(os.listdir(here)) < 2 and time.monotonic() < end:
    time.sleep(0.01)
print(json.dumps({"ready": True}), flush=True)
peers = len(os.listdir(here))
open(os.path.join(here + "-seen", str(os.getpid())), "w").write(str(peers))
sys.stdin.read()
"""


def test_run_many_preserves_order(sandbox: Sandbox) -> None:
    jobs = [(f"def f():\n    return {i}", [TestSpec("t", f"assert f() == {i if i % 3 else -1}")]) for i in range(12)]
    runs = sandbox.run_many(jobs, progress=False)
    assert [r.passed for r in runs] == [bool(i % 3) for i in range(12)]


def test_bad_spec_is_one_clear_error(sandbox: Sandbox) -> None:
    with pytest.raises(SandboxError, match="TestSpec"):
        sandbox.run("x = 1", ["assert x == 1"])  # type: ignore[list-item]


def test_worker_death_is_a_candidate_failure() -> None:
    with Sandbox(Limits(timeout_s=2), workers=1, preload=(), drop_uid=False) as sb:
        run = sb.run("import os\nos.kill(os.getppid(), 9)", [TestSpec("t", "assert True")])
        if "-p" in sb._prefix:  # not root: the worker is init of its own pid namespace, the program cannot kill it
            assert run.passed
        else:
            assert not run.passed and run.load_error is not None and run.load_error.status == "crashed"
        assert sb.run("x = 1", [TestSpec("t", "assert x == 1")]).passed  # replaced worker serves
        sb._all[0].proc.kill()  # a worker dying by other means is handled the same way
        sb._all[0].proc.wait()
        run = sb.run("x = 1", [TestSpec("t", "assert x == 1")])
        assert not run.passed and run.load_error is not None and run.load_error.status == "crashed"
        assert sb.run("x = 1", [TestSpec("t", "assert x == 1")]).passed


def test_run_program_one_shot() -> None:
    assert run_program("x = 2", [TestSpec("t", "assert x == 2")]).passed


def test_a_pools_workers_start_side_by_side(tmp_path: Path) -> None:
    # each stand-in says hello only once it has seen the other start: spawned one after the other (each waited
    # for before the next), the first would see itself alone
    here, seen = tmp_path / "started", tmp_path / "started-seen"
    here.mkdir()
    seen.mkdir()
    pool = _Pool([sys.executable, "-c", _RENDEZVOUS, str(here)], size=2)
    try:
        pool.get()
        assert len(pool.all) == 2
    finally:
        pool.close()
    assert sorted(p.read_text() for p in seen.iterdir()) == ["2", "2"]


def test_a_worker_that_fails_to_start_ends_the_others(tmp_path: Path) -> None:
    pool = _Pool([sys.executable, "-c", "import sys; sys.exit(1)"], size=2)
    with pytest.raises(SandboxError, match="failed to start"):
        pool.get()
    assert pool.all == []
