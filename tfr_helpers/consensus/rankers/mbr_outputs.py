"""MBR-Exec over outputs (Shi et al., EMNLP 2022), hard and soft: agreement of what programs return.

Reads the outputs matrix (:attr:`~tfr_helpers.consensus.matrix.TaskMatrix.outputs`): each program's value on
each test input the generated tests expose. No expected output is needed.

- ``mbr_outputs_hard`` (Shi et al.'s hard loss; AlphaCode's clustering): a program's score is the
  sample-weighted share of programs whose outputs are identical to its own on every input.
- ``mbr_outputs_soft`` (Menet et al.'s "AlphaCode / FunCoder" row over arbitrary outputs; FunCoder's
  functional consensus): the sample-weighted mean, over programs, of the fraction of inputs on which both give
  the same value.

Both sums run over the programs that reported outputs, the program itself included. An exception is a value of
its own (``<raises TypeError>``: two programs raising the same type agree), as is a timeout. A program that
reported no outputs, or returned no value on any input (it raised, timed out or was not reached everywhere), is
not ranked: Shi et al. count a program that fails to execute as agreeing with nobody. Ties are levels (the
release breaks them by log-probability, which replayed files lack).
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.outputs import is_value
from tfr_helpers.consensus.ranking import Ranking, no_ranking, rank_by_scores, register_selector

OUTPUT_STRATEGIES = ("mbr_outputs_hard", "mbr_outputs_soft")
"""The strategies that read the outputs matrix (a matrix without outputs gives them nothing to rank)."""


def output_guard(matrix: TaskMatrix) -> str:
    """Why no output-based strategy can rank this task ('' when it can)."""
    if not matrix.program_ids:
        return "no programs"
    if not matrix.tests:
        return "no tests"
    if not matrix.inputs:
        return "no test inputs (no test of the form `assert <call> == <expected>`)"
    if not matrix.outputs:
        return "no outputs recorded"
    if all(o is None for o in matrix.outputs):
        return "no program reported outputs"
    return ""


def output_agreement(matrix: TaskMatrix) -> np.ndarray:
    """Fraction of inputs on which two programs give the same value, shape (programs, programs).

    Programs without outputs agree with nobody (0), themselves included.
    """
    n, k = len(matrix.program_ids), len(matrix.inputs)
    codes = np.full((n, k), -1, dtype=np.int64)
    values: dict[str, int] = {}
    for i, row in enumerate(matrix.outputs):
        if row is not None:
            codes[i] = [values.setdefault(v, len(values)) for v in row]
    has = codes[:, 0] >= 0
    same = np.zeros((n, n))
    for j in range(k):
        col = codes[:, j]
        same += (col[:, None] == col[None, :]) & has[:, None] & has[None, :]
    return same / k


def _mbr_outputs(matrix: TaskMatrix, hard: bool) -> Ranking:
    why = output_guard(matrix)
    if why:
        return no_ranking(matrix, why)
    sim = output_agreement(matrix)
    if hard:
        sim = (np.round(sim, 12) == 1.0).astype(float)
    has = np.array([o is not None for o in matrix.outputs])
    w = np.where(has, matrix.weights, 0.0)
    ranked = np.array([o is not None and any(is_value(v) for v in o) for o in matrix.outputs])
    if not ranked.any():
        return no_ranking(matrix, "no program returned a value on any test input")
    return rank_by_scores(sim @ w / w.sum(), ranked)


@register_selector("mbr_outputs_hard")
def mbr_outputs_hard(matrix: TaskMatrix) -> Ranking:
    """MBR-Exec over outputs, hard: score = share of samples with identical outputs on every input."""
    return _mbr_outputs(matrix, hard=True)


@register_selector("mbr_outputs_soft")
def mbr_outputs_soft(matrix: TaskMatrix) -> Ranking:
    """MBR-Exec over outputs, soft: score = sample-weighted mean fraction of inputs with the same output."""
    return _mbr_outputs(matrix, hard=False)
