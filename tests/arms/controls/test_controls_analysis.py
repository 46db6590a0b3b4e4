"""Known answers for the control arm's statistics: the exact McNemar test, the paired difference, and the
feedback-minus-control effects on a run whose control outcomes are set by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis.arms.arm_comparison import paired_effect
from tfr_helpers.analysis.inference.clustered import Interval
from tfr_helpers.analysis.inference.units import rows_resampler
from tfr_helpers.analysis.tidy.frames import refinements_frame
from tfr_helpers.arms.controls.analysis import arms_frame, content_effects, mcnemar_exact, side_by_side
from tfr_helpers.arms.controls.records import ControlRefinedEvaluation, ControlsResults
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results


@pytest.mark.parametrize(("b", "c", "p"), [(1, 9, 22 / 1024), (0, 6, 2 / 64), (5, 5, 1.0), (0, 0, 1.0), (3, 0, 0.25)])
def test_exact_mcnemar_known_answers_and_statsmodels(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p, abs=1e-12)
    if b + c:  # the same test as statsmodels' exact McNemar on the 2x2 table (concordant cells do not matter)
        assert mcnemar_exact(b, c) == pytest.approx(mcnemar([[7, b], [c, 4]], exact=True).pvalue, abs=1e-12)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return load_results(make_synthetic_run(tmp_path_factory.mktemp("runs"), seed=5, n_tasks=16))


def test_paired_difference_known_answers(results: Results) -> None:
    ref = refinements_frame(results)
    rows = ref[ref["model"] == ref["model"].iloc[0]].reset_index(drop=True)

    def paired_difference(_: Results, rows: pd.DataFrame, a: np.ndarray, b: np.ndarray) -> Interval:
        rs = rows_resampler(results, rows, str(rows["model"].iloc[0]))
        return paired_effect(rs, rows["task_id"].tolist(), a, b).interval

    n = len(rows)
    same = np.arange(n) % 3 == 0
    iv = paired_difference(results, rows, same, same)  # identical arms: exactly 0, and no spread at all when paired
    assert (iv.value, iv.low, iv.high) == (0.0, 0.0, 0.0)
    iv = paired_difference(results, rows, np.ones(n, bool), np.zeros(n, bool))
    assert (iv.value, iv.low, iv.high) == (1.0, 1.0, 1.0)
    a, b = np.arange(n) % 2 == 0, np.arange(n) % 5 == 0
    iv = paired_difference(results, rows, a, b)
    assert iv.value == pytest.approx(a.mean() - b.mean()) and iv.low <= iv.value <= iv.high
    assert iv.method.endswith("bootstrap") and iv.clusters == rows["task_id"].nunique()


def _with_control(results: Results, flip: int) -> tuple[Results, str, int]:
    """A retry control equal to the feedback arm except ``flip`` of one model's unreliable Pass->Fail instances,
    which the control keeps passing."""
    ref = refinements_frame(results)
    pf = ref[(ref["transition"] == "pass->fail") & (ref["reliability"] == "unreliable")]
    model = str(pf["model"].value_counts().index[0])
    flipped = set(pf[pf["model"] == model]["feedback_id"].iloc[:flip])
    evals = []
    for e in results.refined_evaluations:
        fields = e.model_dump() | {"control": "retry"}
        if e.feedback_id in flipped:
            fields |= {"transition": "pass->pass", "benchmark_after": True}
        evals.append(ControlRefinedEvaluation(**fields))
    arm = ControlsResults(controls=["retry"], refined_evaluations=evals)
    return (
        results.model_copy(update={"arm_parts": {**results.arm_parts, "controls": arm}}),
        model,
        len(ref[(ref["model"] == model)]),
    )


def test_content_effects_count_the_discordant_pairs_and_holm_adjust(results: Results) -> None:
    ref = refinements_frame(results)
    with_arm, model, _ = _with_control(results, flip=2)
    effects = content_effects(with_arm)
    mine = effects[effects["model"] == model]
    row = mine[(mine["reliability"] == "unreliable") & (mine["transition"] == "pass->fail")].iloc[0]
    among = ref[(ref["model"] == model) & (ref["reliability"] == "unreliable") & ref["benchmark_before"]]
    k = int((among["transition"] == "pass->fail").sum())
    assert (row["feedback_only"], row["control_only"], row["instances"]) == (2, 0, len(among))
    assert row["diff_pp"] == pytest.approx(round(100 * 2 / len(among), 1))
    assert row["feedback_pct"] == pytest.approx(round(100 * k / len(among), 1))
    assert row["p_mcnemar"] == pytest.approx(0.5)  # 2 x P(X = 0), X ~ Binomial(2, 1/2) and row["p_holm"] >= row["p_mcnemar"]
    # two discordant instances sit in at most two tasks: too few for the task-level test, so never "differs"
    assert row["informative_tasks"] <= 2 and row["test"] == "too few tasks" and np.isnan(row["p_task"])
    assert not row["differs"] and np.isnan(row["p_holm"])
    others = mine.drop(row.name)
    assert (others["feedback_only"] == 0).all() and (others["control_only"] == 0).all()
    assert (others["diff_pp"] == 0).all() and (others["p_mcnemar"] == 1).all()
    assert set(effects["model"]) == set(ref["model"])  # one family per model: never pooled
    frame = arms_frame(with_arm)  # identical prompts collapsed in every arm alike: one row per prompt and arm
    assert not frame.duplicated(["arm", "prompt_key"]).any()
    assert frame.groupby("arm")["prompt_key"].nunique().nunique() == 1
    sides = side_by_side(with_arm)
    assert set(sides["arm"]) == {"feedback", "retry"}


def test_content_effects_test_over_tasks_when_enough_tasks_are_discordant(results: Results) -> None:
    with_arm, model, _ = _with_control(results, flip=1000)  # every unreliable Pass->Fail instance of the model
    row = content_effects(with_arm)
    row = row[(row["model"] == model) & (row["reliability"] == "unreliable") & (row["transition"] == "pass->fail")]
    r = row.iloc[0]
    if r["informative_tasks"] >= 6:  # the synthetic run decides how many tasks hold such instances
        assert r["test"].startswith("task swap permutation") and 0 < r["p_task"] <= r["p_holm"] <= 1
    else:
        assert r["test"] == "too few tasks" and not r["differs"]
