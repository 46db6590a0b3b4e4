"""AST mutants of a reference solution: the simulated coder's bugs (every mutant compiles)."""

from __future__ import annotations

import ast
import copy
import random
from collections.abc import Callable

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
    """Every place one mutation can be applied, as (operator name, in-place edit)."""
    sites: list[Site] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAP:
            sites.append(("arithmetic", lambda n=node: setattr(n, "op", _BINOP_SWAP[type(n.op)]())))
        elif isinstance(node, ast.Compare):
            op0 = type(node.ops[0])
            if op0 in _CMP_SWAP:
                sites.append(("comparison", lambda n=node: n.ops.__setitem__(0, _CMP_SWAP[type(n.ops[0])]())))
            if op0 in _CMP_FLIP:
                sites.append(
                    ("flipped_comparison", lambda n=node: n.ops.__setitem__(0, _CMP_FLIP[type(n.ops[0])]()))
                )
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append(("off_by_one", lambda n=node: setattr(n, "value", n.value + 1)))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "range" and node.args:
                sites.append(
                    (
                        "range_bound",
                        lambda n=node: n.args.__setitem__(
                            len(n.args) - 1 if len(n.args) < 3 else 1,
                            ast.BinOp(
                                n.args[len(n.args) - 1 if len(n.args) < 3 else 1], ast.Sub(), ast.Constant(1)
                            ),
                        ),
                    )
                )
        elif isinstance(node, ast.BoolOp):
            sites.append(
                (
                    "boolean",
                    lambda n=node: setattr(n, "op", ast.Or() if isinstance(n.op, ast.And) else ast.And()),
                )
            )
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) > 1:
            sites.append(("swapped_return", lambda n=node: n.value.elts.reverse()))
        elif (
            isinstance(node, ast.Return)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, bool)
        ):
            sites.append(("swapped_return", lambda n=node: setattr(n.value, "value", not n.value.value)))
        elif (
            isinstance(node, ast.Return)
            and node.value is not None
            and not isinstance(node.value, ast.Constant)
        ):
            sites.append(("dropped_return", lambda n=node: setattr(n, "value", ast.Constant(None))))
        elif isinstance(node, ast.Attribute) and node.attr in _METHOD_SWAP:
            sites.append(("method_swap", lambda n=node: setattr(n, "attr", _METHOD_SWAP[n.attr])))
    # dropping abs(x) needs the parent to replace the call
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, ast.Call) and _is_abs(value):
                sites.append(("dropped_abs", lambda p=parent, f=field, v=value: setattr(p, f, v.args[0])))
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.Call) and _is_abs(item):
                        sites.append(
                            ("dropped_abs", lambda lst=value, j=i: lst.__setitem__(j, lst[j].args[0]))
                        )
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
