"""The rounds' part of ``Results`` (key ``rounds``) validates whichever module a fresh interpreter imports first."""

from __future__ import annotations

import subprocess
import sys

import pytest

_CHILD = """
import {first}
from tfr_helpers.arms.rounds import ARM
from tfr_helpers.arms.rounds.records import RoundsResults
from tfr_helpers.records import Results
data = {{"run_name": "x", "simulated": True, "config": {{}}, "tasks": [], "task_benchmarks": {{}}, "generated_codes": [],
        "generated_tests": [], "benchmark_verdicts": [], "pair_evaluations": [], "screening": [], "refinements": [],
        "refined_evaluations": [], "rounds": {{"rounds": 2, "round_tests": "same", "stop_when_passing": False}}}}
results = Results.model_validate(data)
assert isinstance(results.part(ARM), RoundsResults) and results.part(ARM).rounds == 2
assert Results.model_validate_json(results.model_dump_json()) == results
assert not Results.model_validate({{**data, "rounds": None}}).has(ARM)
print("ok")
"""


@pytest.mark.parametrize("first", ["tfr_helpers.records", "tfr_helpers.arms.rounds.records", "tfr_helpers.pipeline"])
def test_results_rounds_validates_whatever_is_imported_first(first: str) -> None:
    out = subprocess.run([sys.executable, "-c", _CHILD.format(first=first)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
