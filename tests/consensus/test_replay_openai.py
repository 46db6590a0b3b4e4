"""replay_openai.yaml on the fake OpenAI server through the real openai SDK: the LLM judges and the consensus
screeners screen the same real feedback (CodeT's replayed samples), and RQ3 scores them side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.pipeline.study_server import openai_served
from tfr_helpers.analysis import load_results
from tfr_helpers.analysis.rq3 import screening_and_downstream
from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict

pytestmark = pytest.mark.slow
PARAMS = Path(__file__).resolve().parents[2] / "papermill_params" / "replay_openai.yaml"
CODET = "replay:codet-codegen16b-humaneval"


@pytest.mark.usefixtures("benchmark_data")
def test_replay_openai_judges_and_consensus_screen_the_same_real_feedback(
    shared_replay: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TFR_REPLAY_DIR", str(shared_replay))
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TFR_REPLAY_MIRROR", raising=False)
    data = yaml.safe_load(PARAMS.read_text())
    screeners = [s for s in data["screening"] if s.startswith(("llm_judge", "consensus_"))]
    assert {"llm_judge", "llm_judge_reasoning", "consensus_codet_top", "consensus_b4"} <= set(screeners)
    data["tasks"] = 2  # the file's 20 tasks shrunk for the test; everything else as shipped
    tasks = load_tasks("humaneval")[:2]
    with openai_served(data, tasks, monkeypatch) as srv:
        run_stages(config_from_dict(data), tmp_path / "run", progress=False)
        models = {r.body.get("model") for r in srv.requests}
    assert models == {"gpt-5-mini"}  # the judge and refiner calls went to the provider, none to a simulator
    results = load_results(tmp_path / "run")
    assert not results.simulated
    feedback = {p.feedback.feedback_id for p in results.pair_evaluations if p.model == CODET and p.feedback is not None}
    assert feedback
    for name in screeners:  # every screener decided on every feedback of CodeT's samples
        assert feedback <= {d.feedback_id for d in results.screening if d.strategy == name}, name
    rq3 = screening_and_downstream(results, n_resamples=50)
    mine = rq3[rq3["model"] == CODET].set_index("strategy")
    assert set(screeners) <= set(mine.index) and (mine.loc[screeners, "decisions"] == len(feedback)).all()
    assert mine.loc[screeners, "attempts"].gt(0).any()  # a real refiner ran: downstream numbers exist
