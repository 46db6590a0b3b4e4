"""tfr_helpers.sandbox: run untrusted programs against tests, one outcome record per test.

Known limitation: tests and program share one interpreter inside the sandboxed child, so a program built
to fool comparisons (an object whose ``__eq__`` always returns True) can make an assertion pass.
"""

from tfr_helpers.sandbox.pool import Sandbox, run_program
from tfr_helpers.sandbox.spec import Limits, TestSpec

__all__ = ["Limits", "Sandbox", "TestSpec", "run_program"]
