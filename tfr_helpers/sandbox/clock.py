"""A child's *own* time in one phase (its program's load, or one test): wall time minus its wait for a CPU.

Linux's ``/proc/<pid>/schedstat`` gives a task's on-CPU nanoseconds, its run-queue wait in nanoseconds and its
timeslices. The run-queue wait is exactly what the machine's load adds to a phase, so a phase's own time,
``wall - wait``, counts the program's CPU and its voluntary sleeps and blocking (``time.sleep(20)`` still
exceeds a 10 s budget on any load) and leaves out only starvation. The worker reads the child's main thread
(world-readable, though the child runs as another uid). Where the file is absent or unreadable (no schedstat
in the kernel, a ``/proc`` of another pid namespace), nothing is measured and own time is the wall time.

The kernel adds a wait to the counter only when the task gets a CPU again, so a wait still in progress is not
in it yet, and a starved task's own time seems to run on. A phase's own time is therefore trusted to have
reached its budget only when the child is not runnable (asleep: no wait in progress), or when its counters
moved since a read one step earlier (:attr:`Reading.step_s`: it had the CPU since, so at most that step of
waiting is not counted yet); otherwise the worker reads again one step later.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass

WALL_GUARD = 20.0
"""The outer guard: a phase is killed after this many times its budget in wall time, whatever its own time
(a child starved that long is reported as the guard's timeout, which the pipeline runs again alone). At 20, a
child that gets a twentieth of a core (beside some twenty busy processes per core) still has its own time
decide; the pool's wait for a job's reply (20x the budget per test and two more) allows it."""


def _proc_is_ours() -> bool:
    """Whether ``/proc`` shows this process's pid namespace (its pids are the ones ``fork`` returns)."""
    try:
        return os.readlink("/proc/self") == str(os.getpid())
    except OSError:
        return False


def schedstat(pid: int) -> tuple[int, int, int] | None:
    """The task ``pid``'s on-CPU ns, run-queue wait ns and timeslices (None: not readable here).

    The file is opened for each reading: a descriptor kept open from the task's start read no progress for a
    program of an unprivileged user's sandbox (a user namespace), so its own time looked like waiting. Read with
    three system calls (open, read, close) rather than through a Python file object (nine, with its buffer): the
    worker reads it several times per child.
    """
    try:
        fd = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        data = os.read(fd, 256)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        cpu, wait, slices = data.split()[:3]
        return int(cpu), int(wait), int(slices)
    except ValueError:
        return None


def run_queue_wait(pid: int) -> float | None:
    """Seconds the task ``pid`` has waited for a CPU so far, by the counter (None: not readable here)."""
    stat = schedstat(pid)
    return None if stat is None else stat[1] / 1e9


def runnable(pid: int) -> bool:
    """Whether the task ``pid`` is running or waiting for a CPU (state ``R``); False once it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        data = os.read(fd, 4096)
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        return data.rpartition(b")")[2].split()[0] == b"R"
    except IndexError:
        return False


def step_of(budget_s: float) -> float:
    """The shortest wait between two reads of a phase with ``budget_s``: 1% of it, at least 5 ms."""
    return max(0.01 * budget_s, 0.005)


@dataclass(frozen=True)
class Reading:
    """Where a phase stands: its wall time, the child's wait for a CPU in it (None: not measured), its budget,
    and whether the wait counter can be trusted to be current (no wait of unknown length in progress)."""

    wall_s: float
    wait_s: float | None
    budget_s: float
    current: bool = True

    @property
    def own_s(self) -> float:
        """Wall time minus the wait (the wall time when the wait was not measured)."""
        return self.wall_s - (self.wait_s or 0.0)

    @property
    def step_s(self) -> float:
        """The shortest wait between two reads (:func:`step_of` the budget)."""
        return step_of(self.budget_s)

    @property
    def expired(self) -> str | None:
        """``guard`` when the wall time reached the wall-clock guard (a timeout of the guard is known by its wall
        time alone), else ``own`` when own time reached the budget (by a current counter), else None."""
        if self.wall_s >= WALL_GUARD * self.budget_s:
            return "guard"
        return "own" if self.own_s >= self.budget_s and self.current else None

    @property
    def sleep_s(self) -> float:
        """Seconds of wall time to wait before reading again: until own time could reach the budget (or the guard
        fire) at the soonest, but at least one :attr:`step_s` (a starved child's own time creeps toward it)."""
        return max(min(self.budget_s - self.own_s, WALL_GUARD * self.budget_s - self.wall_s), self.step_s)

    def message(self) -> str:
        """What decided a timeout, in words that do not depend on the machine (the figures measured are the
        outcome's ``duration_s`` and ``wait_s``: in a message they would make records differ from run to run)."""
        if self.expired == "guard":
            return f"no result within the wall-clock guard of {WALL_GUARD * self.budget_s:g} s; process tree killed"
        if self.wait_s is None:
            return f"no result within {self.budget_s:g} s wall clock; process tree killed"
        return f"no result within {self.budget_s:g} s of its own time (waits for a CPU excluded); process tree killed"


class PhaseClock:
    """The own time of one child, phase by phase: :meth:`start` a phase with its budget, :meth:`read` it.

    The counters are read when a phase starts, when a phase's reading is recorded and when own time could have
    reached the budget; :meth:`poll` skips the read while the wall time is below the budget (own time, at most the
    wall time, cannot have reached it), so a child whose messages come quickly costs the worker a few reads only.
    """

    _proc_ok: bool | None = None

    def __init__(self, pid: int, budget_s: float = 0.0) -> None:
        """Read the child's counters once and start its first phase with ``budget_s``."""
        if PhaseClock._proc_ok is None:
            PhaseClock._proc_ok = _proc_is_ours()
        self.pid = pid
        self._last = schedstat(pid) if PhaseClock._proc_ok else None
        self._last_t = time.monotonic()
        self.measured = self._last is not None
        self.budget_s = budget_s
        self.t0 = self._last_t
        self.w0 = None if self._last is None else self._last[1]

    def _stat(self) -> tuple[tuple[int, int, int] | None, bool]:
        """The child's counters (the last ones read once it is gone) and whether they moved since the last read
        made no more than two steps ago."""
        if not self.measured:
            return None, True
        now, t = schedstat(self.pid), time.monotonic()
        moved = now is not None and now != self._last and t - self._last_t <= 2 * step_of(self.budget_s)
        if now is not None:
            self._last, self._last_t = now, t
        return self._last, moved

    def start(self, budget_s: float, at_last_read: bool = False) -> None:
        """Start a phase now, with ``budget_s`` seconds of own time; ``at_last_read``: at the moment of the
        :meth:`read` just made (the phase it read ended then), from the same counters, without reading again."""
        self.budget_s = budget_s
        if at_last_read:
            self.t0 = self._t_read
            self.w0 = self._last[1] if self.measured and self._last is not None else None
            return
        self.t0 = time.monotonic()
        stat, _ = self._stat()
        self.w0 = None if stat is None else stat[1]

    def read(self) -> Reading:
        """The current phase's wall time, wait and budget, read now."""
        self._t_read = time.monotonic()
        wall = self._t_read - self.t0
        stat, moved = self._stat()
        if stat is None or self.w0 is None:
            return Reading(wall, None, self.budget_s)
        reading = Reading(wall, max(0, stat[1] - self.w0) / 1e9, self.budget_s)
        if reading.own_s < self.budget_s or moved or not runnable(self.pid):
            return reading
        return dataclasses.replace(reading, current=False)  # runnable, still: maybe in a wait not counted yet

    def poll(self) -> Reading:
        """:meth:`read`, or, while the phase's wall time is below its budget, a reading of the wall time alone
        (``wait_s`` None): own time cannot have reached the budget, nor the wall time the guard, and the wake-up
        it asks for comes no later than a read's would. For deciding a timeout only, never for recording a wait."""
        wall = time.monotonic() - self.t0
        if wall < self.budget_s:
            return Reading(wall, None, self.budget_s)
        return self.read()
