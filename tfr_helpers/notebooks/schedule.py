"""Which notebooks of the series may run beside each other, and a runner that executes them so.

A notebook's first cell runs its stages (tagged :data:`STAGES_TAG`); its other cells analyse and draw, one thread
each. The next notebook needs the stages, not the drawings, so it starts as soon as that cell is done, and two
notebooks share the machine's cores. Executing notebooks beside each other changes no record: each reads the
stages' records, which the notebooks it waits for (:data:`AFTER`) have finished. A notebook that reads what another
writes after its stages (its analysis's files) waits for that one's end instead (:func:`waits_for_end`).

A kernel's start and its modules (pandas, matplotlib, seaborn, statsmodels: several seconds of CPU) do not wait for
that turn: the next notebook's kernel starts ahead (:data:`AHEAD`) and loads them while the ones before it run their
stages, then its cells wait until its turn comes (:func:`run_in_order`'s ``begin``).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from tfr_helpers.errors import ConfigError

T = TypeVar("T")

AFTER: dict[str, tuple[str, ...]] = {
    "01_rq1_feedback_reliability.ipynb": ("00_setup.ipynb",),
    "02_rq2_refinement.ipynb": ("01_rq1_feedback_reliability.ipynb",),
    "03_rq3_screening.ipynb": ("02_rq2_refinement.ipynb",),
    "03b_consensus_selection.ipynb": ("03_rq3_screening.ipynb",),
    "03c_beyond_one_refinement.ipynb": ("02_rq2_refinement.ipynb",),
    "04_case_browser.ipynb": ("03_rq3_screening.ipynb",),
}
"""The notebooks whose stages each one waits for (their cell tagged :data:`STAGES_TAG`: the stages it runs and the
files they write). 00 to 03 run the study's stages in order, each starting while the one before shows its analysis;
03b and 04 read the results 03's first cell writes (``finalize_results``), not its analysis's files, so they run
beside that analysis; 03c runs its own section study (in ``sections/``), so it runs beside 03 (when the run itself
goes beyond one refinement, 03c analyses the run itself: it waits for 03's end, :func:`waits_for_end`)."""
STAGES_TAG = "stages"
"""The tag of the cell that runs a notebook's stages (its first after the parameters): once it finished, the
notebooks waiting for this one may start."""
AT_ONCE = 2
"""Notebooks executed at once, where :data:`AFTER` allows: the notebooks after the study's stages are mostly one
thread of analysis each, so two share the machine's cores (:func:`notebooks_at_once`)."""

AHEAD = 1
"""Notebooks whose kernels start before their turn (:func:`notebooks_ahead`): one is enough for the next notebook's
kernel to be ready when the stages before it are done."""


def waits_for(names: Sequence[str], section: str, section_is_run: bool) -> dict[str, tuple[str, ...]]:
    """Each of ``names`` -> the notebooks whose stages it waits for: :data:`AFTER` for the series' own, every one
    before it for any other notebook; the ``section`` notebook (03c) also waits for 03 when the run itself is the
    section (``section_is_run``: it then reads the run's results, not a study of its own)."""
    after = {name: AFTER.get(name, tuple(names[:i])) for i, name in enumerate(names)}
    if section_is_run and section in after:
        after[section] = (*after[section], "03_rq3_screening.ipynb")
    return after


def waits_for_end(names: Sequence[str], section: str, section_is_run: bool) -> dict[str, tuple[str, ...]]:
    """Each of ``names`` -> the notebooks whose *end* it waits for, not only their stages: the ``section`` notebook
    (03c) waits for 03's when the run itself is the section, since both then write the run's ``analysis/``."""
    results = "03_rq3_screening.ipynb"
    return {section: (results,)} if section_is_run and section in names and results in names else {}


def notebooks_at_once() -> int:
    """``TFR_NOTEBOOKS_AT_ONCE`` (default :data:`AT_ONCE`, at most the machine's cores; 1: one after the other)."""
    value = os.environ.get("TFR_NOTEBOOKS_AT_ONCE", "").strip()
    if not value:
        return max(1, min(AT_ONCE, os.cpu_count() or 1))
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"TFR_NOTEBOOKS_AT_ONCE={value!r}: use a whole number of at least 1 (1: one after the other)")
    return int(value)


class NotStarted(Exception):
    """Raised by ``begin()`` in a notebook started ahead whose turn never came: a notebook before it failed, or the
    series was interrupted. Its kernel started, none of its cells ran."""


class _Turn:
    """A notebook's permission to run its cells, given by the scheduling thread (``go``) or refused (``stop``)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.allowed = False

    def go(self) -> None:
        self.allowed = True
        self.event.set()

    def stop(self) -> None:
        self.event.set()


def notebooks_ahead() -> int:
    """``TFR_NOTEBOOKS_AHEAD`` (default :data:`AHEAD`; 0: each notebook's kernel starts at its turn)."""
    value = os.environ.get("TFR_NOTEBOOKS_AHEAD", "").strip()
    if not value:
        return AHEAD
    if not value.isdigit():
        raise ConfigError(f"TFR_NOTEBOOKS_AHEAD={value!r}: use a whole number (0: each kernel starts at its turn)")
    return int(value)


def run_in_order(
    names: Sequence[str],
    after: Mapping[str, Sequence[str]],
    execute: Callable[[str, Callable[[], None], Callable[[], None]], T],
    at_once: int,
    on_done: Callable[[str], None] = lambda _: None,
    ahead: int = 0,
    after_end: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, T]:
    """Execute ``names``, up to ``at_once`` at a time, started in ``names``' order, each once the ones it waits for
    (``after``; those not in ``names`` count as ready) are ready and those it waits for to their end (``after_end``)
    have ended; returns each one's result.

    ``execute(name, ready, begin)`` runs one notebook. It calls ``begin()`` before its first cell: ``begin`` returns
    once the notebook may run (the ones it waits for are ready and fewer than ``at_once`` run), or raises
    :class:`NotStarted` when it never may. It calls ``ready()`` once the notebook's stages are done (its cell
    tagged :data:`STAGES_TAG` finished), so those waiting for it start while its analysis cells still run; a
    notebook that never calls it is ready when it ends.

    ``ahead`` notebooks more are started early, before their turn: their kernels start and load their modules while
    the notebooks before them run, then wait in ``begin()`` (a notebook that may already run is preferred, then the
    next in ``names``' order whose notebooks to wait for have all started). ``ahead=0``: each starts at its turn.

    A failure starts nothing more: the notebooks already running finish, those started ahead stop before their
    first cell, then the failure of the earliest notebook in ``names``' order is raised (a rerun resumes: finished
    stages are skipped). An interrupt does the same (a terminal's Ctrl-C reaches the kernels too, so their cells
    stop)."""
    pending = list(names)
    done: dict[str, T] = {}
    failed: dict[str, BaseException] = {}
    readied: set[str] = set()
    events: queue.Queue[tuple[str, str, Any]] = queue.Queue()
    turns: dict[str, _Turn] = {}
    early: list[str] = []  # started ahead, their turn not yet given
    running = 0  # given their turn and not ended
    stopping = False

    def one(name: str, turn: _Turn) -> None:
        def begin() -> None:
            turn.event.wait()
            if not turn.allowed:
                raise NotStarted(name)

        try:
            result = execute(name, lambda: events.put(("ready", name, None)), begin)
        except NotStarted:
            events.put(("not started", name, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the scheduling thread, which raises it
            events.put(("failed", name, exc))
        else:
            events.put(("done", name, result))

    ends = after_end or {}

    def startable(name: str) -> bool:
        return all(d in readied or d not in names for d in after.get(name, ())) and all(
            d in done or d not in names for d in ends.get(name, ())
        )

    def launch(name: str, turn: _Turn) -> None:
        pending.remove(name)
        turns[name] = turn
        pool.submit(one, name, turn)

    def stop_early() -> None:
        for name in early:
            turns[name].stop()

    with ThreadPoolExecutor(max_workers=at_once + ahead, thread_name_prefix="tfr-notebook") as pool:
        try:
            while True:
                while not stopping and running < at_once:  # the next turn: the first in order that may run
                    name = next((n for n in names if (n in pending or n in early) and startable(n)), None)
                    if name is None:
                        break
                    if name in early:
                        early.remove(name)
                        turns[name].go()
                    else:
                        turn = _Turn()
                        turn.go()
                        launch(name, turn)
                    running += 1
                while not stopping and len(early) < ahead:  # kernels started ahead of their turn
                    name = next((n for n in pending if startable(n)), None) or next(
                        (n for n in pending if all(d not in pending for d in after.get(n, ()))), None
                    )
                    if name is None:
                        break
                    launch(name, _Turn())
                    early.append(name)
                if not running and not early:
                    break
                try:
                    kind, name, value = events.get(timeout=1.0)
                except queue.Empty:
                    continue
                if kind == "ready":
                    readied.add(name)
                    continue
                if name in early:  # ended before its turn: stopped, or it never asked for one
                    early.remove(name)
                else:
                    running -= 1
                if kind == "failed":
                    failed[name] = value
                    stopping = True
                    stop_early()
                elif kind == "done":
                    readied.add(name)
                    done[name] = value
                    on_done(name)
        except BaseException:  # Ctrl-C: start nothing more; the running notebooks end with their kernels
            stopping = True
            pending.clear()
            stop_early()
            raise
    if failed:
        raise failed[min(failed, key=list(names).index)]
    return done
