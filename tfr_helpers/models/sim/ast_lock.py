"""The simulated model's one lock on source-code work (parse, mutate, unparse), and its release around a child.

CPython 3.11 converts ASTs with a per-interpreter recursion counter: ``ast.parse`` running in two threads at once
can fail with ``SystemError: AST constructor recursion depth mismatch``. The simulated model answers concurrent
requests (the event loop thread plus ``asyncio.to_thread`` workers), so all of its AST work holds this lock.
A request that waits on a child process (the shared misconception's outputs) does no AST work meanwhile, so it lets
the lock go for that wait (:func:`released`): the other requests' AST work goes on beside the child instead of
waiting for it. Every answer is the same as with the lock held throughout: each depends only on its own request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_LOCK = threading.Lock()
_holder: list[int | None] = [None]
"""The thread holding :data:`_LOCK` (its ident), None when free."""


def locked(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` with the lock held."""
    with _LOCK:
        _holder[0] = threading.get_ident()
        try:
            return fn(*args, **kwargs)
        finally:
            _holder[0] = None


@contextmanager
def released() -> Iterator[None]:
    """Let the lock go for the block when this thread holds it (else nothing), and take it again after."""
    if _holder[0] != threading.get_ident():
        yield
        return
    _holder[0] = None
    _LOCK.release()
    try:
        yield
    finally:
        _LOCK.acquire()
        _holder[0] = threading.get_ident()
