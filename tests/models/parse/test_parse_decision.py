"""parse_decision agrees with a person on every judge reply of the fixture (tests/models/fixtures/judge_replies.yaml)."""

from __future__ import annotations

import pytest

from tests.models.fixtures.load import fixture_cases
from tfr_helpers.models.parse import parse_decision


@pytest.mark.parametrize("case", fixture_cases("judge_replies", minimum=40))
def test_judge_reply_reads_as_a_person_reads_it(case: dict) -> None:
    assert parse_decision(case["reply"]).decision == case["expected"]


def test_fixture_covers_all_three_decisions() -> None:
    expected = {c.values[0]["expected"] for c in fixture_cases("judge_replies", minimum=40)}
    assert expected == {"accept", "reject", "undecided"}


def test_json_reasoning_field_is_the_reasoning() -> None:
    parsed = parse_decision('{"reasoning": "off by one", "decision": "reject"}')
    assert parsed == parse_decision('{"decision": "reject", "reasoning": "off by one"}')
    assert parsed.reasoning == "off by one"


def test_undecided_keeps_the_text_as_reasoning() -> None:
    assert parse_decision("Hard to say.").reasoning == "Hard to say."
    assert parse_decision(None).reasoning is None
