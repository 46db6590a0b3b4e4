"""Interpretation sentences carry the computed numbers and the simulated warning only when simulated."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import (
    by_benchmark,
    interpret_rq1,
    interpret_rq2,
    interpret_rq3,
    load_results,
    screening_and_downstream,
)
from tfr_helpers.analysis.tables import SIMULATED_NOTE


def test_sentences_quote_the_numbers(tmp_path: Path) -> None:
    res = load_results(make_synthetic_run(tmp_path, seed=2))
    by = by_benchmark(res)
    for model, mine in by.groupby("model"):  # one sentence per model, never pooled across models
        k, n = int(mine["k"].sum()), int(mine["n"].sum())
        assert f"{model} (simulated): of {int(mine['tests'].sum())} (code sample, test) pairs" in interpret_rq1(res)
        assert f"({k}/{n})" in interpret_rq1(res)
    assert SIMULATED_NOTE in interpret_rq1(res)
    assert "after unreliable feedback: refinement broke code that passed before" in interpret_rq2(res)
    rq3 = screening_and_downstream(res)
    judge = rq3[rq3["strategy"] == "llm_judge"].iloc[0]
    text = interpret_rq3(res)
    assert f"avoids {judge['regressions_avoided']} regressions, loses {judge['fixes_lost']} fixes" in text


def test_no_simulated_warning_for_real_runs(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path, seed=1)
    res = load_results(run).model_copy(update={"simulated": False})
    assert all(SIMULATED_NOTE not in f(res) for f in (interpret_rq1, interpret_rq2, interpret_rq3))
