"""One reply -> code record for every stage that asks for code: the code, its artifact, and why there is none."""

from __future__ import annotations

from pathlib import Path

from tfr_helpers.models.jobs import CallResult
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.artifact_log import read_artifact
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.steps.code_reply import code_reply
from tfr_helpers.records import ModelCallRecord, Task

TASK = Task(
    task_id="HumanEval/0",
    benchmark="humaneval",
    description="Add two numbers.",
    entry_point="add",
    signature="def add(a, b):",
    reference="def add(a, b):\n    return a + b\n",
    tests="def check(candidate):\n    assert candidate(1, 2) == 3\n",
    test_format="check",
)
CODE = "def add(a, b):\n    return a + b\n"


def _ctx(tmp_path: Path) -> RunContext:
    return RunContext(ExperimentConfig(benchmarks=["humaneval"]), RunStore(tmp_path / "run"), {TASK.task_id: TASK})


def _result(text: str | None, truncated: bool = False) -> CallResult:
    record = ModelCallRecord(
        model="sim:default", role="coder", stage="generate_codes", template="codegen", template_version="1",
        truncated=truncated, finish_reason="length" if truncated else "stop",
    )  # fmt: skip
    return CallResult(text, record, "the prompt")


def test_a_reply_with_code_gives_the_code_its_artifact_and_the_saved_call(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    reply = code_reply(ctx, "sim:default", TASK, _result(f"```python\n{CODE}```"), "codegen", "code.py")
    assert reply.code is not None and "return a + b" in reply.code
    assert reply.parse_error is None
    assert reply.code_path is not None and reply.code_path.endswith("/code.py")
    assert reply.call.prompt_path is not None and reply.call.prompt_path.endswith("prompt_codegen.md")
    assert read_artifact(ctx.store.root, reply.code_path) == reply.code
    assert set(reply.fields()) == {"code", "parse_error", "call", "code_path"}


def test_no_code_says_why_and_names_a_truncated_reply(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    reply = code_reply(ctx, "sim:default", TASK, _result("I cannot help with that.", truncated=True), "codegen", "code.py")
    assert reply.code is None and reply.code_path is None
    assert reply.parse_error is not None and "truncated at max_tokens" in reply.parse_error


def test_the_unparsed_fallback_keeps_a_program_and_no_artifact_name_writes_none(tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    kept = code_reply(ctx, "replay:x", TASK, _result("def add(a, b) return"), "codegen", None, unparsed=str.strip)
    assert kept.code == "def add(a, b) return"
    assert kept.parse_error is None and kept.code_path is None
