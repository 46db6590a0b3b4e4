"""Small source rewrites the simulated tester uses to make a test wrong on purpose."""

from __future__ import annotations

import ast


def perturb_value(source: str) -> str:
    """A different value than ``source`` states: literals are nudged, anything else is wrapped in a tuple.

    Args:
        source: Source of an expected value (``3``, ``'abc'``, ``[1, 2]``, ``f(x)``...).

    Returns:
        Source of a value that compares unequal to the original
        (``4``, ``'abcx'``, ``[1, 2, 0]``, ``(f(x),)``).
    """
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return f"({source},)"
    if isinstance(value, bool):
        return repr(not value)
    if isinstance(value, int):
        return repr(value + 1)
    if isinstance(value, float):
        return repr(value + 1.5)
    if isinstance(value, str):
        return repr(value + "x") if value else "'x'"
    if isinstance(value, list):
        return repr(value[:-1]) if value else "[0]"
    if isinstance(value, tuple):
        return repr(value + (0,))
    if value is None:
        return "0"
    return f"({source},)"


def bad_argument(source: str) -> str:
    """An argument of the wrong type for a parameter whose example value is ``source``.

    Numbers become ``None``; strings, containers and the rest become ``12345`` (not iterable, no str methods).
    """
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return "None"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "None"
    return "12345"


def replace_first_arg(actual: str, entry: str, new_arg: str) -> str:
    """``actual`` with the first argument of its entry-point call replaced by ``new_arg``."""
    tree = ast.parse(actual, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry and node.args:
            node.args[0] = ast.parse(new_arg, mode="eval").body
            break
    return ast.unparse(tree)


def rename_calls(source: str, old: str, new: str) -> str:
    """``source`` with every name ``old`` replaced by ``new`` (a wrong function name)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == old:
            node.id = new
    return ast.unparse(tree)
