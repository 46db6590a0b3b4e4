"""Multi-round backprompting's notebook section (shown by name through the arms' registry), the shares over seeds
it shows, and what it adds to notebook 03c's recorded headline."""

from __future__ import annotations

import math

import matplotlib
import pandas as pd
import pytest
from IPython.display import HTML, Markdown
from matplotlib.figure import Figure

from tests.arms.rounds.test_rounds_report import CHAINS, _results
from tfr_helpers.analysis.seeds.section import SectionNumbers, headline_values
from tfr_helpers.arms.rounds import ARM, report, view
from tfr_helpers.views import show_arm

matplotlib.use("Agg")


def _without_rounds() -> object:
    return _results().model_copy(update={"arm_parts": {}})


def test_the_section_shows_pass_at_1_then_the_shares_over_seeds_as_a_table_and_a_figure() -> None:
    shown = view.section({0: _results(), 1: _results([CHAINS[0]])})
    assert [type(item) for item in shown] == [Figure, HTML, Figure]
    assert shown[0].axes[0].get_title() == "Pass@1 per backprompting round"
    # pass@1 of the pooled rows: seed 0 [1/3, 2/3, 1/3, 0], seed 1 (one chain) [0, 1, 0, 0]; the line is their mean
    means = list(shown[0].axes[0].lines[0].get_ydata())
    assert means == pytest.approx([(100 / 3 + 0) / 2, (200 / 3 + 100) / 2, (100 / 3 + 0) / 2, 0.0])
    assert [ax.get_title() for ax in shown[2].axes] == ["Suite precision per round", "Collision per round"]


def test_the_shares_over_seeds_are_the_mean_and_se_of_each_seeds_per_round_share() -> None:
    frames = report.per_round_by_seed({0: _results(), 1: _results([CHAINS[0]]), 2: _without_rounds()})
    assert list(frames) == [0, 1]  # a seed without rounds adds no frame
    frame = report.rounds_over_seeds(frames).set_index("round")
    assert frame.loc[1, "pass_at_1_mean"] == pytest.approx((200 / 3 + 100) / 2) and frame.loc[1, "seeds"] == 2
    assert frame.loc[1, "pass_at_1_se"] == pytest.approx(abs(200 / 3 - 100) / 2)  # ddof 1 over two seeds
    one = report.rounds_over_seeds({0: frames[0]}).set_index("round")
    assert math.isnan(one.loc[1, "pass_at_1_se"])  # one seed: its own value, SE undefined
    assert report.rounds_over_seeds({}).empty


def test_a_study_with_one_round_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    shown = view.section({0: _without_rounds()})
    assert len(shown) == 1 and isinstance(shown[0], Markdown) and "one round only" in str(shown[0].data)
    show_arm("rounds", {0: _without_rounds()})  # by name, through the registry: what notebook 03c calls
    assert capsys.readouterr().out.splitlines() == ["<IPython.core.display.Markdown object>"]


def _numbers(results: object, last: int) -> SectionNumbers:
    headline = pd.DataFrame(
        [
            {"model": "sim:default", "number": "code_pass_at_1", "mean": 40.0, "se": 2.5},
            {"model": "sim:default", "number": f"pass_at_1_round:{last}", "mean": 55.0, "se": math.nan},
            {"model": "sim:default", "number": "pass_at_1_round:1", "mean": 50.0, "se": 1.0},
        ]
    )
    return SectionNumbers({0: results}, headline)  # type: ignore[dict-item]


def test_the_recorded_headline_takes_the_rounds_and_pass_at_1_after_the_last_round_from_the_arm() -> None:
    values = headline_values(_numbers(_results(), 3))
    assert values == {
        "simulated": True,
        "seeds": [0],
        "rounds": 3,
        "oracle_repair": False,
        "sim:default code pass@1": "40.0 +- 2.5",
        "sim:default pass@1 after round 3": "55.0 +- --",
    }
    assert list(values)[:4] == ["simulated", "seeds", "rounds", "oracle_repair"]  # the arms in the registry's order
    assert report.section_headline(_results()) == ({ARM.field: 3}, {"pass_at_1_round:3": "pass@1 after round 3"})


def test_without_rounds_the_headline_records_one_round_and_no_round_number() -> None:
    numbers = _numbers(_without_rounds(), 0)
    base = numbers.headline[numbers.headline["number"] == "code_pass_at_1"]  # a run without rounds has no round rows
    values = headline_values(SectionNumbers(numbers.results, base))
    assert values["rounds"] == 1 and values["sim:default code pass@1"] == "40.0 +- 2.5"
    assert not any("after round" in key for key in values)
