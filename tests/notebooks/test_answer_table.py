"""The terminal's answer table: rows that would read alike name what tells them apart."""

from __future__ import annotations

from tfr_helpers.analysis.answers import Answer
from tfr_helpers.notebooks.answer_table import answer_lines

MEASURE = "test-fail feedback that is unreliable"


def _row(model: str, note: str, value: float, source: str = "simulated") -> Answer:
    return Answer("rq1_unreliable", model, source, source, MEASURE, value, value - 5, value + 5, 10, 40, "", 9, note)


def test_a_models_rows_of_one_measure_name_their_benchmark_and_a_single_row_stays_plain() -> None:
    rows = [
        _row("sim:default", "humaneval; 140 of the model's 929 tasks gave test-fail feedback", 60.1),
        _row("sim:default", "mbpp", 62.1),
        _row("replay:x", "humaneval", 83.8, source="replayed"),
    ]
    lines = answer_lines({"rq1": rows})
    demo = lines[lines.index(next(x for x in lines if x.startswith("Demo"))) + 2 :]
    assert [line.split()[1:3] for line in demo] == [["sim:default", "(humaneval)"], ["sim:default", "(mbpp)"]]
    real = next(x for x in lines if "replay:x" in x)
    assert "replay:x (" not in real and "83.8% [78.8, 88.8]" in real
