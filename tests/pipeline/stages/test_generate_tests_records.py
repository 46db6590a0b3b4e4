"""generate_tests keeps the requested count of tests and records every test of the reply it did not keep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.checkpoints import log_lines
from tfr_helpers.models import ModelRequest, ModelSpec, Provider, ProviderReply, SamplingParams, provider_table
from tfr_helpers.pipeline import run_stages
from tfr_helpers.pipeline.config.experiment import config_from_dict

EBT_REPLY = """Here are more tests than you asked for:

```python
def test_a():
    assert {entry}(1) is not None

def test_broken():
    assert {entry}(1 == 2

def test_b():
    assert {entry}(2) is not None

def test_c():
    assert {entry}(3) is not None
```
"""


class ChattyTester(Provider):
    """Code that defines the entry point; four EBTs (one broken) whatever the count asked."""

    simulated = True

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        assert request.task is not None
        entry = request.task.entry_point
        if request.template == "codegen":
            return ProviderReply(text=f"```python\ndef {entry}(*args):\n    return 0\n```")
        return ProviderReply(text=EBT_REPLY.format(entry=entry))


def test_extra_and_broken_tests_are_dropped_with_reason_and_count(
    pipeline_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = provider_table.ProviderEntry("sim", lambda _: ChattyTester(), True)
    monkeypatch.setitem(provider_table._REGISTRY, "sim", entry)
    config = config_from_dict(
        {
            "run_name": "chatty",
            "benchmarks": ["humaneval"],
            "tasks": 1,
            "models": {"coders": ["sim:chatty"]},
            "ebts_per_task": 2,
            "pbts_per_task": 0,
            "model_settings": {"cache_mode": "off"},
        }
    )
    run_stages(config, tmp_path / "run", stages=["generate_codes", "generate_tests"], progress=False)
    lines = log_lines(tmp_path / "run" / "checkpoints" / "generated_tests.jsonl")
    records = [r for line in lines for r in _records(json.loads(line)["data"])]
    assert [r["name"] for r in records] == ["test_a", "test_b"]
    for record in records:
        assert record["dropped_tests"] == [
            "test_broken: does not compile (SyntaxError: '(' was never closed)",
            "test_c: beyond the 2 tests requested",
        ]


def _records(data: object) -> list[dict]:
    """The GeneratedTest dicts of one checkpoint line (a list of records, each possibly under ``record``)."""
    items = data if isinstance(data, list) else [data]
    return [item.get("record", item) for item in items]  # type: ignore[union-attr]
