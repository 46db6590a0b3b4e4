"""tfr_helpers.sandbox: run untrusted programs against tests, one outcome record per test.

Known limitation: tests and program share one interpreter inside the sandboxed child, so a program built
to fool comparisons (an object whose ``__eq__`` always returns True) can make an assertion pass.

``Sandbox`` and ``run_program`` are imported lazily: the fork-server worker imports this package too, and
the parent-side pool pulls in pydantic/tqdm/asyncio (~26 MiB RSS), which would make every fork of a light
worker copy page tables for memory it never uses.
"""

from typing import TYPE_CHECKING, Any

from tfr_helpers.sandbox.spec import Limits, TestSpec

if TYPE_CHECKING:
    from tfr_helpers.sandbox.pool import Sandbox, run_program

__all__ = ["Limits", "Sandbox", "TestSpec", "run_program"]


def __getattr__(name: str) -> Any:
    if name in ("Sandbox", "run_program"):
        from tfr_helpers.sandbox import pool  # on first use: sandbox workers import this package, not the pool

        return getattr(pool, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
