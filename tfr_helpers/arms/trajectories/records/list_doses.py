"""Records of the dose: each test of a fixed test list run on the reference (stage ``measure_test_lists``).

A published run that refined against a fixed list of LLM-written tests (the o3-mini ``valtest`` series, GPT-4o's
``curated`` run) was given feedback whose validity was set upstream, before the model saw anything. The study
measures it: every test of the list runs on the reference in tfr's sandbox, with the base study's labels. A test is
``valid`` when the reference passes it, ``invalid`` when the reference fails it, ``indeterminate`` when the deciding
outcome still depends on the machine (a wall-clock-guard timeout or a crash that did so again run alone, with three
times the budget: ``pipeline.steps.labels.settle``), kept out of the share as the base study keeps such pairs out.
A task's valid share is its dose; a list's pooled share is the list's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from tfr_helpers.records.core import Cause, Record, Status

Validity = Literal["valid", "invalid", "indeterminate"]
"""A list's test on the reference: passes it, fails it, or a verdict that depends on the machine."""


def dose_key(test_list: str, task_id: str) -> str:
    """Checkpoint key of one task of one list."""
    return f"{test_list}|{task_id}"


class ListTestVerdict(Record):
    """One test of a list (one unittest module) on the reference."""

    index: int
    """Its position in the task's ``test_cases``."""
    name: str
    """The test method(s) it ran (``TestClass.test_method``), or the module when it did not load."""
    validity: Validity
    status: Status
    """The reference's deciding outcome (after a run alone where the base study makes one)."""
    cause: Cause | None = None
    """Why the test is wrong, when the reference fails it (RQ1's causes, from a second run with another seed)."""
    message: str | None = None
    """The reference's exception and message, when it did not pass."""


class TaskDose(Record):
    """One task of one list: each of its tests on the reference, or why the task cannot be measured offline."""

    test_list: str
    """The study's name of the list (``variable-60``)."""
    upstream: str
    """The list's path in the upstream repository (its name there)."""
    task_id: str
    tests: list[ListTestVerdict] = Field(default_factory=list)
    not_evaluable: str = ""
    """Why the task's reference cannot be run offline (empty when measured)."""

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return dose_key(self.test_list, self.task_id)

    def count(self, validity: Validity) -> int:
        """Tests with that label."""
        return sum(1 for t in self.tests if t.validity == validity)

    @property
    def dose(self) -> float | None:
        """The task's valid share over its decided tests (None when none is decided or the task is not measured)."""
        decided = self.count("valid") + self.count("invalid")
        return self.count("valid") / decided if decided else None
