"""The consensus screeners rank each unit once across the stage's chunks, with the verdicts of a ranking per call."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tfr_helpers.consensus import screening
from tfr_helpers.consensus.from_run import RunMatrix
from tfr_helpers.consensus.matrix import from_outcomes
from tfr_helpers.consensus.rankers.builtin import resolve_selector
from tfr_helpers.pipeline.screening.registry import resolve_strategy

STRATEGIES = ["consensus_codet_top", "consensus_b4", "consensus_dual_critic", "consensus_dawid_skene@0.7"]


def _runs() -> dict[tuple[str, str], RunMatrix]:
    """Two units: three programs (two samples agree) on three tests, and a unit of one program."""
    three = from_outcomes(
        "T/0",
        "single",
        [("a", [0, 1]), ("b", [2]), ("c", [3])],
        [("t0", 2), ("t1", 1), ("t2", 1)],
        [[0, 1], [0, 2]],
        [[True, False, True], [False, True, True], None],
    )
    one = from_outcomes("T/1", "single", [("a", [0])], [("t0", 1)], [[0]], [[False]])
    return {("m", "T/0"): RunMatrix(three, {"x": 0, "y": 1, "z": 2}), ("m", "T/1"): RunMatrix(one, {"x": 0})}


def _item(task: str, test: str) -> SimpleNamespace:
    """An item of a coder with three code samples (T/1's matrix holds one program: the others gave no code)."""
    return SimpleNamespace(coder="m", task=SimpleNamespace(task_id=task), test=SimpleNamespace(test_id=test), code_samples=3)


ITEMS = [_item("T/0", "x"), _item("T/0", "y"), _item("T/1", "x"), _item("T/0", "z"), _item("T/0", "gone")]


@pytest.mark.parametrize("name", STRATEGIES)
def test_chunked_calls_rank_once_and_decide_as_a_fresh_ranking_does(name, monkeypatch):
    runs = _runs()
    monkeypatch.setattr(screening, "run_matrices", lambda ctx, units: {u: runs[u] for u in units if u in runs})
    ranked = []
    monkeypatch.setattr(
        screening, "resolve_selector", lambda method: lambda m: ranked.append(m.task_id) or resolve_selector(method)(m)
    )
    strategy = resolve_strategy(name)
    screening._RANKED.clear()
    chunked = [v for chunk in (ITEMS[:2], ITEMS[2:4], ITEMS[4:]) for v in strategy(chunk, None)]
    assert ranked == ["T/0"]  # T/1 has one program (no evidence); T/0 ranked in the first chunk only
    fresh = []
    for item in ITEMS:  # the straightforward path: a new ranking for each item
        screening._RANKED.clear()
        fresh += strategy([item], None)
    assert chunked == fresh
    assert {v.decision for v in chunked[:2]} <= {"accept", "reject"} and chunked[2].decision == "accept"
    screening._RANKED.clear()


def test_a_rebuilt_matrix_is_ranked_again(monkeypatch):
    runs = _runs()
    monkeypatch.setattr(screening, "run_matrices", lambda ctx, units: {u: runs[u] for u in units if u in runs})
    strategy = resolve_strategy("consensus_codet_top")
    screening._RANKED.clear()
    strategy(ITEMS[:1], None)
    (first,) = {id(r) for _, r in screening._RANKED.values()}
    runs.update(_runs())  # the same unit's matrix from a new state of the checkpoints: another object
    strategy(ITEMS[:1], None)
    assert {id(r) for _, r in screening._RANKED.values()} != {first}
    screening._RANKED.clear()
