"""The ``sandbox.time_limit`` policy: EvalPlus's rule for the code's limits, judged on the test's own time, in the
fingerprint and named in results and captions; ``fixed`` keeps the budgets."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.config.fingerprint import describe_changes
from tfr_helpers.pipeline.config.sections import TimeLimitPolicy
from tfr_helpers.pipeline.steps.labels import settle
from tfr_helpers.pipeline.steps.time_limits import limit_clock, limit_for, policy_limit
from tfr_helpers.records import TestOutcome as Outcome

EVALPLUS = TimeLimitPolicy(policy="evalplus")
PARAMS = {"run_name": "limits", "benchmarks": ["humaneval"], "tasks": 1, "models": {"coders": ["sim:default"]}}


def passed(cpu_s: float, duration_s: float = 0.0) -> Outcome:
    return Outcome(name="t", status="passed", cpu_s=cpu_s, duration_s=duration_s)


def test_the_evalplus_rule_is_max_of_the_minimum_and_factor_times_the_reference_at_most_the_budget() -> None:
    assert policy_limit(EVALPLUS, 10.0, passed(0.05)) == 1.0
    assert policy_limit(EVALPLUS, 10.0, passed(0.5)) == 2.0
    assert policy_limit(EVALPLUS, 10.0, passed(4.0)) == 10.0
    own = TimeLimitPolicy(policy="evalplus", min_limit=0.5, factor=2.0)
    assert policy_limit(own, 10.0, passed(0.1)) == 0.5 and policy_limit(own, 10.0, passed(1.0)) == 2.0


def test_the_reference_time_is_its_own_time_so_a_loaded_machine_does_not_move_a_limit() -> None:
    # 2.8 s of its 3.0 s spent waiting for a CPU: the load's, not the reference's
    assert limit_clock(Outcome(name="t", status="passed", cpu_s=0.2, duration_s=3.0, wait_s=2.8)) == pytest.approx(0.2)
    # waits not measured: its CPU time, else (none reported) the wall clock
    assert limit_clock(passed(cpu_s=0.2, duration_s=3.0)) == 0.2
    assert limit_clock(passed(cpu_s=0.0, duration_s=0.3)) == 0.3


def test_a_reference_that_sleeps_gives_the_code_the_time_it_slept_whatever_its_cpu_clock_ticked() -> None:
    # a reference that sleeps 5 s: its CPU clock reads 0.00 or 0.01 s by the ticks; its own time is 5 s either way
    for cpu_s in (0.0, 0.01):
        sleeper = Outcome(name="t", status="passed", cpu_s=cpu_s, duration_s=5.02, wait_s=0.01)
        assert policy_limit(EVALPLUS, 30.0, sleeper) == pytest.approx(4.0 * 5.01)


def test_fixed_and_a_test_the_reference_did_not_pass_keep_the_budget() -> None:
    assert policy_limit(TimeLimitPolicy(), 10.0, passed(0.05)) is None
    assert policy_limit(EVALPLUS, 10.0, Outcome(name="t", status="failed", cpu_s=0.01)) is None
    assert policy_limit(EVALPLUS, 10.0, None) is None


def test_a_generated_test_the_reference_finished_sets_the_limit_whether_it_passed_or_failed() -> None:
    """A test that hangs the code where the reference fails it at once costs the floor, not the cap; a test the
    reference did not finish (a timeout, a crash, not run) leaves the code the cap; benchmark tests keep the rule."""
    for status in ("failed", "error"):
        quick = Outcome(name="t", status=status, cpu_s=0.01)
        assert policy_limit(EVALPLUS, 5.0, quick, finished=True) == 1.0
        slow = Outcome(name="t", status=status, cpu_s=0.5, duration_s=0.5, wait_s=0.0)
        assert policy_limit(EVALPLUS, 5.0, slow, finished=True) == 2.0
    for status in ("timeout", "crashed", "not_run"):
        assert policy_limit(EVALPLUS, 5.0, Outcome(name="t", status=status, cpu_s=7.5), finished=True) is None
    assert policy_limit(TimeLimitPolicy(), 5.0, Outcome(name="t", status="failed"), finished=True) is None
    ctx = SimpleNamespace(config=config_from_dict({**PARAMS, "sandbox": {"time_limit": {"policy": "evalplus"}}}))
    failed = Outcome(name="t", status="failed", cpu_s=0.01)
    assert limit_for(ctx, failed, generated=True) == 1.0  # type: ignore[arg-type]
    assert limit_for(ctx, failed, generated=False) is None  # type: ignore[arg-type]


def test_a_limit_is_judged_in_cpu_time_a_starved_timeout_alone_is_indeterminate() -> None:
    first = Outcome(name="t", status="timeout", cpu_s=0.2, duration_s=1.0)
    starved = Outcome(name="t", status="timeout", cpu_s=0.6, duration_s=3.0)
    spun = Outcome(name="t", status="timeout", cpu_s=2.9, duration_s=3.0)
    slow_wall = Outcome(name="t", status="passed", cpu_s=0.4, duration_s=2.5)
    assert settle(first, starved, 1.0, cpu_limit=True) == (starved, True)
    assert settle(first, spun, 1.0, cpu_limit=True) == (spun, False)
    assert settle(first, slow_wall, 1.0, cpu_limit=True) == (slow_wall, False)  # its CPU fits the limit
    over, machine = settle(first, passed(1.6, 1.7), 1.0, cpu_limit=True)  # its CPU time past the limit
    assert over.status == "timeout" and not machine
    assert settle(first, starved, 10.0) == (starved, False)  # the fixed budgets' rule is unchanged


def test_the_policy_is_part_of_the_fingerprint_and_named_in_words() -> None:
    fixed = config_from_dict(PARAMS)
    policy = config_from_dict({**PARAMS, "sandbox": {"time_limit": {"policy": "evalplus"}}})
    assert fixed.config_hash() != policy.config_hash()
    assert describe_changes(fixed.fingerprint(), policy.fingerprint()) == [
        'config key \'sandbox.time_limit.policy\': "fixed" -> "evalplus"'
    ]
    assert policy.sandbox.time_limit.describe() == "time limit: max(1 s, 4 x the reference's own time) per test"
    with pytest.raises(ConfigError, match="sandbox.time_limit.policy: Input should be 'fixed' or 'evalplus'"):
        config_from_dict({**PARAMS, "sandbox": {"time_limit": {"policy": "fast"}}})


def test_the_near_limit_band_enters_the_fingerprint_only_when_set() -> None:
    policy = {"policy": "evalplus"}
    before = config_from_dict({**PARAMS, "sandbox": {"time_limit": policy}})
    assert "sandbox.time_limit.margin" not in before.fingerprint()  # a run made before the key resumes
    band = config_from_dict({**PARAMS, "sandbox": {"time_limit": {**policy, "margin": 0.25}}})
    assert describe_changes(before.fingerprint(), band.fingerprint()) == [
        "config key 'sandbox.time_limit.margin': (not set) -> 0.25"
    ]
