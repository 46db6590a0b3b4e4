"""Faults are not results: work items left undone by failed model calls, and what that means for later stages.

A call that got no reply after its retries (transport error, 5xx, 429 past the budget, timeout) or that was
never sent because the run stopped leaves its item *undone*: the stage returns an :class:`Undone` marker
instead of a record, the runner does not checkpoint the item, and a rerun retries it. A reply that arrived
and could not be used (no code, unparseable tests) is a result and is recorded as usual.

Later stages cannot run on an undone item, nor on anything else of the same (coder model, task) unit, since
their inputs would be incomplete (a code evaluated without its missing tests would be checkpointed as done).
:class:`Ledger` tracks undone items and blocked units; :class:`RunIncomplete` reports them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from tfr_helpers.errors import TfrError
from tfr_helpers.records import ModelCallRecord

if TYPE_CHECKING:
    from tfr_helpers.models.jobs import CallResult
    from tfr_helpers.pipeline.engine.run_summary import RunSummary

Unit = tuple[str, str]
"""(coder model, task id): the unit that stages pass on from one to the next."""


@dataclass(frozen=True)
class Undone:
    """A stage's answer for an item whose model call failed: not a record, nothing is checkpointed."""

    key: str
    """The item's checkpoint key."""
    reason: str
    """The provider's error after retries (``ProviderUnavailable: connection failed ...``)."""


def call_fault(result: CallResult) -> str | None:
    """The error of a call that got no reply (a fault), or None when a reply arrived (usable or not)."""
    if result.text is not None:
        return None
    return result.record.error or "no reply"


class SampledJob(Protocol):
    """A stage's item asking one model ``samples`` times (its checkpoint key names it)."""

    @property
    def key(self) -> str: ...

    @property
    def samples(self) -> int: ...


J = TypeVar("J", bound=SampledJob)


def item_replies(items: Sequence[J], results: Iterable[CallResult]) -> Iterator[tuple[J, list[CallResult] | Undone]]:
    """Each item with its ``samples`` replies (``results`` holds them item after item), or its :class:`Undone`
    when one of its calls got no reply."""
    replies = iter(results)
    for item in items:
        mine = [next(replies) for _ in range(item.samples)]
        faults = [f for f in map(call_fault, mine) if f is not None]
        yield item, (Undone(item.key, faults[0]) if faults else mine)


def note_truncation(error: str, record: ModelCallRecord) -> str:
    """A parse error, with a note when the reply was cut at ``max_tokens`` (so the cause is visible)."""
    if not record.truncated:
        return error
    return f"{error} (the reply was truncated at max_tokens: finish_reason={record.finish_reason})"


def unit_of(item: Any) -> Unit:
    """The unit a stage's work item belongs to, as the item says (``.unit``: (coder model, task id) in the study).

    Raises:
        TypeError: The item has no ``unit`` (a plugin stage's item: give its class a ``unit`` property).
    """
    unit = getattr(item, "unit", None)
    if not isinstance(unit, tuple):
        raise TypeError(
            f"work item {type(item).__name__} has no unit: give it a `unit` property, the (coder model, task id) "
            "whose undone items in earlier stages hold it back"
        )
    return unit


@dataclass
class Ledger:
    """Undone items of one invocation, per stage, and the units they block."""

    undone: dict[str, dict[str, str]] = field(default_factory=dict)
    """Stage -> item key -> reason."""
    blocked: dict[str, int] = field(default_factory=dict)
    """Stage -> items not run because an earlier stage left their unit undone."""
    units: set[Unit] = field(default_factory=set)
    stop: str | None = None
    """Why the run stopped early (a fatal provider reply), if it did."""

    def add(self, stage: str, item: Any, reason: str) -> None:
        """Record ``item`` of ``stage`` as undone and block its unit for later stages."""
        self.undone.setdefault(stage, {})[item.key] = reason
        self.units.add(unit_of(item))

    def runnable(self, stage: str, items: Sequence[Any], independent: bool = False) -> list[Any]:
        """The items whose unit no earlier stage left undone; the others are counted as blocked. The items of an
        ``independent`` stage (one that reads no earlier stage's records: ``Stage.independent``) all run."""
        if independent or not self.units:
            return list(items)
        keep = [item for item in items if unit_of(item) not in self.units]
        if len(keep) < len(items):
            self.blocked[stage] = self.blocked.get(stage, 0) + len(items) - len(keep)
        return keep

    def counts(self) -> dict[str, int]:
        """Stage -> items left undone there (their own failed calls plus items waiting for them)."""
        out = {stage: len(keys) for stage, keys in self.undone.items()}
        for stage, n in self.blocked.items():
            out[stage] = out.get(stage, 0) + n
        return out

    @property
    def count(self) -> int:
        """Items left undone by their own failed calls (blocked items not included)."""
        return sum(len(keys) for keys in self.undone.values())

    def __bool__(self) -> bool:
        return bool(self.count or self.blocked or self.stop)

    def message(self, limit: int = 5) -> str:
        """One paragraph: how many items are undone, which, why, and that rerunning continues."""
        parts = []
        if self.stop:
            parts.append(f"The run stopped early: {self.stop}")
        if self.count:
            per_stage = ", ".join(f"{stage} {len(keys)}" for stage, keys in self.undone.items())
            keys = [key for stage_keys in self.undone.values() for key in stage_keys]
            named = ", ".join(keys[:limit]) + (f" and {len(keys) - limit} more" if len(keys) > limit else "")
            text = f"{self.count} item(s) are left undone ({per_stage}): {named}."
            if not self.stop:  # after a stop, the stop is the reason
                reasons = Counter(r for stage_keys in self.undone.values() for r in stage_keys.values())
                text += " Why: " + "; ".join(f"{reason} ({n}x)" for reason, n in reasons.most_common(3)) + "."
            parts.append(text)
        if self.blocked:
            waiting = ", ".join(f"{stage} {n}" for stage, n in self.blocked.items())
            parts.append(f"Items of the same tasks in later stages wait for them ({waiting}).")
        parts.append(
            "Nothing undone was checkpointed: rerun the same command with the same --run-dir to continue "
            "(finished work is kept, only the undone items are called again)."
        )
        return " ".join(parts)


EXIT_INCOMPLETE = 3
"""Exit code of ``tfr stage`` / ``tfr run`` when items are left undone (2 is a user error, 1 a crash)."""


class RunIncomplete(TfrError):
    """Items are left undone (failed calls or a stopped run); the message says which, why, and to rerun.

    Attributes:
        ledger: The undone items (None when re-raised from an executed notebook).
        summary: What the invocation did (None when re-raised from an executed notebook).
    """

    def __init__(self, message: str, ledger: Ledger | None = None, summary: RunSummary | None = None) -> None:
        super().__init__(message)
        self.ledger = ledger
        self.summary = summary
