"""Rounds analysis: known answers on hand-built chains (pass@1, suite precision, collisions, unreliable share,
transitions), the plot, and the rounds_per_round table in summary.json and through pdflatex."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd
import pytest

from tests.analysis.writing import test_export
from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import analyze
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.analysis.writing.export import AnalysisOutputs
from tfr_helpers.arms.rounds import ARM
from tfr_helpers.arms.rounds.records import RoundChain, RoundsResults, RoundStep
from tfr_helpers.arms.rounds.report import (
    TABLE,
    per_round,
    plot_pass_at_1_per_round,
    round_transitions,
)
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results

matplotlib.use("Agg")
MODEL = "sim:default"


def _step(
    k: int, action: str, size: int, ref: int, failed: int, unreliable: int, before: bool, after: bool, **kw: Any
) -> RoundStep:
    return RoundStep(
        round=k,
        action=action,  # type: ignore[arg-type]
        suite_size=size,
        suite_reference_passed=ref,
        failed=[f"t{i}" for i in range(failed)],
        unreliable=[f"t{i}" for i in range(unreliable)],
        benchmark_before=before,
        benchmark_after=after,
        **kw,
    )


def _chain(name: str, benchmark: str, initial: bool, steps: list[RoundStep]) -> RoundChain:
    return RoundChain(
        chain_id=f"{MODEL}|{name}|c0",
        model=MODEL,
        refiner=MODEL,
        task_id=name,
        benchmark=benchmark,
        round_tests="fresh",
        initial_passed=initial,
        steps=steps,
    )


CHAINS = [
    _chain(  # fails, fixed in round 1, broken again in round 2 (back to its round-0 code), stops in round 3
        "HumanEval/0",
        "humaneval",
        False,
        [
            _step(1, "refined", 4, 3, 2, 1, False, True, transition="fail->pass", collision=False, code="a"),
            _step(2, "refined", 4, 2, 1, 1, True, False, transition="pass->fail", collision=True, code="b"),
            _step(3, "stopped", 4, 4, 0, 0, False, False),
        ],
    ),
    _chain(  # passes; no code in round 1, the same code again in round 2, a regression in round 3
        "HumanEval/1",
        "humaneval",
        True,
        [
            _step(1, "no_code", 2, 2, 1, 0, True, True, transition="no_code"),
            _step(2, "refined", 2, 1, 2, 1, True, True, transition="pass->pass", collision=True, code="c"),
            _step(3, "refined", 2, 1, 1, 1, True, False, transition="pass->fail", collision=False, code="d"),
        ],
    ),
    _chain("MBPP/2", "mbpp", False, [_step(1, "stopped", 3, 3, 0, 0, False, False)]),  # passes its own suite at once
]


def _results(chains: list[RoundChain] = CHAINS, rounds: int = 3) -> Results:
    return Results(
        run_name="hand",
        simulated=True,
        config={},
        tasks=[],
        task_benchmarks={},
        generated_codes=[],
        generated_tests=[],
        benchmark_verdicts=[],
        pair_evaluations=[],
        screening=[],
        refinements=[],
        refined_evaluations=[],
        rounds=RoundsResults(rounds=rounds, round_tests="fresh", stop_when_passing=True, chains=chains),
    )


def _row(frame: pd.DataFrame, benchmark: str, k: int) -> pd.Series:
    rows = frame[(frame["benchmark"] == benchmark) & (frame["round"] == k)]
    assert len(rows) == 1
    return rows.iloc[0]


def test_pass_at_1_per_round_carries_the_last_code_of_stopped_chains() -> None:
    frame = per_round(_results())
    assert [_row(frame, "humaneval", k)["pass_at_1"] for k in range(4)] == [0.5, 1.0, 0.5, 0.0]
    assert [_row(frame, "mbpp", k)["pass_at_1"] for k in range(4)] == [0.0, 0.0, 0.0, 0.0]
    assert [_row(frame, "all", k)["passed"] for k in range(4)] == [1, 2, 1, 0]
    assert [_row(frame, "mbpp", k)["stopped_early"] for k in range(4)] == [0, 1, 1, 1]
    assert [_row(frame, "humaneval", k)["active"] for k in range(4)] == [0, 2, 2, 2]


def test_suite_length_and_precision_known_answers() -> None:
    frame = per_round(_results())
    assert [_row(frame, "humaneval", k)["suite_length"] for k in (1, 2, 3)] == [3.0, 3.0, 3.0]
    assert [_row(frame, "humaneval", k)["suite_precision"] for k in (1, 2, 3)] == pytest.approx([5 / 6, 3 / 6, 5 / 6])
    assert _row(frame, "all", 1)["suite_precision"] == pytest.approx(8 / 9)
    assert math.isnan(_row(frame, "mbpp", 2)["suite_precision"])  # no active chain: undefined, not zero


def test_collision_probability_and_unreliable_share_known_answers() -> None:
    frame = per_round(_results())
    assert [_row(frame, "humaneval", k)["collision_probability"] for k in (1, 2, 3)] == [0.0, 1.0, 0.0]
    assert [_row(frame, "humaneval", k)["unreliable_share"] for k in (1, 2, 3)] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert math.isnan(_row(frame, "mbpp", 1)["collision_probability"])  # nothing refined
    assert math.isnan(_row(frame, "mbpp", 1)["unreliable_share"])  # no feedback


def test_round_transitions_count_refinement_attempts_per_round() -> None:
    frame = round_transitions(_results())
    mine = frame[frame["benchmark"] == "humaneval"]
    got = {(r["round"], r["transition"]): (r["n"], r["share"]) for _, r in mine.iterrows()}
    assert got == {
        (1, "fail->pass"): (1, 0.5),
        (1, "no_code"): (1, 0.5),
        (2, "pass->fail"): (1, 0.5),
        (2, "pass->pass"): (1, 0.5),
        (3, "pass->fail"): (1, 1.0),  # the stopped chain made no attempt
    }


def test_no_rounds_give_empty_frames() -> None:
    results = _results().model_copy(update={"arm_parts": {}})
    assert per_round(results).empty and round_transitions(results).empty


def test_plot_draws_a_line_per_model_with_a_band_over_seeds() -> None:
    frame = per_round(_results())
    ax = plot_pass_at_1_per_round(frame)
    assert list(ax.lines[0].get_ydata()) == pytest.approx([100 / 3, 200 / 3, 100 / 3, 0.0])  # the all rows
    other = per_round(_results([CHAINS[0]]))
    ax = plot_pass_at_1_per_round({0: frame, 1: other})
    means = list(ax.lines[0].get_ydata())
    assert means == pytest.approx([(100 / 3 + 0) / 2, (200 / 3 + 100) / 2, (100 / 3 + 0) / 2, 0.0])
    assert len(ax.collections) == 1  # the mean +- SE band


@pytest.fixture(scope="module")
def rounds_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AnalysisOutputs]:
    """A synthetic run with the hand-built chains as its rounds, analysed."""
    run = make_synthetic_run(tmp_path_factory.mktemp("rounds"), seed=1)
    results = load_results(run).model_copy(update={"arm_parts": {ARM.name: _results().part(ARM)}})
    (run / "results.json").write_text(results.model_dump_json())
    return run, analyze(run)


def test_summary_has_every_per_round_number_with_definitions(rounds_run: tuple[Path, AnalysisOutputs]) -> None:
    run, out = rounds_run
    section = json.loads((run / "analysis" / "summary.json").read_text())["rounds"]
    assert section["settings"] == {"rounds": 3, "round_tests": "fresh", "stop_when_passing": True}
    rows = section["per_round"]
    assert len(rows) == 3 * 4  # humaneval, mbpp, all x rounds 0..3
    bounds = {f"{share}_{end}" for share in ("pass", "suite_precision", "collision") for end in ("low", "high", "method")}
    assert set(rows[0]) <= set(section["definitions"]) | {"source", "model", "benchmark"} | bounds
    assert {r["pass_at_1"] for r in rows if r["benchmark"] == "humaneval"} == {0.5, 1.0, 0.0}
    assert rows == frame_records(per_round(load_results(run)))
    assert [r["suite_precision"] for r in rows if r["benchmark"] == "all" and r["round"] == 2] == [0.5]
    assert {p.name for p in out.figures} >= {"rounds_pass_at_1.png", "rounds_pass_at_1.pdf"}
    table = out.tables[TABLE].read_text()
    assert "Simulated model: demo numbers, not evidence" in table and r"\toprule" in table


def test_rounds_table_compiles_with_pdflatex(rounds_run: tuple[Path, AnalysisOutputs], tmp_path: Path) -> None:
    test_export.test_tex_compiles_with_pdflatex(rounds_run, tmp_path)


def test_r_and_r_obs_per_round_by_hand() -> None:
    """Code after round j: r is pass@1 at round j (1/3, 2/3, 1/3, 0); r_obs the share of chains that ran round j + 1
    whose code passed its whole suite: round 1 only MBPP/2 (1/3); round 2 neither HumanEval chain (0/2, MBPP/2
    stopped); round 3 HumanEval/0 stopped on a passed suite, HumanEval/1 failed one test (1/2); no round 4."""
    from tfr_helpers.arms.rounds.report import observed_vs_true, plot_observed_vs_true

    frame = observed_vs_true(_results())
    assert frame["r"].tolist() == pytest.approx([1 / 3, 2 / 3, 1 / 3, 0.0])
    assert frame["r_obs"].tolist()[:3] == pytest.approx([1 / 3, 0.0, 1 / 2])
    assert math.isnan(frame["r_obs"].iloc[3]) and frame["observed"].tolist() == [3, 2, 2, 0]
    ax = plot_observed_vs_true(_results())
    assert len(ax.get_lines()) == 2
