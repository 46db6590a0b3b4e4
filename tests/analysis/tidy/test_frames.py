"""Tidy frames: one row per unit, declared columns, undecided counted as reject."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.synthetic import make_synthetic_run
from tfr_helpers.analysis import load_results, pairs_frame, refinements_frame, screening_frame
from tfr_helpers.analysis.tidy.frames import PAIR_COLUMNS, REFINEMENT_COLUMNS, SCREENING_COLUMNS
from tfr_helpers.errors import RunDirError


def test_frames_have_one_row_per_record(tmp_path: Path) -> None:
    res = load_results(make_synthetic_run(tmp_path, n_tasks=6))
    pairs, refs, scr = pairs_frame(res), refinements_frame(res), screening_frame(res)
    assert list(pairs.columns) == PAIR_COLUMNS and len(pairs) == len(res.pair_evaluations)
    assert list(refs.columns) == REFINEMENT_COLUMNS and len(refs) == len(res.refined_evaluations)
    assert list(scr.columns) == SCREENING_COLUMNS and len(scr) == len(res.screening)
    assert int(pairs["feedback"].sum()) == len(refs)
    undecided = scr[scr["decision"] == "undecided"]
    assert len(undecided) > 0 and not undecided["accepted"].any()
    no_code = refs[refs["transition"] == "no_code"]
    assert (no_code["generated_test_after"] == "no_code").all() and no_code["benchmark_after"].isna().all()


def test_load_results_names_the_fix_for_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RunDirError, match="results.json.gz is missing"):
        load_results(tmp_path)
    with pytest.raises(RunDirError, match="does not exist"):
        load_results(tmp_path / "nope")


def test_load_results_rejects_an_invalid_file(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text('{"version": 1}')
    with pytest.raises(RunDirError, match="not a valid results file"):
        load_results(tmp_path)
    (tmp_path / "results.json").write_text("{not json")
    with pytest.raises(RunDirError, match="not a valid results file|not valid JSON"):
        load_results(tmp_path)


def test_the_pairs_frame_is_built_once_per_results_and_each_caller_gets_its_own_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfr_helpers.analysis.tidy import frames

    res = load_results(make_synthetic_run(tmp_path, n_tasks=4))
    built: list[int] = []
    real = frames._pairs_frame
    monkeypatch.setattr(frames, "_pairs_frame", lambda r: built.append(1) or real(r))
    first = pairs_frame(res)
    first["case"] = "changed by a caller"
    second = pairs_frame(res)
    assert len(built) == 1 and (second["case"] != "changed by a caller").all()
    fewer = res.model_copy(update={"pair_evaluations": res.pair_evaluations[:-1]})  # other results: built again
    assert len(pairs_frame(fewer)) == len(res.pair_evaluations) - 1 and len(built) == 2
