"""The learned screener never reads the reference: a corrupted reference changes no feature and no decision."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.checkpoints import log_lines
from tfr_helpers.benchmarks import get_task
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import decode_records, encode_records
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.stages.screen_feedback import screen_jobs
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation
from tfr_helpers.records import TestOutcome as Outcome
from tfr_helpers.screener.artefact import Linear, artefact_json, load_artefact, save_artefact
from tfr_helpers.screener.dataset import checkpoint_records
from tfr_helpers.screener.features import FEATURES, extract
from tfr_helpers.screener.strategy import PROVENANCE_FILE, SIMULATED_NOTE, decide
from tfr_helpers.screener.view import views_from_context

CORRECT = (
    "    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n"
    "            if abs(a - b) < threshold:\n                return True\n    return False\n"
)


@pytest.fixture
def generations(tmp_path: Path) -> Path:
    """HumanEval/0: the correct program twice and `return True` once; a right test, a wrong one, a broken one."""
    d = tmp_path / "gen"
    d.mkdir()
    codes = [CORRECT, CORRECT, "    return True\n"]
    (d / "code.jsonl").write_text("".join(json.dumps({"task_id": "HumanEval/0", "completion": c}) + "\n" for c in codes))
    tests = [
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n",
        "assert has_close_elements([1.0, 2.0, 3.0], 0.5) == True\n",
        "assert has_close_elements([1.0, 2.0], 0.5) == ____\n",
    ]
    (d / "tests.jsonl").write_text("".join(json.dumps({"task_id": "HumanEval/0", "test": t}) + "\n" for t in tests))
    return d


def _items(ctx: RunContext) -> list:
    store = ctx.store
    codes = checkpoint_records(store, "generated_codes", GeneratedCode)
    tests = checkpoint_records(store, "generated_tests", GeneratedTest)
    pairs = checkpoint_records(store, "test_execution_feedback", PairEvaluation)
    jobs = screen_jobs(ctx, codes, tests, pairs)  # one per (strategy, feedback): accept_all is always added
    return list({job.item.feedback.feedback_id: job.item for job in jobs}.values())


def _forge(run: Path, forged: Path) -> None:
    """A copy of the run whose reference outcomes, cases and labels are all flipped."""
    shutil.copytree(run, forged)
    path = forged / "checkpoints" / "test_execution_feedback.jsonl"
    lines = []
    for line in log_lines(path):  # a finished run's checkpoint is compressed: the plain one written below wins
        entry = json.loads(line)
        flipped = [
            r.model_copy(
                update={
                    "reference": Outcome(name="x", status="passed" if r.reference.status != "passed" else "crashed"),
                    "case": "fail_fail" if r.case == "fail_pass" else "fail_pass",
                    "reliability": "reliable" if r.reliability == "unreliable" else "unreliable",
                }
            )
            if isinstance(r, PairEvaluation) and r.feedback is not None
            else r
            for r in decode_records(entry["data"])
        ]
        lines.append(json.dumps({"key": entry["key"], "data": encode_records(flipped)}))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.slow
@pytest.mark.usefixtures("benchmark_data")
def test_features_and_decisions_ignore_a_corrupted_reference_and_repeat_exactly(generations, tmp_path, monkeypatch):
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    params = {
        "benchmarks": ["humaneval"],
        "tasks": {"humaneval": ["HumanEval/0"]},
        "models": {"coders": [{"model": f"replay:{generations}", "code_samples": 3, "test_samples": 3}]},
        "ebts_per_task": 3,
        "pbts_per_task": 0,
        "screening": ["learned_gold_free"],
    }
    config = config_from_dict(params)
    run_stages(config, tmp_path / "run", stages=["generate_codes", "generate_tests", "evaluate_code_test_pairs"])
    _forge(tmp_path / "run", tmp_path / "forged")
    task = get_task("HumanEval/0")
    broken = task.model_copy(update={"reference": "raise SystemExit(3)\n", "tests": "assert False\n"})
    honest = RunContext(config, RunStore(tmp_path / "run"), {task.task_id: task})
    corrupt = RunContext(config, RunStore(tmp_path / "forged"), {task.task_id: broken})
    rng = np.random.default_rng(0)
    coef = tuple(rng.normal(size=len(FEATURES)).tolist())
    zero = tuple(0.0 for _ in FEATURES)
    model = Linear(zero, tuple(1.0 for _ in FEATURES), coef, 0.0)
    body = artefact_json(FEATURES, model, 0.5, [model], {}, "test", {"items": 1, "sources": {}}, {})
    artefact = load_artefact(save_artefact(body, tmp_path / "a.json"))
    try:
        items, forged_items = _items(honest), _items(corrupt)
        assert len(items) == 6  # the correct code (x2) fails the wrong and the broken test, `return True` the other two
        run = lambda ctx: lambda jobs: ctx.run_programs(jobs)  # noqa: E731
        x = extract(views_from_context(items, honest), run(honest))
        assert np.array_equal(x, extract(views_from_context(forged_items, corrupt), run(corrupt)))
        example = FEATURES.index("prompt_example_pass_share")
        assert sorted(set(x[:, example].tolist())) == [0.5, 1.0]  # `return True` passes one of two examples
        share = FEATURES.index("sample_fail_share")
        assert sorted(x[:, share].tolist()) == pytest.approx([1 / 3, 2 / 3, 2 / 3, 1.0, 1.0, 1.0])
        first = decide(items, honest, artefact)
        assert decide(forged_items, corrupt, artefact) == first
        assert decide(items, honest, artefact) == first  # the same artefact and data: the same decisions
        assert json.loads((tmp_path / "run" / PROVENANCE_FILE).read_text())["sha256"] == artefact.sha256
        assert not any(SIMULATED_NOTE in (v.reasoning or "") for v in first)
        (demo,) = decide([dataclasses.replace(items[0], coder="sim:default")], honest, artefact)
        assert (demo.reasoning or "").endswith(SIMULATED_NOTE)  # a simulated row says it is a demo
    finally:
        honest.close()
        corrupt.close()
