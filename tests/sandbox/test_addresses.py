"""An object's address never reaches an outcome: a default repr (``<generator object f at 0x7f...>``) in a
failed comparison, an exception message or a traceback is written ``at 0x...``, so the same test on the same
program gives the same feedback text in every run (and the prompts built from it hit the response cache)."""

from __future__ import annotations

import re

from tfr_helpers.sandbox import Sandbox, TestSpec
from tfr_helpers.sandbox.rewrite import mask_addresses

PROGRAM = "def evens(xs):\n    return (x for x in xs if x % 2 == 0)\n\nclass Box:\n    pass\n"
SPECS = [
    TestSpec("compare", "assert evens([1, 2, 4]) == [2, 4]"),
    TestSpec("raise", "raise ValueError(f'bad box {Box()!r}')"),
]
ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


def test_a_default_repr_in_a_failure_carries_no_address(sandbox: Sandbox) -> None:
    run = sandbox.run(PROGRAM, SPECS)
    compare, raised = run.outcomes
    assert compare.status == "failed" and "<generator object evens.<locals>.<genexpr> at 0x...>" in (compare.actual or "")
    assert raised.status == "error" and "Box object at 0x...>" in (raised.message or "")
    for outcome in run.outcomes:
        for text in (outcome.message, outcome.actual, outcome.expected, outcome.traceback):
            assert not ADDRESS.search(text or ""), (outcome.name, text)


def test_masking_keeps_other_hexadecimal_text() -> None:
    assert mask_addresses("<object at 0x7f3a9c2b1d90> and 0xff") == "<object at 0x...> and 0xff"
    assert mask_addresses("assert 0x10 == 16") == "assert 0x10 == 16"
