"""A whole study against the fake OpenAI-compatible server: a responder that answers like a chat model would.

The responder reads the prompt (which task, which template) and answers deterministically: the reference for
most tasks and a broken function for :data:`BUGGY` tasks (so test-fail feedback, judging and refinement
happen), one example-based test built from the task's example, the reference as the refinement, and
"Accept" from the judge. Every role is played by ``openai-compatible:fake-coder`` through the real openai SDK.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.fake_llm_server import FakeLLMServer
from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.models import credentials
from tfr_helpers.records import Task

MODEL = "openai-compatible:fake-coder"
RIGHT_KEY = "sk-right-key-for-the-fake-server-0001"
WRONG_KEY = "sk-wrong-key-for-the-fake-server-0002"
TASKS = {"humaneval": 2, "mbpp": 3}
BUGGY = {"MBPP/2", "MBPP/3"}
"""Tasks whose generated code is wrong: their example test fails, so they get judged and refined."""


def study_tasks() -> list[Task]:
    """The tasks the params select (first N of each benchmark)."""
    return [t for bench, n in TASKS.items() for t in load_tasks(bench)[:n]]


def params(base_url: str) -> dict[str, Any]:
    """A small study on the fake server: sequential calls (deterministic request order), quick retries."""
    return {
        "run_name": "faults",
        "seed": 1,
        "benchmarks": list(TASKS),
        "tasks": TASKS,
        "models": {"coders": [MODEL]},
        "ebts_per_task": 1,
        "pbts_per_task": 0,
        "screening": ["llm_judge"],
        "concurrency": {"sandbox_workers": 2, "model_calls": 1},
        "model_settings": {
            "base_urls": {"openai-compatible": base_url + "/v1"},
            "concurrency": {"openai-compatible": 1},
            "prices": {MODEL: {"input_per_mtok": 1.0, "output_per_mtok": 2.0}},
            "retry": {
                "max_attempts": 2,
                "backoff_base_s": 0.01,
                "backoff_max_s": 0.02,
                "deadline_s": 20,
                "read_timeout_s": 20,
                "connect_timeout_s": 2,
            },
        },
    }


def _fence(code: str) -> str:
    return f"Here you go.\n\n```python\n{code.strip()}\n```\n"


class Responder:
    """Answers each request from its prompt; counts the answers per template."""

    def __init__(self, tasks: list[Task]) -> None:
        self.tasks = tasks

    def task_of(self, prompt: str) -> Task:
        """The task whose description the prompt shows."""
        for task in self.tasks:
            if task.description in prompt:
                return task
        raise AssertionError(f"no known task in prompt: {prompt[:200]!r}")

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        prompt = "\n".join(m["content"] for m in messages)
        task = self.task_of(prompt)
        if "fixes code using test feedback" in system:
            return _fence(task.reference)
        if "review failing tests" in system:
            return "The test follows the example in the task.\nAccept"
        if "example-based unit tests" in system:
            check = task.examples[0] if task.examples else f"assert callable({task.entry_point})"
            return _fence(f"def test_example():\n    {check}\n")
        if task.task_id in BUGGY:
            return _fence(f"{task.signature.strip()}\n    return None\n")
        return _fence(task.reference)


def write_params(path: Path, base_url: str) -> Path:
    """The params YAML of the study."""
    import yaml

    path.write_text(yaml.safe_dump(params(base_url)))
    return path


@contextmanager
def openai_served(data: dict[str, Any], tasks: list[Task], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """The fake server answering as :class:`Responder` for the ``openai`` provider of params ``data`` (its base URL
    and quick retries set in ``data``, the right key in the environment) while the block runs."""
    with FakeLLMServer(responder=Responder(tasks), api_key=RIGHT_KEY) as srv:
        data["model_settings"]["base_urls"] = {"openai": srv.base_url + "/v1"}
        data["model_settings"]["retry"] = {"max_attempts": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.02}
        monkeypatch.setenv("OPENAI_API_KEY", RIGHT_KEY)
        monkeypatch.setattr(credentials, "_dotenv_loaded", True)
        yield srv
