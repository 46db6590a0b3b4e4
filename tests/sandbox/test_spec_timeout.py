"""A test spec's own budget (``TestSpec.timeout_s``): counted from the test's start, the run's budget
otherwise, and the timeout message names the budget that applied."""

from __future__ import annotations

from tfr_helpers.sandbox import Sandbox, TestSpec
from tfr_helpers.sandbox.cache import job_key
from tfr_helpers.sandbox.spec import Limits

PROGRAM = "import time\ndef nap(s):\n    time.sleep(s)\n    return s\n"


def test_a_spec_with_its_own_budget_times_out_at_it_and_the_next_spec_gets_the_runs(sandbox: Sandbox) -> None:
    specs = [
        TestSpec("short", "assert nap(1.5) == 1.5", timeout_s=0.5),
        TestSpec("runs_budget", "assert nap(1.0) == 1.0"),
        TestSpec("fits", "assert nap(0.1) == 0.1", timeout_s=1.0),
    ]
    run = sandbox.run(PROGRAM, specs)
    assert [o.status for o in run.outcomes] == ["timeout", "passed", "passed"]
    short = run.outcomes[0]
    assert "0.5 s of its own time" in (short.message or ""), short
    assert short.wait_s is not None and short.duration_s - short.wait_s >= 0.5  # its own time reached the budget


def test_a_spec_without_a_budget_of_its_own_keys_the_execution_cache_as_before() -> None:
    limits = Limits()
    plain = job_key(PROGRAM, [TestSpec("t", "assert nap(0) == 0")], limits)
    assert plain == job_key(PROGRAM, [TestSpec("t", "assert nap(0) == 0", timeout_s=None)], limits)
    assert plain != job_key(PROGRAM, [TestSpec("t", "assert nap(0) == 0", timeout_s=1.0)], limits)
