"""The run directory: config, task list, checkpoints, artifacts, results.json and the record tables.

Every file is written atomically (temporary file + rename). A checkpoint is a JSONL file holding one
complete record per line, appended, flushed and fsynced line by line; a torn last line (a process killed
mid-write) is ignored on read, so work is either recorded whole or redone. Artifacts (prompts, replies, code,
tests, execution records) go to one append-only log per stage (:mod:`.artifact_log`), synced before each
checkpoint append. When a run of stages ends cleanly, its logs (artifacts, model calls, checkpoints, sandbox
timings) are gzip-compressed (:meth:`RunStore.compress_logs`, :mod:`tfr_helpers.logfiles`): every reader here
reads either form, and the first append of a later run puts a compressed log back in plain form. ``results.json``
is written gzip-compressed, ``results.json.gz`` (:func:`~.codec.load_results` reads either).
"""

from __future__ import annotations

import gzip
import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tfr_helpers import logfiles
from tfr_helpers.errors import RunDirError
from tfr_helpers.fsutil import atomic_write_bytes, atomic_write_text, path_name
from tfr_helpers.models.base import model_dirname
from tfr_helpers.pipeline.config.fingerprint import changed_parts, describe_changes
from tfr_helpers.pipeline.engine.artifact_log import ARTIFACTS_DIR, ArtifactLog
from tfr_helpers.pipeline.engine.codec import RESULTS_FILE, encode_results
from tfr_helpers.pipeline.engine.tables import write_tables
from tfr_helpers.records import Results

CHECKPOINT_VERSION = 1
EXECUTIONS_DIR = "executions"
"""Directory of the stages' sandbox timing logs (``executions/<stage>.jsonl``)."""
CHECKPOINTS_DIR = "checkpoints"
CALLS_DIR = "calls"
LOG_DIRS = (ARTIFACTS_DIR, CALLS_DIR, CHECKPOINTS_DIR, EXECUTIONS_DIR)
"""The run directory's folders of append-only logs, compressed when a run of stages ends cleanly."""


class RunStore:
    """Reads and writes one run directory.

    Args:
        root: The run directory (created when missing).
    """

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._keys: dict[str, set[str]] = {}
        self.artifacts = ArtifactLog(self.root)
        self._exec_lock = threading.Lock()
        self.stage: str | None = None
        """The stage running now (set by the runner): its artifacts go to ``artifacts/<stage>.jsonl``."""

    # configuration -----------------------------------------------------------------------------
    def bind_config(
        self,
        resolved: dict[str, Any],
        config_hash: str,
        fingerprint: dict[str, str] | None = None,
        blockers: Callable[[list[str]], dict[str, list[str]]] | None = None,
    ) -> None:
        """Write ``config.json`` or check that the existing one belongs to the same configuration.

        Args:
            resolved: The resolved configuration (stored for readers).
            config_hash: Hash of every input that determines the results.
            fingerprint: Those inputs by named part (``ExperimentConfig.fingerprint``); stored, so that a
                later mismatch can name the parts that changed.
            blockers: ``blockers(changed parts) -> {part: stages whose records depend on it}``
                (``fingerprint.blocking_stages``). When given and no changed part has a blocking stage, the
                directory is rebound to the new configuration (``config.json`` rewritten, the change appended
                to its ``rebound`` list) instead of refused.

        Raises:
            RunDirError: the directory holds a run of a different configuration; the message names each
                changed part (config key, prompt template, simulator version...), the stages whose records
                depend on it, and what to do.
        """

        path = self.root / "config.json"
        data: dict[str, Any] = {"version": 1, "config_hash": config_hash, "config": resolved}
        if path.exists():
            try:
                existing = json.loads(path.read_text())
            except json.JSONDecodeError:
                existing = {}
            if existing.get("config_hash") == config_hash:
                return
            before = existing.get("fingerprint")
            blocked: dict[str, list[str]] | None = None
            if isinstance(before, dict) and fingerprint is not None and blockers is not None:
                changed = changed_parts(before, fingerprint)
                blocked = {part: stages for part, stages in blockers(changed).items() if stages}
                if changed and not blocked:
                    rebound = [*existing.get("rebound", []), {"from": existing.get("config_hash"), "changed": changed}]
                    data["rebound"] = rebound
            if "rebound" not in data:
                raise RunDirError(_mismatch(self.root, existing, config_hash, fingerprint, blocked))
        if fingerprint is not None:
            data["fingerprint"] = fingerprint
        atomic_write_text(path, json.dumps(data, indent=2))

    def write_json(self, rel: str, data: Any) -> str:
        """Write a JSON file atomically; returns its run-relative path."""
        atomic_write_text(self.root / rel, json.dumps(data, indent=2, sort_keys=True))
        return rel

    def read_json(self, rel: str) -> Any:
        """Read a JSON file of the run.

        Raises:
            RunDirError: the file is missing.
        """
        path = self.root / rel
        if not path.exists():
            raise RunDirError(f"{path} is missing; run the earlier stages first (tfr stage all)")
        return json.loads(path.read_text())

    # artifacts -----------------------------------------------------------------------------------
    def artifact(self, model: str, task_id: str, name: str, text: str, durable: bool = True) -> str:
        """Record a human-readable artifact as ``<model>/<task>/<name>``; returns that run-relative path.

        The text is a line of the running stage's log, ``artifacts/<stage>.jsonl`` (``run`` outside a stage),
        not a file of its own; :func:`~tfr_helpers.pipeline.engine.artifact_log.read_artifact` reads it back.
        Every log is synced before the next checkpoint append (``durable`` is kept for the stages' calls: no
        artifact costs an fsync of its own any more).
        """
        rel = f"{model_dirname(model)}/{path_name(task_id)}/{name}"
        self.artifacts.write(self.stage or "run", rel, text)
        return rel

    def log_executions(self, timings: Sequence[dict[str, Any]]) -> None:
        """Append the pool's timings of sandbox runs (``routing.job_timing``) to ``executions/<stage>.jsonl``
        (read by ``benchmarks/perf/profile_study.py --mode records``; not synced: a measurement, not a record)."""
        if not timings:
            return
        path = self.root / EXECUTIONS_DIR / f"{self.stage or 'run'}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._exec_lock:
            logfiles.prepare_append(path)  # a finished run's compressed log: appended to in plain form
            with open(path, "a", encoding="utf-8") as fh:
                fh.write("".join(json.dumps(t, separators=(",", ":")) + "\n" for t in timings))

    # checkpoints ---------------------------------------------------------------------------------
    def checkpoint_path(self, name: str) -> Path:
        """Path of one stage's checkpoint file."""
        return self.root / CHECKPOINTS_DIR / f"{name}.jsonl"

    def read_checkpoint(self, name: str) -> list[dict[str, Any]]:
        """All complete lines of a checkpoint as ``{"key", "data"}`` dicts; a torn last line is ignored."""
        path = self.checkpoint_path(name)
        if not logfiles.exists(path):
            self._keys[name] = set()
            return []
        entries: dict[str, dict[str, Any]] = {}
        for entry in checkpoint_entries(path):
            entries.setdefault(entry["key"], entry)
        self._keys[name] = set(entries)
        return list(entries.values())

    def done_keys(self, name: str) -> set[str]:
        """Keys already recorded in a checkpoint."""
        if name not in self._keys:
            self.read_checkpoint(name)
        return self._keys[name]

    def append(self, name: str, key: str, data: Any) -> None:
        """Append one record line (once per key), flushed and fsynced before returning."""
        self.append_many(name, [(key, data)])

    def append_many(self, name: str, entries: Sequence[tuple[str, Any]]) -> None:
        """Append record lines (once per key) with one flush and fsync for all of them (a chunk of a stage:
        thousands of small records would otherwise cost one fsync each)."""
        done = self.done_keys(name)
        fresh = {key: data for key, data in entries if key not in done}
        if not fresh:
            return
        self.artifacts.sync()  # what the records point at is on disk before they are
        path = self.checkpoint_path(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        logfiles.prepare_append(path)  # a finished run's compressed checkpoint: appended to in plain form
        lines = [json.dumps({"v": CHECKPOINT_VERSION, "key": k, "data": d}, sort_keys=True) for k, d in fresh.items()]
        with open(path, "ab+") as fh:
            # a torn line left by a killed writer must not swallow the next record
            if fh.tell() > 0:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            fh.write("".join(line + "\n" for line in lines).encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        done.update(fresh)

    # results ---------------------------------------------------------------------------------------
    def write_results(self, results: Results) -> str:
        """Write ``results.json.gz`` atomically (repeated values stored once: see ``codec.encode_results``;
        gzip-compressed, as the tables) and the record tables beside it (:mod:`.tables`); a ``results.json`` of
        the former layout is removed (stale now)."""

        text = encode_results(results).encode("utf-8")
        atomic_write_bytes(self.root / RESULTS_FILE, gzip.compress(text, compresslevel=logfiles.LEVEL, mtime=0))
        (self.root / "results.json").unlink(missing_ok=True)
        write_tables(self.root, results)
        return RESULTS_FILE

    def compress_logs(self) -> list[Path]:
        """gzip-compress every plain log of the run (:data:`LOG_DIRS`), after :meth:`close`; returns the files
        written. Called when a run of stages ends cleanly: a later append puts a log back in plain form first."""
        self.close()
        return [gz for folder in LOG_DIRS for gz in logfiles.compress_all(self.root / folder)]

    def close(self) -> None:
        """Sync and close the artifact logs (the store can still be written to: they reopen on demand)."""
        self.artifacts.close()


def checkpoint_entries(path: Path) -> list[dict[str, Any]]:
    """Every complete record line of a checkpoint file (plain or compressed: ``path`` names the plain one), in
    file order (a key written twice is listed twice); a torn line (a writer killed mid-line, or a line still being
    written) is skipped. Safe on a live checkpoint."""
    entries = []
    for line in logfiles.read_text(path).splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # torn line from a killed writer: the work is redone
        if isinstance(entry, dict) and "key" in entry:
            entries.append(entry)
    return entries


def _mismatch(
    root: Path,
    existing: dict[str, Any],
    config_hash: str,
    fingerprint: dict[str, str] | None,
    blocked: dict[str, list[str]] | None = None,
) -> str:
    """The refusal message of :meth:`RunStore.bind_config`: what changed, whose records depend on it, what to do."""

    before = existing.get("fingerprint")
    if isinstance(before, dict) and fingerprint is not None:
        changed = "; ".join(describe_changes(before, fingerprint)) or "no named part (the hash rule changed)"
        if blocked:
            changed += "; records that depend on it: " + "; ".join(
                f"{part} in {', '.join(stages)}" for part, stages in sorted(blocked.items())
            )
    else:
        changed = (
            f"hash {existing.get('config_hash')}, now {config_hash}; its config.json does not record the "
            "parts of its hash, so the changed part cannot be named"
        )
    return (
        f"{root} holds a run of another configuration ({changed}). Resuming would mix records made before "
        "and after the change: use a new --run-dir or change run_name to start afresh, or undo the change to resume"
    )
