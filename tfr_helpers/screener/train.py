"""Fitting the screener: grouped cross-validation, the choice of model, the threshold and the artefact.

Every split is grouped by task (:class:`~sklearn.model_selection.GroupKFold`): no task is in both the part a model
is fitted on and the part it is scored on. Two candidates are compared by their grouped out-of-fold AUROC:

- **calibrated logistic regression**: standardised features, L2 logistic regression, then Platt scaling fitted on
  the grouped out-of-fold scores of the training part; the calibrated model is still one linear model (the Platt
  step composes into its coefficients), so it ships as a JSON of its parameters;
- **gradient boosting** (:class:`~sklearn.ensemble.HistGradientBoostingClassifier`).

The rule keeps the linear model unless boosting's AUROC is more than :data:`PREFER_LINEAR_MARGIN` higher (it is
small, portable and readable); both AUROCs and the rule's choice are recorded in the artefact, and the shipped model
is always the linear one (a rule that picks boosting is said so in the artefact's ``selection.note``). The full
model's threshold is the one that maximises MCC on the out-of-fold probabilities (it is applied to tasks never
trained on); each fold model's threshold maximises MCC on the out-of-fold probabilities of that fold's training part
alone (:func:`nested_out_of_fold`), so a task the artefact was trained on is decided by a model and a threshold that
never saw it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import matthews_corrcoef, roc_auc_score
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

from tfr_helpers.errors import DataError
from tfr_helpers.screener.artefact import Linear, artefact_json
from tfr_helpers.screener.dataset import Example, as_arrays
from tfr_helpers.screener.features import FEATURES

FOLDS = 5
PREFER_LINEAR_MARGIN = 0.01
"""AUROC by which gradient boosting must beat the linear model to be chosen."""
C = 1.0
SEED = 0


def _folds(groups: np.ndarray, n: int = FOLDS) -> list[tuple[np.ndarray, np.ndarray]]:
    k = min(n, len(set(groups.tolist())))
    if k < 2:
        raise DataError("grouped cross-validation needs feedback from at least two tasks")
    return list(GroupKFold(n_splits=k).split(np.zeros(len(groups)), groups=groups))


def fit_linear(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> Linear:
    """Standardised L2 logistic regression with Platt scaling on its grouped out-of-fold scores, as one model."""
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    z = (x - scaler.mean_) / scale
    lr = LogisticRegression(C=C, max_iter=2000).fit(z, y)
    scores = np.zeros(len(y))
    for train, test in _folds(groups):
        if len(set(y[train].tolist())) < 2:
            scores[test] = lr.decision_function(z[test])
            continue
        scores[test] = LogisticRegression(C=C, max_iter=2000).fit(z[train], y[train]).decision_function(z[test])
    platt = LogisticRegression(C=1e6, max_iter=2000).fit(scores.reshape(-1, 1), y)
    a, c = float(platt.coef_[0, 0]), float(platt.intercept_[0])
    coef = a * lr.coef_[0]
    return Linear(tuple(scaler.mean_.tolist()), tuple(scale.tolist()), tuple(coef.tolist()), a * float(lr.intercept_[0]) + c)


def out_of_fold(
    x: np.ndarray, y: np.ndarray, groups: np.ndarray, kind: str = "linear"
) -> tuple[np.ndarray, list[Linear], dict[str, int]]:
    """Grouped out-of-fold probabilities, the fold models (linear only) and each task's fold."""
    p = np.zeros(len(y))
    models: list[Linear] = []
    task_fold: dict[str, int] = {}
    for k, (train, test) in enumerate(_folds(groups)):
        for t in set(groups[test].tolist()):
            task_fold[str(t)] = k
        if kind == "linear":
            m = fit_linear(x[train], y[train], groups[train])
            models.append(m)
            p[test] = m.proba(x[test])
        else:
            gb = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, random_state=SEED)
            p[test] = gb.fit(x[train], y[train]).predict_proba(x[test])[:, 1]
    return p, models, task_fold


def nested_out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Grouped out-of-fold probabilities with thresholds chosen inside each training fold.

    For each outer fold the model is fitted on the other folds, and its threshold is :func:`best_threshold` of the
    training part's own grouped out-of-fold probabilities: a threshold never sees the items it is applied to.

    Returns:
        The probability of each row, the threshold applied to each row, and each fold's threshold (in the order
        of :func:`out_of_fold`'s fold models).
    """
    p, t = np.zeros(len(y)), np.zeros(len(y))
    per_fold = []
    for train_, test in _folds(groups):
        p[test] = fit_linear(x[train_], y[train_], groups[train_]).proba(x[test])
        inner, _, _ = out_of_fold(x[train_], y[train_], groups[train_], "linear")
        per_fold.append(best_threshold(inner, y[train_]))
        t[test] = per_fold[-1]
    return p, t, per_fold


def best_threshold(p: np.ndarray, y: np.ndarray) -> float:
    """The probability threshold (reject at or above it) with the highest MCC on ``p``."""
    candidates = np.unique(np.round(p, 4))
    scores = [matthews_corrcoef(y, p >= t) for t in candidates]
    return float(candidates[int(np.argmax(scores))]) if len(candidates) else 0.5


def data_digest(examples: Sequence[Example]) -> str:
    """sha256 of the training data (features, labels, tasks, sources, feedback ids) in a canonical form."""
    rows = sorted((e.feedback_id, e.source, e.task, e.label, [round(v, 9) for v in e.features]) for e in examples)
    return hashlib.sha256(json.dumps(rows, separators=(",", ":")).encode()).hexdigest()


def train(examples: Sequence[Example], provenance: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray]:
    """Fit the screener on ``examples`` and return the artefact body and the out-of-fold probabilities.

    Args:
        examples: Labelled feedback of real sources (both classes needed).
        provenance: What the data came from (run directories, params, command), recorded in the artefact.

    Raises:
        DataError: One class only, or fewer than two tasks.
    """
    x, y, tasks, sources = as_arrays(examples)
    if len(set(y.tolist())) < 2:
        raise DataError("training needs both reliable and unreliable feedback")
    p_lin, fold_models, task_fold = out_of_fold(x, y, tasks, "linear")
    p_gb, _, _ = out_of_fold(x, y, tasks, "boosting")
    auc_lin, auc_gb = float(roc_auc_score(y, p_lin)), float(roc_auc_score(y, p_gb))
    chosen = "calibrated_logistic_regression" if auc_gb - auc_lin <= PREFER_LINEAR_MARGIN else "gradient_boosting"
    selection = {
        "grouped_cv_auroc": {"calibrated_logistic_regression": round(auc_lin, 4), "gradient_boosting": round(auc_gb, 4)},
        "folds": len(fold_models),
        "rule": f"linear unless boosting's grouped CV AUROC is more than {PREFER_LINEAR_MARGIN} higher",
        "chosen": chosen,
        "shipped": "calibrated_logistic_regression",
    }
    if chosen != "calibrated_logistic_regression":
        selection["note"] = "boosting won by the rule, but only the linear model ships (a JSON of its parameters)"
    threshold = best_threshold(p_lin, y)
    _, _, fold_thresholds = nested_out_of_fold(x, y, tasks)
    by_source = {
        str(s): {
            "items": int((sources == s).sum()),
            "unreliable": int(y[sources == s].sum()),
            "tasks": len(set(tasks[sources == s].tolist())),
        }
        for s in sorted(set(sources.tolist()))
    }
    training = {**provenance, "sources": by_source, "items": len(y), "data_sha256": data_digest(examples)}
    body = artefact_json(
        FEATURES,
        fit_linear(x, y, tasks),
        threshold,
        fold_models,
        task_fold,
        sklearn.__version__,
        training,
        selection,
        fold_thresholds,
    )
    return body, p_lin
