"""Property-based tests of the simulated tester: Hypothesis properties over the benchmark's example inputs."""

from __future__ import annotations

import ast
import random

from tfr_helpers.models.sim.rates import SimRates
from tfr_helpers.models.sim.response import indent
from tfr_helpers.models.sim.tester.examples import Example, extract_examples, unittest_methods
from tfr_helpers.records import Task

PBT_IMPORTS = ["import copy", "from hypothesis import given, strategies as st"]


def _args_tuple(ex: Example) -> str:
    return "(" + ", ".join(ex.args) + ("," if len(ex.args) == 1 else "") + ")"


def _type_of(source: str) -> str | None:
    """Builtin type name of a literal expected value (None when it is not a plain literal)."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    name = type(value).__name__
    return name if name in {"int", "float", "str", "bool", "list", "tuple", "dict", "set", "NoneType"} else None


def _true_property(name: str, entry: str, cases: list[Example], rng: random.Random) -> str:
    """A property the reference satisfies on the example inputs (determinism, or agreement with examples)."""
    args = "[" + ", ".join(_args_tuple(c) for c in cases) + "]"
    if rng.random() < 0.5:
        return (
            f"@given(st.sampled_from({args}))\ndef {name}(args):\n"
            f"    assert {entry}(*copy.deepcopy(args)) == {entry}(*copy.deepcopy(args))\n"
        )
    pairs = "[" + ", ".join(f"({_args_tuple(c)}, {c.expected})" for c in cases) + "]"
    return (
        f"@given(st.sampled_from({pairs}))\ndef {name}(case):\n    args, expected = case\n"
        f"    assert {entry}(*copy.deepcopy(args)) == expected\n"
    )


def _false_property(name: str, entry: str, cases: list[Example]) -> str:
    """A property the reference violates: its results have a type they do not have."""
    typed = [c for c in cases if _type_of(c.expected) not in (None, "NoneType")]
    wrong = "int" if typed and _type_of(typed[0].expected) == "str" else "str"
    args = "[" + ", ".join(_args_tuple(c) for c in (typed or cases)) + "]"
    return (
        f"@given(st.sampled_from({args}))\ndef {name}(args):\n"
        f"    assert isinstance({entry}(*copy.deepcopy(args)), {wrong})\n"
    )


def _wrapped_native(name: str, task: Task) -> str:
    """No usable example: the native tests as a property over the documented cases."""
    if task.test_format == "unittest":
        body, _, methods = unittest_methods(task)
        return f"@given(st.sampled_from({methods!r}))\ndef {name}(method):\n{indent(body)}\n    TestCases(method).debug()\n"
    source = task.tests if task.test_format != "check" else task.tests + f"\ncheck({task.entry_point})\n"
    return f"@given(st.just(None))\ndef {name}(_):\n{indent(source)}\n"


def write_pbts(task: Task, n_tests: int, rng: random.Random, rates: SimRates) -> tuple[list[str], list[str]]:
    """PBTs for ``task``: ``@given(st.sampled_from(example inputs))`` properties, some false of the reference.

    Args:
        task: The task.
        n_tests: How many properties to write (tasks without examples get one).
        rng: The request's deterministic generator.
        rates: ``pbt_falsified`` is the chance that a property is false of the reference.

    Returns:
        ``(import_lines, test_functions)``.
    """
    imports = PBT_IMPORTS + list(task.test_imports)
    cases = [e for e in extract_examples(task) if not e.wrapped and not e.has_keywords and e.args]
    if not cases:
        if task.test_format == "unittest":
            imports += unittest_methods(task)[1]
        return imports, [_wrapped_native("test_documented_cases_hold", task)]
    functions = []
    for i in range(n_tests):
        chosen = rng.sample(cases, min(len(cases), 4))
        name = f"test_property_{i + 1}"
        if rng.random() < rates.pbt_falsified:
            functions.append(_false_property(name, task.entry_point, chosen))
        else:
            functions.append(_true_property(name, task.entry_point, chosen, rng))
    return imports, functions
