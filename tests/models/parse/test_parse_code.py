"""parse_code extracts what a person would from every reply of the fixture (tests/models/fixtures/code_replies.yaml)."""

from __future__ import annotations

import pytest

from tests.models.fixtures.load import fixture_cases
from tfr_helpers.models.parse import parse_code


@pytest.mark.parametrize("case", fixture_cases("code_replies", minimum=40))
def test_code_reply_extracts_the_program_a_person_would(case: dict) -> None:
    parsed = parse_code(case["reply"], case["entry_point"])
    assert parsed.code == case["code"]
    if case["code"] is None:
        assert case["error"] in (parsed.error or "")
    else:
        assert parsed.error is None
    assert parsed.truncated == case.get("truncated", False)


def test_fixture_programs_compile() -> None:
    for param in fixture_cases("code_replies", minimum=40):
        case = param.values[0]
        if case["code"] is not None:
            compile(case["code"], case["id"], "exec")


def test_unterminated_fence_is_flagged_and_a_closed_one_is_not() -> None:
    assert parse_code("```python\ndef f():\n    return 1\n", "f").truncated
    assert not parse_code("```python\ndef f():\n    return 1\n```\n", "f").truncated
