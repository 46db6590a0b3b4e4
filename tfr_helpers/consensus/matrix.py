"""The consensus matrix of one task: unique programs x unique tests, with multiplicities, and its storage.

Every consensus strategy reads only a :class:`TaskMatrix`: the generated programs and generated tests of one
model for one task, and which program passed which test. The reference's verdicts live apart, in
:class:`TaskTruth`, which only :mod:`tfr_helpers.consensus.ranked_pass_at_k` reads (to score a ranking), never a
strategy or a screener.

Stored in the run directory as one JSON file per task (``consensus/<dataset>/<semantics>/<task>.json``)
holding the matrix, the truth and the fingerprint of what was executed, so a second call loads instead of
re-running (see :mod:`tfr_helpers.consensus.execute`). Format version 2 added the outputs matrix (``inputs``,
``outputs``); a file of another version is rebuilt by ``tfr select`` and refused by a plain load.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import atomic_write_text, path_name

Semantics = Literal["single", "packed"]
"""How a program meets its tests: ``single`` (default: one test at a time, each its own timeout) or ``packed``
(CodeT's released form: all of a task's tests in one function, each in its own try block with a short alarm,
the whole program killed after ``0.1 * tests + 0.1`` s; a program whose packed run fails is dropped)."""

MATRIX_VERSION = 2


class StaleMatrixError(DataError):
    """A stored matrix of another format version (rerun ``tfr select`` to rebuild it)."""


class TaskMatrix(BaseModel):
    """One task's execution matrix (reference-free).

    Programs are the task's unique program texts, each standing for the code samples in
    :attr:`program_samples`; tests are the unique test texts, each counted :attr:`test_counts` times over the
    test samples (:attr:`suites` keeps which test sample held which tests).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = MATRIX_VERSION
    """File format version."""
    task_id: str
    """The benchmark's task id."""
    semantics: Semantics = "single"
    """How the matrix was executed."""
    program_ids: list[str] = Field(default_factory=list)
    """Short sha256 of each unique program text."""
    program_samples: list[list[int]] = Field(default_factory=list)
    """Code sample indices each unique program stands for (its multiplicity is the list's length)."""
    tests: list[str] = Field(default_factory=list)
    """Unique test texts (an assert statement, or the test unit)."""
    test_counts: list[int] = Field(default_factory=list)
    """How often each unique test occurs over the task's test samples."""
    suites: list[list[int]] = Field(default_factory=list)
    """One entry per test sample holding at least one test: indices into :attr:`tests`, in order."""
    passes: list[str] = Field(default_factory=list)
    """Per program, one character per test: ``1`` passed, ``0`` did not."""
    executed: list[bool] = Field(default_factory=list)
    """Whether the program ran at all (False: it failed to load, or its packed run failed and CodeT drops it)."""
    inputs: list[str] = Field(default_factory=list)
    """The test inputs the tests expose: unique call expressions of ``assert <call> == <expected>`` tests."""
    outputs: list[list[str] | None] = Field(default_factory=list)
    """The outputs matrix: per program, its value on each input (a capped repr, or ``<raises X>``,
    ``<timeout>``, ``<not run>``; see :mod:`tfr_helpers.consensus.outputs`), or None when the program reported
    no outputs. Empty when no outputs were recorded (no inputs, or a matrix built from pass/fail only)."""

    @model_validator(mode="after")
    def _shapes(self) -> TaskMatrix:
        n, m = len(self.program_ids), len(self.tests)
        if len(self.program_samples) != n or len(self.passes) != n or len(self.executed) != n:
            raise ValueError(f"{self.task_id}: program_ids, program_samples, passes and executed need one entry per program")
        if len(self.test_counts) != m or any(c < 1 for c in self.test_counts):
            raise ValueError(f"{self.task_id}: test_counts needs one count >= 1 per test")
        if any(len(row) != m or set(row) - {"0", "1"} for row in self.passes):
            raise ValueError(f"{self.task_id}: every passes row needs {m} characters '0'/'1'")
        if any(not s for s in self.program_samples):
            raise ValueError(f"{self.task_id}: every program stands for at least one code sample")
        if any(j < 0 or j >= m for s in self.suites for j in s):
            raise ValueError(f"{self.task_id}: a suite names a test index outside 0..{m - 1}")
        if self.version != MATRIX_VERSION:
            raise ValueError(f"{self.task_id}: matrix format version {self.version}, this tfr reads {MATRIX_VERSION}")
        k = len(self.inputs)
        if self.outputs and (len(self.outputs) != n or any(o is not None and len(o) != k for o in self.outputs)):
            raise ValueError(f"{self.task_id}: outputs needs one entry per program, each None or {k} values")
        return self

    @cached_property
    def matrix(self) -> np.ndarray:
        """Boolean pass matrix, shape (programs, tests); rows of programs that did not execute are all False."""
        if not self.passes:
            return np.zeros((0, len(self.tests)), dtype=bool)
        return np.array([[c == "1" for c in row] for row in self.passes], dtype=bool).reshape(len(self.passes), -1)

    @property
    def weights(self) -> np.ndarray:
        """Multiplicity of each unique program (code samples it stands for), shape (programs,)."""
        return np.array([len(s) for s in self.program_samples], dtype=float)

    @property
    def test_weights(self) -> np.ndarray:
        """Multiplicity of each unique test, shape (tests,)."""
        return np.array(self.test_counts, dtype=float)

    @property
    def ran(self) -> np.ndarray:
        """Boolean mask of programs that executed, shape (programs,)."""
        return np.array(self.executed, dtype=bool)

    @property
    def n_samples(self) -> int:
        """Code samples of the task (sum of multiplicities)."""
        return sum(len(s) for s in self.program_samples)


class TaskTruth(BaseModel):
    """The benchmark verdict of each unique program of a task: only selection scoring reads it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    correct: list[bool]
    """Per unique program (same order as the matrix): passes the benchmark tests."""


def from_outcomes(
    task_id: str,
    semantics: Semantics,
    programs: list[tuple[str, list[int]]],
    tests: list[tuple[str, int]],
    suites: list[list[int]],
    verdicts: list[list[bool] | None],
    inputs: list[str] | None = None,
    outputs: list[list[str] | None] | None = None,
) -> TaskMatrix:
    """Build a task's matrix from per-program test verdicts.

    Args:
        task_id: The task.
        semantics: How the programs were run.
        programs: ``(program text, sample indices)`` per unique program.
        tests: ``(test text, multiplicity)`` per unique test.
        suites: Test indices per test sample.
        verdicts: Per program, one bool per test, or None when the program did not execute.
        inputs: The test inputs (call expressions), when the tests expose any.
        outputs: Per program, its value on each input or None; empty or None when not recorded.

    Returns:
        The matrix.
    """
    return TaskMatrix(
        task_id=task_id,
        semantics=semantics,
        program_ids=[hashlib.sha256(p.encode()).hexdigest()[:16] for p, _ in programs],
        program_samples=[list(s) for _, s in programs],
        tests=[t for t, _ in tests],
        test_counts=[c for _, c in tests],
        suites=suites,
        passes=["".join("1" if b else "0" for b in v) if v is not None else "0" * len(tests) for v in verdicts],
        executed=[v is not None for v in verdicts],
        inputs=list(inputs or []),
        outputs=list(outputs or []),
    )


def task_file(root: Path, task_id: str) -> Path:
    """Where a task's matrix is stored under ``root`` (``HumanEval/3`` -> ``HumanEval_3.json``)."""
    return root / (path_name(task_id) + ".json")


def save_task(root: Path, matrix: TaskMatrix, truth: TaskTruth | None, fingerprint: str) -> Path:
    """Write one task's matrix (and truth) atomically, with the fingerprint of its inputs."""
    doc = {
        "version": MATRIX_VERSION,
        "fingerprint": fingerprint,
        "matrix": matrix.model_dump(),
        "truth": truth.model_dump() if truth else None,
    }
    return atomic_write_text(task_file(root, matrix.task_id), json.dumps(doc))


def load_task(root: Path, task_id: str, fingerprint: str | None = None) -> tuple[TaskMatrix, TaskTruth | None] | None:
    """Read one stored task; None when absent or stored from other inputs (``fingerprint`` differs).

    Raises:
        DataError: The file exists but is not a matrix file, or (loading without a fingerprint) it was stored in
            another format version.
    """
    path = task_file(root, task_id)
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text())
        if fingerprint is not None and (doc.get("fingerprint") != fingerprint or doc.get("version") != MATRIX_VERSION):
            return None
        if isinstance(doc.get("version"), int) and doc["version"] != MATRIX_VERSION:
            raise StaleMatrixError(
                f"{path}: a consensus matrix of format version {doc.get('version')} (this tfr reads "
                f"{MATRIX_VERSION}, which adds the outputs matrix); rerun `tfr select` to rebuild it"
            )
        truth = TaskTruth.model_validate(doc["truth"]) if doc.get("truth") else None
        return TaskMatrix.model_validate(doc["matrix"]), truth
    except StaleMatrixError:
        raise
    except (ValueError, KeyError, TypeError) as exc:
        why = " ".join(str(exc).split())[:300]  # one line: pydantic's message spans several
        raise DataError(f"{path}: not a consensus matrix file ({why}); delete it to rebuild") from exc
