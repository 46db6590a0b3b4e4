"""What the reference does on a generated test's calls: every call the test makes to a function of the task, with
the value it returns or the exception it raises, recorded the same way for every item whatever the test's verdict.

The records of a run hold the reference's values only where a comparison failed, so reading them there would tell
a reader which tests the reference fails. Here the test runs once more on the reference, in the sandbox, with each
top-level function of the reference that the test calls by name replaced by a wrapper that prints its arguments
before the call and its result (or exception) after it; the test's own verdict is never read.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

MARK = "@@tfr-blind-call@@"
"""Prefix of the wrapper's output lines (anything else the program prints is ignored)."""
SHOWN = 600
"""Characters kept of one argument list, value or exception message."""
OUTPUT_CAP = 64 * 1024
"""Bytes of a test's output kept by the sandbox: room for many calls."""
CALL_SHARE = 0.7
"""Share of the test's time budget the test's calls get in CPU time (see :func:`recording_program`)."""

_WRAPPER = """

def _tfr_blind_record():
    import functools, json, signal, sys, time
    depth = [0]
    cap = {cap}
    budget = {budget!r}
    start = []

    class OutOfTime(BaseException):
        pass

    def out_of_time(signum, frame):
        raise OutOfTime()

    def show(value):
        try:
            text = repr(value)
        except Exception as exc:  # a value whose repr fails
            text = f"<repr failed: {{type(exc).__name__}}>"
        return text if len(text) <= cap else text[:cap] + "..."

    def say(**fields):
        sys.stdout.write({mark!r} + json.dumps(fields) + "\\n")
        sys.stdout.flush()

    def wrap(name, inner):
        @functools.wraps(inner)
        def recorded(*args, **kwargs):
            if depth[0]:  # a call from inside the reference (recursion, a helper): not the test's own call
                return inner(*args, **kwargs)
            parts = [show(a) for a in args] + [f"{{k}}={{show(v)}}" for k, v in kwargs.items()]
            say(call=f"{{name}}({{', '.join(parts)}})")
            start[:] = start or [time.process_time()]
            left = budget - (time.process_time() - start[0])
            depth[0] += 1
            signal.signal(signal.SIGPROF, out_of_time)
            signal.setitimer(signal.ITIMER_PROF, max(left, 0.01))
            try:
                result = inner(*args, **kwargs)
            except OutOfTime:
                say(note=f"did not return within {{budget:g}} s of CPU time")
                raise
            except BaseException as exc:
                text = str(exc)
                say(raises=f"{{type(exc).__name__}}: {{text[:cap]}}" if text else type(exc).__name__)
                raise
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                depth[0] -= 1
            say(returns=show(result))
            return result

        return recorded

    for name in {names!r}:
        globals()[name] = wrap(name, globals()[name])


_tfr_blind_record()
del _tfr_blind_record
"""


@dataclass(frozen=True)
class CallJob:
    """One generated test to run on one task's reference."""

    reference: str
    """The reference solution as a whole module."""
    entry_point: str
    test_name: str
    test_source: str


def called_functions(reference: str, entry_point: str, test_source: str) -> list[str]:
    """The reference's top-level functions that the test calls by name (the entry point always)."""
    try:
        defined = {n.name for n in ast.parse(reference).body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    except SyntaxError:
        return [entry_point]
    try:
        tree = ast.parse(test_source)
    except SyntaxError:
        called: set[str] = set()
    else:
        called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    return sorted(({entry_point} | called) & defined) or [entry_point]


def recording_program(job: CallJob, budget_s: float) -> str:
    """The reference followed by the wrapper of each function the test calls; the calls together get
    :data:`CALL_SHARE` of the test's budget in CPU time, so that a call that never ends is named before the
    sandbox stops the test (whose output would then be lost)."""
    names = called_functions(job.reference, job.entry_point, job.test_source)
    return job.reference + _WRAPPER.format(cap=SHOWN, mark=MARK, names=names, budget=CALL_SHARE * budget_s)


def read_calls(run: ProgramRun, budget_s: float) -> list[dict[str, str]]:
    """The calls the wrapper printed, each ``{"call", "returns"}``, ``{"call", "raises"}`` or ``{"call", "note"}``
    (a call that never came back: the run stopped by a time or resource limit); one ``{"note"}`` when the test made
    no call or the reference did not load."""
    if run.load_error is not None:
        return [{"note": f"the reference did not load: {run.load_error.exc_type}: {run.load_error.message}"}]
    outcome = run.outcomes[0]
    calls: list[dict[str, str]] = []
    for line in outcome.stdout.splitlines():
        if not line.startswith(MARK):
            continue
        fields = json.loads(line[len(MARK) :])
        if "call" in fields:
            calls.append({"call": fields["call"]})
        elif calls and len(calls[-1]) == 1:
            calls[-1].update(fields)
    for call in calls:
        if len(call) == 1:
            call["note"] = stopped(outcome.status, budget_s)
    if not calls:
        if outcome.status in ("timeout", "crashed"):
            return [{"note": f"no call recorded: the run was stopped ({outcome.status}, budget {budget_s:g} s)"}]
        return [{"note": "the test made no call to a function of the task before it ended"}]
    return calls


def stopped(status: str, budget_s: float) -> str:
    """Why a call never came back."""
    if status == "timeout":
        return f"did not return within the time limit ({budget_s:g} s)"
    if status == "crashed":
        return "did not return: the process was killed (a resource limit)"
    return "did not return (its output was cut: too long)"


def reference_calls(jobs: Sequence[CallJob], limits: Limits) -> list[list[dict[str, str]]]:
    """Each job's calls on the reference, in order (see :func:`read_calls`)."""
    limits = replace(limits, output_cap=OUTPUT_CAP)
    programs = [
        (recording_program(j, limits.timeout_s), [TestSpec(name=j.test_name, source=j.test_source, kind="function")])
        for j in jobs
    ]
    with Sandbox(limits) as sandbox:
        runs = sandbox.run_many(programs, desc="reference calls")
    return [read_calls(run, limits.timeout_s) for run in runs]
