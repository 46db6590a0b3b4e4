"""The honest transfer protocol: task- and test-disjoint held-out splits, nested thresholds, the one empty rule,
and the trivial baselines."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tfr_helpers.analysis import rq1
from tfr_helpers.replay import empty_solution
from tfr_helpers.replay.empty_solution import is_empty_solution
from tfr_helpers.screener.baselines import best_single_feature, no_content
from tfr_helpers.screener.dataset import Example, as_arrays, source_digest
from tfr_helpers.screener.train import best_threshold, nested_out_of_fold, out_of_fold
from tfr_helpers.screener.transfer import held_out_split
from tfr_helpers.screener.view import Failure, FeedbackView

STUB = 'def f(x):\n    """Double x."""\n'


def _example(source: str, task: str, test: str, k: int) -> Example:
    return Example((0.0,), k % 2, task, source, f"{source}|{task}|{k}", source_digest(test))


def test_a_held_out_source_takes_its_tasks_and_its_verbatim_tests_out_of_training():
    examples = [
        _example("A", "T/1", "assert f(1) == 2", 0),
        _example("A", "T/2", "assert f(2) == 4", 1),
        _example("B", "T/1", "assert f(9) == 1", 2),  # a held-out task
        _example("B", "T/3", "  assert f(2) == 4\n", 3),  # a held-out test, verbatim on another task
        _example("B", "T/3", "assert f(3) == 6", 4),
        _example("C", "T/4", "assert f(4) == 8", 5),
    ]
    split = held_out_split(examples, "A")
    assert split.test.tolist() == [True, True, False, False, False, False]
    assert split.train.tolist() == [False, False, False, False, True, True]
    assert (split.dropped_tasks, split.dropped_tests) == (1, 1)
    held = {e.task for e, t in zip(examples, split.test, strict=True) if t}
    texts = {e.test for e, t in zip(examples, split.test, strict=True) if t}
    trained = [e for e, t in zip(examples, split.train, strict=True) if t]
    assert not any(e.task in held or e.test in texts for e in trained)
    with pytest.raises(ValueError, match="no example comes from 'Z'"):
        held_out_split(examples, "Z")


def _noisy(n_tasks: int = 4, per_task: int = 15, seed: int = 1) -> list[Example]:
    rng = random.Random(seed)
    out = []
    for t in range(n_tasks):
        for i in range(per_task):
            label = int(rng.random() < 0.6)
            row = (0.7 * label + rng.gauss(0, 0.5), rng.gauss(0, 1), rng.gauss(0, 1))
            out.append(Example(row, label, f"T/{t}", "s", f"fb{t}_{i}"))
    return out


@pytest.mark.slow
def test_each_folds_threshold_is_chosen_without_the_items_it_decides():
    x, y, tasks, _ = as_arrays(_noisy())
    _, t, per_fold = nested_out_of_fold(x, y, tasks)
    folds = out_of_fold(x, y, tasks)[2]
    fold_of_row = np.array([folds[str(k)] for k in tasks])
    for k, threshold in enumerate(per_fold):
        rows = fold_of_row == k
        assert np.all(t[rows] == threshold)
        inner, _, _ = out_of_fold(x[~rows], y[~rows], tasks[~rows])
        assert threshold == best_threshold(inner, y[~rows])  # the training part's own out-of-fold probabilities
    rows = fold_of_row == 0
    flipped = y.copy()
    flipped[rows] = 1 - flipped[rows]  # the scored items' labels cannot move their threshold
    _, t2, per_fold2 = nested_out_of_fold(x, flipped, tasks)
    assert per_fold2[0] == per_fold[0] and np.all(t2[rows] == per_fold[0])
    assert per_fold2[1:] != per_fold[1:]  # ...while the other folds, trained on them, see the change


def test_one_rule_for_an_empty_solution_used_everywhere():
    assert is_empty_solution(STUB)
    assert is_empty_solution(STUB + "\n\ndef g(y):\n    return y\n")  # some function implements nothing
    assert is_empty_solution('def f(x):\n    """Doc."""\n    pass\n') and is_empty_solution("def f(x):\n    ...\n")
    # the prompt's stub, then the function redefined with a body (Reflexion's HumanEval/133): not empty
    assert not is_empty_solution(STUB + "import math\n\ndef f(x):\n    return math.ceil(x) * 2\n")
    assert not is_empty_solution("def f(x):\n    return 2 * x\n")
    assert not is_empty_solution("def f(x:\n") and not is_empty_solution(None)
    assert rq1.is_empty_solution is empty_solution.is_empty_solution


def _view(exc_type: str | None, in_code: bool, message: str = "") -> FeedbackView:
    failure = Failure("exception_in_test", exc_type, message, in_code, None, None)
    return FeedbackView("m|T/0|0|0", "m", "T/0", "bigcodebench", "", "f", (), "", "", "ebt", failure, (), 0.0, 1, 1.0)


def test_feedback_without_content_is_a_harness_fault_or_a_name_error_outside_the_code():
    assert no_content(_view("NameError", False, "name 'ax' is not defined"))
    assert no_content(_view(None, False, "'Expr' object has no attribute 'test'"))
    assert not no_content(_view("NameError", True, "name 'y' is not defined"))  # the code's own bug
    assert not no_content(_view("AssertionError", False, "assert 1 == 2"))


def test_the_best_single_feature_is_chosen_with_its_direction_on_the_training_data():
    y = np.array([0, 0, 0, 1, 1, 1])
    x = np.column_stack([np.zeros(6), [0.2, 0.1, 0.4, 0.5, 0.3, 0.6], [6, 5, 4, 3, 2, 1]])
    best = best_single_feature(x, y)
    assert (best.index, best.sign, best.train_auroc) == (2, -1.0, 1.0)
    assert best.score(x).tolist() == [-6, -5, -4, -3, -2, -1]
    with pytest.raises(ValueError, match="both classes"):
        best_single_feature(x, np.zeros(6))
