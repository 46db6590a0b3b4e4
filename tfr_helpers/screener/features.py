"""The reference-free features of a test-fail feedback (every feature is documented in docs/screening.md).

:func:`extract` reads only :class:`~tfr_helpers.screener.view.FeedbackView` records and runs one kind of program:
the generated code against the examples of the task's prompt, in the sandbox, through the ``execute`` callable it
is given (``RunContext.run_programs`` in the study, a :class:`~tfr_helpers.sandbox.Sandbox` when training).
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from typing import Any

import numpy as np

from tfr_helpers.records import TEST_CODE_ERRORS, ProgramRun
from tfr_helpers.sandbox import TestSpec
from tfr_helpers.screener.asserts import AssertPair, assert_pairs, asserts_in, literal, prompt_examples, same_value
from tfr_helpers.screener.view import FeedbackView

Execute = Callable[[Sequence[tuple[str, Sequence[TestSpec]]]], list[ProgramRun]]
"""Runs ``(program, test specs)`` jobs in the sandbox, order preserved."""

FEATURES: tuple[str, ...] = (
    # the failure
    "fail_assertion",
    "fail_exception_in_code",
    "fail_exception_in_test",
    "fail_test_code_error",
    "fail_timeout_or_crash",
    "message_log_len",
    # expected against actual
    "ea_present",
    "ea_both_literal",
    "ea_same_type",
    "ea_equal_normalised",
    "ea_numeric",
    "ea_log_rel_diff",
    "ea_bool_flip",
    "ea_actual_none",
    "ea_log_len_ratio",
    # agreement with the model's other tests
    "other_log_count",
    "other_pass_share",
    "same_input_log_count",
    "same_input_disagree_share",
    "other_expectation_confirmed",
    # the prompt's examples
    "has_prompt_examples",
    "prompt_example_pass_share",
    "matches_example_input",
    "contradicts_example",
    "example_input_distance",
    # the test's structure
    "test_log_asserts",
    "test_log_lines",
    "test_calls_entry_point",
    "expected_is_literal",
    "expected_has_float",
    "call_on_left",
    "is_property_test",
    # several code samples
    "multi_sample",
    "sample_fail_share",
    "test_share",
)
"""Feature names, in the order of :func:`extract`'s columns."""


def _number(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _expected_actual(view: FeedbackView, pair: AssertPair | None) -> list[float]:
    f = view.failure
    if f.expected is None or f.actual is None:
        return [0.0] * 9
    # the sandbox reports the left side as "actual"; a test written `assert <expected> == f(x)` has them swapped
    actual, expected = (f.actual, f.expected) if pair is None or pair.call_on_left else (f.expected, f.actual)
    (ok_e, e), (ok_a, a) = literal(expected), literal(actual)
    both = ok_e and ok_a
    ne, na = _number(e), _number(a)
    numeric = both and ne is not None and na is not None
    rel = 0.0
    if numeric and ne is not None and na is not None and math.isfinite(ne) and math.isfinite(na):
        rel = math.log10(abs(ne - na) / max(abs(ne), abs(na), 1e-9) + 1e-9) / 9 + 1
    sized = both and hasattr(e, "__len__") and hasattr(a, "__len__")
    ratio = math.log1p(len(e)) - math.log1p(len(a)) if sized else 0.0
    return [
        1.0,
        float(both),
        float(both and type(e) is type(a)),
        float(same_value(expected, actual)),
        float(numeric),
        rel,
        float(both and isinstance(e, bool) and isinstance(a, bool)),
        float(ok_a and a is None),
        ratio,
    ]


def _agreement(view: FeedbackView, pair: AssertPair | None) -> list[float]:
    others = view.other_tests
    n = len(others)
    pass_share = sum(o.passed for o in others) / n if n else 0.0
    if pair is None:
        return [math.log1p(n), pass_share, 0.0, 0.0, 0.0]
    same = [(o, q) for o in others for q in assert_pairs(o.source, view.entry_point) if q.call == pair.call]
    disagree = [(o, q) for o, q in same if not same_value(q.expected, pair.expected)]
    confirmed = any(o.passed for o, _ in disagree)
    return [math.log1p(n), pass_share, math.log1p(len(same)), len(disagree) / len(same) if same else 0.0, float(confirmed)]


def _arguments(call: str, entry_point: str) -> str | None:
    """The unparsed arguments of the first call of the entry point in an expression (None: it calls it nowhere)."""
    try:
        tree = ast.parse(call, mode="eval")
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point:
            return ", ".join([*map(ast.unparse, node.args), *map(ast.unparse, node.keywords)])
    return None


def example_input_distance(pair: AssertPair | None, examples: Sequence[AssertPair], entry_point: str) -> float:
    """How far the test's input is from the nearest example's: ``1 - difflib`` similarity of the entry point's
    argument texts, minimised over the examples that call the entry point directly (0: an example's very input;
    1: no comparable example, or a test without a ``<call> == <expected>`` pair)."""
    if pair is None or (mine := _arguments(pair.call, entry_point)) is None:
        return 1.0
    theirs = [a for e in examples if not e.setup and (a := _arguments(e.call, entry_point)) is not None]
    return min((1.0 - SequenceMatcher(None, mine, a, autojunk=False).ratio() for a in theirs), default=1.0)


def _prompt(view: FeedbackView, pair: AssertPair | None, pass_share: float) -> list[float]:
    examples = example_key(view.code, view.prompt, view.entry_point, view.prompt_examples)[1]
    match = [e for e in examples if pair is not None and e.call == pair.call]
    contradicts = any(pair is not None and not same_value(e.expected, pair.expected) for e in match)
    distance = example_input_distance(pair, examples, view.entry_point)
    return [float(bool(examples)), pass_share, float(bool(match)), float(contradicts), distance]


def _structure(view: FeedbackView, pair: AssertPair | None) -> list[float]:
    src = view.test_source
    ok, value = literal(pair.expected) if pair is not None else (False, None)
    has_float = pair is not None and any(ch.isdigit() for ch in pair.expected) and "." in pair.expected
    return [
        math.log1p(asserts_in(src)),
        math.log1p(len(src.strip().splitlines())),
        float(f"{view.entry_point}(" in src),
        float(ok),
        float(has_float and not (ok and isinstance(value, str))),
        float(pair is not None and pair.call_on_left),
        float(view.test_kind == "pbt"),
    ]


def _failure(view: FeedbackView) -> list[float]:
    f = view.failure
    return [
        float(f.mode == "assertion"),
        float(f.mode == "exception_in_code"),
        float(f.mode == "exception_in_test"),
        float(f.exc_type in TEST_CODE_ERRORS and not f.in_code_under_test),
        float(f.mode in ("timeout", "crashed", "load_error")),
        math.log1p(len(f.message)),
    ]


ExampleKey = tuple[str, tuple[AssertPair, ...]]
"""A program and the prompt examples it is run on."""


def example_key(code: str, prompt: str, entry_point: str, shown: tuple[str, ...]) -> ExampleKey:
    """The examples job of a generated program on its task's prompt (what :func:`example_pass_shares` runs)."""
    return code, tuple(prompt_examples(prompt, entry_point, shown))


def example_job(key: ExampleKey) -> tuple[str, list[TestSpec]]:
    """The sandbox job of an examples key: each example its own test ``assert (<call>) == (<value>)``, after its
    doctest session's earlier statements when it has them."""
    code, examples = key
    specs = [
        TestSpec(f"example_{i}", (e.setup + "\n" if e.setup else "") + f"assert ({e.call}) == ({e.expected})", "snippet")
        for i, e in enumerate(examples)
    ]
    return code, specs


def example_pass_shares(views: Sequence[FeedbackView], execute: Execute) -> list[float]:
    """Share of its prompt's examples each view's generated code passes, run in the sandbox (0 without examples).

    Each unique (code, examples) runs once (:func:`example_job`)."""
    jobs: dict[ExampleKey, int] = {}
    keys = []
    for v in views:
        key = example_key(v.code, v.prompt, v.entry_point, v.prompt_examples)
        keys.append(key)
        if key[1]:
            jobs.setdefault(key, len(jobs))
    specs = [example_job(key) for key in jobs]
    runs = execute(specs) if specs else []
    shares = []
    for run in runs:
        passed = sum(o.status == "passed" for o in run.outcomes) if run.load_error is None else 0
        shares.append(passed / max(len(run.outcomes), 1))
    return [shares[jobs[k]] if k in jobs else 0.0 for k in keys]


def extract(views: Sequence[FeedbackView], execute: Execute) -> np.ndarray:
    """The feature matrix of ``views``: one row per view, one column per name in :data:`FEATURES`."""
    shares = example_pass_shares(views, execute)
    rows = []
    for view, share in zip(views, shares, strict=True):
        pairs = assert_pairs(view.test_source, view.entry_point)
        pair = pairs[0] if pairs else None
        rows.append(
            _failure(view)
            + _expected_actual(view, pair)
            + _agreement(view, pair)
            + _prompt(view, pair, share)
            + _structure(view, pair)
            + [float(view.n_code_samples > 1), view.sample_fail_share, view.test_share]
        )
    out = np.array(rows, dtype=float).reshape(len(rows), len(FEATURES))
    return out
