"""The package's own trajectory import format: ``trajectories.jsonl``, one task per line (docs/replay.md).

```json
{"task_id": "HumanEval/0", "attempts": [
  {"code": "def f(x): ...", "feedback": "Tested passed:\\n\\nTests failed:\\nassert f(1) == 2 # output: 3",
   "tests": [{"name": "t0", "kind": "assert", "source": "assert f(1) == 2", "outcome": "failed", "output": "3"}]},
  {"code": "def f(x): ..."}]}
```

Per task, the ordered attempts; each attempt's ``code`` and the ``feedback`` shown after it (the raw text), and
where known the ``tests`` run with their ``outcome`` (``passed`` / ``failed``). An attempt with feedback and no
``tests`` has its tests read from the text as a Reflexion feedback is (a ``test_cases`` list on the line gives the
unittest modules). Unlike the code/tests import format, the file is strict: a malformed line raises one
``DataError`` naming the file, the line and the fix. Steps are then sorted as a log's are (a body, a missing
feedback, an unknown task: unusable with the reason).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tfr_helpers.errors import DataError
from tfr_helpers.replay.jsonl import read_jsonl
from tfr_helpers.replay.trajectories.build import LoggedRow, build_trajectories
from tfr_helpers.replay.trajectories.feedback import detect_format, parse_feedback
from tfr_helpers.replay.trajectories.logged import LoggedTest, Trajectory, TrajectoryAttempt, UnusableStep

IMPORT_FILE = "trajectories.jsonl"
"""The import format's file name in a directory."""


class _Test(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    kind: str = "assert"
    source: str
    outcome: str = "failed"
    output: str | None = None


class _Attempt(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str
    feedback: str | None = None
    tests: list[_Test] | None = None


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore")
    task_id: str
    entry_point: str | None = None
    attempts: list[_Attempt]
    test_cases: list[str] = []


def _attempt(k: int, given: _Attempt, cases: list[str]) -> TrajectoryAttempt:
    if given.feedback is None:
        return TrajectoryAttempt(index=k, code=given.code)
    if given.tests is None:
        fmt, tests = parse_feedback(given.feedback, cases)
    else:
        tests = [
            LoggedTest(
                name=t.name or t.source,
                kind=t.kind,  # type: ignore[arg-type]
                source=t.source,
                logged_status=t.outcome,  # type: ignore[arg-type]
                logged_output=t.output,
            )
            for t in given.tests
        ]
        fmt = detect_format(given.feedback)
        if fmt == "none" and tests:
            fmt = "unittest" if tests[0].kind == "unittest" else "asserts"
    return TrajectoryAttempt(index=k, code=given.code, feedback=given.feedback, feedback_format=fmt, tests=tests)


def _line(path: Path, lineno: int, record: dict[str, Any]) -> LoggedRow:
    fix = f"see docs/replay.md for the {IMPORT_FILE} format"
    try:
        line = _Line.model_validate(record)
        for given in line.attempts:
            for t in given.tests or []:
                if t.kind not in ("assert", "unittest") or t.outcome not in ("passed", "failed"):
                    raise ValueError(f"test kind {t.kind!r} / outcome {t.outcome!r}: use assert|unittest, passed|failed")
    except (ValidationError, ValueError) as exc:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        where = ".".join(str(p) for p in first["loc"]) if first else ""
        what = first["msg"] if first else str(exc)
        raise DataError(f"{path}:{lineno}: {where + ': ' if where else ''}{what}; {fix}") from None
    attempts = tuple(_attempt(k, a, line.test_cases) for k, a in enumerate(line.attempts))
    return LoggedRow(line.task_id, line.entry_point, attempts)


def read_trajectory_import(path: Path, dataset: str) -> tuple[list[Trajectory], list[UnusableStep]]:
    """Read a ``trajectories.jsonl`` file (every line checked before anything is returned).

    Raises:
        DataError: A line is malformed (naming the file, the line and the fix).
    """
    rows = [_line(path, n, rec) for n, rec in read_jsonl(path, f"see docs/replay.md for the {IMPORT_FILE} format")]
    return build_trajectories(dataset, rows)
