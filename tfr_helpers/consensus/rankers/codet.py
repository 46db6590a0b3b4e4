"""CodeT's dual execution agreement (Chen et al., ICLR 2023; released code microsoft/CodeT, ``agreement.py``).

Programs that pass at least one test are grouped by the exact set of tests they pass: a consensus set
``S = (S_x, S_y)``. ``|S_x|`` counts the set's code samples (multiplicities added), ``|S_y|`` the test
occurrences of its tests (each unique test weighted by how often the test samples hold it). The set's score is
``|S_y| * |S_x| ** gamma``: ``gamma = 0.5`` in the released code (and the published numbers), ``gamma = 1`` as
the paper's text states it. Sets with equal scores are one tie level. Programs passing no test are never
ranked; a task without any consensus set falls back to the random estimator (as the release does).
"""

from __future__ import annotations

import numpy as np

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


def consensus_sets(matrix: TaskMatrix, programs: np.ndarray) -> dict[bytes, list[int]]:
    """Group the given unique programs by identical pass row (the row's bytes -> program indices)."""
    groups: dict[bytes, list[int]] = {}
    for i in np.flatnonzero(programs):
        groups.setdefault(matrix.matrix[i].tobytes(), []).append(int(i))
    return groups


@register_selector("codet")
def codet(matrix: TaskMatrix, gamma: float = 0.5) -> Ranking:
    """CodeT as released: consensus sets scored ``|S_y| * |S_x| ** gamma`` (``gamma`` 0.5).

    Args:
        matrix: The task's matrix.
        gamma: Exponent of the set's sample count (0.5 released, 1 in the paper's formula).

    Returns:
        Program scores (the score of the program's consensus set), levels by equal score; no test scores.
    """
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    passing = matrix.ran & matrix.matrix.any(axis=1)
    scores = np.zeros(len(matrix.program_ids))
    w, v = matrix.weights, matrix.test_weights
    for members in consensus_sets(matrix, passing).values():
        s_x = w[members].sum()
        s_y = v[matrix.matrix[members[0]]].sum()
        scores[members] = s_y * s_x**gamma
    ranking = rank_by_scores(scores, passing)
    if not ranking.levels:
        return no_ranking(matrix, "no program passes any test (no consensus set)")
    return ranking


@register_selector("codet_paper")
def codet_paper(matrix: TaskMatrix) -> Ranking:
    """CodeT with the paper's stated score ``|S_y| * |S_x|`` (``gamma = 1``)."""
    return codet(matrix, gamma=1.0)
