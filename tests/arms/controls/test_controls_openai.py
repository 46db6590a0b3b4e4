"""controls_openai.yaml on the fake OpenAI server through the real openai SDK: each control's requests hold exactly
what docs/controls.md says, and each control asks once per refined feedback instance."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.pipeline.conftest import pipeline_env  # noqa: F401  (the fixture, outside tests/pipeline/)
from tests.pipeline.study_server import openai_served
from tfr_helpers.analysis import load_results
from tfr_helpers.arms.controls import ARM
from tfr_helpers.arms.controls.stages.requests import placebo_feedback
from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.evalplus import expected_outputs
from tfr_helpers.models.jobs import task_variables
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.prompts import render_prompt

pytestmark = pytest.mark.slow
PARAMS = Path(__file__).resolve().parents[3] / "papermill_params" / "controls_openai.yaml"
REFINE_SYSTEM = "fixes code using test feedback"
RETRY_SYSTEM = "reviews and fixes code"
CODEGEN_SYSTEM = "You write correct, self-contained Python 3 code."


def _kind(body: dict[str, Any]) -> str:
    """Which template a request was rendered from: ``refine``/``placebo`` share a system prompt (told apart by the
    placebo's filler), ``retry`` and ``codegen`` (a resample: the coders are replayed, so no other codegen is sent)."""
    system = next(m["content"] for m in body["messages"] if m["role"] == "system")
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if REFINE_SYSTEM in system:
        return "placebo" if "lorem ipsum" in user else "refine"
    if RETRY_SYSTEM in system:
        return "retry"
    assert CODEGEN_SYSTEM in system, system
    return "resample"


def _lines(text: str) -> set[str]:
    """The feedback's informative lines (test source and failure; fences and short lines left out)."""
    return {ln.strip() for ln in text.splitlines() if len(ln.strip()) >= 12 and not ln.strip().startswith("```")}


@pytest.mark.usefixtures("pipeline_env")
def test_each_control_asks_what_the_doc_says_once_per_refined_instance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = Path(os.environ.get("TFR_REPLAY_DIR", "replay-files-not-set"))
    if not (replay / "codet" / "HumanEval_for_code_generation.jsonl").is_file():
        pytest.fail(f"replay files not found in {replay}; set TFR_REPLAY_DIR")
    monkeypatch.setenv("TFR_REPLAY_DIR", str(replay))
    monkeypatch.delenv("TFR_REPLAY_MIRROR", raising=False)
    data = yaml.safe_load(PARAMS.read_text())
    assert data["refinement"]["controls"] == ["resample", "retry", "placebo"] and data["benchmarks"] == ["humaneval_plus"]
    data["tasks"] = 3  # the file's 164 tasks shrunk for the test; everything else as shipped
    tasks = load_tasks("humaneval_plus")[:3]
    # the three tasks' expected outputs first: the study's first benchmark test would compute all 164 tasks' (the
    # reference on every HumanEval+ input, about 50 s), which this test of the requests does not read
    expected_outputs("humaneval_plus", task_ids={t.task_id for t in tasks})
    with openai_served(data, tasks, monkeypatch) as srv:
        run_stages(config_from_dict(data), tmp_path / "run", progress=False)
        bodies = [r.body for r in srv.requests]
    assert {b.get("model") for b in bodies} == {"gpt-5-mini"}  # every call went to the refiner, through the SDK
    results = load_results(tmp_path / "run")
    assert results.has(ARM) and not results.simulated
    instances = {r.feedback_id for r in results.refinements}
    assert instances, "the replayed code failed no test: nothing was refined"
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for body in bodies:
        by_kind.setdefault(_kind(body), []).append(body)
    for control in ("resample", "retry", "placebo"):  # once per refined instance, on exactly the feedback arm's
        assert len(by_kind[control]) == len(instances), control
        mine = {r.feedback_id for r in results.part(ARM).refinements if r.control == control}
        assert mine == instances, control
    feedback = [p.feedback.text for p in results.pair_evaluations if p.feedback is not None]
    informative = set().union(*(_lines(t) for t in feedback))
    assert informative
    for control in ("retry", "placebo"):  # no test, no failure text
        for body in by_kind[control]:
            prompt = "\n".join(m["content"] for m in body["messages"])
            leaked = [ln for ln in informative if ln in prompt]
            assert not leaked, (control, leaked[:3])
            assert "Traceback" not in prompt and "def test_" not in prompt and "Error" not in prompt
    placebo_prompts = {"\n".join(m["content"] for m in b["messages"]) for b in by_kind["placebo"]}
    assert all("It failed this test:" in p for p in placebo_prompts)  # the feedback template's shape is kept
    retry_prompts = ["\n".join(m["content"] for m in b["messages"]) for b in by_kind["retry"]]
    assert all("Check that the implementation solves the task" in p for p in retry_prompts)
    own = {tuple((m.role, m.content) for m in render_prompt("codegen", **task_variables(t))) for t in tasks}
    for body in by_kind["resample"]:  # the coder's own prompt, to the letter
        assert tuple((m["role"], m["content"]) for m in body["messages"]) in own


def test_the_placebo_keeps_the_shape_and_drops_every_word() -> None:
    text = "```python\ndef test_f():\n    assert f(3) == 9\n```\n\n"
    text += "The test failed (assertion failed): AssertionError\nExpected: 9"
    placebo = placebo_feedback(text)
    assert [len(a) for a in text.split("\n")] == [len(b) for b in placebo.split("\n")]
    assert placebo.split("\n")[0] == "```python" and placebo.split("\n")[4] == ""
    words = {w for w in text.replace("(", " ").replace(")", " ").split() if len(w) > 2 and not w.startswith("```")}
    assert not any(w in placebo for w in words)
    assert placebo_feedback(text.replace("9", "7")) == placebo  # the same shape gives the same placebo: no content
