"""The simulated model's AST lock: held for its source-code work, let go while a request waits on the shared
misconception's child process, so that another request's AST work goes on beside it; the child keeps its memory
limit and the outputs their values."""

from __future__ import annotations

import threading

from tfr_helpers.models.sim import ast_lock
from tfr_helpers.models.sim.misconception import outputs


def test_released_lets_another_thread_in_and_takes_the_lock_back() -> None:
    inside = threading.Event()

    def other() -> None:
        ast_lock.locked(inside.set)

    def waits_on_a_child() -> bool:
        with ast_lock.released():
            thread = threading.Thread(target=other)
            thread.start()
            thread.join(30)
        return ast_lock._LOCK.locked() and ast_lock._holder[0] == threading.get_ident()

    assert ast_lock.locked(waits_on_a_child)  # held again after the block, by this thread
    assert inside.is_set()  # the other thread ran its locked work while this one waited
    assert not ast_lock._LOCK.locked() and ast_lock._holder[0] is None


def test_released_without_the_lock_is_nothing() -> None:
    with ast_lock.released():
        assert not ast_lock._LOCK.locked()
    assert not ast_lock._LOCK.locked()


def test_outputs_under_the_lock_keep_their_values_and_the_childs_memory_limit() -> None:
    program = "def f(x):\n    return x * 2\n\ndef big():\n    return len(bytearray(3 * 1024**3))\n"
    values = ast_lock.locked(outputs, program, ["f(2)", "f('a')", "big()", "g()"], [])
    assert values == ["4", "'aa'", None, None]  # 3 GiB is over the child's 2 GiB: a MemoryError, no value
    assert not ast_lock._LOCK.locked()
