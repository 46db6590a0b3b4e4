"""What the sandbox is asked to run: test specifications and resource limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TestSpecKind = Literal["snippet", "function", "unittest"]


@dataclass(frozen=True)
class TestSpec:
    """One test unit to run against a program.

    Attributes:
        name: Name reported in the outcome record (``check``, ``assert_2``, ``test_sorted``...).
        source: ``snippet``: statements run after the program (asserts, ``check(f)``);
            ``function``: a module defining ``test_*`` functions (plain or Hypothesis ``@given``),
            each called;
            ``unittest``: a module defining ``unittest.TestCase`` classes whose test methods are run.
        kind: How ``source`` is run (see above).
        setup: Statements run before ``source`` in the test namespace (MBPP ``test_imports``).
        timeout_s: Budget of this test alone in its own time (``sandbox.clock``), seconds, from its start (the program's load
            keeps the run's ``Limits.timeout_s``); None: the run's budget. Set by a time-limit policy that
            derives a test's limit from the reference's time on it.
        memory_mb: Address-space limit (RLIMIT_AS, MiB) this test needs in place of the run's
            ``Limits.memory_mb`` (None: the run's). A run whose specs set it gets the largest of theirs, for
            its whole process (the program's load included): EvalPlus's tasks carry EvalPlus's memory rule.
    """

    __test__ = False  # not a pytest test class

    name: str
    source: str
    kind: TestSpecKind = "snippet"
    setup: str = ""
    timeout_s: float | None = None
    memory_mb: int | None = None


@dataclass(frozen=True)
class Limits:
    """Resource limits for one program run (all per program, applied by the sandbox from outside).

    Attributes:
        timeout_s: Budget of one test (and of the program's load) in its own time, seconds: wall time less its
            waits for a CPU (``sandbox.clock``); the worker kills the process tree after it.
        memory_mb: Address-space limit (RLIMIT_AS), MiB.
        nproc: Process limit (RLIMIT_NPROC; enforced only when the program runs as an unprivileged uid).
        fsize_mb: Largest file the program may write (RLIMIT_FSIZE), MiB.
        nofile: Open file descriptors (RLIMIT_NOFILE).
        output_cap: Bytes of stdout/stderr kept per test.
        hypothesis_max_examples: ``max_examples`` for Hypothesis tests.
        hypothesis_derandomize: Hypothesis draws repeat: seeded per (run seed, test), not per program.
        seed: Run seed. Before the program loads and before every test the child seeds ``random`` (and
            numpy's global RNG when numpy is loaded) from (seed, test), never from the program, so a rerun
            gives the same verdicts and one test draws the same values on every program it runs against (two
            equivalent programs get the same verdict); a different seed gives other random draws (the
            pipeline reruns a failing reference with another seed to catch nondeterministic references).
            String hashing is fixed separately (``PYTHONHASHSEED=0`` in every worker), so set and dict order
            never depend on the run.
        fresh_per_test: Each test spec runs in its own child, on a freshly loaded program (one fork per spec):
            no state a test leaves (a mutated module-level list, a patched module, a class attribute) reaches
            the next one, so a test's verdict does not depend on which tests ran before it in the same run.
    """

    timeout_s: float = 10.0
    memory_mb: int = 2048
    nproc: int = 64
    fsize_mb: int = 16
    nofile: int = 256
    output_cap: int = 4096
    hypothesis_max_examples: int = 50
    hypothesis_derandomize: bool = True
    seed: int = 0
    fresh_per_test: bool = False
