"""The oracle-repaired arm's notebook section, shown by name through the arms' registry, and its part of Results:
held by the arm, written under its own key of results.json, read back typed."""

from __future__ import annotations

import json

import pytest
from IPython.display import HTML, Markdown
from pandas.io.formats.style import Styler

from tests.arms.oracle.test_oracle_report import results
from tfr_helpers.arms.oracle import ARM, report, view
from tfr_helpers.arms.oracle.records import OracleRepairResults
from tfr_helpers.records import Results, present_arms
from tfr_helpers.views import show_arm


def test_the_section_shows_the_repairs_and_the_comparison_over_seeds() -> None:
    shown = view.section({0: results(), 1: results()})
    assert isinstance(shown[0], Styler) and isinstance(shown[1], HTML)
    frame = report.over_seeds({0: results(), 1: results()})
    assert set(frame["seeds"]) == {2} and {"net_change_pp_mean", "diff_vs_original_pp_se"} <= set(frame.columns)


def test_a_run_without_the_arm_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    shown = view.section({0: results(with_arm=False)})
    assert isinstance(shown[0], Markdown) and "no oracle-repaired arm" in str(shown[0].data)
    assert report.over_seeds({0: results(with_arm=False)}).empty
    show_arm("oracle", {0: results(with_arm=False)})  # by name, through the registry: what the notebook calls
    assert capsys.readouterr().out.splitlines() == [
        "<IPython.core.display.Markdown object>",
        "<IPython.core.display.HTML object>",
    ]


def test_the_part_is_read_typed_and_written_under_its_own_key() -> None:
    run = results()
    assert isinstance(run.part(ARM), OracleRepairResults) and present_arms(run) == [ARM]
    data = json.loads(run.model_dump_json())
    assert "arm_parts" not in data and data["oracle_repair"]["repaired_tests"][0]["feedback_id"] == "f1"
    assert Results.model_validate(data) == run  # an old results.json (the key at the top level) loads as before
    off = Results.model_validate({**data, "oracle_repair": None})
    assert not off.has(ARM) and present_arms(off) == []
    with pytest.raises(ValueError, match=r"no oracle arm; rerun with `refinement.oracle_repair: true`"):
        off.part(ARM)
