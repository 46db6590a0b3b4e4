"""Classifier measures of a screening strategy, vectorised over bootstrap resamples.

Positive class: reliable feedback; predicted positive: accepted. Each function takes confusion counts
``tp, fp, fn, tn`` on the last axis (shape ``(..., 4)``, weighted counts allowed) and returns one value per
leading index, NaN where the measure is undefined. They agree with ``sklearn.metrics`` on unweighted data
(tests/analysis/inference/test_measures.py checks each one against it); AUROC's point value is sklearn's
``roc_auc_score`` and its resamples use the same tie-corrected rank formula on weighted counts.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.sparse import csr_matrix


def _split(c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    c = np.asarray(c, dtype=float)
    return c[..., 0], c[..., 1], c[..., 2], c[..., 3]


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def accept_rate(c: np.ndarray) -> np.ndarray:
    """Accepted among all decisions."""
    tp, fp, fn, tn = _split(c)
    return _div(tp + fp, tp + fp + fn + tn)


def accuracy(c: np.ndarray) -> np.ndarray:
    """Correct decisions (accepted reliable, rejected unreliable) among all."""
    tp, fp, fn, tn = _split(c)
    return _div(tp + tn, tp + fp + fn + tn)


def precision(c: np.ndarray) -> np.ndarray:
    """Reliable among accepted."""
    tp, fp, _, _ = _split(c)
    return _div(tp, tp + fp)


def recall(c: np.ndarray) -> np.ndarray:
    """Accepted among reliable (sensitivity)."""
    tp, _, fn, _ = _split(c)
    return _div(tp, tp + fn)


def specificity(c: np.ndarray) -> np.ndarray:
    """Rejected among unreliable."""
    _, fp, _, tn = _split(c)
    return _div(tn, tn + fp)


def f1(c: np.ndarray) -> np.ndarray:
    """Harmonic mean of precision and recall, ``2tp / (2tp + fp + fn)``."""
    tp, fp, fn, _ = _split(c)
    return _div(2 * tp, 2 * tp + fp + fn)


def balanced_accuracy(c: np.ndarray) -> np.ndarray:
    """Mean of recall and specificity."""
    return (recall(c) + specificity(c)) / 2


def mcc(c: np.ndarray) -> np.ndarray:
    """Matthews correlation coefficient; 0 when a margin is empty (as sklearn returns), NaN with no decisions."""
    tp, fp, fn, tn = _split(c)
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    total = tp + fp + fn + tn
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(denom > 0, (tp * tn - fp * fn) / np.where(denom > 0, denom, 1), 0.0)
    return np.where(total > 0, out, np.nan)


MEASURES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "accept": accept_rate,
    "accuracy": accuracy,
    "precision": precision,
    "recall": recall,
    "specificity": specificity,
    "f1": f1,
    "balanced_accuracy": balanced_accuracy,
    "mcc": mcc,
}
"""Measure name (column prefix) -> function of the confusion counts."""


def auroc_from_levels(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AUROC from (weighted) counts of positives and negatives per score level, levels ascending on the last axis.

    ``P(score of a reliable > score of an unreliable) + P(tie) / 2``, as ``roc_auc_score`` computes it.
    """
    pos, neg = np.asarray(pos, dtype=float), np.asarray(neg, dtype=float)
    below = np.cumsum(neg, axis=-1) - neg
    wins = (pos * (below + neg / 2)).sum(axis=-1)
    return _div(wins, pos.sum(axis=-1) * neg.sum(axis=-1))


def confusion_cells(accepted: np.ndarray, reliable: np.ndarray) -> np.ndarray:
    """One-hot ``(rows, 4)`` confusion cells ``tp, fp, fn, tn`` of accept decisions against reliability."""
    acc, rel = np.asarray(accepted, dtype=bool), np.asarray(reliable, dtype=bool)
    return np.column_stack([acc & rel, acc & ~rel, ~acc & rel, ~acc & ~rel]).astype(float)


def joint_cells(accepted_a: np.ndarray, accepted_b: np.ndarray, reliable: np.ndarray) -> np.ndarray:
    """One-hot ``(rows, 16)`` cells of two strategies' confusion cells on the same rows (``4 * cell_a + cell_b``)."""
    a = confusion_cells(accepted_a, reliable).argmax(axis=1)
    b = confusion_cells(accepted_b, reliable).argmax(axis=1)
    return np.eye(16)[4 * a + b]


def paired(stat: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """``stat(a) - stat(b)`` as a function of the joint cells of :func:`joint_cells`."""

    def diff(c: np.ndarray) -> np.ndarray:
        grid = np.asarray(c, dtype=float).reshape(*np.shape(c)[:-1], 4, 4)
        return stat(grid.sum(axis=-1)) - stat(grid.sum(axis=-2))

    return diff


def level_cells(scores: np.ndarray, reliable: np.ndarray) -> tuple[csr_matrix, Callable[[np.ndarray], np.ndarray]]:
    """One-hot ``(rows, 2L)`` cells (reliable at score level l, then unreliable at l) and the AUROC of their counts.

    The cells are a sparse matrix, one 1 a row (dense, thousands of score levels would be hundreds of MB of zeros)."""
    levels, idx = np.unique(np.asarray(scores, dtype=float), return_inverse=True)
    rel = np.asarray(reliable, dtype=bool)
    size = levels.size
    columns = np.where(rel, idx.reshape(-1), size + idx.reshape(-1))
    cells = csr_matrix((np.ones(rel.size), columns, np.arange(rel.size + 1)), shape=(rel.size, 2 * size))

    def auroc(c: np.ndarray) -> np.ndarray:
        return auroc_from_levels(c[..., :size], c[..., size:])

    return cells, auroc


def paired_level_cells(
    scores_a: np.ndarray, scores_b: np.ndarray, reliable: np.ndarray
) -> tuple[csr_matrix, csr_matrix, Callable[[np.ndarray], np.ndarray]]:
    """Cells for AUROC(A) - AUROC(B) on the same rows: ``(cells, swapped, stat)``.

    Both strategies' scores are put on the union of their levels; ``cells`` holds A's then B's one-hot
    (reliable, level) cells, ``swapped`` B's then A's, and ``stat`` maps summed cells to the AUROC difference
    (for :func:`~tfr_helpers.analysis.inference.paired_tasks.swap_test` and a paired bootstrap interval).
    The cells are sparse ``(rows, 4L)`` matrices, two ones a row: dense, 7,640 rows over 3,300 levels would be
    800 MB of zeros each (their sums are the same numbers)."""
    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    levels = np.unique(np.concatenate([a, b]))
    rel = np.asarray(reliable, dtype=bool)
    size = levels.size

    base = np.where(rel, 0, size)
    col_a, col_b = base + np.searchsorted(levels, a), base + np.searchsorted(levels, b)

    def one_hot(first: np.ndarray, second: np.ndarray) -> csr_matrix:
        """Each row's ``first`` column, then ``second`` among the last ``2L``: two ones a row."""
        columns = np.column_stack([first, 2 * size + second]).ravel()
        rows = np.arange(0, columns.size + 1, 2)
        return csr_matrix((np.ones(columns.size), columns, rows), shape=(rel.size, 4 * size))

    cells, swapped = one_hot(col_a, col_b), one_hot(col_b, col_a)  # A's (reliable, level) cells then B's; swapped

    def diff(c: np.ndarray) -> np.ndarray:
        first, second = c[..., : 2 * size], c[..., 2 * size :]
        return auroc_from_levels(first[..., :size], first[..., size:]) - auroc_from_levels(
            second[..., :size], second[..., size:]
        )

    return cells, swapped, diff
