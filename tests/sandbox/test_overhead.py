"""Guards for the per-check overhead work: cheap paths must stay equivalent and the workers light."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys

from tfr_helpers.sandbox import rewrite
from tfr_helpers.sandbox.runner import _encode


class _Str(str):
    pass


class _Int(int):
    def __repr__(self) -> str:
        return "forged"


def test_channel_encoding_is_json_dumps() -> None:
    messages = [
        {"t": "loaded"},
        {"t": "start", "spec": 3, "sub": -1, "name": "TestCases.test_x"},
        {
            "t": "result",
            "spec": 0,
            "sub": 0,
            "outcome": {
                "name": 'é\ud800\n"\\',
                "status": "failed",
                "expected": None,
                "in_code_under_test": True,
                "flag": False,
                "duration_s": 1e-7,
                "neg": -0.0,
                "big": 10**40,
            },
        },
        {"s": _Str("x"), "i": _Int(3), "nan": math.nan, "inf": -math.inf, "list": [1, "a"]},
        {1: 2},
    ]
    for msg in messages:
        assert _encode(msg) == json.dumps(msg)


SOURCES = [
    "assert 1 == 1\nassert x < 2, 'msg'\n",
    "def check(c):\n    for i in range(3):\n        assert c(i) == i\n    else:\n        assert True\n",
    "class T:\n    def m(self):\n        with open('f') as fh:\n            assert fh.read() != ''\n",
    "try:\n    assert a in b\nexcept E:\n    assert a is not b\nelse:\n    assert 1\n"
    "finally:\n    assert f(\n        1) >= 2\n",
    "match x:\n    case 1:\n        assert y == 2\n    case _:\n        while z:\n            assert z not in q\n",
    "async def f():\n    async with a:\n        async for i in b:\n            assert i > 0\n",
    "f = lambda: (yield)\nassert [x for x in y if x] == []\n",
]


def test_statement_walk_rewrites_like_the_node_transformer() -> None:
    for src in SOURCES:
        expected = ast.fix_missing_locations(rewrite._Rewriter().visit(ast.parse(src)))
        tree = ast.parse(src)
        rewrite._rewrite_block(tree.body)
        assert ast.dump(tree, include_attributes=True) == ast.dump(expected, include_attributes=True)
        compile(tree, "t.py", "exec")


def test_worker_imports_stay_light() -> None:
    """The fork server must not import the parent-side pool (pydantic, tqdm) or threading: they would
    make every fork copy page tables for memory the child never uses, or run at-fork hooks."""
    code = (
        "import sys, tfr_helpers.sandbox.worker\n"
        "print(sorted(m for m in ('threading', 'pydantic', 'tqdm', 'subprocess', 'hypothesis') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
