"""Known answers for the classifier measures (by hand and from sklearn.metrics) and for the Holm adjustment."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score, matthews_corrcoef, roc_auc_score
from statsmodels.stats.multitest import multipletests

from tfr_helpers.analysis.inference.measures import (
    MEASURES,
    auroc_from_levels,
    balanced_accuracy,
    confusion_cells,
    level_cells,
    mcc,
    paired,
    precision,
    specificity,
)

# tp=3, fp=1, fn=2, tn=4
COUNTS = np.array([3.0, 1.0, 2.0, 4.0])


def test_hand_computed_values() -> None:
    assert precision(COUNTS) == pytest.approx(3 / 4)
    assert specificity(COUNTS) == pytest.approx(4 / 5)
    assert MEASURES["recall"](COUNTS) == pytest.approx(3 / 5)
    assert MEASURES["f1"](COUNTS) == pytest.approx(6 / 9)
    assert balanced_accuracy(COUNTS) == pytest.approx((3 / 5 + 4 / 5) / 2)
    assert mcc(COUNTS) == pytest.approx((3 * 4 - 1 * 2) / math.sqrt(4 * 5 * 5 * 6))


def test_undefined_measures_are_nan_and_mcc_of_an_empty_margin_is_zero() -> None:
    accept_all = np.array([3.0, 7.0, 0.0, 0.0])
    assert math.isnan(float(specificity(np.array([3.0, 0.0, 2.0, 0.0]))))
    assert mcc(accept_all) == 0.0 and math.isnan(float(mcc(np.zeros(4))))


@pytest.mark.filterwarnings("ignore:A single label was found")
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=2, max_size=40))
def test_matches_sklearn(pairs: list[tuple[bool, bool]]) -> None:
    acc = np.array([a for a, _ in pairs])
    rel = np.array([r for _, r in pairs])
    counts = confusion_cells(acc, rel).sum(axis=0)
    assert mcc(counts) == pytest.approx(matthews_corrcoef(rel, acc))
    if rel.any() and not rel.all():
        assert balanced_accuracy(counts) == pytest.approx(balanced_accuracy_score(rel, acc))


def test_auroc_hand_value_and_sklearn() -> None:
    # reliable scores 0.9, 0.5; unreliable 0.5, 0.1: pairs (0.9>0.5, 0.9>0.1, 0.5=0.5, 0.5>0.1) -> 3.5 / 4
    scores, rel = np.array([0.9, 0.5, 0.5, 0.1]), np.array([True, True, False, False])
    cells, auroc = level_cells(scores, rel)
    assert auroc(cells.toarray().sum(axis=0)) == pytest.approx(3.5 / 4) == roc_auc_score(rel, scores)
    assert auroc_from_levels(np.array([0.0, 2.0]), np.array([2.0, 0.0])) == 1.0


@given(st.lists(st.tuples(st.integers(0, 5), st.booleans()), min_size=2, max_size=40))
def test_auroc_matches_sklearn(rows: list[tuple[int, bool]]) -> None:
    scores = np.array([s for s, _ in rows], dtype=float)
    rel = np.array([r for _, r in rows])
    if rel.all() or not rel.any():
        return
    cells, auroc = level_cells(scores, rel)
    assert auroc(cells.toarray().sum(axis=0)) == pytest.approx(roc_auc_score(rel, scores))


def test_paired_difference_of_measures() -> None:
    grid = np.zeros((4, 4))
    grid[0, 0], grid[3, 1], grid[2, 2] = 2, 3, 1  # A: tp 2, tn 3, fn 1; B: tp 2, fp 3, fn 1
    diff = paired(specificity)(grid.ravel())
    assert diff == pytest.approx(1.0 - 0.0)


def test_holm_known_answer() -> None:
    # Holm: sorted p (0.01, 0.02, 0.04) x (3, 2, 1) -> 0.03, 0.04, 0.04 (monotone), back in input order
    reject, adjusted, _, _ = multipletests([0.04, 0.01, 0.02], alpha=0.05, method="holm")
    np.testing.assert_allclose(adjusted, [0.04, 0.03, 0.04])
    assert reject.tolist() == [True, True, True]
