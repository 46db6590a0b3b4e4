"""Example-based tests of the simulated tester: benchmark examples, some deliberately corrupted."""

from __future__ import annotations

import ast
import random

from tfr_helpers.models.sim.misconception import has_misconception, outputs, shared_mutant
from tfr_helpers.models.sim.rates import SimRates
from tfr_helpers.models.sim.response import indent
from tfr_helpers.models.sim.tester.corrupt import bad_argument, perturb_value, rename_calls, replace_first_arg
from tfr_helpers.models.sim.tester.examples import Example, extract_examples, unittest_methods
from tfr_helpers.records import Task

CORRUPTIONS = (
    "wrong_expected",
    "invalid_input",
    "wrong_exception",
    "test_code_error",
    "resource",
)
"""Kinds of deliberate mistakes in EBTs (plus ``misconception``: an expected value buggy code may share)."""


def pick_corruption(rng: random.Random, rates: SimRates, confusing: bool = False) -> str | None:
    """Which mistake (if any) the next test carries (``confusing``: the task has a shared misconception)."""
    if confusing and rng.random() < rates.ebt_misconception:
        return "misconception"
    roll = rng.random()
    for kind, rate in zip(
        CORRUPTIONS,
        (
            rates.ebt_wrong_expected,
            rates.ebt_invalid_input,
            rates.ebt_wrong_exception,
            rates.ebt_test_code_error,
            rates.ebt_resource,
        ),
        strict=True,
    ):
        if roll < rate:
            return kind
        roll -= rate
    return None


def _example_test(name: str, ex: Example, entry: str, kind: str | None, rng: random.Random) -> str:
    """One test function for one example, corrupted as ``kind`` says."""
    assertion = f"assert {ex.actual} == {ex.expected}"
    if kind == "wrong_expected":
        assertion = f"assert {ex.actual} == {perturb_value(ex.expected)}"
    elif kind == "invalid_input" and ex.args:
        assertion = f"assert {replace_first_arg(ex.actual, entry, bad_argument(ex.args[0]))} == {ex.expected}"
    elif kind == "wrong_exception":
        exc = rng.choice(["ValueError", "TypeError", "IndexError"])
        return (
            f"def {name}():\n    try:\n        {ex.actual}\n    except {exc}:\n        return\n"
            f"    raise AssertionError('DID NOT RAISE {exc}')\n"
        )
    elif kind == "test_code_error":
        variant = rng.randrange(3)
        if variant == 0:
            assertion = f"assert {rename_calls(ex.actual, entry, entry + '_solution')} == {ex.expected}"
        elif variant == 1:
            assertion = f"assert normalize_output({ex.actual}) == normalize_output({ex.expected})"
        else:
            check = f"assert approx_equal({ex.actual}, {ex.expected})"
            assertion = f"from testing_helpers import approx_equal\n    {check}"
    elif kind == "resource":
        # bounded cost: one allocation far beyond any sandbox memory limit fails at once (MemoryError)
        huge = "[0] * 10 ** 10" if rng.random() < 0.5 else "'a' * 10 ** 11"
        assertion = f"huge = {huge}\n    assert {entry}(huge) == {ex.expected}"
    return f"def {name}():\n    {assertion}\n"


def _native_fallback(task: Task, name: str, kind: str | None) -> str:
    """When the benchmark gives no usable example: the native asserts wrapped as one test function."""
    source = task.tests if task.test_format != "check" else task.tests + f"\ncheck({task.entry_point})\n"
    if kind == "test_code_error":
        source = rename_calls(source, task.entry_point, task.entry_point + "_solution")
    return f"def {name}():\n{indent(source)}\n"


def _bcb_test(name: str, body: str, method: str, kind: str | None, entry: str) -> str:
    """A BigCodeBench TestCases method wrapped as a plain test function (``debug()`` raises on failure)."""
    if kind == "test_code_error":
        body = rename_calls(body, entry, entry + "_solution")
    elif kind == "wrong_expected":
        body = _perturb_first_assert_equal(body, method)
    return f"def {name}():\n{indent(body)}\n    TestCases({method!r}).debug()\n"


def _perturb_first_assert_equal(body: str, method: str) -> str:
    """Perturb the expected literal of the first ``self.assertEqual(x, <literal>)`` inside ``method``."""
    tree = ast.parse(body)
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == method:
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "assertEqual"
                    and len(node.args) == 2
                    and isinstance(node.args[1], ast.Constant)
                ):
                    node.args[1] = ast.parse(perturb_value(ast.unparse(node.args[1])), mode="eval").body
                    return ast.unparse(tree)
    return body


def _misconception_values(task: Task, examples: list[Example], seed: int | str) -> dict[str, str]:
    """What the task's shared misconception returns for each example's checked expression."""
    mutant = shared_mutant(task, seed) if examples else None
    if mutant is None:
        return {}
    values = outputs(mutant, [ex.actual for ex in examples], list(task.test_imports))
    return {ex.actual: v for ex, v in zip(examples, values, strict=True) if v is not None}


def write_ebts(
    task: Task, n_tests: int, rng: random.Random, rates: SimRates, seed: int | str = 0
) -> tuple[list[str], list[str]]:
    """EBTs for ``task``: inputs from its benchmark examples, expected values the reference agrees with.

    Args:
        task: The task (its native tests supply the examples).
        n_tests: How many tests to write.
        rng: The request's deterministic generator.
        rates: Corruption rates.
        seed: The model's seed (selects the task's shared misconception).

    Returns:
        ``(import_lines, test_functions)``.
    """
    imports = list(task.test_imports)
    functions: list[str] = []
    if task.test_format == "unittest":
        body, bcb_imports, methods = unittest_methods(task)
        imports += bcb_imports
        for i, method in enumerate(rng.sample(methods, min(n_tests, len(methods)))):
            functions.append(_bcb_test(f"test_{method}_{i}", body, method, pick_corruption(rng, rates), task.entry_point))
        return imports, functions
    examples = extract_examples(task)
    if not examples:
        return imports, [_native_fallback(task, "test_examples", pick_corruption(rng, rates))]
    order = rng.sample(range(len(examples)), min(n_tests, len(examples)))
    while len(order) < n_tests:
        order.append(rng.randrange(len(examples)))
    confusing = has_misconception(task, seed, rates.misconception_tasks)
    kinds = [pick_corruption(rng, rates, confusing) for _ in order]
    chosen = [examples[idx] for idx in order]
    believed = _misconception_values(task, [ex for ex, k in zip(chosen, kinds, strict=True) if k == "misconception"], seed)
    for i, (ex, kind) in enumerate(zip(chosen, kinds, strict=True)):
        if kind == "misconception":
            value = believed.get(ex.actual)
            if value is not None and value != ex.expected:
                ex = Example(ex.actual, value, ex.args, ex.wrapped, ex.has_keywords)
                kind = None
            else:
                kind = "wrong_expected"
        functions.append(_example_test(f"test_{task.entry_point}_{i + 1}", ex, task.entry_point, kind, rng))
    return imports, functions
