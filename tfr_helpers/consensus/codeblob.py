"""Precompiled code shipped to the sandbox as text: compile once in ``tfr``, run in every forked child.

A harness the same for every program of a task (CodeT's packed tests, the outputs harness) costs more to
compile than to run: a with/try block per test is about 0.1 ms of compile time, per program. It is compiled here
once per task and sent as the marshalled code object inside the program or test text, which the sandbox child
loads with ``marshal.loads`` (microseconds). The sandbox workers run this interpreter (``sys.executable``), so
the bytecode is what compiling the source there would give.
"""

from __future__ import annotations

import binascii
import marshal
import zlib

IMPORTS = "import marshal as _m, zlib as _z, binascii as _b"
"""The modules :func:`loads_expression` needs, as a statement."""


def loads_expression(obj: object) -> str:
    """A Python expression that rebuilds ``obj`` (code objects, tuples of them, strings...) when evaluated."""
    blob = binascii.b2a_base64(zlib.compress(marshal.dumps(obj), 6), newline=False).decode()  # type: ignore[arg-type]
    return f"_m.loads(_z.decompress(_b.a2b_base64({blob!r})))"
