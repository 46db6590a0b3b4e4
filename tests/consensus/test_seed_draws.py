"""Known answers for the drawn sub-studies (tfr_helpers.consensus.replication.subsample) and the seed table with its
soft-versus-hard verdicts (tfr_helpers.consensus.replication.seed_draws), on the hand-worked matrix of
test_menet_definitions."""

from __future__ import annotations

import numpy as np
import pytest

from tests.consensus.matrices import build, truth
from tests.consensus.test_menet_definitions import Q
from tfr_helpers.consensus.replication.seed_draws import FAMILIES, compare, run_draws, seed_table, verdict
from tfr_helpers.consensus.replication.subsample import draw
from tfr_helpers.errors import DataError

Q_TRUTH = truth(Q, [True, False, False, False])  # only A is correct: 1 of the 5 samples


def test_drawing_everything_keeps_the_matrix() -> None:
    small, t = draw(Q, Q_TRUTH, np.random.default_rng(0), n=5, m=4, test_samples=4, entry_point="f")
    assert (small.passes, small.program_samples, small.test_counts, t.correct) == (
        Q.passes,
        Q.program_samples,
        Q.test_counts,
        Q_TRUTH.correct,
    )
    assert sorted(map(sorted, small.suites)) == sorted(map(sorted, Q.suites))


@pytest.mark.parametrize("seed", range(20))
def test_a_draw_keeps_n_samples_and_at_most_m_suites_with_their_outcomes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    small, t = draw(Q, Q_TRUTH, rng, n=2, m=1, test_samples=4, entry_point="f")
    assert small.n_samples == 2 and len(small.suites) <= 1 and len(t.correct) == len(small.program_ids)
    for i, pid in enumerate(small.program_ids):
        row = Q.program_ids.index(pid)
        assert set(small.program_samples[i]) <= set(Q.program_samples[row])
        for k, text in enumerate(small.tests):
            assert small.passes[i][k] == Q.passes[row][Q.tests.index(text)]
    only = draw(Q, Q_TRUTH, np.random.default_rng(seed), n=2, m=1, test_samples=4, entry_point="f", only_suites=True)[0]
    assert len(only.suites) == 1  # drawn among the two suites, never an empty sample


def test_fewer_test_samples_than_suites_is_an_error() -> None:
    with pytest.raises(DataError, match="cannot hold"):
        draw(Q, Q_TRUTH, np.random.default_rng(0), n=5, m=4, test_samples=1, entry_point="f")


def test_seed_table_and_verdicts_on_a_known_answer() -> None:
    tasks = [build(f"HumanEval/{i}", Q.passes, [1, 2, 1, 1], Q.test_counts, Q.suites) for i in range(8)]
    truths = {m.task_id: truth(m, [True, False, False, False]) for m in tasks}
    ids = [m.task_id for m in tasks]
    draws = run_draws(tasks, truths, dict.fromkeys(ids, "f"), dict.fromkeys(ids, 2), seeds=(0, 1, 2), n=5, m=4)
    table = seed_table(draws)
    # every seed draws everything: random 1/5; A tops MaxPass and CodeT soft, B tops MBR-Exec and CodeT hard
    expected = {"random": 20, "maxpass_hard": 100, "maxpass_soft": 100, "codet_soft": 100, "codet_hard": 0}
    assert table.loc[list(expected), "pass@1 mean"].to_dict() == pytest.approx(expected)
    assert table.loc[["mbr_exec_hard", "mbr_exec_soft"], "pass@1 mean"].tolist() == pytest.approx([0, 0])
    assert table["SE"].tolist() == pytest.approx([0.0] * len(table))
    # no outputs recorded: the output pair falls back to random on every task
    assert table.loc["mbr_outputs_soft", "pass@1 mean"] == pytest.approx(20)
    assert table.loc["mbr_outputs_soft", "fallback tasks"] == 8
    rows = compare(draws, FAMILIES)
    assert rows.loc["CodeT", "difference"] == pytest.approx(100) and rows.loc["CodeT", "tasks better"] == 8
    assert verdict(rows.loc["CodeT"], "codet_soft", "codet_hard") == "codet_soft beats codet_hard"
    assert verdict(rows.loc["MaxPass"], "maxpass_soft", "maxpass_hard").startswith("no difference detected")
