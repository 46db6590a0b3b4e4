"""A task's shared misconception: one mutant that both the simulated coder and tester may believe in.

Real coders and testers often share a misreading of the task, so a wrong test can agree with wrong code
(RQ1's pass/fail case: the test is wrong and the code passes it). The simulator models this with one
mutant per (seed, task), independent of the model name: the coder sometimes returns it, and the tester
sometimes takes a test's expected value from it. Its outputs are computed by running the mutant (benchmark
code, not model-written code) on the example inputs in a resource-limited child process.
"""

from __future__ import annotations

import ast
import hashlib
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from tfr_helpers.models.sim.ast_lock import released
from tfr_helpers.models.sim.mutate import mutate
from tfr_helpers.records import Task

TIMEOUT_S = 10.0
MEMORY_BYTES = 2 * 1024**3
"""The child's address space (set by the child itself before the mutant loads: no ``preexec_fn``, so the parent,
which may hold pandas and the rest, spawns it without a fork of its own memory)."""

_EVAL = (
    f"import json, resource, sys\nresource.setrlimit(resource.RLIMIT_AS, ({MEMORY_BYTES}, {MEMORY_BYTES}))\n"
    + """
ns = {"__name__": "solution"}
exec(compile(open("solution.py").read(), "solution.py", "exec"), ns)
for line in open("setup.py").read().splitlines():
    exec(line, ns)
out = []
for expr in json.load(open("calls.json")):
    try:
        out.append(repr(eval(expr, ns)))
    except BaseException:
        out.append(None)
print(json.dumps(out))
"""
)


def has_misconception(task: Task, seed: int | str, share: float) -> bool:
    """Whether ``task`` carries a shared misconception (one draw per seed and task, for every model)."""
    digest = hashlib.sha256(f"{seed}|{task.task_id}|confusing".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big")).random() < share


def shared_mutant(task: Task, seed: int | str) -> str | None:
    """The task's misconception (same for every simulated model with this seed); None when none exists."""
    digest = hashlib.sha256(f"{seed}|{task.task_id}|misconception".encode()).digest()
    found = mutate(task.reference, random.Random(int.from_bytes(digest[:16], "big")))
    return found[0] if found else None


def outputs(program: str, expressions: list[str], setup: list[str]) -> list[str | None]:
    """The ``repr`` of each expression evaluated against ``program`` (None: it raised or is no literal).

    Args:
        program: A whole module (a mutant of the reference).
        expressions: Expressions calling its entry point (``f(1, 2)``, ``set(f(xs))``).
        setup: Import lines run first (MBPP ``test_imports``).

    Returns:
        One literal source or None per expression, in order; all None if the child fails or times out.
    """
    if not expressions:
        return []
    with tempfile.TemporaryDirectory(prefix="tfr-sim-misconception-") as tmp:
        Path(tmp, "solution.py").write_text(program)
        Path(tmp, "setup.py").write_text("\n".join(setup))
        Path(tmp, "calls.json").write_text(json.dumps(expressions))
        try:
            with released():  # no AST work while the child runs: the simulated model's other requests go on
                proc = subprocess.run(
                    [sys.executable, "-I", "-c", _EVAL],
                    cwd=tmp,
                    timeout=TIMEOUT_S,
                    capture_output=True,
                    text=True,
                    check=False,
                )
            values = json.loads(proc.stdout.strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, ValueError, IndexError):
            return [None] * len(expressions)
    return [v if v is not None and _is_literal(v) else None for v in values]


def _is_literal(source: str) -> bool:
    try:
        ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True
