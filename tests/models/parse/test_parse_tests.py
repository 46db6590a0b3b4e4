"""parse_tests keeps the tests a person would and records the rest (tests/models/fixtures/test_replies.yaml)."""

from __future__ import annotations

import re

import pytest

from tests.models.fixtures.load import fixture_cases
from tfr_helpers.models.parse import parse_tests


@pytest.mark.parametrize("case", fixture_cases("test_replies", minimum=20))
def test_test_reply_splits_into_the_tests_a_person_would_take(case: dict) -> None:
    parsed = parse_tests(case["reply"], case["kind"], case["entry_point"], max_tests=case["max_tests"])
    assert [t.name for t in parsed.tests] == list(case["tests"])
    for test in parsed.tests:
        compile(test.source, test.name, "exec")
        assert f"def {re.sub(r'_[0-9]+$', '', test.name)}(" in test.source  # duplicates are renamed test_x_2
        for line in case["tests"][test.name]:
            assert line in test.source, (test.name, line)
        for line in case.get("absent", []):
            assert line not in test.source, (test.name, line)
    dropped = case.get("dropped", {})
    assert [d.name for d in parsed.dropped] == list(dropped)
    for record in parsed.dropped:
        assert dropped[record.name] in record.reason
    if case["tests"]:
        assert parsed.error is None
    else:
        assert case["error"] in (parsed.error or "")


def test_without_a_limit_every_test_is_kept() -> None:
    text = "".join(f"def test_{i}():\n    assert f({i}) == {i}\n\n" for i in range(7))
    parsed = parse_tests(text, "ebt", "f")
    assert len(parsed.tests) == 7 and parsed.dropped == []
    limited = parse_tests(text, "ebt", "f", max_tests=5)
    assert len(limited.tests) == 5 and [d.name for d in limited.dropped] == ["test_5", "test_6"]
