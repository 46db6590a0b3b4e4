"""`tfr run`'s live line names the notebooks being executed: one, or two when two run at once (the last started
runs the stages the line shows)."""

from __future__ import annotations

from tfr_helpers.cli.notebooks_cmds import _notebook


def test_the_prefix_names_the_running_notebooks_in_their_start_order() -> None:
    running: list[str] = []
    prefix = _notebook(running)
    assert prefix() == ""
    running.append("01_rq1_feedback_reliability.ipynb")
    assert prefix() == "[01_rq1] "
    running.append("02_rq2_refinement.ipynb")
    assert prefix() == "[01_rq1+02_rq2] "
    running.remove("01_rq1_feedback_reliability.ipynb")
    assert prefix() == "[02_rq2] "
