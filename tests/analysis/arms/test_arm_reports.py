"""An arm's report is one interface: the writers loop over ``analysis.arms.reports()`` and name no arm."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import arms, figures, headlines
from tfr_helpers.analysis import summary as summary_module
from tfr_helpers.analysis.answers import KINDS, AnswerKind
from tfr_helpers.analysis.arms import reports
from tfr_helpers.analysis.tables import HEADLINE_COLUMNS, headline_row
from tfr_helpers.analysis.writing import export
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.records import Results

WRITERS = (export, figures, headlines, summary_module)
ARM_NAMES = ("rounds", "oracle_repair", "controls", "trajectories")  # the registry's order


def test_every_arm_report_is_listed_once_with_the_whole_interface() -> None:
    assert tuple(r.NAME for r in reports()) == ARM_NAMES
    members = ("present", "tables", "summary_section", "figures")
    assert all(callable(getattr(r, m)) for r in reports() for m in members)
    # every arm's headline number is a registered kind with its rows and definitions
    assert all(KINDS[k.name] is k and k.numbers and k.definitions for r in reports() for k in r.HEADLINE_KINDS)


def test_the_writers_name_no_arm_module() -> None:
    for writer in WRITERS:
        source = Path(str(writer.__file__)).read_text(encoding="utf-8")
        named = re.findall(r"\b(oracle|rounds|controls|controls_report|trajectories|trajectories_report)\.\w", source)
        assert not named and "reports()" in source, (writer.__name__, named)


def _fake_arm() -> SimpleNamespace:
    """An arm present in every run, with one table, one section, one figure and one headline row."""

    def plot(results: Results, ax: Any = None) -> Any:
        ax.bar(["a"], [len(results.tasks)])
        return ax

    def rows(results: Results) -> list[dict[str, object]]:
        return [headline_row(results, "sim:default", "fake_share", 50.0, 40.0, 60.0, "95% bootstrap over tasks")]

    kind = AnswerKind("fake_numbers", "rq2", "a fake share", "tasks", numbers=rows, definitions={"fake_share": "A fake."})
    return SimpleNamespace(
        NAME="fake",
        HEADLINE_KINDS=(kind,),
        present=lambda results: True,
        tables=lambda results: {"fake_table": pd.DataFrame({"x": ["1"]}).style.set_caption("A fake arm.")},
        summary_section=lambda results: {"fake": {"tasks": len(results.tasks)}},
        figures=lambda results: {"fake_figure": (plot, (3.0, 2.0))},
    )


def test_an_arm_added_to_the_list_reaches_every_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = make_synthetic_run(tmp_path / "run", seed=3)
    fake = (*reports(), _fake_arm())
    for writer in WRITERS:
        monkeypatch.setattr(writer, "reports", lambda: fake)
    monkeypatch.setattr(arms, "reports", lambda: fake)
    out = export.analyze_run(run)
    assert out.tables["fake_table"].read_text(encoding="utf-8").count("\\begin{table}") == 1
    assert {p.name for p in out.figures} >= {"fake_figure.png", "fake_figure.pdf"}
    results = load_results(run)
    assert json.loads(out.summary.read_text(encoding="utf-8"))["fake"] == {"tasks": len(results.tasks)}
    frame = headlines.headline_numbers(results)
    assert list(frame.columns) == HEADLINE_COLUMNS
    assert frame[frame["number"] == "fake_share"][["value", "low", "high"]].values.tolist() == [[50.0, 40.0, 60.0]]
    assert headlines.definitions()["fake_share"] == "A fake."


def test_an_absent_arm_writes_nothing(tmp_path: Path) -> None:
    run = make_synthetic_run(tmp_path / "run", seed=3)
    results = load_results(run)
    assert not any(r.present(results) for r in reports())
    out = export.analyze_run(run)
    written = json.loads(out.summary.read_text(encoding="utf-8"))
    arm_tables = {"rounds_per_round", "rq2_oracle_repair", "rq2_controls", "rq2_trajectories"}
    assert not arm_tables & set(out.tables) and not set(ARM_NAMES) & set(written)
