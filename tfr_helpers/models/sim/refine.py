"""The simulated refiner: repair toward the reference, overfit to the failing test, a mutant, or no code.

Without a test to read (the ``retry`` and ``placebo`` controls, docs/controls.md) the same draw applies with the
same rates; only ``overfit`` changes: there is no failing input to special-case, so the code is kept as it is.
"""

from __future__ import annotations

import ast
import random

from tfr_helpers.models.sim.feedback import Expectation, expectation, test_source
from tfr_helpers.models.sim.mutate import mutate
from tfr_helpers.models.sim.rates import SimRates
from tfr_helpers.records import Task

RefineAction = str
"""``repair``, ``overfit``, ``mutant`` or ``no_code``."""


def pick_action(rng: random.Random, rates: SimRates) -> RefineAction:
    """One draw of what the refiner does with this feedback."""
    roll = rng.random()
    if roll < rates.refine_no_code:
        return "no_code"
    roll -= rates.refine_no_code
    if roll < rates.refine_mutant:
        return "mutant"
    roll -= rates.refine_mutant
    return "overfit" if roll < rates.refine_overfit else "repair"


def overfit(code: str, entry: str, demand: Expectation) -> str | None:
    """``code`` with the failing input special-cased to give what the test demanded.

    Returns:
        The patched program, or None when the entry point or its parameters cannot be matched.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == entry:
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            if not demand.args or len(demand.args) > len(params):
                return None
            names = ", ".join(params[: len(demand.args)])
            action = (
                f"raise {demand.exception}('special case from the failing test')"
                if demand.exception
                else f"return {demand.expected}"
            )
            guard = ast.parse(f"if [{names}] == [{', '.join(demand.args)}]:\n    {action}\n").body[0]
            has_doc = fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant)
            fn.body.insert(1 if has_doc else 0, guard)
            return ast.unparse(ast.fix_missing_locations(tree))
    return None


def refine(task: Task, code: str, feedback: str, rng: random.Random, rates: SimRates) -> tuple[str | None, str]:
    """The refined program for one test-fail feedback.

    Args:
        task: The task (the reference is what a repair converges to).
        code: The generated code being refined (the reference when empty).
        feedback: The test-fail feedback text (test source + failure).
        rng: The request's deterministic generator.
        rates: Refinement rates.

    Returns:
        ``(program or None, action)`` where action says what was done
        (``overfit`` may fall back to ``mutant``).
    """
    action = pick_action(rng, rates)
    current = code.strip() or task.reference
    if action == "no_code":
        return None, action
    if action == "overfit":
        test = test_source(feedback)
        demand = expectation(test, task.entry_point) if test else None
        patched = overfit(current, task.entry_point, demand) if demand else None
        if patched is not None:
            return patched, action
        action = "mutant"
    if action == "mutant":
        found = mutate(task.reference, rng, avoid=(_normal(current),))
        if found is not None:
            return found[0], action
    return ast.unparse(ast.parse(task.reference)), "repair"


def blind_refine(task: Task, code: str, rng: random.Random, rates: SimRates) -> tuple[str | None, str]:
    """The refined program when the request holds no test or failure (``retry``, ``placebo``).

    The draw of :func:`pick_action` with the same rates: ``repair`` and ``mutant`` as with feedback, ``no_code``
    gives no program, and ``overfit`` (special-casing the failing input) has no input to special-case, so the
    current code is kept (action ``kept``).
    """
    action = pick_action(rng, rates)
    current = code.strip() or task.reference
    if action == "no_code":
        return None, action
    if action == "overfit":
        return current, "kept"
    if action == "mutant":
        found = mutate(task.reference, rng, avoid=(_normal(current),))
        if found is not None:
            return found[0], action
    return ast.unparse(ast.parse(task.reference)), "repair"


def _normal(code: str) -> str:
    try:
        return ast.unparse(ast.parse(code))
    except SyntaxError:
        return code
