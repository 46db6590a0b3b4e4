"""EvalPlus's memory rule: how much address space a program gets on an EvalPlus task.

EvalPlus 0.3.1 (``evalplus/eval/__init__.py``, ``query_maximum_memory_bytes``) limits each checked program to
``min(EVALPLUS_MAX_MEMORY_BYTES, the machine's physical memory)`` bytes, the variable defaulting to 4 GiB and
``-1`` meaning no limit; its ``reliability_guard`` sets ``RLIMIT_AS`` (and ``RLIMIT_DATA``, ``RLIMIT_STACK``) to
it. tfr applies the same figure as the sandbox's address-space limit (``RLIMIT_AS``) of every run of an EvalPlus
task's benchmark tests (:attr:`~tfr_helpers.sandbox.spec.TestSpec.memory_mb`): the corrected reference's when its
expected outputs and times are computed, and every candidate's. The figure is in whole MiB (rounded down), as
the sandbox takes it; ``-1`` gives the machine's physical memory, since the sandbox always sets a limit.
"""

from __future__ import annotations

import os

from tfr_helpers.errors import ConfigError

ENV = "EVALPLUS_MAX_MEMORY_BYTES"
"""EvalPlus's own variable: the limit in bytes (``-1``: no limit)."""
DEFAULT_BYTES = 4 * 1024 * 1024 * 1024
"""EvalPlus's default: 4 GiB."""
MIB = 1024 * 1024


def machine_bytes() -> int:
    """The machine's physical memory in bytes (what ``psutil.virtual_memory().total`` reports on Linux)."""
    return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))


def memory_bytes(env: str | None = None, machine: int | None = None) -> int:
    """EvalPlus's limit in bytes: ``min(EVALPLUS_MAX_MEMORY_BYTES or 4 GiB, the machine's memory)``.

    Args:
        env: The variable's value (default: read from the environment).
        machine: The machine's memory in bytes (default: :func:`machine_bytes`).

    Raises:
        ConfigError: The variable is not a whole number of bytes above zero, nor ``-1``.
    """
    raw = os.environ.get(ENV) if env is None else env
    machine = machine_bytes() if machine is None else machine
    if raw is None or not raw.strip():
        return min(DEFAULT_BYTES, machine)
    try:
        wanted = int(raw)
    except ValueError:
        raise ConfigError(f"{ENV}={raw!r} is not a number of bytes; set it to e.g. 4294967296, or -1 for no limit") from None
    if wanted == -1:
        return machine
    if wanted <= 0:
        raise ConfigError(f"{ENV}={raw!r} must be above zero (bytes), or -1 for no limit")
    return min(wanted, machine)


def memory_mb(env: str | None = None, machine: int | None = None) -> int:
    """:func:`memory_bytes` in whole MiB (at least 1), the unit of the sandbox's address-space limit."""
    return max(1, memory_bytes(env, machine) // MIB)


def describe(mb: int) -> str:
    """The rule and its figure in words, for command output and captions."""
    source = f"{ENV}" if os.environ.get(ENV, "").strip() else "4 GiB"
    return f"{mb} MiB (EvalPlus's rule: min({source}, this machine's {machine_bytes() / 1024**3:.1f} GiB))"
