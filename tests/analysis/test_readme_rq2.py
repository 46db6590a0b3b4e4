"""The README's Real RQ2 paragraph from a hand-made summary: every set counted, the range, the contrast."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "readme_headlines.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_headlines", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _head(dataset: str, model: str, k: int, n: int, judged_pct: float) -> dict[str, Any]:
    pct = round(100 * k / n, 1) if n else None
    return {
        "dataset": dataset,
        "model": model,
        "pass_fail_k": k,
        "pass_fail_n": n,
        "pass_fail_pct": pct,
        "judged_pct": judged_pct,
    }


def _summary(contrast: list[dict[str, Any]]) -> dict[str, Any]:
    heads = [
        _head("reflexion-gpt4-humaneval-2iters", "GPT-4", 9, 11, 100.0),
        _head("reflexion-o3mini-bcb-valtest-correct", "o3-mini", 0, 13, 37.5),
        _head("reflexion-o3mini-bcb-valtest-60", "o3-mini", 25, 62, 60.0),
        _head("reflexion-gpt4o-bcb", "GPT-4o", 0, 0, 12.0),
    ]
    return {"trajectories": {"headline": {"rows": heads}, "contrast": {"rows": contrast}}}


def test_the_paragraph_gives_the_range_over_every_set_and_the_contrast() -> None:
    both = {"dataset": "reflexion-o3mini-bcb-valtest-60", "model": "o3-mini", "status": "both sides", "unreliable_pct": 42.4}
    both |= {"unreliable_k": 25, "unreliable_n": 59, "reliable_pct": 0.0, "reliable_k": 0, "reliable_n": 3}
    text = " ".join(
        _script().rq2_paragraph(_summary([both, {"dataset": "reflexion-gpt4-humaneval-2iters", "status": "no"}])).split()
    )
    assert "all 4 replayed Reflexion runs, none left out" in text and "12.0-100.0% of a run's" in text
    assert "from **0.0%** (0/13) (o3-mini `valtest-correct`) to **81.8%** (9/11) (GPT-4 `humaneval-2iters`)" in text
    assert "GPT-4o `bcb`: no such step" in text
    assert "o3-mini `valtest-60` 25/59 vs 0/3" in text
    assert "61 of" not in text and "dose" not in text  # no dose sentence without the run's rq2_dose section


def test_a_run_with_a_dose_section_gets_its_sentence_and_a_run_without_sets_is_refused() -> None:
    script = _script()
    assert script.dose_response_sentence({"rq2_dose": {}}) is None  # an empty section: nothing to say
    dose = {
        "series": {"sets": ["reflexion-o3mini-bcb-valtest-60", "reflexion-o3mini-bcb-valtest-correct"]},
        "doses": {
            "rows": [
                {"test_list": "variable-60", "sets": "reflexion-o3mini-bcb-valtest-60", "valid_pct": 62.5},
                {"test_list": "correct", "sets": "reflexion-o3mini-bcb-valtest-correct", "valid_pct": 97.8},
                {"test_list": "curated", "sets": "reflexion-gpt4o-bcb-curated", "valid_pct": 82.1},
            ]
        },
        "dose_response": {
            "rows": [
                {"outcome": "ever_broken", "dose": "dose_task", "tasks": 87, "lists": 2, "scale": "log-odds"}
                | {"estimate": -0.307, "low": -0.392, "high": -0.221, "p_holm": 8.2e-12},
                {"outcome": "ever_broken", "dose": "dose_list", "tasks": 88, "lists": 2, "scale": "log-odds"}
                | {"estimate": -0.8, "low": -1.0, "high": -0.6, "p_holm": 1e-18},
            ]
        },
        "extremes": {"lists": ["correct", "variable-60"], "rows": []},
    }
    text = " ".join(script.dose_response_sentence({"rq2_dose": dose}).split())
    assert "`variable-60` 62.5%, `correct` 97.8%)" in text and "curated" not in text  # the series' lists only
    assert "passing code ever broken -0.307 log-odds [-0.392, -0.221], p 8.2e-12" in text and "-0.8" not in text
    assert "87 BigCodeBench tasks judged in each of 2 runs" in text
    assert "no contrast" in script.rq2_paragraph(_summary([]))
    with pytest.raises(SystemExit, match="trajectories"):
        script.rq2_paragraph({})
