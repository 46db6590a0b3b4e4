"""Known answers for every consensus strategy on the hand-built matrices of :mod:`tests.consensus.matrices`."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from tfr_helpers.consensus.ranked_pass_at_k import random_pass_at_k, task_pass_at_k
from tfr_helpers.consensus.rankers.builtin import resolve_selector, selector_names

from .matrices import A_TRUTH, B_TRUTH, C_TRUTH, D_TRUTH, E_TRUTH, A, B, C, D, E, build


def run(name: str, matrix, **params):
    return resolve_selector(name)(matrix, **params)


def test_codet_released_score_and_levels_on_a():
    r = run("codet", A)
    # {p0,p1}: 3 samples, tests t0,t1 occur 2+2 times -> 4 * sqrt(3); {p2}: 1 sample, t2 twice -> 2 * 1
    assert r.program_scores[:3] == pytest.approx([4 * math.sqrt(3), 4 * math.sqrt(3), 2.0])
    assert math.isnan(r.program_scores[3])  # passes nothing: never ranked
    assert r.levels == [[0, 1], [2]]
    # level 1 holds 3 samples, 2 correct (p0 twice)
    assert task_pass_at_k(A, A_TRUTH, r, 1) == pytest.approx(2 / 3)
    assert task_pass_at_k(A, A_TRUTH, r, 2) == pytest.approx(1 - (1 / 3) * 1)
    # CodeT's evaluator: 10 picks over 2 levels, 5 each, with replacement -> 1 - (1/3)^5 * 1^5
    assert task_pass_at_k(A, A_TRUTH, r, 10, "codet_released") == pytest.approx(1 - (1 / 3) ** 5)
    # without replacement: level 1 taken whole (3 picks), level 2 (1), the unranked p3 (1): every sample, as random
    assert task_pass_at_k(A, A_TRUTH, r, 10) == 1.0 == random_pass_at_k(A, A_TRUTH, 10)


def test_codet_paper_gamma_one():
    r = run("codet_paper", A)
    assert r.program_scores[:3] == pytest.approx([12.0, 12.0, 2.0])  # 4 * 3 and 2 * 1
    assert r.levels == [[0, 1], [2]]


def test_codet_equal_scores_are_one_level():
    r = run("codet", B)
    assert r.levels == [[0, 1]]
    assert task_pass_at_k(B, B_TRUTH, r, 1) == pytest.approx(0.5)
    # both picks from the one level: CodeT's evaluator with replacement, else both samples (random's k = n)
    assert task_pass_at_k(B, B_TRUTH, r, 2, "codet_released") == pytest.approx(1 - 0.5**2)
    assert task_pass_at_k(B, B_TRUTH, r, 2) == 1.0 == random_pass_at_k(B, B_TRUTH, 2)


def test_no_consensus_falls_back_to_the_random_estimator():
    r = run("codet", C)
    assert r.levels == [] and "no program passes any test" in r.fallback
    assert task_pass_at_k(C, C_TRUTH, r, 1) == pytest.approx(1 / 3)  # 1 correct of 3 samples
    assert task_pass_at_k(C, C_TRUTH, r, 2) == pytest.approx(1 - 1 / 3)  # 1 - C(2,2)/C(3,2)


@pytest.mark.parametrize("name", selector_names())
def test_every_strategy_falls_back_on_a_task_without_tests(name):
    r = run(name, D)
    assert r.levels == [] and r.fallback == "no tests"
    assert task_pass_at_k(D, D_TRUTH, r, 1) == pytest.approx(0.5)


@pytest.mark.parametrize("name", selector_names())
def test_every_strategy_records_no_programs(name):
    empty = build("HumanEval/9", [], [], [1])
    r = run(name, empty)
    assert r.levels == [] and r.fallback == "no programs"


@pytest.mark.parametrize("name", selector_names())
def test_no_correct_program_scores_zero_and_unexecuted_programs_are_never_ranked(name):
    r = run(name, E)
    assert all(1 not in level for level in r.levels)  # p1 did not execute
    assert task_pass_at_k(E, E_TRUTH, r, 1) == 0.0


def test_mbr_exec_hard_cluster_mass():
    r = run("mbr_exec_hard", A)
    assert r.program_scores == pytest.approx([0.6, 0.6, 0.2, 0.2])  # (2+1)/5, (2+1)/5, 1/5, 1/5
    assert r.levels == [[0, 1], [2, 3]]
    assert task_pass_at_k(A, A_TRUTH, r, 2) == pytest.approx(1 - (1 / 3) * 1)


def test_mbr_exec_soft_fuzzy_agreement():
    r = run("mbr_exec_soft", A)
    # p0: (2*1 + 1*1 + 1*0 + 1*1/3)/5; p2: (0 + 0 + 1 + 2/3)/5; p3: (2*1/3 + 1/3 + 2/3 + 1)/5
    assert r.program_scores == pytest.approx([2 / 3, 2 / 3, 1 / 3, 8 / 15])
    assert r.levels == [[0, 1], [3], [2]]


def test_maxpass_hard_and_soft_over_suites():
    # suites [t0,t1], [t2], [t1], [t0,t2]: p0 passes 1, 0, 1, 1/2 of them; p2 0, 1, 0, 1/2
    soft, hard = run("maxpass_soft", A), run("maxpass_hard", A)
    assert soft.program_scores[:3] == pytest.approx([0.625, 0.625, 0.375])
    assert hard.program_scores[:3] == pytest.approx([0.5, 0.5, 0.25])
    assert soft.levels == hard.levels == [[0, 1], [2]]
    assert math.isnan(soft.program_scores[3])


def test_maxpass_without_suites_counts_each_test_alone():
    r = run("maxpass_hard", B)
    assert r.program_scores == pytest.approx([0.5, 0.5]) and r.levels == [[0, 1]]


def test_codet_hard_and_soft_menet():
    hard, soft = run("codet_hard", A), run("codet_soft", A)
    assert hard.program_scores[:3] == pytest.approx([0.6 * 0.625, 0.6 * 0.625, 0.2 * 0.375])
    assert soft.program_scores[:3] == pytest.approx([2 / 3 * 0.625, 2 / 3 * 0.625, 1 / 3 * 0.375])
    assert hard.levels == soft.levels == [[0, 1], [2]]


def _lbeta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def test_b4_log_posterior_of_each_row_pattern():
    a, b0 = 1e3, 1e4
    r = run("b4", A, a_xy=a, beta0=b0)
    # n = 5 samples, m = 3 tests. Pattern 110: x = {p0,p1} (3 samples); outside x: p2, p3 -> E1 4 cells 0 passes,
    # E0 2 cells 1 pass. Pattern 001: x = {p2}; outside 4 samples -> E1 4 cells 0 passes, E0 8 cells 6 passes.
    # Pattern 000: x = {p3}; E1 empty, E0 12 cells 7 passes.
    s110 = _lbeta(3 + a, 3) + _lbeta(2 + a, 2) + _lbeta(1, 5) + _lbeta(2, 1 + b0)
    s001 = _lbeta(1 + a, 5) + _lbeta(1 + a, 3) + _lbeta(1, 5) + _lbeta(7, 2 + b0)
    s000 = _lbeta(1 + a, 5) + _lbeta(a, 4) + _lbeta(1, 1) + _lbeta(8, 5 + b0)
    assert r.program_scores == pytest.approx([s110, s110, s001, s000])
    order = sorted([(s110, [0, 1]), (s001, [2]), (s000, [3])], reverse=True)
    assert r.levels == [lv for _, lv in order]
    assert r.test_scores is not None
    best = order[0][1][0]
    assert r.test_scores.tolist() == [float(c == "1") for c in A.passes[best]]


def test_dual_critic_first_iteration_and_fixed_point():
    one = run("dual_critic", A, iterations=1)
    # c = pass share weighted by test counts: 4/6, 4/6, 2/6, 0; t = sample-weighted share of c passing each test
    assert one.program_scores[:3] == pytest.approx([2 / 3, 2 / 3, 1 / 3])
    assert one.test_scores == pytest.approx([6 / 7, 6 / 7, 1 / 7])
    two = run("dual_critic", A, iterations=2)
    assert two.program_scores[:3] == pytest.approx([12 / 13, 12 / 13, 1 / 13])
    assert two.info["iterations"] == 2 and two.info["converged"] is False
    full = run("dual_critic", A)
    assert full.levels[0] == [0, 1] and full.info["iterations"] <= 100


def test_dawid_skene_one_em_round():
    r = run("dawid_skene", A, iterations=1)
    pi = F(7, 15)  # sum w*mu / sum w with mu = pass rates 2/3, 2/3, 1/3, 0 and w = 2, 1, 1, 1
    a0, a2 = F(9, 13), F(4, 13)  # (sum w mu s_j + 1) / (sum w mu + 2)
    b0, b2 = F(4, 7), F(9, 14)  # (sum w (1-mu)(1-s_j) + 1) / (sum w (1-mu) + 2)

    def mu(s):
        a = pi * np.prod([a if x else 1 - a for a, x in zip([a0, a0, a2], s, strict=True)])
        b = (1 - pi) * np.prod([1 - b if x else b for b, x in zip([b0, b0, b2], s, strict=True)])
        return float(a / (a + b))

    assert r.program_scores[:3] == pytest.approx([mu([1, 1, 0]), mu([1, 1, 0]), mu([0, 0, 1])])
    assert r.test_scores == pytest.approx([float(a0), float(a0), float(a2)])
    assert r.levels == [[0, 1], [2]]  # p3 passes nothing: not ranked


def test_unknown_strategy_is_a_clear_error():
    from tfr_helpers.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown consensus strategy 'codex'; known: codet"):
        resolve_selector("codex")
