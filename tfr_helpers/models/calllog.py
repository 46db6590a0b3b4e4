"""Append-only JSONL log of every model call in the run directory (``calls/<stage>.jsonl``)."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

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
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        return path
