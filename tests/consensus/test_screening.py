"""Consensus screeners in the pipeline: a hand-worked known answer on real pair records, never the reference."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.checkpoints import log_lines
from tfr_helpers.analysis import load_results
from tfr_helpers.consensus.from_run import selection_by_coder
from tfr_helpers.consensus.rankers.builtin import selector_names
from tfr_helpers.consensus.screening import run_matrices
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import decode_records, encode_records
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.screening.registry import resolve_strategy
from tfr_helpers.records import PairEvaluation
from tfr_helpers.records import TestOutcome as Outcome

CORRECT = (
    "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n"
    "            if abs(a - b) < threshold:\n                return True\n    return False\n"
)
SCREENERS = ["consensus_codet_top", "consensus_b4", "consensus_dual_critic@0.5", "consensus_dawid_skene"]


@pytest.fixture
def generations(tmp_path: Path) -> Path:
    """HumanEval/0: the correct program twice and `return True` once; a right test and a wrong one."""
    d = tmp_path / "gen"
    d.mkdir()
    codes = [CORRECT, CORRECT, "    return True\n"]
    (d / "code.jsonl").write_text("".join(json.dumps({"task_id": "HumanEval/0", "completion": c}) + "\n" for c in codes))
    tests = [
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n",  # right: the correct program passes it
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == True\n",  # wrong: only `return True` passes it
    ]
    (d / "tests.jsonl").write_text("".join(json.dumps({"task_id": "HumanEval/0", "test": t}) + "\n" for t in tests))
    return d


@pytest.mark.slow
@pytest.mark.usefixtures("benchmark_data")
def test_consensus_screeners_accept_reliable_and_reject_unreliable_feedback(generations, tmp_path, monkeypatch):
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    params = {
        "run_name": "consensus",
        "benchmarks": ["humaneval"],
        "tasks": {"humaneval": ["HumanEval/0"]},
        "models": {"coders": [{"model": f"replay:{generations}", "code_samples": 3, "test_samples": 2}]},
        "ebts_per_task": 3,
        "pbts_per_task": 0,
        "screening": SCREENERS,
    }
    run_stages(config_from_dict(params), tmp_path / "run", progress=False)
    results = load_results(tmp_path / "run")
    reliable = {p.pair_id: p.reliability for p in results.pair_evaluations if p.feedback is not None}
    # samples 0 and 1 (correct) fail the wrong test: unreliable; sample 2 (`return True`) fails the right one
    assert sorted(reliable.values()) == ["reliable", "unreliable", "unreliable"]
    decisions = {(d.strategy, d.feedback_id): d.decision for d in results.screening}
    for name in SCREENERS:
        # CodeT: {correct} scores 1 * sqrt(2) > {return True} 1 * 1, and the top level passes only the right test;
        # B4's best candidate y is the right test alone; dual-critic t -> (1, 0); Dawid-Skene alpha alike
        got = {fid: decisions[(name, fid)] for fid in reliable}
        assert got == {fid: "accept" if r == "reliable" else "reject" for fid, r in reliable.items()}, name
    # each decision states its score (higher: more likely unreliable) as a typed field, and none abstains here
    typed = {(d.strategy, d.feedback_id): d for d in results.screening}
    for name in SCREENERS:
        got = [typed[(name, fid)] for fid in reliable]
        assert all(d.score is not None and 0 <= d.score <= 1 and not d.abstained for d in got), name
        on_reliable = [typed[(name, fid)].score for fid, r in reliable.items() if r == "reliable"]
        on_unreliable = [typed[(name, fid)].score for fid, r in reliable.items() if r == "unreliable"]
        assert max(on_reliable) < min(on_unreliable), name  # type: ignore[type-var]
    # RQ3 scores them beside the other strategies on the same feedback: each is a perfect classifier here
    from tfr_helpers.analysis.rq3 import screening_and_downstream

    rq3 = screening_and_downstream(results, n_resamples=50).set_index("strategy")
    for name in SCREENERS:
        assert rq3.loc[name, "decisions"] == 3 and rq3.loc[name, "accuracy_pct"] == 100.0, name
        assert rq3.loc[name, "auroc_pct"] == 100.0, name  # from the typed scores
    assert rq3.loc["accept_all", "accuracy_pct"] == pytest.approx(100 / 3, abs=0.1)
    # the same run's records as a selection: CodeT's top level is the correct program (2 of 3 samples)
    [(coder, report)] = selection_by_coder(results, ["codet", "mbr_exec_hard"]).items()
    assert coder == f"replay:{generations}" and report.tasks == 1
    assert report.row("codet").pass_at[1] == pytest.approx(1.0)
    assert report.row("random").pass_at[1] == pytest.approx(2 / 3)
    # `all` leaves out the output-based strategies: run records hold pass/fail, not outputs
    every = selection_by_coder(results)[coder]
    assert {r.strategy for r in every.rows} == {*selector_names(), "random"} - {"mbr_outputs_hard", "mbr_outputs_soft"}


@pytest.mark.slow
@pytest.mark.usefixtures("benchmark_data")
def test_the_matrix_never_reads_the_reference(generations, tmp_path, monkeypatch):
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    params = {
        "benchmarks": ["humaneval"],
        "tasks": {"humaneval": ["HumanEval/0"]},
        "models": {"coders": [{"model": f"replay:{generations}", "code_samples": 3, "test_samples": 2}]},
        "pbts_per_task": 0,
        "screening": ["accept_all"],
    }
    config = config_from_dict(params)
    run_stages(config, tmp_path / "run", stages=["generate_codes", "generate_tests", "evaluate_code_test_pairs"])
    forged = tmp_path / "forged"
    shutil.copytree(tmp_path / "run", forged)
    path = forged / "checkpoints" / "test_execution_feedback.jsonl"
    lines = []
    for line in log_lines(path):  # a finished run's checkpoint is compressed: the plain one written below wins
        entry = json.loads(line)
        flipped = [
            r.model_copy(update={"reference": Outcome(name="x", status="crashed"), "case": "fail_fail"})
            if isinstance(r, PairEvaluation)
            else r
            for r in decode_records(entry["data"])
        ]
        lines.append(json.dumps({"key": entry["key"], "data": encode_records(flipped)}))
    path.write_text("\n".join(lines) + "\n")
    unit = {(f"replay:{generations}", "HumanEval/0")}
    original = run_matrices(RunContext(config, RunStore(tmp_path / "run"), {}), unit)
    assert run_matrices(RunContext(config, RunStore(forged), {}), unit) == original
    m = next(iter(original.values())).matrix
    assert m.passes == ["10", "01"] and [len(s) for s in m.program_samples] == [2, 1]


def test_threshold_names_resolve_and_bad_ones_are_clear():
    assert resolve_strategy("consensus_dawid_skene@0.7") is resolve_strategy("consensus_dawid_skene@0.7")
    with pytest.raises(ConfigError, match="threshold number"):
        resolve_strategy("consensus_b4@high")
