"""RQ3 on a common feedback set: paired comparisons with Holm, undecided three ways, the per-code-sample policy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import (
    conditional_transitions,
    load_results,
    pairwise_comparisons,
    screening_and_downstream,
    undecided_sensitivity,
)
from tfr_helpers.analysis.inference.screening_set import common_sets
from tfr_helpers.records import Results


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Results:
    return load_results(make_synthetic_run(tmp_path_factory.mktemp("pw"), seed=5))


def _holm(p: list[float]) -> list[float]:
    """Holm by hand: sorted p_(i) x (m - i), running maximum, capped at 1, back in input order."""
    order = np.argsort(p)
    m = len(p)
    adjusted = np.minimum(1, np.maximum.accumulate([(m - i) * p[j] for i, j in enumerate(order)]))
    out = np.empty(m)
    out[order] = adjusted
    return out.tolist()


def test_every_pair_once_per_measure_with_holm_over_the_primary_and_the_exploratory_families(results: Results) -> None:
    frame = pairwise_comparisons(results, n_resamples=300)
    for (model, measure), g in frame.groupby(["model", "measure"]):
        strategies = sorted(common_sets(results)[model].strategies)
        assert len(g) == len(strategies) * (len(strategies) - 1) // 2, (model, measure)
    primary = frame["family"] == "primary"
    assert (frame.loc[primary, "a"] == "accept_all").all() and (frame.loc[primary, "measure"] == "mcc").all()
    families = [g for _, g in frame[primary].groupby("model")]
    families += [g for _, g in frame[~primary].groupby(["model", "measure"])]
    for g in families:
        ok = g["p"].notna()
        assert g.loc[ok, "p_holm"].tolist() == pytest.approx(
            _holm(g.loc[ok, "p"].tolist()), abs=1e-3
        )  # p is rounded to 4 decimals
        assert (g.loc[ok, "p_holm"] >= g.loc[ok, "p"] - 1e-9).all()
        assert (g["differs"] == (g["p_holm"] < 0.05)).all()
        # no p without enough informative tasks, and then never "differs"
        few = g["test"] == "too few tasks"
        assert (g.loc[few, "informative_tasks"] < 6).all() and g.loc[few, "p"].isna().all()
        assert not g.loc[few, "differs"].any()
    measures = {"precision", "recall", "f1", "specificity", "mcc", "net_change_per_code"}
    assert measures <= set(frame["measure"]) <= measures | {"auroc"}


def test_paired_auroc_cells_give_the_difference_of_sklearn_aurocs() -> None:
    from sklearn.metrics import roc_auc_score

    from tfr_helpers.analysis.inference.measures import paired_level_cells

    rng = np.random.default_rng(0)
    rel = rng.random(60) < 0.5
    a, b = rng.integers(0, 4, 60).astype(float), rng.random(60).round(1)
    cells, swapped, stat = paired_level_cells(a, b, rel)
    want = roc_auc_score(rel, a) - roc_auc_score(rel, b)
    assert stat(cells.toarray().sum(axis=0)[None, :])[0] == pytest.approx(want)
    assert stat(swapped.toarray().sum(axis=0)[None, :])[0] == pytest.approx(-want)


def test_abstentions_are_tied_and_accept_all_has_no_interval_where_it_is_structural(results: Results) -> None:
    rq3 = screening_and_downstream(results, n_resamples=200)
    base = rq3[rq3["strategy"] == "accept_all"]
    assert (base["specificity_pct"] == 0).all() and base["specificity_low"].isna().all()
    assert (base["specificity_method"] == "structural: accepts every feedback").all()
    assert (base["accept_pct"] == 100).all() and base["accept_high"].isna().all()
    for model, cs in common_sets(results).items():
        for strategy in cs.strategies:
            scores = cs.ranking_scores(strategy)
            abstained = cs.abstained[strategy].to_numpy(dtype=bool)
            if scores is None:
                assert rq3[(rq3["model"] == model) & (rq3["strategy"] == strategy)]["auroc_pct"].isna().all()
                continue
            assert np.isfinite(scores).all() and len(scores) == len(cs.feedback)  # the common set, every item
            if abstained.any():
                assert len(set(scores[abstained])) == 1  # one tied level


def test_a_pair_difference_is_the_difference_of_the_two_rows(results: Results) -> None:
    rq3 = screening_and_downstream(results, n_resamples=300).set_index(["model", "strategy"])
    frame = pairwise_comparisons(results, n_resamples=300)
    row = frame[(frame["measure"] == "f1") & (frame["a"] == "accept_all")].iloc[0]
    a, b = rq3.loc[(row["model"], "accept_all")], rq3.loc[(row["model"], row["b"])]
    assert row["diff_pp"] == pytest.approx(a["f1_pct"] - b["f1_pct"], abs=0.11)


def test_all_strategies_are_scored_on_the_same_feedback(results: Results) -> None:
    rq3 = screening_and_downstream(results, n_resamples=200)
    for _, g in rq3.groupby("model"):
        assert g["decisions"].nunique() == 1 and (g["decisions"] <= g["decided"]).all()
        assert (g["accepted"] + g["rejected"] + g["undecided"] == g["decisions"]).all()


def test_undecided_three_ways(results: Results) -> None:
    sens = undecided_sensitivity(results, n_resamples=200)
    assert len(sens) and set(sens["undecided_as"]) == {"reject", "accept", "excluded"}
    for _, g in sens.groupby(["model", "strategy"]):
        by = g.set_index("undecided_as")
        assert by.loc["excluded", "decisions"] == by.loc["reject", "decisions"] - by.loc["reject", "undecided"]
        # reading undecided as accept can only raise recall
        assert by.loc["accept", "recall_pct"] >= by.loc["reject", "recall_pct"]


def test_per_code_sample_policy_counts_every_code_sample(results: Results) -> None:
    rq3 = screening_and_downstream(results, n_resamples=200)
    for model, cs in common_sets(results).items():
        codes = sum(c.model == model for c in results.generated_codes)
        row = rq3[(rq3["model"] == model) & (rq3["strategy"] == "accept_all")].iloc[0]
        assert row["codes"] == codes == len(cs.codes)
        change = cs.per_code_change("accept_all")
        assert row["net_change_per_code_pct"] == pytest.approx(100 * change.mean(), abs=0.051)
        # a code sample changes only through its own feedback: the others stay at 0
        fed = set(zip(cs.feedback["task_id"], cs.feedback["code_index"], strict=True))
        keys = list(zip(cs.codes["task_id"], cs.codes["code_index"], strict=True))
        assert all(c == 0 for c, k in zip(change, keys, strict=True) if k not in fed)


def test_conditional_rates_have_the_right_denominators(results: Results) -> None:
    cond = conditional_transitions(results)
    ref = results.refined_evaluations
    pairs = {p.pair_id: p for p in results.pair_evaluations}
    for _, r in cond.iterrows():
        model = r["model"]
        mine = [e for e in ref if e.model == model and pairs[e.feedback_id].reliability == r["reliability"]]
        passed = r["transition"] == "pass->fail"
        among = [e for e in mine if e.benchmark_before == passed]
        assert (r["attempts"], r["k"]) == (len(among), sum(e.transition == r["transition"] for e in among))
        assert r["unique_attempts"] <= r["attempts"]


def test_the_text_states_no_difference_without_the_test(results: Results) -> None:
    from tfr_helpers.analysis import interpret_rq1, interpret_rq3

    assert "intervals do not overlap" not in interpret_rq1(results)
    assert "p_Holm" in interpret_rq3(results)


def test_the_pairs_computed_in_worker_processes_are_the_rows_computed_here(
    results: Results, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfr_helpers.analysis import processes
    from tfr_helpers.analysis.inference import pairwise, screening_set

    frames = []
    for count in ("1", "2"):
        monkeypatch.setenv(processes.ENV, count)
        screening_set._LAST.pop("pairwise", None)  # computed again, not the last call's frame
        frames.append(pairwise.pairwise_comparisons(results, n_resamples=200))
    assert len(frames[0]) > 10
    assert frames[0].to_json() == frames[1].to_json()  # every value, the row order and the types alike
