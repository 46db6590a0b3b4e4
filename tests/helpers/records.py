"""Hand-made records for tests of the analysis and views."""

from __future__ import annotations

from typing import Any

from tfr_helpers.records import Results


def bare_results(**parts: Any) -> Results:
    """A run's results with no base-study record, then ``parts`` (an arm's part, ``config``, ``simulated``...)."""
    fields: dict[str, Any] = {"run_name": "t", "simulated": False, "config": {}, "tasks": [], "task_benchmarks": {}}
    for name in ("generated_codes", "generated_tests", "benchmark_verdicts", "pair_evaluations", "screening"):
        fields[name] = []
    fields |= {"refinements": [], "refined_evaluations": []}
    return Results(**(fields | parts))
