"""A dataset of HumanEval generations serves HumanEval+ (EvalPlus keeps HumanEval's tasks under ``HumanEval+/<n>``)."""

from __future__ import annotations

import pytest

from tfr_helpers.pipeline.config.coders import default_benchmarks
from tfr_helpers.replay import load_replay

CODET = "codet-codegen16b-humaneval"


@pytest.mark.usefixtures("replay_env")
def test_a_humaneval_dataset_serves_the_same_task_under_its_humaneval_plus_id() -> None:
    dataset = load_replay(CODET)
    assert dataset.task("HumanEval+/0") is dataset.tasks["HumanEval/0"] is dataset.task("HumanEval/0")
    assert dataset.task("HumanEval+/100000") is None and dataset.task("Mbpp/2") is None
    assert dataset.task("no-prefix/1") is None


def test_a_registered_humaneval_dataset_defaults_to_the_benchmarks_keeping_its_tasks() -> None:
    served = default_benchmarks(f"replay:{CODET}")
    assert served is not None and served[0] == "humaneval" and "humaneval_plus" in served
    assert "mbpp_plus" not in served and default_benchmarks("openai:gpt-5-mini") is None
