"""Warm workers (TFR_SANDBOX_POOLS=auto): cached preload bytecode and Hypothesis's constants collected once per
worker change no example a Hypothesis test draws (TFR_SANDBOX_POOLS=old: neither)."""

from __future__ import annotations

import pytest

from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.pool import _worker_env, bytecode_dir

PROGRAM = "LIMIT = 7919\nNAME = 'sentinel-word'\ndef f(x):\n    return x\n"
CONSTANTS = """
from hypothesis import given, strategies as st
from hypothesis.internal.conjecture.providers import _get_local_constants

seen = []

@given(st.integers(), st.text(max_size=20))
def test_draws(n, s):
    seen.append((n, s))

def test_report():
    import hashlib
    test_draws()
    c = _get_local_constants()
    every = hashlib.sha256(repr((sorted(c.integers), sorted(c.strings))).encode()).hexdigest()
    assert False, repr((7919 in c.integers, "sentinel-word" in c.strings, every, seen))[:1900]
"""


def _report(monkeypatch: pytest.MonkeyPatch, mode: str) -> str:
    monkeypatch.setenv("TFR_SANDBOX_POOLS", mode)
    with Sandbox(Limits(timeout_s=20.0, hypothesis_max_examples=40), workers=1) as box:
        run = box.run(PROGRAM, [TestSpec("t", CONSTANTS, kind="function")])
    report = next(o for o in run.outcomes if o.name == "test_report")
    assert report.status == "failed" and report.message
    return report.message


@pytest.mark.slow
def test_warm_workers_draw_the_same_hypothesis_examples_as_cold_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    warm, cold = _report(monkeypatch, "auto"), _report(monkeypatch, "old")
    assert warm.startswith("(True, True, ")  # the program's constants are drawn from
    assert warm == cold


def test_only_warm_workers_may_cache_bytecode_and_never_under_the_repo() -> None:
    assert _worker_env(warm=False)["PYTHONDONTWRITEBYTECODE"] == "1"
    warm = _worker_env(warm=True)
    assert "PYTHONDONTWRITEBYTECODE" not in warm and warm["PYTHONPYCACHEPREFIX"] == str(bytecode_dir())


FIGURE = """
def test_report():
    import hashlib, io
    import matplotlib
    import matplotlib.pyplot as plt
    import matplotlib.units
    converters = [(k.__name__, type(v).__name__) for k, v in matplotlib.units.registry.items()]
    fig, ax = plt.subplots()
    ax.legend()  # no labelled artists: matplotlib warns, once per process
    ax.plot([0, 1], [1, 0])
    ax.set_title("t")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    rc = hashlib.sha256(repr(sorted(matplotlib.rcParams.items())).encode()).hexdigest()
    assert False, repr((fig.number, plt.get_fignums(), rc, hashlib.sha256(buf.getvalue()).hexdigest(), converters))
"""


def _figure(monkeypatch: pytest.MonkeyPatch, mode: str) -> tuple[str, str]:
    monkeypatch.setenv("TFR_SANDBOX_POOLS", mode)
    with Sandbox(Limits(timeout_s=20.0), workers=1) as box:
        run = box.run("x = 1\n", [TestSpec("t", FIGURE, kind="function")])
    (report,) = run.outcomes
    assert report.status == "failed" and report.message
    return report.message, report.stderr


@pytest.mark.slow
def test_a_warm_workers_figure_is_a_fresh_processs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The heavy workers' warm-up figures (preload.warm_plotting) leave no figure open, no rc setting or unit
    converter changed (pandas registers its own while it plots) and no warning recorded: a child's first figure is
    number 1, renders the same bytes and still warns."""
    warm, cold = _figure(monkeypatch, "auto"), _figure(monkeypatch, "old")
    assert warm[0].startswith("(1, [1], ")
    assert "No artists with labels found to put in legend" in warm[1]
    assert warm == cold
