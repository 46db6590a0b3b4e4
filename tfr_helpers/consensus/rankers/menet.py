"""CodeT hard and soft, the estimator forms of Menet et al. (arXiv 2602.06098, Table 1) [definitions inferred].

``score(c) = p_hat(N_c) * E_t[R(c, t)]``: the sample-weighted mass of the program's neighbourhood (hard: programs
with an identical pass vector, soft: mean fraction of agreeing outcomes; see :mod:`.mbr_exec`) times its mean
suite pass rate (see :mod:`.maxpass`). With suites of equal size, CodeT hard is CodeT's product formula
(cluster mass x tests passed). Programs scoring 0 are not ranked.
"""

from __future__ import annotations

from tfr_helpers.consensus.matrix import TaskMatrix
from tfr_helpers.consensus.rankers.maxpass import mean_rate
from tfr_helpers.consensus.rankers.mbr_exec import neighbourhood
from tfr_helpers.consensus.ranking import Ranking, guard, no_ranking, rank_by_scores, register_selector


def _menet(matrix: TaskMatrix, hard: bool) -> Ranking:
    why = guard(matrix)
    if why:
        return no_ranking(matrix, why)
    scores = neighbourhood(matrix, hard) * mean_rate(matrix, hard=False)
    return rank_by_scores(scores, matrix.ran & (scores > 0))


@register_selector("codet_hard")
def codet_hard(matrix: TaskMatrix) -> Ranking:
    """CodeT hard: share of samples with the same pass vector x mean suite pass rate."""
    return _menet(matrix, hard=True)


@register_selector("codet_soft")
def codet_soft(matrix: TaskMatrix) -> Ranking:
    """CodeT soft: mean fuzzy agreement with the other samples x mean suite pass rate."""
    return _menet(matrix, hard=False)
