"""Records of multi-round backprompting (``refinement.rounds`` > 1; see docs/rounds.md).

A *chain* is one (coder, task, code sample) refined round after round: round 0 is the generated code, round k
runs the code of round k-1 on round k's test suite and, when tests fail, refines it with the feedback of all
of them in one prompt. Reference-derived fields (``unreliable``, ``suite_reference_passed``) are measurement
only: the refiner never sees them.

This module imports the core and study records; :class:`~tfr_helpers.records.results.Results` holds its
:class:`RoundsResults`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.core import ModelCallRecord, Record, TestKind, Transition
from tfr_helpers.records.study import GeneratedTest, SkippedWork, TestGenerationFailure, TierVerdicts

RoundAction = Literal["refined", "no_code", "stopped", "carried"]
"""What happened in one round of a chain: ``refined`` (the refiner returned code), ``no_code`` (its reply held
no usable code: the code is carried over), ``stopped`` (the code passed every test of a non-empty suite and
``stop_when_passing``: the chain ends here), ``carried`` (nothing failed, or the suite was empty, and the chain
goes on with the same code)."""


class RoundTests(Record):
    """A fresh test suite's tests of one kind for one (coder, task, round >= 2) (``round_tests: fresh``)."""

    model: str
    """The coder whose tester wrote them."""
    task_id: str
    kind: TestKind
    round: int
    """The round whose suite this is (2..R; round 1's suite is ``generate_tests``')."""
    tests: list[GeneratedTest] = Field(default_factory=list)
    """Ids ``<model>|<task>|<kind>|r<round>|<index>``; the tester's samples after round 1's (see docs/rounds.md)."""
    failures: list[TestGenerationFailure] = Field(default_factory=list)
    """Replies from which no test could be parsed."""


class RoundSuite(Record):
    """The reference's verdict on each test of one fresh suite (measurement only, never shown to a model)."""

    model: str
    task_id: str
    round: int
    test_ids: list[str]
    """The suite's tests in suite order (EBTs, then PBTs)."""
    reference_passed: list[bool]
    """Whether the reference passed each test (first run, as RQ1's reliability label)."""


class RoundStep(Record):
    """One round of one chain."""

    round: int
    """1..R."""
    action: RoundAction
    suite_size: int
    """Tests in this round's suite."""
    suite_reference_passed: int
    """Of them, tests the reference passes (suite precision = this / ``suite_size``)."""
    failed: list[str] = Field(default_factory=list)
    """Ids of the suite's tests the round's input code failed: the feedback of this round, in suite order."""
    unreliable: list[str] = Field(default_factory=list)
    """Of ``failed``, the tests the reference fails too (unreliable test-fail feedback)."""
    feedback: str | None = None
    """The feedback text the refiner saw (all failing tests, in one prompt); None when nothing failed."""
    call: ModelCallRecord | None = None
    """The refinement call (None when nothing failed)."""
    code: str | None = None
    """The refined program (``refined`` only)."""
    parse_error: str | None = None
    """Why the reply held no usable code (``no_code`` only)."""
    code_path: str | None = None
    benchmark_before: bool
    """Benchmark verdict of the round's input code."""
    benchmark_after: bool
    """Benchmark verdict of the chain's code after the round (the input code's unless ``refined``)."""
    transition: Transition | None = None
    """``benchmark_before -> benchmark_after`` of a refinement, ``no_code``, or None when nothing was refined."""
    collision: bool | None = None
    """``refined`` only: the refined code equals (after normalisation) a code of an earlier round of the chain."""
    benchmark_run_path: str | None = None
    tiers_after: TierVerdicts | None = None
    """EvalPlus's base and plus verdicts of the chain's code after the round, as ``benchmark_after``: the refined
    code's (``refined``), else the input code's (None: no EvalPlus benchmark or twin under ``plus_tiers``, or a
    record from before rounds carried tiers)."""


class RoundChain(Record):
    """One (coder, task, code sample) refined for up to R rounds."""

    chain_id: str
    """``<model>|<task_id>|c<code sample>``."""
    model: str
    """The coder."""
    refiner: str
    task_id: str
    benchmark: str
    code_index: int = 0
    round_tests: Literal["fresh", "same"]
    """The suite mode the chain ran with (``same`` when its tester is replayed and cannot write fresh suites)."""
    initial_passed: bool
    """Benchmark verdict of round 0 (the generated code)."""
    initial_tiers: TierVerdicts | None = None
    """EvalPlus's tiers of round 0 (the generated code's ``BenchmarkVerdict.tiers``)."""
    steps: list[RoundStep]
    """Rounds 1.. in order; fewer than R when the chain stopped early."""


class RoundsResults(Record):
    """Everything the rounds produced: the arm's part of ``Results`` (``results.part(ARM)``, key ``rounds`` of
    ``results.json``; only when ``refinement.rounds`` > 1)."""

    rounds: int
    round_tests: Literal["fresh", "same"]
    stop_when_passing: bool
    chains: list[RoundChain] = Field(default_factory=list)
    round_tests_generated: list[RoundTests] = Field(default_factory=list)
    """The fresh suites (empty for ``same``)."""
    suites: list[RoundSuite] = Field(default_factory=list)
    """The reference's verdicts on the fresh suites."""
    not_run: list[SkippedWork] = Field(default_factory=list)
    """Chains not run and why (``not run: no refiner`` for replayed coders, no usable generated code)."""
