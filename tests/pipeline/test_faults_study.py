"""A wrong key and an outage leave items undone, never results; a rerun completes the study.

Every role runs through the real openai SDK against the fake OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.checkpoints import log_lines, log_paths
from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.models import credentials
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.faults import RunIncomplete
from tfr_helpers.results_file import has_results

from .conftest import results_json
from .study_server import RIGHT_KEY, WRONG_KEY, Responder, params, study_tasks

pytestmark = pytest.mark.slow

EXPECTED_REQUESTS = 14
"""5 codes + 5 EBT calls + 2 judge + 2 refine calls (two tasks get wrong code, hence test-fail feedback)."""
NOISE = {"usage", "retries"}
"""Fields that may differ between a run with faults and one without (besides timing)."""


def comparable(run_dir: Path) -> Any:
    """``results.json`` without timing, usage and retry fields."""

    def strip(data: Any) -> Any:
        if isinstance(data, dict):
            return {k: strip(v) for k, v in data.items() if k not in NOISE}
        if isinstance(data, list):
            return [strip(v) for v in data]
        return data

    return strip(results_json(run_dir))


@pytest.fixture(scope="module")
def env(shared_benchmarks: Path) -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
        mp.delenv("OPENAI_COMPATIBLE_BASE_URL", raising=False)
        mp.setattr(credentials, "_dotenv_loaded", True)
        yield mp


@pytest.fixture(scope="module")
def server(env: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(responder=Responder(study_tasks()), api_key=RIGHT_KEY) as srv:
        yield srv


def run(env: pytest.MonkeyPatch, server: FakeLLMServer, root: Path, name: str, key: str = RIGHT_KEY) -> Any:
    """One invocation of all stages in ``root/name`` with its own response cache."""
    env.setenv("OPENAI_COMPATIBLE_API_KEY", key)
    env.setenv("TFR_CACHE_DIR", str(root / f"cache-{name}"))
    return run_stages(config_from_dict(params(server.base_url)), root / name, progress=False)


@pytest.fixture(scope="module")
def baseline_run(env: pytest.MonkeyPatch, server: FakeLLMServer, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """An uninterrupted run with the right key: its root directory and summary."""
    root = tmp_path_factory.mktemp("baseline")
    start = len(server.requests)
    summary = run(env, server, root, "run")
    assert len(server.requests) - start == EXPECTED_REQUESTS
    assert summary.invocation_calls.sent == EXPECTED_REQUESTS and summary.invocation_calls.failed == 0
    return root, summary


@pytest.fixture(scope="module")
def baseline(baseline_run: Any) -> Any:
    """The uninterrupted run's results (timing, usage and retry fields aside)."""
    results = comparable(baseline_run[0] / "run")
    assert len(results["refinements"]) == 2 and len(results["screening"]) == 4  # the study is not trivial
    return results


def test_a_run_rebuilt_from_the_cache_keeps_the_original_usage_and_spends_nothing(env, server, baseline_run):
    root, original = baseline_run
    start = len(server.requests)
    env.setenv("OPENAI_COMPATIBLE_API_KEY", RIGHT_KEY)
    env.setenv("TFR_CACHE_DIR", str(root / "cache-run"))  # the baseline's cache, a new run directory
    rebuilt = run_stages(config_from_dict(params(server.base_url)), root / "rebuilt", progress=False)
    assert len(server.requests) == start  # nothing reached the server
    calls = rebuilt.invocation_calls
    assert (calls.sent, calls.cached, calls.failed, calls.spent_usd) == (0, EXPECTED_REQUESTS, 0, 0.0)
    assert original.cost_usd > 0 and original.input_tokens > 0
    assert (rebuilt.calls, rebuilt.input_tokens, rebuilt.output_tokens, rebuilt.cost_usd) == (
        original.calls,
        original.input_tokens,
        original.output_tokens,
        original.cost_usd,
    )
    line = next(x for x in rebuilt.lines() if x.startswith("this invocation"))
    assert f"0 sent (0 failed, 0 retries), {EXPECTED_REQUESTS} from the cache, $0.0000 spent" in line


def test_wrong_key_stops_at_once_and_a_rerun_with_the_right_key_completes(env, server, baseline, tmp_path):
    start = len(server.requests)
    with pytest.raises(RunIncomplete) as info:
        run(env, server, tmp_path, "run", key=WRONG_KEY)
    sent = server.requests[start:]
    assert 1 <= len(sent) <= 2 and all(r.headers["authorization"] == f"Bearer {WRONG_KEY}" for r in sent)
    message = str(info.value)
    assert "OPENAI_COMPATIBLE_API_KEY" in message and "openai-compatible:fake-coder" in message
    assert "Incorrect API key provided" in message and "rerun" in message and WRONG_KEY not in message
    assert not has_results(tmp_path / "run")
    checkpoint = tmp_path / "run" / "checkpoints" / "generated_codes.jsonl"
    assert log_lines(checkpoint) == []  # the failed calls are not results
    logged = [json.loads(x) for x in log_lines(tmp_path / "run" / "calls" / "generate_codes.jsonl")]
    assert len(logged) == len(sent) and all(e["error"].startswith("AuthError") for e in logged)
    assert WRONG_KEY not in "".join(p.read_text() for p in (tmp_path / "run").rglob("*") if p.is_file())

    start = len(server.requests)
    summary = run(env, server, tmp_path, "run", key=RIGHT_KEY)
    assert len(server.answered[start:]) == EXPECTED_REQUESTS  # every item calls the server
    assert summary.invocation_calls.sent == EXPECTED_REQUESTS and summary.invocation_calls.cached == 0
    assert comparable(tmp_path / "run") == baseline


# requests in order (one call at a time): codes 1-5, EBTs 6-10, judge 11-12, refinements 13-14
@pytest.mark.parametrize(
    "after,count",
    [
        (EXPECTED_REQUESTS // 3, 2 * (EXPECTED_REQUESTS // 3)),  # the middle third (each failed call tries twice)
        (10, 4),  # both attempts of both judge calls (they interleave): screening undone, refinements wait
    ],
    ids=["middle-third", "judge-call"],
)
def test_outage_leaves_named_items_undone_and_a_rerun_completes(env, server, baseline, tmp_path, after, count):
    server.schedule_outage(after=after, count=count)
    try:
        with pytest.raises(RunIncomplete) as info:
            run(env, server, tmp_path, "run")
    finally:
        server.schedule_outage(0, 0)
    ledger = info.value.ledger
    assert ledger is not None and ledger.count >= 1 and ledger.stop is None
    failed = [
        json.loads(line)
        for path in log_paths(tmp_path / "run" / "calls", "*.jsonl")
        for line in log_lines(path)
        if json.loads(line)["error"]
    ]
    assert len(failed) == ledger.count and all(e["error"].startswith("ProviderUnavailable") for e in failed)
    undone = [key for keys in ledger.undone.values() for key in keys]
    message = str(info.value)
    assert f"{ledger.count} item(s) are left undone" in message and undone[0] in message
    assert "connection" in message.lower() and "rerun" in message
    assert not has_results(tmp_path / "run")
    summary = info.value.summary
    assert summary is not None and summary.invocation_calls.failed == ledger.count
    # every refused request was either a failed call's attempt (2 each) or an attempt retried successfully
    assert summary.invocation_calls.retries + ledger.count == count
    assert summary.undone == ledger.counts() and any(x.startswith("undone: ") for x in summary.lines())
    if after == 10:
        assert list(ledger.undone) == ["screen_feedback"] and ledger.blocked == {"refine_codes": 2}
    first = summary.invocation_calls

    summary = run(env, server, tmp_path, "run")
    # nothing answered is asked again, everything else is: the two runs together answer each call once
    assert summary.invocation_calls.failed == 0
    assert summary.invocation_calls.sent == EXPECTED_REQUESTS - (first.sent - first.failed)
    # the run's call log keeps the failed attempts of the first invocation: the money spent on both is counted
    everything = summary.run_calls
    assert (everything.sent, everything.failed) == (first.sent + summary.invocation_calls.sent, first.failed)
    assert everything.retries == first.retries + summary.invocation_calls.retries
    assert any(line.startswith("all invocations (calls/): ") for line in summary.lines())
    assert comparable(tmp_path / "run") == baseline


def test_truncated_reply_is_a_result_recorded_as_truncated(env, server, tmp_path):
    from tests.helpers.fake_llm_server import Action
    from tfr_helpers.pipeline.engine.store import RunStore
    from tfr_helpers.records import GeneratedCode

    server.push(Action("ok", text="Let me think about this step by step. First, we", finish="length"))
    run_root = tmp_path
    env.setenv("OPENAI_COMPATIBLE_API_KEY", RIGHT_KEY)
    env.setenv("TFR_CACHE_DIR", str(run_root / "cache"))
    run_stages(config_from_dict(params(server.base_url)), run_root / "run", "generate_codes", progress=False)
    entries = RunStore(run_root / "run").read_checkpoint("generated_codes")
    records = [GeneratedCode.model_validate(r["record"]) for e in entries for r in e["data"]]
    cut = [c for c in records if c.call.truncated]
    assert [c.task_id for c in cut] == ["HumanEval/0"] and cut[0].code is None
    assert cut[0].call.finish_reason == "length" and "truncated at max_tokens" in (cut[0].parse_error or "")
    assert all(c.code is not None and c.call.finish_reason == "stop" for c in records if not c.call.truncated)


def test_ledger_blocks_later_items_of_an_undone_unit_but_never_test_generation():
    from dataclasses import dataclass

    from tfr_helpers.pipeline.engine.faults import Ledger
    from tfr_helpers.pipeline.stages import evaluate_code_test_pairs, generate_tests

    @dataclass(frozen=True)
    class Item:
        key: str
        unit: tuple[str, str]

    ledger = Ledger()
    ledger.add("generate_codes", Item("m|T1", ("m", "T1")), "ProviderUnavailable: connection failed")
    later = [Item("m|T1|ebt", ("m", "T1")), Item("m|T2|ebt", ("m", "T2"))]
    # tests come from the description alone: the stage reads no earlier stage's records
    assert generate_tests.STAGE.independent and not evaluate_code_test_pairs.STAGE.independent
    assert ledger.runnable("generate_tests", later, generate_tests.STAGE.independent) == later
    assert [i.key for i in ledger.runnable("evaluate_code_test_pairs", later)] == ["m|T2|ebt"]
    assert ledger.counts() == {"generate_codes": 1, "evaluate_code_test_pairs": 1}
    assert "1 item(s) are left undone (generate_codes 1): m|T1. Why: ProviderUnavailable" in ledger.message()
