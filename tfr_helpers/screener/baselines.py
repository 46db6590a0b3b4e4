"""The trivial baselines a screener's AUROC is read beside: one flag each, from what the screener may read.

- **empty solution** (:func:`~tfr_helpers.replay.empty_solution.is_empty_solution` of the code): an empty solution
  fails every correct assert, so its feedback is reliable exactly when the test is right;
- **test-code error** (the feature ``fail_test_code_error``, what ``reject_test_code_errors`` rejects): a syntax,
  name or import error outside the code under test;
- **feedback without content** (:func:`no_content`): the feedback reports a fault of the harness rather than of the
  code: the logging harness never ran the test (``'Expr' object has no attribute 'test'``), or the test raised a
  ``NameError`` outside the code under test (an assert lifted out of the scope that defined its names);
- **the best single feature** (:func:`best_single_feature`): the feature, and its direction, with the highest AUROC
  on the training data, applied unchanged to the items scored.

Each flag is a score (1.0 or 0.0, signed by :data:`FLAG_SIGNS` so that higher means more likely unreliable), so its
AUROC is that of a screener that rejects the flagged feedback (keeps it, for the empty solution) and ties the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score

from tfr_helpers.replay.empty_solution import is_empty_solution
from tfr_helpers.replay.trajectories.feedback import HARNESS_FAULT
from tfr_helpers.screener.view import FeedbackView

FLAGS: tuple[str, ...] = ("empty_solution", "test_code_error", "no_content")
"""The flag baselines, in the order of :func:`flags`."""
FLAG_SIGNS: tuple[float, ...] = (-1.0, 1.0, 1.0)
"""Each flag's direction as a score (higher: more likely unreliable): feedback on an empty solution is the
*reliable* kind (a correct test fails on it), a test-code error or a feedback without content the unreliable kind."""


def no_content(view: FeedbackView) -> bool:
    """The feedback reports a harness fault or a ``NameError`` raised outside the code under test."""
    f = view.failure
    return HARNESS_FAULT in f.message or (f.exc_type == "NameError" and not f.in_code_under_test)


def flags(view: FeedbackView, test_code_error: float) -> tuple[float, float, float]:
    """The flags of :data:`FLAGS` for one view (``test_code_error``: its ``fail_test_code_error`` feature)."""
    return float(is_empty_solution(view.code)), float(test_code_error), float(no_content(view))


@dataclass(frozen=True)
class SingleFeature:
    """One feature column used as a score, in the direction it had on the training data."""

    index: int
    sign: float
    """+1 when higher values meant unreliable on the training data, -1 when lower did."""
    train_auroc: float

    def score(self, x: np.ndarray) -> np.ndarray:
        """The feature's column of ``x``, signed."""
        return self.sign * x[:, self.index]


def best_single_feature(x: np.ndarray, y: np.ndarray) -> SingleFeature:
    """The column of ``x`` (and its direction) with the highest AUROC against ``y`` (ties: the first column).

    Raises:
        ValueError: ``y`` holds one class only.
    """
    if len(set(np.asarray(y).tolist())) < 2:
        raise ValueError("the best single feature needs both classes in the training data")
    best = SingleFeature(0, 1.0, 0.5)
    for j in range(x.shape[1]):
        if np.ptp(x[:, j]) == 0:
            continue
        auc = float(roc_auc_score(y, x[:, j]))
        sign, auc = (1.0, auc) if auc >= 0.5 else (-1.0, 1 - auc)
        if auc > best.train_auroc:
            best = SingleFeature(j, sign, auc)
    return best
