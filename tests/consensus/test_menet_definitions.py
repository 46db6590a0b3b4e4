"""Known answers for Menet et al.'s estimators (arXiv 2602.06098, Table 1), worked out on paper from the formulas.

A suite is one generated test sample with its asserts (its cases); ``R(c, t)`` is the share of suite t's cases
program c passes, ``R^inf = 1[R = 1]``; ``E[f] = (1/m) sum_t f(c, t)`` over the m suites. ``k^1(c, c')`` is the share
of observed outcomes (every case of every suite) on which c and c' agree, ``k^inf = 1[k^1 = 1]``;
``p(N^p_c) = (1/n) sum_{c'} k^p(c, c')`` over the n code samples (a program counted once per sample it stands for).

The matrix Q: unique tests t0, t1, t2; suite S1 = (t0, t1, t2), suite S2 = (t0, t1): five observed outcomes, in
the order S1.t0, S1.t1, S1.t2, S2.t0, S2.t1. Programs (samples): A (1) passes every test, B (2) fails only t2,
C (1) fails every test, D (1) passes t1 and t2. Their outcome strings over the five cases:

    A 11111    B 11011    C 00000    D 01101

R(., S1), R(., S2): A 1, 1;  B 2/3, 1;  C 0, 0;  D 2/3, 1/2.
E[R]:     A 1, B 5/6, C 0, D 7/12.        E[R^inf]: A 1, B 1/2, C 0, D 0.
k^1 (agreeing cases / 5): A-B 4/5, A-C 0, A-D 3/5, B-C 1/5, B-D 2/5, C-D 2/5 (over the three unique tests
A-B would be 2/3: the suites' shared cases count twice).
p(N^1) = (1/5) * sum over samples:  A (1 + 2*4/5 + 0 + 3/5)/5 = 0.64;  B (4/5 + 2 + 1/5 + 2/5)/5 = 0.68;
C (0 + 2/5 + 1 + 2/5)/5 = 0.36;  D (3/5 + 4/5 + 2/5 + 1)/5 = 0.56.
p(N^inf): A 1/5, B 2/5, C 1/5, D 1/5 (only identical outcome strings).
CodeT hard = p(N^inf) E[R]: A 0.2, B 1/3, C 0, D 7/60.   CodeT soft = p(N^1) E[R]: A 0.64, B 0.5667, C 0, D 0.3267.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.consensus.matrices import build
from tfr_helpers.consensus.rankers.maxpass import mean_rate, suite_rates
from tfr_helpers.consensus.rankers.mbr_exec import agreement, neighbourhood
from tfr_helpers.consensus.ranking import SELECTORS

Q = build("HumanEval/0", ["111", "110", "000", "011"], [1, 2, 1, 1], [2, 2, 1], [[0, 1, 2], [0, 1]])
A, B, C, D = range(4)


def test_r_and_its_limit_per_suite() -> None:
    assert suite_rates(Q) == pytest.approx(np.array([[1, 1], [2 / 3, 1], [0, 0], [2 / 3, 1 / 2]]))
    assert mean_rate(Q, hard=False) == pytest.approx([1, 5 / 6, 0, 7 / 12])  # E[R]
    assert mean_rate(Q, hard=True) == pytest.approx([1, 1 / 2, 0, 0])  # E[R^inf]


def test_k1_counts_every_case_of_every_suite() -> None:
    k1 = agreement(Q)
    expected = np.array(
        [
            [1, 4 / 5, 0, 3 / 5],
            [4 / 5, 1, 1 / 5, 2 / 5],
            [0, 1 / 5, 1, 2 / 5],
            [3 / 5, 2 / 5, 2 / 5, 1],
        ]
    )
    assert k1 == pytest.approx(expected)


def test_neighbourhood_masses_over_the_code_samples() -> None:
    assert neighbourhood(Q, hard=False) == pytest.approx([0.64, 0.68, 0.36, 0.56])  # p(N^1)
    assert neighbourhood(Q, hard=True) == pytest.approx([1 / 5, 2 / 5, 1 / 5, 1 / 5])  # p(N^inf)


@pytest.mark.parametrize(
    ("name", "scores", "top"),
    [
        ("mbr_exec_hard", [1 / 5, 2 / 5, 1 / 5, 1 / 5], [B]),
        ("mbr_exec_soft", [0.64, 0.68, 0.36, 0.56], [B]),
        ("maxpass_hard", [1, 1 / 2, np.nan, np.nan], [A]),  # a program scoring 0 is not ranked
        ("maxpass_soft", [1, 5 / 6, np.nan, 7 / 12], [A]),
        ("codet_hard", [0.2, 1 / 3, np.nan, 7 / 60], [B]),
        ("codet_soft", [0.64, 0.68 * 5 / 6, np.nan, 0.56 * 7 / 12], [A]),
    ],
)
def test_each_estimator_scores_the_hand_worked_values(name: str, scores: list[float], top: list[int]) -> None:
    ranking = SELECTORS[name](Q)
    assert ranking.program_scores == pytest.approx(np.array(scores), nan_ok=True)
    assert ranking.levels[0] == top


def test_one_suite_per_test_is_the_plain_share_of_tests() -> None:
    # without suites every unique test is observed once: k^1 of A and B is 2/3, E[R] is the share of tests passed
    plain = build("HumanEval/0", ["111", "110", "000", "011"], [1, 2, 1, 1], [1, 1, 1])
    assert agreement(plain)[A, B] == pytest.approx(2 / 3)
    assert mean_rate(plain, hard=False) == pytest.approx([1, 2 / 3, 0, 2 / 3])
    assert mean_rate(plain, hard=True) == pytest.approx([1, 2 / 3, 0, 2 / 3])


def test_the_diagnostics_of_e_r_on_q_worked_by_hand() -> None:
    """Only A is correct. E[R] over the samples (A, B, B, C, D) = (1, 5/6, 5/6, 0, 7/12): correct mean 1, wrong mean
    9/16, overall mean 0.65 and variance 0.12333 (ddof 0): SNR 0.4375 / sqrt(0.12333). Ranks of the score
    (5, 3.5, 3.5, 1, 2) against correctness (5, 2.5, 2.5, 2.5, 2.5): Spearman 5 / sqrt(9.5 * 5). Kendall tau-b: A
    beats the 4 wrong samples (4 concordant pairs, none discordant), 1 pair tied in the score, 6 tied in
    correctness: 4 / sqrt(9 * 4) = 2/3."""
    from tests.consensus.matrices import truth
    from tfr_helpers.consensus.replication.diagnostics import task_diagnostics

    got = task_diagnostics(Q, truth(Q, [True, False, False, False]))
    snr, rho, tau = got["E[R] (MaxPass soft)"]
    assert snr == pytest.approx(0.4375 / np.sqrt(0.616666666 / 5))
    assert rho == pytest.approx(5 / np.sqrt(9.5 * 5))
    assert tau == pytest.approx(2 / 3)
    assert all(np.isnan(v) for v in got["outputs p(N^1) (FunCoder)"])  # Q records no outputs: undefined
