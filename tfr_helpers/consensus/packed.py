"""CodeT's packed harness: every unique test of a task in one function appended to each program.

This is CodeT's released form (``CodeT/src/_execution.py``, restated), the ``packed`` semantics of
:func:`~tfr_helpers.consensus.execute.build_matrices`: the program text is followed by one function ``check()``
that runs every unique test of the task, each inside its own ``try`` with a ``timeout`` s alarm, recording
True/False, and by the call ``final_result = check()``; the whole run is killed after ``timeout * tests + 0.1`` s.
A program whose packed run does not finish, or fails to compile together with the tests (one test illegal in a
function body drops every program of the task), is dropped: it does not execute. Tests run in the order first
seen (the release iterates a ``set``). The harness is part of the program's module, as in the release (one
``exec`` of program and harness), so the sandbox loads it as plain Python; one short snippet
(:data:`PACKED_REPORT`) then reports ``final_result``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfr_helpers.consensus.codeblob import IMPORTS, loads_expression

PACKED_RESULT = "CodeTPackedResult"
"""Exception the packed run's report snippet raises, carrying one ``0``/``1`` per test as its message."""
PACKED_REPORT = f"raise {PACKED_RESULT}(''.join('1' if r is True else '0' for r in final_result))"
"""The snippet run after the packed program has loaded (the harness ran while it loaded)."""


def packed_source(tests: Sequence[str], timeout: float) -> str:
    """CodeT's packed harness for ``tests`` (statements), appended to the program; ends in ``final_result = check()``."""
    lines = [
        "import contextlib as _ctl, signal as _sig",
        "class _PackedTimeout(Exception):",
        "    pass",
        f"class {PACKED_RESULT}(Exception):",
        "    pass",
        "@_ctl.contextmanager",
        "def time_limit(seconds):",
        "    def _handler(signum, frame):",
        "        raise _PackedTimeout('Timed out!')",
        "    _sig.setitimer(_sig.ITIMER_REAL, seconds)",
        "    _sig.signal(_sig.SIGALRM, _handler)",
        "    try:",
        "        yield",
        "    finally:",
        "        _sig.setitimer(_sig.ITIMER_REAL, 0)",
        "def check():",
        "    pass_result = []",
    ]
    for test in tests:
        body = test.strip().replace("\n", "\n            ")
        lines += [
            "    try:",
            f"        with time_limit({timeout}):",
            f"            {body}",
            "            pass_result.append(True)",
            "    except Exception as e:",
            "        pass_result.append(False)",
        ]
    lines += ["    return pass_result", "final_result = check()"]
    return "\n".join(lines) + "\n"


def packed_harness(tests: Sequence[str], timeout: float) -> str:
    """The text appended to every program of a task: the packed harness, compiled once here.

    Compiling the harness costs far more than running it (a with/try block per test: about 0.1 ms per test, so
    25 ms for a task with 250 unique tests, per program). It is compiled once per task and appended as its
    marshalled code object (:mod:`~tfr_helpers.consensus.codeblob`), which the program's module executes: the
    same bytecode in the same namespace as appending the source. A harness that
    does not compile (a test illegal inside a function body) is appended as source, so every program of the
    task fails to load, as in CodeT's release.
    """
    source = packed_source(tests, timeout)
    try:
        code = compile(source, "<codet packed harness>", "exec")
    except (SyntaxError, ValueError):
        return source
    return f"{IMPORTS}\nexec({loads_expression(code)})\n"


def packed_program(program: str, harness: str) -> str:
    """The program followed by its task's :func:`packed_harness`, as CodeT's release executes it."""
    return program + "\n" + harness
