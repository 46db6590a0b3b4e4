"""The one decoder of checkpoint entries: round trip, and a named error for what it cannot read."""

from __future__ import annotations

import pytest

from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.engine.codec import RECORD_TYPES, RESULTS_FIELDS, decode_records, encode_records
from tfr_helpers.records import Results, ScreeningDecision


def test_every_checkpointed_type_lands_in_a_results_list() -> None:
    assert set(RESULTS_FIELDS.values()) <= set(Results.model_fields)
    # stages outside the seven register their own types (register_record_type), kept in their own Results field
    assert {cls.__name__ for cls in RESULTS_FIELDS} <= set(RECORD_TYPES)


def test_records_round_trip_through_their_checkpoint_form() -> None:
    records = [
        ScreeningDecision(feedback_id="HumanEval/0#ebt0", strategy="accept_all", decision="accept"),
        ScreeningDecision(feedback_id="HumanEval/0#ebt0", strategy="llm_judge", decision="reject", reasoning="no"),
    ]
    data = encode_records(records)
    assert [d["type"] for d in data] == ["ScreeningDecision", "ScreeningDecision"]
    assert decode_records(data) == records


def test_unknown_or_invalid_entries_are_run_dir_errors() -> None:
    with pytest.raises(RunDirError, match="unknown type 'Mystery'; start a new --run-dir"):
        decode_records([{"type": "Mystery", "record": {}}])
    with pytest.raises(RunDirError, match="invalid ScreeningDecision"):
        decode_records([{"type": "ScreeningDecision", "record": {"strategy": "x"}}])
