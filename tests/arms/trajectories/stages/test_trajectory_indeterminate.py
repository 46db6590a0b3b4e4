"""A step whose failing test's verdict depends on the machine is ``indeterminate`` (RQ1's rule), never unreliable."""

from __future__ import annotations

from tfr_helpers.arms.trajectories.stages.evaluate_trajectory_steps import logged_verdicts
from tfr_helpers.arms.trajectories.stages.step_class import _assert_name, classify, spec_key
from tfr_helpers.records import Isolation, ProgramRun
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.replay.trajectories.logged import LoggedTest

BUDGET = 10.0
ISOLATION = Isolation(network="none", uid_drop=False, rlimits=[])
TEST = LoggedTest(name="t", kind="assert", source="assert f(1) == 2", logged_status="failed")
OTHER = LoggedTest(name="u", kind="assert", source="assert f(2) == 3", logged_status="failed")


def _run(*outcomes: Outcome) -> ProgramRun:
    return ProgramRun(outcomes=list(outcomes), isolation=ISOLATION)


def _failed(test: LoggedTest) -> Outcome:
    return Outcome(name=_assert_name(test), status="failed", exc_type="AssertionError", duration_s=0.01)


def _passed(test: LoggedTest) -> Outcome:
    return Outcome(name=_assert_name(test), status="passed", duration_s=0.01)


def _guard_timeout(test: LoggedTest) -> Outcome:
    """A timeout the sandbox's wall-clock guard decided: the process waited for a CPU nearly all the time."""
    return Outcome(name=_assert_name(test), status="timeout", duration_s=200.0, wait_s=199.0, cpu_s=0.1)


def _class(tests: list[LoggedTest], code: ProgramRun, ref: ProgramRun, ref_alone: ProgramRun | None) -> str:
    alone = {spec_key(t): ref_alone for t in tests} if ref_alone is not None else {}
    runs = (code, ref, code, None, {}, alone)
    verdicts = logged_verdicts(tests, runs, BUDGET)
    return classify(tests, verdicts)[0]


def test_a_reference_timeout_that_the_machine_decides_again_alone_is_indeterminate() -> None:
    code, ref = _run(_failed(TEST)), _run(_guard_timeout(TEST))
    assert _class([TEST], code, ref, _run(_guard_timeout(TEST))) == "indeterminate"


def test_a_reference_crash_again_alone_is_indeterminate() -> None:
    crash = Outcome(name=_assert_name(TEST), status="crashed")
    assert _class([TEST], _run(_failed(TEST)), _run(crash), _run(crash)) == "indeterminate"


def test_a_reference_timeout_that_passes_alone_is_decided_by_the_run_alone() -> None:
    code, ref = _run(_failed(TEST)), _run(_guard_timeout(TEST))
    assert _class([TEST], code, ref, _run(_passed(TEST))) == "reliable"


def test_a_timeout_by_the_references_own_time_is_final_and_unreliable() -> None:
    own = Outcome(name=_assert_name(TEST), status="timeout", duration_s=10.5, wait_s=0.1, cpu_s=10.3)
    assert _class([TEST], _run(_failed(TEST)), _run(own), None) == "unreliable"


def test_a_machine_dependent_test_cannot_change_a_mixed_step() -> None:
    tests = [TEST, OTHER, LoggedTest(name="v", kind="assert", source="assert f(3) == 4", logged_status="failed")]
    third = tests[2]
    code = _run(_failed(TEST), _failed(OTHER), _failed(third))
    ref = _run(_passed(TEST), _failed(OTHER), _guard_timeout(third))
    assert _class(tests, code, ref, _run(_guard_timeout(third))) == "mixed"
    ref_one_way = _run(_passed(TEST), _passed(OTHER), _guard_timeout(third))
    assert _class(tests, code, ref_one_way, _run(_guard_timeout(third))) == "indeterminate"
