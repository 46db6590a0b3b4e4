"""AST mutants of a reference solution: the simulated coder's bugs (every mutant compiles)."""

from __future__ import annotations

import ast
import copy
import random
from collections.abc import Callable
from functools import partial

_BINOP_SWAP: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Add,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Div: ast.Mult,
}
_CMP_SWAP: dict[type, type] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
}
_METHOD_SWAP = {
    "upper": "lower",
    "lower": "upper",
    "startswith": "endswith",
    "endswith": "startswith",
    "max": "min",
    "min": "max",
    "isupper": "islower",
    "islower": "isupper",
}
_CMP_FLIP: dict[type, type] = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}

Site = tuple[str, Callable[[], None]]


def _sites(tree: ast.Module) -> list[Site]:
    """Every place one mutation can be applied, as (operator name, in-place edit of ``tree``)."""
    sites: list[Site] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAP:
            sites.append(("arithmetic", partial(setattr, node, "op", _BINOP_SWAP[type(node.op)]())))
        elif isinstance(node, ast.Compare):
            op0 = type(node.ops[0])
            if op0 in _CMP_SWAP:
                sites.append(("comparison", partial(node.ops.__setitem__, 0, _CMP_SWAP[op0]())))
            if op0 in _CMP_FLIP:
                sites.append(("flipped_comparison", partial(node.ops.__setitem__, 0, _CMP_FLIP[op0]())))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append(("off_by_one", partial(setattr, node, "value", node.value + 1)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "range" and node.args:
                i = len(node.args) - 1 if len(node.args) < 3 else 1
                bound = ast.BinOp(node.args[i], ast.Sub(), ast.Constant(1))
                sites.append(("range_bound", partial(node.args.__setitem__, i, bound)))
        elif isinstance(node, ast.BoolOp):
            flipped = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            sites.append(("boolean", partial(setattr, node, "op", flipped)))
        elif isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if isinstance(value, ast.Tuple) and len(value.elts) > 1:
                sites.append(("swapped_return", partial(setattr, value, "elts", value.elts[::-1])))
            elif isinstance(value, ast.Constant) and isinstance(value.value, bool):
                sites.append(("swapped_return", partial(setattr, value, "value", not value.value)))
            elif not isinstance(value, ast.Constant):
                sites.append(("dropped_return", partial(setattr, node, "value", ast.Constant(None))))
        elif isinstance(node, ast.Attribute) and node.attr in _METHOD_SWAP:
            sites.append(("method_swap", partial(setattr, node, "attr", _METHOD_SWAP[node.attr])))
    # dropping abs(x) needs the parent to replace the call
    for parent in ast.walk(tree):
        for field, child in ast.iter_fields(parent):
            if isinstance(child, ast.Call) and _is_abs(child):
                sites.append(("dropped_abs", partial(setattr, parent, field, child.args[0])))
            elif isinstance(child, list):
                for j, item in enumerate(child):
                    if isinstance(item, ast.Call) and _is_abs(item):
                        sites.append(("dropped_abs", partial(child.__setitem__, j, item.args[0])))
    return sites


def _is_abs(call: ast.Call) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == "abs" and len(call.args) == 1


def mutate(source: str, rng: random.Random, avoid: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """Apply one random mutation to ``source``.

    Args:
        source: A whole Python module (the reference solution).
        rng: Source of randomness (the caller's deterministic generator).
        avoid: Programs (normalised by ``ast.unparse``) the mutant must differ from.

    Returns:
        ``(mutant_source, operator_name)``, or None when no site gives a compiling, different program.
    """
    try:
        base = ast.parse(source)
    except SyntaxError:
        return None
    original = ast.unparse(base)
    avoided = {original, *avoid}
    n_sites = len(_sites(base))
    order = list(range(n_sites))
    rng.shuffle(order)
    for index in order[:40]:
        tree = copy.deepcopy(base)
        name, edit = _sites(tree)[index]
        edit()
        ast.fix_missing_locations(tree)
        try:
            mutant = ast.unparse(tree)
            compile(mutant, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, AttributeError):
            continue
        if mutant not in avoided:
            return mutant, name
    return None
