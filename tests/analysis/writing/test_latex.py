"""Paper tables on hand-made frames: escaping, widths from Computer Modern's metrics, splits by column group."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tests.helpers.latex import overfull_boxes
from tfr_helpers.analysis.writing import latex


def test_every_special_character_is_escaped_for_any_font_encoding() -> None:
    assert latex.escape("Pass->Fail | passed") == r"Pass$\rightarrow$Fail $\mid$ passed"
    assert latex.escape("50% of a_b & c#1 {x} ~ ^") == (r"50\% of a\_b \& c\#1 \{x\} \textasciitilde{} \textasciicircum{}")
    assert latex.escape("p < 0.05 > q") == "p $<$ 0.05 $>$ q"
    assert latex.escape("[1.0, 2.0]") == "{[}1.0, 2.0]"  # never read as a length after a line break


def test_widths_are_computer_moderns_at_footnotesize() -> None:
    assert latex.width("0123456789") == pytest.approx(10 * 5.0 * latex.FONT_SCALE)  # a cmr digit is half an em
    assert latex.width("Pass->Fail") > latex.width("PassFail")


def test_a_cell_stacks_its_interval_and_p_value_under_its_value() -> None:
    assert latex.stacked("12 (3.4 [1.0, 5.6])") == ["12 (3.4", "[1.0, 5.6])"]
    assert latex.stacked("1.2 [-0.3, 2.5] p=0.123*") == ["1.2", "[-0.3, 2.5]", "p=0.123*"]
    assert latex.stacked("--") == ["--"]


def _wide() -> pd.DataFrame:
    cell = "1234 (56.7 [12.3, 89.0])"
    columns = pd.MultiIndex.from_tuples([(g, f"{g} measure {i}") for g in ("Counts", "Shares") for i in range(6)])
    index = pd.MultiIndex.from_tuples([("Model A", "strategy_one"), ("Model A", "strategy_two")], names=["Model", "S"])
    return pd.DataFrame([[cell] * 12, ["not run: no refiner"] * 6 + [cell] * 6], index=index, columns=columns)


def test_a_wide_table_splits_by_its_column_groups_and_every_part_fits(tmp_path: Path) -> None:
    frame = _wide()
    parts = latex.split(frame)
    assert [name for name, _ in parts] == ["Counts", "Shares"]
    assert all(latex.fits(layout.total) for _, layout in parts)
    tex = latex.tables(frame, "What it shows.", "tab:wide")
    assert r"\label{tab:wide-counts}" in tex and r"\label{tab:wide-shares}" in tex and "Part" not in tex
    assert "What it shows; here: Counts." in tex
    assert r"\multicolumn{6}{l}{not run: no refiner}" in tex  # a row saying one thing says it once
    assert r"\textit{Model A}" in tex  # the model heads its rows instead of taking a column
    (tmp_path / "wide.tex").write_text(tex)
    assert not overfull_boxes([tmp_path / "wide.tex"], tmp_path)


def test_a_group_too_wide_alone_is_split_by_its_columns_named_in_the_caption() -> None:
    cells = [f"{i}234 (56.7 [12.3, 89.0])" for i in range(12)]
    columns = pd.MultiIndex.from_tuples([("Measures", f"m{i}") for i in range(12)])
    frame = pd.DataFrame([cells], index=pd.Index(["x"], name="Row"), columns=columns)
    names = [name for name, _ in latex.split(frame)]
    assert len(names) >= 2 and all(n.startswith("Measures: m") for n in names)
