"""The Reflexion-format log adapter: ``programming_runs`` JSONL logs read step by step as trajectories.

One JSON object per line, one task per object (docs/replay.md). The fields read:

- ``implementations[k]``: attempt k's code (whole functions; a logged body makes its steps unusable);
- ``test_feedback[k]``: the text shown after attempt k ran on the model's own tests (format detected per feedback,
  :mod:`tfr_helpers.replay.trajectories.feedback`);
- ``test_cases``: the unittest modules a unittest-format feedback names tests of;
- ``task_id``, else ``name`` (``BigCodeBench/13`` or MultiPL-E's ``HumanEval_85_add``), and ``entry_point``.

``is_solved`` (the logging harness's own verdict: in the BigCodeBench runs it never ran the tests), ``solution``
and ``reflections`` are not read; of ``prompt``, only its import lines (the trajectory's preamble: MultiPL-E's
prompts import the ``typing`` names their signatures use, and a logged function may rely on them). A line that is
not a JSON object, or lacks ``implementations``, makes all of its steps unusable with the reason; the rest of the
log still loads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tfr_helpers.errors import DataError
from tfr_helpers.replay.trajectories.build import LoggedRow, build_trajectories
from tfr_helpers.replay.trajectories.feedback import parse_feedback
from tfr_helpers.replay.trajectories.logged import Trajectory, TrajectoryAttempt, UnusableStep

REFLEXION_FIELDS = ("implementations", "test_feedback")
"""The fields that make a JSON line a Reflexion-format log row."""


def is_reflexion_log(path: Path) -> bool:
    """Whether the file's first line is a Reflexion-format row (a JSON object with both :data:`REFLEXION_FIELDS`)."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = handle.readline()
        row = json.loads(first)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(row, dict) and all(k in row for k in REFLEXION_FIELDS)


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def row_attempts(row: dict[str, Any]) -> tuple[TrajectoryAttempt, ...]:
    """The attempts of one log row, each with the feedback logged after it (parsed) where there is one.

    Raises:
        ValueError: ``implementations`` or ``test_feedback`` is not a list of strings.
    """
    codes = _strings(row.get("implementations"))
    feedback = _strings(row.get("test_feedback", []))
    if codes is None or feedback is None:
        raise ValueError("'implementations' and 'test_feedback' must be lists of strings")
    cases = _strings(row.get("test_cases")) or []
    attempts = []
    for k, code in enumerate(codes):
        text = feedback[k] if k < len(feedback) else None
        fmt, tests = parse_feedback(text, cases) if text is not None else ("none", [])
        attempts.append(TrajectoryAttempt(index=k, code=code, feedback=text, feedback_format=fmt, tests=tests))
    return tuple(attempts)


def read_reflexion_log(path: Path, dataset: str) -> tuple[list[Trajectory], list[UnusableStep]]:
    """Read a Reflexion-format log into trajectories, line by line.

    Args:
        path: The JSONL log.
        dataset: The set's name (for the records).

    Returns:
        The trajectories and the unusable steps (a bad line: one record for the whole line, ``step`` -1).

    Raises:
        DataError: The file cannot be read.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"cannot read trajectory log {path} ({exc})") from exc
    rows: list[LoggedRow] = []
    bad: list[UnusableStep] = []
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError(f"a JSON {type(row).__name__}, not an object")
            name = row.get("task_id") or row.get("name")
            if not isinstance(name, str):
                raise ValueError("neither 'task_id' nor 'name' is a string")
            entry = row.get("entry_point")
            prompt = row.get("prompt")
            rows.append(
                LoggedRow(
                    name,
                    entry if isinstance(entry, str) else None,
                    row_attempts(row),
                    prompt if isinstance(prompt, str) else "",
                )
            )
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            bad.append(UnusableStep(dataset=dataset, task=f"{path.name}:{lineno}", step=-1, reason=f"bad line: {exc}"))
    trajectories, unusable = build_trajectories(dataset, rows)
    return trajectories, bad + unusable
