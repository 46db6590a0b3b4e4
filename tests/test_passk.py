"""pass@k: known answers on tiny counts, and which k are reported."""

from __future__ import annotations

import pytest

from tfr_helpers.passk import mean_pass_at_k, pass_at_k


def test_pass_at_k_known_answers() -> None:
    assert pass_at_k(5, 0, 1) == 0.0
    assert pass_at_k(5, 5, 1) == 1.0
    assert pass_at_k(2, 1, 1) == pytest.approx(0.5)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)  # 1 - C(3,2)/C(4,2)
    assert pass_at_k(3, 1, 3) == 1.0  # every draw includes the correct sample


def test_mean_pass_at_k_reports_only_the_k_every_task_supports() -> None:
    counts = [(10, 10), (10, 0), (12, 6)]
    result = mean_pass_at_k(counts)
    assert list(result) == [1, 10]
    assert result[1] == pytest.approx((1.0 + 0.0 + 0.5) / 3)
    assert mean_pass_at_k([]) == {}
