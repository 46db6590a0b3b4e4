"""The series' schedule: each notebook starts once the stages of those it waits for are done (their tagged cell, or
their end), at most N run at once, kernels started ahead wait for their turn, a failure starts nothing more and is
raised after the running ones end, and the settings are checked."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from tfr_helpers.errors import ConfigError
from tfr_helpers.notebooks.running import NOTEBOOKS
from tfr_helpers.notebooks.schedule import (
    AFTER,
    NotStarted,
    notebooks_ahead,
    notebooks_at_once,
    run_in_order,
    waits_for,
    waits_for_end,
)


class Recorder:
    """An ``execute`` that runs a notebook's stages (then says so, unless ``silent``), then its analysis, and
    records when each part started and ended and how many notebooks ran at once."""

    def __init__(self, seconds: float = 0.1, fail: str = "", silent: bool = False, hold: str = "") -> None:
        """``hold``: a notebook whose analysis lasts until another notebook has started (at most 30 s), so that a
        check of what runs beside it does not depend on how fast a loaded machine schedules threads."""
        self.lock = threading.Lock()
        self.hold, self.another_started = hold, threading.Event()
        self.active, self.most = 0, 0
        self.launched: dict[str, float] = {}
        self.started: dict[str, float] = {}
        self.staged: dict[str, float] = {}
        self.ended: dict[str, float] = {}
        self.stopped: list[str] = []
        self.seconds, self.fail, self.silent = seconds, fail, silent

    def __call__(self, name: str, ready: Callable[[], None], begin: Callable[[], None]) -> str:
        with self.lock:
            self.launched[name] = time.perf_counter()
        try:
            begin()  # its kernel is up: wait for its turn
        except NotStarted:
            with self.lock:
                self.stopped.append(name)
            raise
        with self.lock:
            self.started[name] = time.perf_counter()
            if name != self.hold:
                self.another_started.set()
            self.active += 1
            self.most = max(self.most, self.active)
        time.sleep(self.seconds)  # the stages
        if name == self.fail:
            with self.lock:
                self.active -= 1
                self.ended[name] = time.perf_counter()
            raise RuntimeError(f"{name} broke")
        self.staged[name] = time.perf_counter()
        if name == self.hold:
            self.another_started.clear()  # before its stages say they are done: nothing waiting on them started yet
        if not self.silent:
            ready()
        if name == self.hold:
            self.another_started.wait(timeout=30)  # the analysis, until another notebook starts beside it
        time.sleep(self.seconds)  # the analysis
        with self.lock:
            self.active -= 1
            self.ended[name] = time.perf_counter()
        return name.upper()


def test_a_notebook_starts_once_the_stages_it_reads_are_done_beside_the_analysis_before_it() -> None:
    run = Recorder(hold="00_setup.ipynb")
    done = run_in_order(NOTEBOOKS, AFTER, run, at_once=2)
    assert done == {name: name.upper() for name in NOTEBOOKS}
    for name, before in AFTER.items():
        for dep in before:
            assert run.staged[dep] <= run.started[name], f"{name} started before the stages of {dep} were done"
    assert run.started["01_rq1_feedback_reliability.ipynb"] < run.ended["00_setup.ipynb"]  # beside 00's analysis
    assert run.most == 2


def test_a_notebook_that_never_says_its_stages_are_done_is_waited_for_to_its_end() -> None:
    run = Recorder(seconds=0.02, silent=True)
    run_in_order(NOTEBOOKS, AFTER, run, at_once=2)
    for name, before in AFTER.items():
        for dep in before:
            assert run.ended[dep] <= run.started[name]


def test_one_at_a_time_keeps_the_series_order() -> None:
    run = Recorder(seconds=0.01)
    run_in_order(NOTEBOOKS, AFTER, run, at_once=1)
    assert sorted(run.started, key=run.started.__getitem__) == list(NOTEBOOKS) and run.most == 1


def test_a_notebook_not_in_the_series_counts_as_done() -> None:
    run = Recorder(seconds=0.01)
    assert run_in_order(["04_case_browser.ipynb"], AFTER, run, at_once=2) == {
        "04_case_browser.ipynb": "04_CASE_BROWSER.IPYNB"
    }


def test_a_failure_starts_nothing_more_lets_the_running_notebook_end_and_is_raised() -> None:
    run = Recorder(fail="02_rq2_refinement.ipynb", seconds=0.3)  # its stages fail
    with pytest.raises(RuntimeError, match="02_rq2_refinement.ipynb broke"):
        run_in_order(NOTEBOOKS, AFTER, run, at_once=2)
    assert "01_rq1_feedback_reliability.ipynb" in run.ended  # its analysis ran beside 02 and finished
    assert set(run.started) == {"00_setup.ipynb", "01_rq1_feedback_reliability.ipynb", "02_rq2_refinement.ipynb"}


def test_of_two_failures_the_earlier_notebook_in_the_series_is_raised() -> None:
    def execute(name: str, ready: Callable[[], None], begin: Callable[[], None]) -> str:
        time.sleep(0.05 if name == "b" else 0.0)
        raise ValueError(name)

    with pytest.raises(ValueError, match="^b$"):
        run_in_order(["b", "c"], {}, execute, at_once=2)


@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_a_bad_setting_is_one_clear_error(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_NOTEBOOKS_AT_ONCE", value)
    with pytest.raises(ConfigError, match="TFR_NOTEBOOKS_AT_ONCE"):
        notebooks_at_once()


def test_the_setting_is_read_and_the_default_is_at_most_the_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_NOTEBOOKS_AT_ONCE", "1")
    assert notebooks_at_once() == 1
    monkeypatch.delenv("TFR_NOTEBOOKS_AT_ONCE")
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert notebooks_at_once() == 1


def test_the_section_notebook_waits_for_03_only_when_the_run_itself_is_the_section_and_others_for_all_before() -> None:
    section = "03c_beyond_one_refinement.ipynb"
    own = waits_for(NOTEBOOKS, section, section_is_run=False)
    assert own == {name: AFTER.get(name, ()) for name in NOTEBOOKS}  # its own study: beside 03
    assert waits_for(NOTEBOOKS, section, section_is_run=True)[section] == (
        "02_rq2_refinement.ipynb",
        "03_rq3_screening.ipynb",
    )
    assert waits_for(["00_setup.ipynb", "mine.ipynb", "more.ipynb"], section, section_is_run=True) == {
        "00_setup.ipynb": (),
        "mine.ipynb": ("00_setup.ipynb",),
        "more.ipynb": ("00_setup.ipynb", "mine.ipynb"),
    }


def test_a_kernel_started_ahead_waits_for_its_turn_and_no_more_than_n_run_at_once() -> None:
    run = Recorder(seconds=0.1)
    done = run_in_order(NOTEBOOKS, AFTER, run, at_once=2, ahead=1)
    assert done == {name: name.upper() for name in NOTEBOOKS}
    first, second = "00_setup.ipynb", "01_rq1_feedback_reliability.ipynb"
    assert run.launched[second] < run.staged[first] <= run.started[second]  # started ahead, ran at its turn
    for name, before in AFTER.items():
        for dep in before:
            assert run.staged[dep] <= run.started[name], f"{name} ran before the stages of {dep} were done"
    assert run.most == 2 and not run.stopped


def test_the_notebook_that_may_run_first_is_the_one_started_ahead() -> None:
    # 03c waits for 02 only, 03b for 03: once 02's stages are done, 03c may run before 03b, so it is started ahead
    run = Recorder(seconds=0.05)
    run_in_order(NOTEBOOKS, AFTER, run, at_once=2, ahead=1)
    section, selection = "03c_beyond_one_refinement.ipynb", "03b_consensus_selection.ipynb"
    assert run.launched[section] < run.launched[selection]


def test_a_failure_stops_the_kernel_started_ahead_before_its_first_cell() -> None:
    run = Recorder(fail="01_rq1_feedback_reliability.ipynb", seconds=0.2)
    with pytest.raises(RuntimeError, match="01_rq1_feedback_reliability.ipynb broke"):
        run_in_order(NOTEBOOKS, AFTER, run, at_once=2, ahead=1)
    assert run.stopped == ["02_rq2_refinement.ipynb"]  # its kernel started ahead; no cell of it ran
    assert set(run.started) == {"00_setup.ipynb", "01_rq1_feedback_reliability.ipynb"}


def test_the_setting_of_kernels_ahead_is_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFR_NOTEBOOKS_AHEAD", "0")
    assert notebooks_ahead() == 0
    monkeypatch.setenv("TFR_NOTEBOOKS_AHEAD", "many")
    with pytest.raises(ConfigError, match="TFR_NOTEBOOKS_AHEAD"):
        notebooks_ahead()
    monkeypatch.delenv("TFR_NOTEBOOKS_AHEAD")
    assert notebooks_ahead() == 1


def test_the_notebooks_reading_the_results_start_beside_the_analysis_of_03() -> None:
    names = ["03_rq3_screening.ipynb", "03b_consensus_selection.ipynb", "04_case_browser.ipynb"]
    run = Recorder(seconds=0.05, hold="03_rq3_screening.ipynb")  # 03's analysis lasts until another one started
    run_in_order(names, AFTER, run, at_once=2, ahead=1)
    results, selection = names[:2]
    assert run.staged[results] <= run.started[selection] < run.ended[results]


def test_the_section_notebook_waits_for_the_end_of_03_when_it_analyses_the_run_itself() -> None:
    section, results = "03c_beyond_one_refinement.ipynb", "03_rq3_screening.ipynb"
    assert waits_for_end(NOTEBOOKS, section, section_is_run=False) == {}  # its own study: beside 03's analysis
    ends = waits_for_end(NOTEBOOKS, section, section_is_run=True)
    assert ends == {section: (results,)}  # both write the run's analysis/: never at once
    assert waits_for_end([n for n in NOTEBOOKS if n != results], section, section_is_run=True) == {}
    run = Recorder(seconds=0.05, hold=results)  # 03's analysis lasts until another notebook started (03b)
    run_in_order(NOTEBOOKS, waits_for(NOTEBOOKS, section, True), run, at_once=2, ahead=1, after_end=ends)
    assert run.ended[results] <= run.started[section]


def test_each_series_notebook_has_its_stages_cell_and_03_analyses_after_it() -> None:
    import nbformat

    from tfr_helpers.notebooks.running import NOTEBOOKS_DIR
    from tfr_helpers.notebooks.schedule import STAGES_TAG

    for waited_for in AFTER.values():
        for waited in waited_for:  # every notebook another one waits for says when its stages are done
            nb = nbformat.read(str(NOTEBOOKS_DIR / waited), as_version=4)
            assert any(STAGES_TAG in c.metadata.get("tags", ()) for c in nb.cells), waited
    nb = nbformat.read(str(NOTEBOOKS_DIR / "03_rq3_screening.ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    stages = next(i for i, c in enumerate(code) if STAGES_TAG in c.metadata.get("tags", ()))
    assert "finalize_results" in code[stages].source  # 03b and 04 read the final results...
    assert "analysis.analyze(" not in code[stages].source  # ...beside 03's analysis, which comes after
    assert "analysis.analyze(" in code[stages + 1].source
