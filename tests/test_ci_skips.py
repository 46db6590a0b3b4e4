"""Under CI=true nothing passes by skipping: missing requirements and every other skip fail the run."""

from __future__ import annotations

import pytest

SESSION = """
import pytest
from tests.helpers.env import missing, not_applicable

def test_missing():
    missing("chromium not found")

@pytest.mark.skipif(True, reason="plain skipif")
def test_skipif():
    pass

def test_importorskip():
    pytest.importorskip("no_such_module_tfr")

def test_not_applicable():
    not_applicable("only meaningful as root")

@pytest.mark.xfail(reason="known", strict=True)
def test_xfail():
    assert False

def test_passes():
    pass
"""
CONFTEST = "from tests.conftest import pytest_make_collect_report, pytest_runtest_makereport  # noqa: F401\n"


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str | None) -> pytest.RunResult:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_session=SESSION, test_module_skip="import pytest\npytest.importorskip('no_such_tfr')\n")
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rA", "--continue-on-collection-errors")


def test_every_skip_but_not_applicable_fails_under_ci(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(pytester, monkeypatch, "true")
    result.assert_outcomes(failed=2, errors=2, passed=1, skipped=1, xfailed=1)  # skipif fails in setup: an error
    result.stdout.fnmatch_lines(
        [
            "*chromium not found (CI=true: a missing requirement is a failure, not a skip)*",
            "*skipped under CI=true, which counts as a failure*plain skipif*",
            "*skipped under CI=true, which counts as a failure*no_such_module_tfr*",
        ]
    )
    assert result.ret != 0


def test_without_ci_missing_requirements_skip(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _run(pytester, monkeypatch, None)
    result.assert_outcomes(passed=1, skipped=5, xfailed=1)
    assert result.ret == 0
