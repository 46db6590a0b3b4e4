"""The one rule for an empty solution: a program whose function implements nothing.

Published solutions can be empty: Reflexion's GPT-4 HumanEval file holds fourteen empty strings, and the program is
then the task's prompt alone (the function's signature and docstring). An empty solution fails every correct
assert, so its feedback is about no code at all; the analysis reports it apart (``analysis.rq1``) and the learned
screener's validation uses it as a trivial baseline. Every place that asks "is this solution empty?" calls
:func:`is_empty_solution`.

The rule reads the program as Python runs it: the **last** top-level definition of a name is the one that counts.
A program that repeats the prompt's stub and then redefines the function with a body (Reflexion's HumanEval/133,
a whole module after the prompt) is not empty; a rule that stopped at the first definition counted it as a
fifteenth.
"""

from __future__ import annotations

import ast
import warnings


def _implements_nothing(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    rest = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return all(isinstance(s, ast.Pass) for s in rest)


def is_empty_solution(code: str | None) -> bool:
    r"""Whether the program is an empty solution: the last top-level definition of some function has only its
    docstring (or ``pass`` / ``...``) as body; a program that does not parse is not empty.

    >>> is_empty_solution("def f(x):\n    'Doc.'\n"), is_empty_solution("def f(x):\n    return x\n")
    (True, False)
    >>> is_empty_solution("def f(x):\n    'Doc.'\nimport math\ndef f(x):\n    return math.ceil(x)\n")
    False
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", (SyntaxWarning, DeprecationWarning))
            tree = ast.parse(code or "")
    except (SyntaxError, ValueError):
        return False
    final = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}  # last binding
    return any(_implements_nothing(node) for node in final.values())
