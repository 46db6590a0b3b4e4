"""HumanEval+, HumanEval+ Mini and MBPP+: loading, EvalPlus's comparison rules, expected outputs computed in the
sandbox and cached, and verdicts at two tiers."""

from __future__ import annotations

import math

import pytest

from tests.benchmarks.programs import SPIN
from tfr_helpers.benchmarks import BENCHMARKS, benchmark_names, load_tasks
from tfr_helpers.benchmarks.evalplus import compute_expected, expected_outputs, plus_specs, tier_verdicts, time_limits
from tfr_helpers.benchmarks.evalplus import harness as h
from tfr_helpers.benchmarks.evalplus.data import _PLUS, PlusData, mbpp_deserialize_inputs, plus_data
from tfr_helpers.records import Task
from tfr_helpers.sandbox import Limits, Sandbox


def test_registered_but_not_in_the_default_study(shared_benchmarks: object) -> None:
    assert {"humaneval_plus", "humaneval_plus_mini", "mbpp_plus"} <= set(benchmark_names())
    assert BENCHMARKS == ("humaneval", "mbpp", "bigcodebench")
    counts = {b: len(load_tasks(b, selected=False)) for b in ("humaneval_plus", "humaneval_plus_mini", "mbpp_plus")}
    assert counts == {"humaneval_plus": 164, "humaneval_plus_mini": 164, "mbpp_plus": 378}
    task = load_tasks("humaneval_plus", selected=False)[32]
    assert task.task_id == "HumanEval+/32" and task.entry_point == "find_zero" and "def check(" in task.tests
    data = plus_data("HumanEval+/32")
    assert data.atol == 1e-4 and len(data.plus_input) > 100 and "$_CONTRACT_$" in data.contract
    mini = plus_data("HumanEval+Mini/32")
    assert mini.base_input == data.base_input and len(mini.plus_input) < len(data.plus_input)
    mbpp = load_tasks("mbpp_plus", selected=False)[0]
    assert mbpp.task_id == "Mbpp/2" and mbpp.examples and "similar_elements" in mbpp.description
    assert plus_data("Mbpp/2").base_input[0] == [(3, 4, 5, 6), (5, 7, 4, 10)]  # tuples restored, as EvalPlus does


def test_mbpp_deserialisation_known_cases() -> None:
    assert mbpp_deserialize_inputs("Mbpp/124", [["1.5", "(1+2j)"]]) == [(1.5, 1 + 2j)]
    assert mbpp_deserialize_inputs("Mbpp/580", [[[1, [2, 3]]]]) == [((1, (2, 3)),)]
    assert mbpp_deserialize_inputs("Mbpp/3", [[5]]) == [[5]]


def test_tagged_json_keeps_types() -> None:
    values = [(1, [2.5, None]), {3, 4}, frozenset({"a"}), {(1, 2): "x"}, 1 + 2j, math.inf, -0.0, 10**5000, True]
    for value in values:
        back = h._tfr_ep_loads(h._tfr_ep_dumps(h._tfr_ep_encode(value)))
        assert back == value and type(back) is type(value)
    assert h._tfr_ep_encode(10**5000)["__x"].startswith("0x")
    nan = h._tfr_ep_decode(h._tfr_ep_encode(math.nan))
    assert math.isnan(nan)
    with pytest.raises(TypeError):
        h._tfr_ep_encode(object())


@pytest.mark.parametrize(
    ("out", "exp", "atol", "dataset", "entry", "verdict"),
    [
        ([1, 2], [1, 2], 0, "humaneval", "f", True),
        ((1, 2), [1, 2], 0, "humaneval", "f", False),  # a tuple is not a list
        (0.30000000000000004, 0.3, 0, "humaneval", "f", True),  # a float output: atol 1e-6
        (0.3001, 0.3, 0, "humaneval", "f", False),
        ([0.1, 0.2], (0.1, 0.2), 1e-6, "humaneval", "f", False),  # allclose needs the same type
        (1.00005, 1.0, 1e-4, "humaneval", "f", True),
        ((5, 4), (4, 5), 0, "mbpp", "similar_elements", True),  # set equality
        ("match", True, 0, "mbpp", "check_str", True),  # not None counts as True
        (None, True, 0, "mbpp", "check_str", False),
        (7, 3, 0, "mbpp", "are_equivalent", True),
        (0, 5, 0, "mbpp", "sum_div", True),
    ],
)
def test_evalplus_comparison(out: object, exp: object, atol: float, dataset: str, entry: str, verdict: bool) -> None:
    assert h._tfr_ep_same([[1]], out, exp, atol, dataset, entry) is verdict


def test_find_zero_oracle_and_the_float_rule() -> None:
    assert h._tfr_ep_same([[-6, 11, -6, 1]], 1.0, 3.0, 1e-4, "humaneval", "find_zero")  # any root passes
    assert not h._tfr_ep_same([[-6, 11, -6, 1]], 1.5, 1.0, 1e-4, "humaneval", "find_zero")
    assert h._tfr_ep_next_atol(0, 2.0, "humaneval", "f") == 1e-6
    assert h._tfr_ep_next_atol(0, 2, "humaneval", "f") == 0
    assert h._tfr_ep_next_atol(0, 2.0, "humaneval", "find_zero") == 0
    assert time_limits([0.0, 0.5]) == [1.0, 2.0]


@pytest.fixture
def toy(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> tuple[Task, PlusData]:
    from tfr_helpers.benchmarks.evalplus import expected as evalplus

    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(evalplus, "_MEMORY", {})  # expected outputs of this test's own cache only
    reference = "def double(x):\n    return x * 2\n"
    data = PlusData("ToyPlus/0", "toy_plus", "humaneval", "double", reference, [[1], [2]], [[3], [10**5000]], 0.0, "")
    monkeypatch.setitem(_PLUS, data.task_id, data)
    task = Task(
        task_id=data.task_id,
        benchmark="toy_plus",
        description="double",
        entry_point="double",
        signature="def double(x):",
        reference=reference,
        tests="assert double(1) == 2",
        test_format="asserts",
    )
    return task, data


def test_tiers_in_the_sandbox(toy: tuple[Task, PlusData]) -> None:
    task, data = toy
    with Sandbox(Limits(timeout_s=10.0), workers=2, preload=("numpy",)) as sandbox:
        expected = expected_outputs("toy_plus", sandbox)[task.task_id]
        assert expected.base == [2, 4] and expected.plus[0] == 6 and len(expected.plus_time) == 2
        specs = plus_specs(task)
        assert [s.name for s in specs] == ["base_0", "plus_0"]
        programs = {
            "right": reference_program(data),
            "wrong on a plus input": "def double(x):\n    return x * 2 if x < 100 else 0\n",
            "slow on a plus input": SPIN + "def double(x):\n    if x == 3:\n        spin(30)\n    return x * 2\n",
            "a tuple for an int": "def double(x):\n    return (x * 2,)\n",
            "no such function": "def twice(x):\n    return x * 2\n",
        }
        runs = dict(zip(programs, sandbox.run_many([(p, specs) for p in programs.values()]), strict=True))
    verdicts = {name: tier_verdicts(run) for name, run in runs.items()}
    assert verdicts == {
        "right": {"base": True, "plus": True},
        "wrong on a plus input": {"base": True, "plus": False},
        "slow on a plus input": {"base": True, "plus": False},
        "a tuple for an int": {"base": False, "plus": False},
        "no such function": {"base": False, "plus": False},
    }
    slow = next(o for o in runs["slow on a plus input"].outcomes if o.name == "plus_0")
    assert "CPU time limit of 1.00 s" in (slow.message or "")
    wrong = next(o for o in runs["wrong on a plus input"].outcomes if o.name == "plus_0")
    assert (wrong.message or "").startswith("input #1: double(")


def reference_program(data: PlusData) -> str:
    return data.reference


def test_expected_outputs_are_cached_by_content(toy: tuple[Task, PlusData], monkeypatch: pytest.MonkeyPatch) -> None:
    task, data = toy
    with Sandbox(Limits(timeout_s=10.0), workers=1, preload=("numpy",)) as sandbox:
        first = compute_expected([data], sandbox)[task.task_id]
        expected_outputs("toy_plus", sandbox)
    from tfr_helpers.benchmarks.evalplus import expected as evalplus

    monkeypatch.setattr(evalplus, "_MEMORY", {})
    monkeypatch.setattr(evalplus, "compute_expected", lambda *a: pytest.fail("the cache was not used"))
    again = expected_outputs("toy_plus")[task.task_id]
    assert again.base == first.base and again.plus == first.plus


def test_a_large_output_travels_as_a_digest_computed_piece_by_piece() -> None:
    big = [("Red",) * 77] * 400  # a canonical text over 20,000 characters
    carried = h._tfr_ep_carried(big)
    assert set(carried) == {"__h"} and h._tfr_ep_hashed_equal([("Red",) * 77] * 400, carried["__h"])
    assert not h._tfr_ep_hashed_equal([["Red"] * 77] * 400, carried["__h"])  # lists are not tuples
    assert not h._tfr_ep_hashed_equal([("Red",) * 76 + ("Rex",)] + big[1:], carried["__h"])
    assert not h._tfr_ep_hashed_equal([("Red\x1fRed",) * 38 + ("Red",)] * 400, carried["__h"])  # the separator
    assert not h._tfr_ep_hashed_equal(object(), carried["__h"])
    assert h._tfr_ep_carried([("Red",) * 3]) == h._tfr_ep_encode([("Red",) * 3])  # a short one travels whole
    for value in ([1, 2.5, None], [(1, 2), {"a": [True, 10**5000]}], ["x\x1fy", "z"] * 3):  # JSON where not strings
        with h._TfrEpDigits():
            assert "".join(h._tfr_ep_pieces(value)) == h._tfr_ep_dumps(h._tfr_ep_encode(value))
