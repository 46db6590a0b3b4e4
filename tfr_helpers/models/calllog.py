"""Append-only JSONL log of every model call in the run directory (``calls/<stage>.jsonl``; gzip-compressed,
``.jsonl.gz``, once a run of stages ended: :mod:`tfr_helpers.logfiles`)."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from tfr_helpers import logfiles
from tfr_helpers.models.credentials import secret_values

LOG_VERSION = 1
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_lock = threading.Lock()


def scrub(text: str, secrets: list[str] | None = None) -> str:
    """Replace every known API key value in ``text`` by ``***`` (defence in depth: we never log keys)."""
    for secret in secrets if secrets is not None else secret_values():
        text = text.replace(secret, "***")
    return text


class CallLog:
    """Writes one JSON line per call; each line is a single ``write`` on an ``O_APPEND`` descriptor."""

    def __init__(self, run_dir: Path) -> None:
        self.directory = Path(run_dir) / "calls"

    def path_for(self, stage: str) -> Path:
        """Log file of one stage."""
        return self.directory / f"{_SAFE.sub('_', stage) or 'stage'}.jsonl"

    def append(self, stage: str, entry: dict[str, object]) -> Path:
        """Append one entry (``version`` added) and return the file written."""
        path = self.path_for(stage)
        line = scrub(json.dumps({"version": LOG_VERSION, **entry}, ensure_ascii=False, default=str)) + "\n"
        data = line.encode("utf-8")
        with _lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            logfiles.prepare_append(path)  # a finished run's compressed log: appended to in plain form
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        return path


@dataclass(frozen=True)
class CallCounts:
    """Honest call accounting: what reached a provider, what the cache answered, what failed, what it cost."""

    sent: int = 0
    """Calls that sent at least one request (answered or failed)."""
    cached: int = 0
    """Calls answered from the response cache (no request)."""
    failed: int = 0
    """Sent calls that got no usable reply after their retries (faults, not results)."""
    not_sent: int = 0
    """Calls refused without a request because an earlier reply stopped the run."""
    retries: int = 0
    """Extra attempts made by the sent calls."""
    input_tokens: int = 0
    output_tokens: int = 0
    spent_usd: float = 0.0
    """Cost of the sent calls (what this money was actually spent on now; cache hits cost nothing)."""

    def __add__(self, other: CallCounts) -> CallCounts:
        return CallCounts(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def rounded(self) -> CallCounts:
        """The counts as reported: ``spent_usd`` rounded to 6 decimals (sums are kept unrounded)."""
        return replace(self, spent_usd=round(self.spent_usd, 6))

    def describe(self) -> str:
        """``12 sent (2 failed, 3 retries), 48 from the cache, $0.0123 spent (1200/340 tokens)``."""
        text = f"{self.sent} sent ({self.failed} failed, {self.retries} retries), {self.cached} from the cache"
        if self.not_sent:
            text += f", {self.not_sent} not sent (run stopped)"
        return text + f", ${self.spent_usd:.4f} spent ({self.input_tokens}/{self.output_tokens} tokens in/out)"


def count_calls(entries: Iterable[Mapping[str, object]]) -> CallCounts:
    """Count call records or call-log entries (dicts with ``cached``, ``error``, ``retries``, ``usage``)."""
    total = CallCounts()
    for entry in entries:
        total = total + count_one(entry)
    return total.rounded()


def count_one(entry: Mapping[str, object]) -> CallCounts:
    """The unrounded counts of one call record or call-log entry (see :func:`count_calls`)."""
    error = entry.get("error")
    if entry.get("cached"):
        return CallCounts(cached=1)
    if isinstance(error, str) and error.startswith("NotSent") and not entry.get("retries"):
        return CallCounts(not_sent=1)  # refused before any request (refused after a failed attempt: sent, logged)
    usage = entry.get("usage")
    usage = usage if isinstance(usage, Mapping) else {}
    return CallCounts(
        sent=1,
        failed=int(error is not None),
        retries=int(entry.get("retries") or 0),  # type: ignore[call-overload]
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        spent_usd=float(usage.get("cost_usd") or 0.0),  # type: ignore[arg-type]
    )


def read_call_log(run_dir: Path) -> list[dict[str, object]]:
    """Every entry of every ``calls/*.jsonl`` (or ``.jsonl.gz``) of a run (an unreadable line is skipped)."""
    entries: list[dict[str, object]] = []
    for path in logfiles.logs_in(Path(run_dir) / "calls"):
        for line in logfiles.read_text(path).splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict):
                entries.append(entry)
    return entries
