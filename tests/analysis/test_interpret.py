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
from tfr_helpers.analysis.interpret import WORDS
from tfr_helpers.analysis.tables import SIMULATED_NOTE
from tfr_helpers.records import Results
from tfr_helpers.records.study import ModelSource


def test_sentences_quote_the_numbers(tmp_path: Path) -> None:
    res = load_results(make_synthetic_run(tmp_path, seed=2))
    by = by_benchmark(res)
    for model, mine in by.groupby("model"):  # one clause per model, never pooled across models
        k, n = int(mine["k"].sum()), int(mine["n"].sum())
        assert f"{model} (simulated) " in interpret_rq1(res) and f"({k}/{n}) unreliable" in interpret_rq1(res)
    assert interpret_rq1(res).startswith(f"Demo, not evidence ({SIMULATED_NOTE}")  # no real row: the demo only
    assert "after unreliable feedback Pass->Fail " in interpret_rq2(res)
    rq3 = screening_and_downstream(res)
    text = interpret_rq3(res)
    best = rq3[rq3["strategy"] != "accept_all"].sort_values(["specificity_pct", "recall_pct"], ascending=False)
    best = best[best["model"] == best["model"].iloc[0]].iloc[0]
    assert f"{best['strategy']} keeps out the most unreliable feedback, {best['specificity_pct']}% of it" in text
    assert f"avoids {best['regressions_avoided']} regressions, loses {best['fixes_lost']} fixes" in text


def _real(tmp_path: Path, seed: int) -> Results:
    """The synthetic run with every coder presented as a replayed dataset (no simulated row)."""
    res = load_results(make_synthetic_run(tmp_path, seed=seed))
    sources = [
        ModelSource(model=m, source="replayed", label="replayed (published)", producer=m.upper(), note="real")
        for m in dict.fromkeys(c.model for c in res.generated_codes)
    ]
    return res.model_copy(update={"model_sources": sources, "simulated": False})


def test_each_interpretation_leads_with_the_answer_in_about_150_words(tmp_path: Path) -> None:
    texts = [f(_real(tmp_path, 2)) for f in (interpret_rq1, interpret_rq2, interpret_rq3)]
    assert texts[0].startswith("Unreliable (the reference fails the test too): ")
    assert texts[1].startswith("The run's own refinement (attempts): ")
    assert all(len(t.split()) <= 1.2 * WORDS for t in texts), [len(t.split()) for t in texts]


def test_no_simulated_warning_for_real_runs(tmp_path: Path) -> None:
    res = _real(tmp_path, 1)
    assert all(SIMULATED_NOTE not in f(res) for f in (interpret_rq1, interpret_rq2, interpret_rq3))


def test_a_run_without_screened_feedback_says_so() -> None:
    from tests.helpers.records import bare_results

    assert interpret_rq3(bare_results()) == "No feedback was screened in this run."
    assert interpret_rq2(bare_results()).startswith("No refinement attempt in this run")
