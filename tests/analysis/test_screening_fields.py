"""A screening decision's typed score and abstention: strategies state them, the analysis reads them (never the
reasoning), and the records of earlier runs, which had neither field, still load with them."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import load_results, screening_and_downstream
from tfr_helpers.analysis.inference.screening_set import common_sets
from tfr_helpers.arms.trajectories.records.trajectory_screening import ScreenedFailingTest
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.engine.codec import decode_records, encode_records
from tfr_helpers.pipeline.screening.registry import Verdict
from tfr_helpers.records import Results, ScreeningDecision

LEGACY = {
    "consensus_b4": ("b4 test score 0.250 is below 0.5", 0.75, False),
    "consensus_codet_top": ("40% of the 5 samples in CodeT's top consensus level pass this test", 0.6, False),
    "learned_gold_free": ("P(unreliable) = 0.731 >= threshold 0.600; full model; artefact sha256 abc", 0.731, False),
    "consensus_dawid_skene": ("fewer than two programs: no consensus, accepted as accept_all would", None, True),
    "llm_judge": ("the test score 0.9 looks wrong", None, False),  # a judge's words: no score of its own
}
"""An earlier run's reasoning per strategy -> the score and abstention read from it at load time."""


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return load_results(make_synthetic_run(tmp_path_factory.mktemp("fields"), seed=5))


def test_a_verdict_refuses_a_score_that_is_not_a_finite_number_and_stores_numpy_floats_as_floats() -> None:
    for bad in (float("nan"), float("inf"), "0.7", True):
        with pytest.raises(ConfigError, match="finite number"):
            Verdict("reject", score=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="True or False"):
        Verdict("accept", abstained="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="accept, reject, undecided"):
        Verdict("maybe")  # type: ignore[arg-type]
    verdict = Verdict("reject", score=np.float32(0.25))
    assert type(verdict.score) is float and verdict.score == 0.25


def test_an_earlier_runs_decision_gets_its_score_and_abstention_from_its_reasoning_once_at_load(
    results: Results,
) -> None:
    old_results = results.model_dump(mode="json")  # results.json of an earlier run: no score, no abstained
    for strategy, (text, score, abstained) in LEGACY.items():
        stored = {"feedback_id": "HumanEval/0#ebt0", "strategy": strategy, "decision": "accept", "reasoning": text}
        for record in (
            decode_records([{"type": "ScreeningDecision", "record": stored}])[0],  # a checkpoint
            Results.model_validate({**old_results, "screening": [stored]}).screening[0],  # results.json
        ):
            assert isinstance(record, ScreeningDecision)
            assert record.score == (pytest.approx(score) if score is not None else None), strategy
            assert record.abstained is abstained, strategy
            assert record.reasoning == text
    # a record that states the fields is never read from its text, and round-trips as it is
    typed = ScreeningDecision(
        feedback_id="HumanEval/0#ebt0", strategy="consensus_b4", decision="reject", score=None, abstained=False,
        reasoning="b4 test score 0.250 is below 0.5",
    )  # fmt: skip
    assert typed.score is None and decode_records(encode_records([typed])) == [typed]


def test_an_earlier_runs_trajectory_test_gets_scores_and_abstentions_from_its_reasons() -> None:
    outcome = {"name": "t", "status": "failed"}
    old = {
        "name": "t",
        "outcome": outcome,
        "unreliable": True,
        "decisions": {s: "accept" for s in LEGACY},
        "reasons": {s: text for s, (text, _, _) in LEGACY.items()},
    }
    test = ScreenedFailingTest.model_validate(old)
    assert test.scores == pytest.approx({s: v for s, (_, v, _) in LEGACY.items() if v is not None})
    assert test.abstained == {s: a for s, (_, _, a) in LEGACY.items()}
    fresh = ScreenedFailingTest.model_validate({**old, "scores": {}, "abstained": {}})
    assert fresh.scores == {} and fresh.abstained == {}


def _with_strategy(results: Results, strategy: str, score, reasoning) -> Results:  # type: ignore[no-untyped-def]
    """``results`` plus one strategy deciding every feedback, its score and reasoning given per feedback."""
    feedback = sorted({d.feedback_id for d in results.screening})
    added = [
        ScreeningDecision(
            feedback_id=f, strategy=strategy, decision="accept" if (score(f) or 0) < 0.5 else "reject",
            score=score(f), abstained=False, reasoning=reasoning(f),
        )
        for f in feedback
    ]  # fmt: skip
    return results.model_copy(update={"screening": [*results.screening, *added]})


def test_auroc_ranks_by_the_typed_score_and_never_reads_the_reasoning(results: Results) -> None:
    rng = np.random.default_rng(0)
    feedback = sorted({d.feedback_id for d in results.screening})
    scores = dict(zip(feedback, rng.random(len(feedback)).round(3).tolist(), strict=True))
    # the reasoning says the opposite score in the legacy phrase: it must not count
    scored = _with_strategy(results, "scored", scores.get, lambda f: f"P(unreliable) = {1 - scores[f]:.3f}")
    worded = _with_strategy(results, "worded", lambda f: None, lambda f: f"b4 test score {scores[f]:.3f} clears 0.5")
    rq3 = screening_and_downstream(scored, n_resamples=100)
    for model, cs in common_sets(scored).items():
        rel = cs.feedback["reliable"].to_numpy(dtype=bool)
        if len(set(rel)) < 2:
            continue
        want = roc_auc_score(~rel, [scores[f] for f in cs.feedback["feedback_id"]])  # unreliable, by the score
        row = rq3[(rq3["model"] == model) & (rq3["strategy"] == "scored")].iloc[0]
        assert row["auroc_pct"] == pytest.approx(100 * want, abs=0.051), model
    no_score = screening_and_downstream(worded, n_resamples=100)
    assert no_score.loc[no_score["strategy"] == "worded", "auroc_pct"].isna().all()
