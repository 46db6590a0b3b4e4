"""The screener's artefact: trained on a tiny fixture, checked by sha256, out-of-fold for its training tasks."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

from tfr_helpers.cli import app
from tfr_helpers.errors import DataError
from tfr_helpers.screener.artefact import _digest, load_artefact, save_artefact
from tfr_helpers.screener.dataset import Example
from tfr_helpers.screener.features import FEATURES
from tfr_helpers.screener.train import train


def _examples(n_tasks: int = 12, per_task: int = 6, seed: int = 0) -> list[Example]:
    """Feedback whose label follows `sample_fail_share` (noisy), the other features noise."""
    rng = random.Random(seed)
    out = []
    k = FEATURES.index("sample_fail_share")
    for t in range(n_tasks):
        for i in range(per_task):
            label = int(rng.random() < 0.5)
            row = [rng.gauss(0, 1) for _ in FEATURES]
            row[k] = 0.8 * label + 0.1 + rng.gauss(0, 0.15)
            out.append(Example(tuple(row), label, f"HumanEval/{t}", "replay:fixture", f"fb{t}_{i}"))
    return out


@pytest.fixture(scope="module")
def artefact_file(tmp_path_factory):
    body, oof = train(_examples(), {"run_dirs": ["fixture"]})
    return save_artefact(body, tmp_path_factory.mktemp("artefact") / "a.json"), body, oof


def test_training_on_a_tiny_fixture_learns_the_signal_and_records_its_provenance(artefact_file):
    path, body, oof = artefact_file
    a = load_artefact(path)
    y = np.array([e.label for e in _examples()])
    assert ((oof >= a.threshold) == y).mean() > 0.8  # out-of-fold, grouped by task
    assert a.training["sources"] == {"replay:fixture": {"items": 72, "unreliable": int(y.sum()), "tasks": 12}}
    assert len(a.training["data_sha256"]) == 64 and a.sklearn_version
    assert a.selection["shipped"] == "calibrated_logistic_regression"
    assert set(a.selection["grouped_cv_auroc"]) == {"calibrated_logistic_regression", "gradient_boosting"}


def test_a_training_task_is_scored_by_the_fold_model_that_held_it_out(artefact_file):
    path, _, oof = artefact_file
    a = load_artefact(path)
    examples = _examples()
    x = np.array([e.features for e in examples])
    p, folds = a.proba(x, [e.task for e in examples])
    assert all(f is not None for f in folds)
    assert np.allclose(p, oof)  # exactly the out-of-fold numbers: never in-sample
    _, unseen = a.proba(x[:2], ["HumanEval/999", "HumanEval/998"])
    assert unseen == [None, None]


def test_a_tampered_artefact_is_refused_with_a_clear_message(artefact_file, tmp_path):
    path, body, _ = artefact_file
    tampered = dict(body, threshold=body["threshold"] / 2)
    (tmp_path / "t.json").write_text(json.dumps(tampered))
    with pytest.raises(DataError, match="fails its sha256 check.*changed after it was made.*tfr screen train"):
        load_artefact(tmp_path / "t.json")
    with pytest.raises(DataError, match="is missing"):
        load_artefact(tmp_path / "none.json")


def test_one_class_is_refused():
    examples = [e for e in _examples() if e.label == 1]
    with pytest.raises(DataError, match="both reliable and unreliable"):
        train(examples, {})


def test_the_shipped_artefact_passes_its_check_and_matches_the_features():
    a = load_artefact()
    assert a.features == FEATURES
    assert a.training["items"] > 0 and all(not s.startswith("sim:") for s in a.training["sources"])


def test_tfr_screen_check_prints_the_digest_and_refuses_a_tampered_file(artefact_file, tmp_path):
    path, body, _ = artefact_file
    runner = CliRunner()
    ok = runner.invoke(app, ["screen", "check", "--artefact", str(path)])
    assert ok.exit_code == 0 and body["sha256"] in ok.output and "replay:fixture" in ok.output
    (tmp_path / "t.json").write_text(json.dumps(dict(body, features=list(reversed(body["features"])))))
    bad = runner.invoke(app, ["screen", "check", "--artefact", str(tmp_path / "t.json")])
    assert bad.exit_code != 0 and "fails its sha256 check" in str(bad.exception)


def test_each_fold_model_has_its_own_threshold_and_an_older_artefact_uses_the_one(artefact_file, tmp_path):
    path, body, _ = artefact_file
    a = load_artefact(path)
    assert len(a.fold_thresholds) == len(a.fold_models) == body["selection"]["folds"]
    assert [a.threshold_of(k) for k in range(len(a.fold_models))] == list(a.fold_thresholds)
    assert a.threshold_of(None) == a.threshold
    older = {k: v for k, v in json.loads(path.read_text()).items() if k not in ("fold_thresholds", "sha256")}
    old_path = tmp_path / "older.json"
    old_path.write_text(json.dumps({**older, "sha256": _digest(older)}))
    assert load_artefact(old_path).threshold_of(0) == a.threshold
