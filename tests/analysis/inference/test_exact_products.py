"""The cheaper paths of the swap test and of the bootstrap sums give the same numbers, bit for bit, as the
straightforward dense computation: sparse products of whole numbers, one swap for several measures, patterns in
blocks, sparse AUROC cells, and the fallback to numpy's own product where exactness is not proven."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy.sparse import csr_matrix

from tfr_helpers.analysis.inference import paired_tasks
from tfr_helpers.analysis.inference.clustered import IntegerProduct, group_sums, resampler
from tfr_helpers.analysis.inference.measures import MEASURES, joint_cells, level_cells, paired, paired_level_cells
from tfr_helpers.analysis.inference.paired_tasks import (
    EXACT_UP_TO,
    TaskIndex,
    paired_measure_test,
    paired_measure_tests,
    paired_task_test,
    swap_test,
)


def _straightforward(
    tasks: list[str], cells: np.ndarray, swapped: np.ndarray, stat: Callable[[np.ndarray], np.ndarray], seed: int = 0
) -> float | None:
    """The swap test's p as first written: dense cells, every pattern in one dense product."""
    idx = TaskIndex.of(tasks).of_row
    size = int(idx.max()) + 1
    per_task, delta = group_sums(idx, cells, size), group_sums(idx, swapped - cells, size)
    informative = np.flatnonzero(np.abs(delta).sum(axis=1) > 1e-12)
    m, total = informative.size, per_task.sum(axis=0)
    value = float(stat(total[None, :])[0])
    if not math.isfinite(value) or m < 6:
        return None
    if m <= EXACT_UP_TO:
        patterns = ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)
    else:
        patterns = np.random.default_rng(seed).integers(0, 2, size=(9999, m)).astype(float)
    draws = stat(total[None, :] + patterns @ delta[informative])
    count = int((np.abs(np.nan_to_num(draws, nan=0.0)) >= abs(value) - 1e-12 * max(1.0, abs(value))).sum())
    return min(1.0, count / patterns.shape[0] if m <= EXACT_UP_TO else (1 + count) / (1 + patterns.shape[0]))


def _screeners(n_tasks: int, seed: int = 1) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 6, n_tasks)
    tasks = [f"t{i}" for i, k in enumerate(sizes) for _ in range(k)]
    rel = rng.random(len(tasks)) < 0.5
    return tasks, rng.random(len(tasks)) < 0.6, rng.random(len(tasks)) < 0.4, rel


def test_a_sparse_product_of_whole_numbers_is_numpys_and_anything_else_falls_back() -> None:
    rng = np.random.default_rng(0)
    left = rng.integers(0, 3, (130, 40)).astype(float)
    right = np.zeros((40, 500))
    right[rng.integers(0, 40, 300), rng.integers(0, 500, 300)] = rng.integers(-4, 5, 300)
    product = IntegerProduct.of(right)
    assert product.sparse_t is not None  # mostly zeros, whole numbers: the sparse path
    out = product(left)
    assert out.flags.c_contiguous and np.array_equal(out, left @ right)
    # fallbacks: a fractional right, a fractional left, a dense right are numpy's own product, unchanged
    fractional = right / 3
    assert IntegerProduct.of(fractional).sparse_t is None
    assert np.array_equal(IntegerProduct.of(fractional)(left), left @ fractional)
    assert np.array_equal(product(left / 7), (left / 7) @ right)
    dense = rng.integers(1, 4, (40, 6)).astype(float)
    assert IntegerProduct.of(dense).sparse_t is None and np.array_equal(IntegerProduct.of(dense)(left), left @ dense)
    huge = right * 2.0**50  # partial sums past 2**52: not provably exact, so not the sparse path
    assert np.array_equal(IntegerProduct.of(huge)(left), left @ huge)


def test_one_swap_for_several_measures_is_one_test_each_and_the_first_algorithm() -> None:
    measures = [MEASURES[m] for m in ("precision", "recall", "f1", "specificity", "mcc")]
    for n_tasks in (10, 40):  # exact patterns, then Monte Carlo
        tasks, acc_a, acc_b, rel = _screeners(n_tasks)
        index = TaskIndex.of(tasks)
        together = paired_measure_tests(index, acc_a, acc_b, rel, measures)
        cells, swapped = joint_cells(acc_a, acc_b, rel), joint_cells(acc_b, acc_a, rel)
        for measure, test in zip(measures, together, strict=True):
            alone = paired_measure_test(tasks, acc_a, acc_b, rel, measure)
            assert test == alone
            assert test.p_value == _straightforward(tasks, cells, swapped, paired(measure))


def test_sparse_auroc_cells_in_blocks_give_the_dense_cells_p_and_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    tasks, _, _, rel = _screeners(30, seed=3)
    a, b = rng.integers(0, 40, len(tasks)) / 4, rng.random(len(tasks)).round(2)
    cells, swapped, stat = paired_level_cells(a, b, rel)
    dense, dense_swapped = cells.toarray(), swapped.toarray()
    assert (dense.sum(axis=1) == 2).all() and (dense_swapped.sum(axis=1) == 2).all()
    want = _straightforward(tasks, dense, dense_swapped, stat)
    assert want is not None
    idx = TaskIndex.of(tasks).of_row
    delta = group_sums(idx, dense_swapped - dense, int(idx.max()) + 1)
    informative = delta[np.abs(delta).sum(axis=1) > 0]
    assert len(informative) > EXACT_UP_TO and IntegerProduct.of(informative).sparse_t is not None  # the sparse path
    monkeypatch.setattr(paired_tasks, "BLOCK_CELLS", 7 * cells.shape[1])  # 7 patterns a block, the last one short
    assert swap_test(tasks, cells, swapped, stat).p_value == want
    # the bootstrap sums of the sparse cells: the dense cells' weights @ unit sums, bit for bit
    rs = resampler(tasks, n_resamples=300)
    full, boot = rs.sums(cells)
    per_unit = group_sums(rs.unit_of_row, dense, rs.task_of_unit.size)
    assert np.array_equal(full, per_unit.sum(axis=0)) and np.array_equal(boot, rs.weights @ per_unit)
    level, auroc = level_cells(a, rel)
    assert isinstance(level, csr_matrix)
    cols = np.unique(a, return_inverse=True)[1] + np.where(rel, 0, np.unique(a).size)
    assert np.array_equal(level.toarray(), np.eye(level.shape[1])[cols])


def test_fractional_cells_take_the_one_dense_product() -> None:
    tasks, acc_a, acc_b, _ = _screeners(40, seed=4)
    x, y = acc_a * 0.3, acc_b * 0.7  # not whole numbers: no blocks, no sparse product
    den = np.ones(len(tasks))
    want = _straightforward(
        tasks,
        np.column_stack([x, y, den]),
        np.column_stack([y, x, den]),
        lambda c: (c[..., 0] - c[..., 1]) / c[..., 2],
    )
    assert paired_task_test(tasks, x, y).p_value == want
