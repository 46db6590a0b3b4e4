"""Headline numbers over seeds: known-answer mean +- SE, the multi-seed analysis, its table and summary.json."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.analysis.writing import test_export
from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import analyze
from tfr_helpers.analysis.headlines import definitions, headline_numbers
from tfr_helpers.analysis.inference.stats import mean_se
from tfr_helpers.analysis.seeds.over_seeds import headline_over_seeds, load_seed_results, over_seeds
from tfr_helpers.analysis.writing.export import AnalysisOutputs
from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results

SEEDS = [0, 1, 2]


def _multi_seed_run(root: Path, seeds: list[int]) -> Path:
    """A multi-seed run directory whose seeds are synthetic runs (config.json lists the seeds)."""
    run = root / "multi"
    (run / "seeds").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"config": {"seeds": seeds}}))
    for seed in seeds:
        make_synthetic_run(root, seed=seed).rename(run / "seeds" / str(seed))
    return run


def _set_passing(run: Path, model: str, passing: int) -> int:
    """Rewrite ``model``'s generated-code verdicts so that exactly ``passing`` of them pass (hand-built records);
    returns how many code samples the model has."""
    results = load_results(run)
    verdicts = [v for v in results.benchmark_verdicts if v.subject == "generated" and v.model == model]
    changed = {id(v): v.model_copy(update={"passed": i < passing}) for i, v in enumerate(verdicts)}
    fixed = [changed.get(id(v), v) for v in results.benchmark_verdicts]
    (run / "results.json").write_text(results.model_copy(update={"benchmark_verdicts": fixed}).model_dump_json())
    return len(verdicts)


@pytest.fixture(scope="module")
def multi(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, AnalysisOutputs]:
    run = _multi_seed_run(tmp_path_factory.mktemp("seeds"), SEEDS)
    return run, analyze(run)


def test_mean_se_known_answers() -> None:
    assert mean_se([1.0, 2.0, 3.0]) == pytest.approx((2.0, 1 / math.sqrt(3)))
    assert mean_se([50.0, 75.0]) == pytest.approx((62.5, 12.5))
    mean, se = mean_se([7.0])
    assert mean == 7.0 and math.isnan(se)
    assert mean_se([4.0, float("nan"), 6.0]) == pytest.approx((5.0, 1.0))
    assert all(math.isnan(x) for x in mean_se([]))


def test_over_seeds_known_answer_on_hand_built_frames() -> None:
    def frame(value: float, low: float, high: float) -> pd.DataFrame:
        row = {"model": "m", "source": "s", "number": "n", "value": value, "low": low, "high": high, "interval": "i"}
        return pd.DataFrame([row])

    out = over_seeds({0: frame(40.0, 30.0, 50.0), 1: frame(50.0, 40.0, 60.0), 2: frame(60.0, 50.0, 70.0)})
    row = out.iloc[0]
    assert row["mean"] == pytest.approx(50.0) and row["se"] == pytest.approx(10 / math.sqrt(3))
    assert (row["n_seeds"], row["low_mean"], row["high_mean"]) == (3, 40.0, 60.0)
    assert row["per_seed"] == {0: 40.0, 1: 50.0, 2: 60.0}


def test_code_pass_at_1_over_seeds_on_hand_built_records(tmp_path: Path) -> None:
    run = _multi_seed_run(tmp_path, [0, 1])
    model = load_results(run / "seeds" / "0").generated_codes[0].model
    n0 = _set_passing(run / "seeds" / "0", model, 3)
    n1 = _set_passing(run / "seeds" / "1", model, 9)
    row = headline_over_seeds(run).set_index(["model", "number"]).loc[(model, "code_pass_at_1")]
    p0, p1 = round(100 * 3 / n0, 1), round(100 * 9 / n1, 1)
    assert row["per_seed"] == {0: p0, 1: p1}
    assert (row["mean"], row["se"]) == pytest.approx(((p0 + p1) / 2, abs(p1 - p0) / 2))


@pytest.mark.slow  # the module's multi-seed study (about 20 s)
def test_per_seed_values_are_each_seeds_own_numbers(multi: tuple[Path, AnalysisOutputs]) -> None:
    run, _ = multi
    results: dict[int, Results] = load_seed_results(run)
    assert list(results) == SEEDS
    frame = headline_over_seeds(run)
    for seed, res in results.items():
        own = headline_numbers(res).set_index(["model", "number"])["value"]
        for _, row in frame.iterrows():
            assert row["per_seed"][seed] == pytest.approx(own.loc[(row["model"], row["number"])], nan_ok=True)


@pytest.mark.slow  # the module's multi-seed study (about 20 s)
def test_summary_holds_every_number_with_its_definition(multi: tuple[Path, AnalysisOutputs]) -> None:
    run, out = multi
    summary = json.loads(out.summary.read_text())
    assert summary["kind"] == "multi_seed" and summary["seeds"] == SEEDS and summary["simulated"] is True
    rows = summary["tables"]["seeds_headline"]["rows"]
    assert rows and {"mean", "se", "n_seeds", "per_seed", "low_mean", "high_mean"} <= set(rows[0])
    for row in rows:
        base = row["number"].split(":")[0] + (":<strategy>" if ":" in row["number"] else "")
        assert base in definitions() and base in summary["definitions"]
    assert {"mean", "se"} <= set(summary["definitions"])
    assert all((run / "seeds" / str(s) / "analysis" / "summary.json").is_file() for s in SEEDS)


@pytest.mark.slow  # the module's multi-seed study (about 20 s)
def test_table_names_mean_se_and_per_run_interval(multi: tuple[Path, AnalysisOutputs]) -> None:
    _, out = multi
    tex = out.tables["seeds_headline"].read_text()
    assert "Mean +- SE over seeds" in tex and "Per-run 95\\% interval" in tex and "Interval over" in tex
    summary = json.loads(out.summary.read_text())
    known = {
        round(float(r[k]), 1)
        for r in summary["tables"]["seeds_headline"]["rows"]
        for k in ("mean", "se")
        if r[k] is not None
    }
    means = {round(float(m), 1) for m in re.findall(r"& (-?\d+\.\d+) \+- ", tex)}
    assert means and means <= known


@pytest.mark.slow  # the module's multi-seed study (about 20 s)
def test_seeds_table_compiles_with_pdflatex(multi: tuple[Path, AnalysisOutputs], tmp_path: Path) -> None:
    test_export.test_tex_compiles_with_pdflatex(multi, tmp_path)


def test_unfinished_seed_is_named(tmp_path: Path) -> None:
    run = _multi_seed_run(tmp_path, [0, 1])
    (run / "seeds" / "1" / "results.json").unlink()
    with pytest.raises(RunDirError, match="seed 1 .*tfr stage all"):
        load_seed_results(run)


def test_single_run_is_not_multi_seed(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="not a multi-seed run"):
        load_seed_results(make_synthetic_run(tmp_path))
