"""The replay provider: registered, real (not simulated), free, and read back exactly by the pipeline's parsers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import get_task
from tfr_helpers.errors import ConfigError
from tfr_helpers.models import ModelClient, ModelSettings, parse_code, parse_tests
from tfr_helpers.models.base import ModelRequest, ModelSpec, SamplingParams
from tfr_helpers.models.provider_builder import make_provider
from tfr_helpers.models.provider_table import is_simulated, known_providers
from tfr_helpers.replay import load_replay
from tfr_helpers.replay.provider import ReplayProvider

CODET = "codet-codegen16b-humaneval"
FIXTURE = Path(__file__).parent / "data" / "import3"
ROLES = {"codegen": "coder", "ebt": "tester", "pbt": "tester", "refine": "refiner", "judge": "judge"}


def _request(template: str, task_id: str | None, index: int = 0) -> ModelRequest:
    return ModelRequest(
        messages=(),
        role=ROLES[template],  # type: ignore[arg-type]
        template=template,
        template_version="1",
        sample_index=index,
        task=get_task(task_id).view() if task_id else None,
    )


def _ask(spec: str, requests: list[ModelRequest]) -> list[str]:
    provider = ReplayProvider()

    async def run() -> list[str]:
        replies = await asyncio.gather(*(provider.generate(ModelSpec.parse(spec), r, SamplingParams()) for r in requests))
        return [r.text for r in replies]

    return asyncio.run(run())


def test_replay_is_a_registered_real_provider() -> None:
    assert "replay" in known_providers()
    assert not is_simulated(f"replay:{CODET}")
    provider = make_provider("replay", ModelSettings())
    assert isinstance(provider, ReplayProvider) and provider.replayed and not provider.simulated
    assert ModelSpec.parse("replay:tests/replay/data/import3").name == "tests/replay/data/import3"


def test_tests_of_the_first_20_codet_tasks_round_trip_exactly(replay_env: Path) -> None:
    dataset = load_replay(CODET)
    tasks = list(dataset.tasks.values())[:20]
    assert [t.task_id for t in tasks] == [f"HumanEval/{i}" for i in range(20)]
    requests = [_request("ebt", t.task_id, i) for t in tasks for i in range(len(t.test_samples))]
    replies = _ask(f"replay:{CODET}", requests)
    samples = [(t, s) for t in tasks for s in t.test_samples]
    assert len(replies) == len(samples) == 2000
    n_tests = 0
    for (task, sample), text in zip(samples, replies, strict=True):
        parsed = parse_tests(text, "ebt", task.entry_point)
        assert all(t.compiles for t in sample.tests)
        assert [(p.name, p.source) for p in parsed.tests] == [(t.name, t.source) for t in sample.tests]
        assert (parsed.error is None) == bool(sample.tests)
        n_tests += len(parsed.tests)
    assert n_tests == sum(len(s.tests) for _, s in samples) > 500


def test_code_of_the_first_20_codet_tasks_round_trips(replay_env: Path) -> None:
    tasks = list(load_replay(CODET).tasks.values())[:20]
    requests = [_request("codegen", t.task_id, i) for t in tasks for i in range(100)]
    replies = _ask(f"replay:{CODET}", requests)
    codes = [(t, c) for t in tasks for c in t.code_samples]
    for (task, code), text in zip(codes, replies, strict=True):
        parsed = parse_code(text, task.entry_point)
        assert f"Code sample {code.index} of {task.task_id} replayed from {CODET}" in text
        if code.compiles:  # the parser normalises line ends and whitespace-only lines, nothing else
            lines = code.program.replace("\r\n", "\n").split("\n")
            assert parsed.code == "\n".join(line if line.strip() else "" for line in lines).strip() + "\n"
        else:  # shown as text: the parser finds no code, it does not salvage a compiling part
            assert code.program.rstrip("\n") in text and parsed.code is None, (task.task_id, code.index)
    assert 0 < sum(not c.compiles for _, c in codes) < len(codes)


def test_a_test_that_cannot_be_a_function_is_left_out_and_named(replay_env: Path) -> None:
    task = load_replay(CODET).tasks["HumanEval/106"]
    [sample] = [s for s in task.test_samples if any(not t.compiles for t in s.tests)]
    [bad] = [t for t in sample.tests if not t.compiles]
    assert "import *" in bad.text
    [text] = _ask(f"replay:{CODET}", [_request("ebt", "HumanEval/106", sample.index)])
    assert f"left out, they do not compile as test functions: {bad.name}" in text
    parsed = parse_tests(text, "ebt", task.entry_point)
    assert [p.source for p in parsed.tests] == [t.source for t in sample.tests if t.compiles]


def test_the_client_records_a_free_real_call(replay_env: Path, tmp_path: Path) -> None:
    settings = ModelSettings(cache_dir=tmp_path / "cache")
    with ModelClient(settings, run_dir=tmp_path / "run") as client:
        reply = client.call(f"replay:{CODET}", _request("codegen", "HumanEval/3", 7), stage="generate_codes")
    program = load_replay(CODET).tasks["HumanEval/3"].code_samples[7].program
    assert reply.text is not None and f"```python\n{program.rstrip()}\n```" in reply.text
    assert reply.record.error is None and reply.record.usage.cost_usd == 0 and reply.record.usage.input_tokens == 0
    [entry] = [json.loads(line) for line in (tmp_path / "run" / "calls" / "generate_codes.jsonl").open()]
    assert entry["response"]["replayed"] is True and entry["response"]["real"] is True
    assert entry["response"]["model"] == "CodeGen-Mono-16B" and "microsoft/CodeT" in entry["response"]["source"]
    assert entry["request"] == {"replay": CODET, "task_id": "HumanEval/3", "template": "codegen", "sample_index": 7}


@pytest.mark.parametrize("template", ["refine", "judge"])
def test_refiner_and_judge_roles_are_config_errors(template: str) -> None:
    with pytest.raises(ConfigError, match=f"cannot serve the {ROLES[template]} role.*name another provider"):
        _ask(f"replay:{FIXTURE}", [_request(template, "HumanEval/0")])


def test_a_request_without_a_task_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="only pipeline requests that carry a task"):
        _ask(f"replay:{FIXTURE}", [_request("codegen", None)])


def test_missing_task_sample_or_kind_is_a_recorded_replay_gap(tmp_path: Path) -> None:
    spec = f"replay:{FIXTURE}"
    asks = [("codegen", "HumanEval/1", 0), ("codegen", "HumanEval/2", 1), ("pbt", "HumanEval/0", 0)]
    with ModelClient(ModelSettings(cache_dir=tmp_path / "cache"), run_dir=tmp_path / "run") as client:
        replies = client.call_many([(spec, _request(t, i, n)) for t, i, n in asks], stage="s", progress=False)
    assert [r.text for r in replies] == [None, None, None]
    assert [r.record.error for r in replies] == [
        "ReplayGap: replay dataset import3 has no task HumanEval/1",
        "ReplayGap: replay dataset import3 has 1 code samples for HumanEval/2, no #1",
        "ReplayGap: replay dataset import3 has 0 pbt test samples for HumanEval/0, no #0",
    ]


def test_imported_pbt_sample_reads_back_exactly() -> None:
    task = load_replay(str(FIXTURE)).tasks["HumanEval/4"]
    [text] = _ask(f"replay:{FIXTURE}", [_request("pbt", "HumanEval/4")])
    parsed = parse_tests(text, "pbt", "mean_absolute_deviation")
    assert [(p.name, p.source) for p in parsed.tests] == [(t.name, t.source) for t in task.samples_of_kind("pbt")[0].tests]
    assert "real generations by hand-written fixture" in text


def test_replayed_replies_skip_the_cache_and_the_price_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    spec = f"replay:{FIXTURE}"
    settings = ModelSettings(cache_dir=tmp_path / "cache")
    with caplog.at_level("WARNING"), ModelClient(settings, run_dir=tmp_path / "run") as client:
        first = client.call(spec, _request("codegen", "HumanEval/0", 1), stage="generate_codes")
        again = client.call(spec, _request("codegen", "HumanEval/0", 1), stage="generate_codes")
    assert first.text == again.text and "return False" in (first.text or "")
    assert not first.record.cached and not again.record.cached
    assert not any((tmp_path / "cache").rglob("*.json*")), "a replayed reply was written to the response cache"
    assert "no price" not in caplog.text
