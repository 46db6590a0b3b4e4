"""The learned screener's probability travels as the decision's score: the screening table holds it for every
decision, and summary.json's AUROC is the AUROC of those scores (replay smoke study, real data, two tasks)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from tfr_helpers.analysis import load_results
from tfr_helpers.analysis.summary import build_summary
from tfr_helpers.pipeline import load_config, run_stages

PARAMS = Path(__file__).resolve().parents[2] / "papermill_params" / "replay_smoke_learned.yaml"
TASKS = ["HumanEval/9", "HumanEval/15"]
"""Two tasks whose CodeT feedback holds both reliable and unreliable items (an AUROC is defined)."""


@pytest.mark.slow
def test_every_learned_decision_has_a_score_and_the_summary_auroc_is_theirs(replay_env: Path, tmp_path: Path) -> None:
    config = load_config(PARAMS, {"tasks": {"humaneval": TASKS}})
    assert config.screening[-2:] == ["learned_gold_free", "reject_test_code_errors"]
    run = tmp_path / "run"
    run_stages(config, run, progress=False)
    table = pd.read_json(run / "screening.jsonl.gz", lines=True)
    learned = table[table["strategy"] == "learned_gold_free"]
    assert len(learned) and learned["score"].notna().all()
    assert ((learned["score"] >= 0) & (learned["score"] <= 1)).all()  # P(unreliable)
    assert table.loc[table["strategy"] == "reject_test_code_errors", "score"].isna().all()  # a rule states none
    pairs = pd.read_json(run / "pairs.jsonl.gz", lines=True)
    labelled = learned.merge(
        pairs[["feedback_feedback_id", "model", "reliability"]], left_on="feedback_id", right_on="feedback_feedback_id"
    )
    rows = build_summary(load_results(run))["tables"]["rq3_screening_and_downstream"]["rows"]
    summary = {r["model"]: r["auroc_pct"] for r in rows if r["strategy"] == "learned_gold_free"}
    checked = 0
    for model, group in labelled[labelled["reliability"].notna()].groupby("model"):
        if group["reliability"].nunique() < 2:
            assert summary[model] is None  # one class: no AUROC
            continue
        want = roc_auc_score(group["reliability"] == "unreliable", group["score"])
        assert summary[model] == pytest.approx(100 * want, abs=0.051), model  # summary.json rounds to 0.1
        checked += 1
    assert checked >= 1
