"""Runs registered stages in order with persistence and resume (``run_stages``), for one run directory."""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from tfr_helpers import logfiles
from tfr_helpers.errors import ConfigError, RunDirError
from tfr_helpers.models import check_credentials
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.codec import decode_records, encode_records
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.engine.faults import Ledger, RunIncomplete, Undone
from tfr_helpers.pipeline.engine.progress import StageProgress
from tfr_helpers.pipeline.engine.run_summary import RunSummary, summarize
from tfr_helpers.pipeline.engine.settings_view import SettingsView
from tfr_helpers.pipeline.engine.stage import Stage, blocking_stages, check_inputs, registered_stages
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.engine.tasks import select_tasks
from tfr_helpers.sandbox.pool import pool_mode

log = logging.getLogger(__name__)


def _registry() -> dict[str, Stage]:
    """The registered stages by name, in run order (read at each use: stages may be registered later)."""
    return {stage.name: stage for stage in registered_stages()}


def _checkpoint(stage: str) -> str:
    name = _registry()[stage].checkpoint
    if name is None:
        raise ConfigError(f"stage {stage!r} has no checkpoint")
    return name


def default_run_dir(config: ExperimentConfig) -> Path:
    """``runs/<run_name>`` under the current directory."""
    return Path("runs") / config.run_name


def _chunk_size(ctx: RunContext, stage: str) -> int:
    if ctx.run_config.concurrency.checkpoint_every:
        return ctx.run_config.concurrency.checkpoint_every
    if _registry()[stage].sandboxed:
        # a chunk ends in a barrier (its sandbox batches wait for their slowest program): chunks of a
        # parallel_chunks stage overlap, so theirs cost nothing and small chunks balance the stage's tail; others
        # make few barriers with large chunks (TFR_SANDBOX_POOLS=old: the former 8 per worker, one at a time)
        per_worker = 8 if pool_mode() == "old" else 16 if _in_flight(ctx, stage) else 64
        return per_worker * (ctx.run_config.concurrency.sandbox_workers or 2)
    if any(ctx.run_config.model_settings.batch.values()):  # one provider batch for the stage, not one per chunk
        return 1_000_000_000
    return 4 * ctx.run_config.concurrency.model_calls


def _execute(
    ctx: RunContext,
    stage: str,
    fn: Callable[[Sequence[Any], RunContext], list[Any]],
    items: Sequence[Any],
    progress: bool,
    ledger: Ledger,
) -> list[Any]:
    """Run ``fn`` on items without a checkpoint record, chunk by chunk; return the done items' records in order.

    Faults are not results: an item answered with :class:`Undone` (its call got no reply) is not checkpointed
    but noted in ``ledger``, so a rerun retries it. Once the model client stopped (a wrong key, an unknown
    model, no quota) the remaining chunks are not attempted. A stage with ``parallel_chunks`` runs up to
    :func:`chunks_in_flight` chunks at once on the local executor; each is checkpointed as soon as it is done.
    """
    if not items:  # nothing to do in this configuration (the arms' stages by default): no progress line either
        return []
    name = _checkpoint(stage)
    done = ctx.store.done_keys(name)
    pending = [item for item in items if item.key not in done]
    size = _chunk_size(ctx, stage)
    ramp = not ctx.run_config.concurrency.checkpoint_every and _registry()[stage].sandboxed
    first = ctx.run_config.concurrency.sandbox_workers or 2 if ramp else size
    waits = _registry()[stage].waits
    if waits is not None and _in_flight(ctx, stage):
        pending = waiting_early(pending, waits, first)
    chunks = split_chunks(pending, size, first=first)
    bar = tqdm(total=len(pending), desc=stage, disable=not progress or not pending, leave=False)
    with bar, StageProgress(ctx, stage, len(items), len(items) - len(pending)) as live:

        def finished(chunk: Sequence[Any], out: list[Any]) -> None:
            _checkpoint_chunk(ctx, stage, chunk, out, ledger)
            live.advance(len(chunk))
            bar.set_postfix_str(live.postfix(), refresh=False)
            bar.update(len(chunk))

        if _in_flight(ctx, stage) and len(chunks) > 1:
            _run_in_flight(ctx, fn, chunks, finished)
        else:
            for chunk in chunks:
                ledger.stop = ledger.stop or ctx.model_stop()
                if ledger.stop:
                    for item in chunk:
                        ledger.add(stage, item, "not attempted: the run stopped")
                    continue
                finished(chunk, fn(chunk, ctx))
    ledger.stop = ledger.stop or ctx.model_stop()
    return _load(ctx, stage, items, ledger, ran=True)


def split_chunks(items: Sequence[Any], size: int, first: int) -> list[list[Any]]:
    """``items`` in chunks of ``size``, the first ones growing from ``first`` (doubling): a sandboxed stage's
    first items are recorded within seconds, so its progress has an ETA from the start rather than after its
    first full chunk (tens of seconds on the main job). Chunks are scheduling only: records do not depend on
    them."""
    chunks: list[list[Any]] = []
    start, step = 0, max(1, min(first, size))
    while start < len(items):
        chunks.append(list(items[start : start + step]))
        start, step = start + step, min(2 * step, size)
    return chunks


def waiting_early(items: Sequence[Any], waits: Callable[[Any], bool], first: int) -> list[Any]:
    """``items`` with those that ``waits`` right after the first ``first`` of the others (each group in its
    order): the stage's first chunk, which runs alone, stays quick, and the items whose programs sleep or wait on
    a process start next, so the chunks in flight beside them keep the cores busy while they wait (a stage whose
    waiting items came last would end on them with the cores idle)."""
    flags = [waits(item) for item in items]
    waiting = [item for item, flag in zip(items, flags, strict=True) if flag]
    if not waiting:
        return list(items)
    others = [item for item, flag in zip(items, flags, strict=True) if not flag]
    return [*others[:first], *waiting, *others[first:]]


def _in_flight(ctx: RunContext, stage: str) -> bool:
    """Whether the stage's chunks overlap: ``parallel_chunks`` on the local executor (Ray actors take one batch
    at a time) with the default pools (``TFR_SANDBOX_POOLS=old`` keeps the former one chunk at a time)."""
    local = ctx.run_config.concurrency.executor == "local" and pool_mode() != "old"
    return _registry()[stage].parallel_chunks and local and chunks_in_flight() > 1


def chunks_in_flight() -> int:
    """``TFR_CHUNKS_IN_FLIGHT`` (default :data:`CHUNKS_IN_FLIGHT`; 1 runs one chunk at a time)."""
    value = os.environ.get("TFR_CHUNKS_IN_FLIGHT", "").strip()
    if not value:
        return CHUNKS_IN_FLIGHT
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"TFR_CHUNKS_IN_FLIGHT={value!r}: use a whole number of at least 1 (1: one chunk at a time)")
    return int(value)


CHUNKS_IN_FLIGHT = 4
"""Chunks of a ``parallel_chunks`` stage running at once: while one waits on its slowest program (a timeout, a
BigCodeBench test that sleeps, the reference reruns that follow its first runs), the others keep the workers busy.
The sandbox still runs at most one CPU-bound program per worker (:class:`tfr_helpers.sandbox.Sandbox`)."""


def _run_in_flight(
    ctx: RunContext,
    fn: Callable[[Sequence[Any], RunContext], list[Any]],
    chunks: list[list[Any]],
    finished: Callable[[Sequence[Any], list[Any]], None],
) -> None:
    """Run chunks :func:`chunks_in_flight` at a time (the first alone: with :func:`split_chunks`' small first chunk
    the stage's first items are recorded within seconds); ``finished`` (this thread) checkpoints each as it completes.

    A chunk that raises stops new chunks from starting; those in flight finish and are checkpointed, then the
    error is raised (a rerun resumes from what was recorded). An interrupt (Ctrl-C) in this thread returns at
    once: the chunks in flight are abandoned unrecorded (closing the run's sandbox ends their programs)."""
    todo = iter(chunks)
    running: dict[Future[list[Any]], list[Any]] = {}
    error: BaseException | None = None
    in_flight = chunks_in_flight()
    pool = ThreadPoolExecutor(max_workers=in_flight, thread_name_prefix="tfr-chunk")

    def submit() -> None:
        chunk = next(todo, None)
        if chunk is not None:
            running[pool.submit(fn, chunk, ctx)] = chunk

    try:
        submit()  # the first (small) chunk alone: its items are recorded first, and the stage's ETA known early
        while running:
            ready, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in ready:
                chunk = running.pop(future)
                try:
                    out = future.result()
                except Exception as exc:  # noqa: BLE001 - re-raised once the chunks in flight are recorded
                    error = error or exc
                    continue
                finished(chunk, out)
            while error is None and len(running) < in_flight:
                before = len(running)
                submit()
                if len(running) == before:  # no chunk left
                    break
    finally:
        pool.shutdown(wait=not running, cancel_futures=True)
    if error is not None:
        raise error


def _checkpoint_chunk(ctx: RunContext, stage: str, chunk: Sequence[Any], out: list[Any], ledger: Ledger) -> None:
    """Append each done item's records to the stage checkpoint; undone items go to the ledger only."""
    by_key = {item.key: item for item in chunk}
    undone = {r.key: r.reason for r in out if isinstance(r, Undone)}
    produces = _registry()[stage].produces
    strays = {type(r).__name__ for r in out if produces and not isinstance(r, Undone) and type(r) not in produces}
    if strays:  # a later stage finds records by type: an undeclared one would be invisible to it
        raise TypeError(f"stage {stage!r} returned {', '.join(sorted(strays))} records: add them to its produces=(...)")
    for key, reason in undone.items():
        ledger.add(stage, by_key[key], reason)
    groups: dict[str, list[Any]] = {item.key: [] for item in chunk if item.key not in undone}
    output_key = _registry()[stage].output_key
    for record in out:
        if not isinstance(record, Undone) and output_key(record) in groups:
            groups[output_key(record)].append(record)
    ctx.store.append_many(_checkpoint(stage), [(key, encode_records(records)) for key, records in groups.items()])


def _load(ctx: RunContext, stage: str, items: Sequence[Any], ledger: Ledger, ran: bool = False) -> list[Any]:
    """Records of a stage in item order; items without a record are noted in ``ledger`` as undone.

    Raises:
        RunDirError: An earlier stage (``ran=False``) has not run at all yet in this run directory.
    """
    entries = {e["key"]: e["data"] for e in ctx.store.read_checkpoint(_checkpoint(stage))}
    if items and not entries and not ran:
        raise RunDirError(
            f"stage {stage} has not run yet in this run directory; "
            f"run `tfr stage {stage}` (or `all`) with the same params and --run-dir"
        )
    known = ledger.undone.get(stage, {})
    for item in items:
        if item.key not in entries and item.key not in known:
            ledger.add(stage, item, f"no record of stage {stage} yet (run `tfr stage {stage}` or `all`)")
    return [record for item in items for record in decode_records(entries.get(item.key, []))]


def run_stages(
    config: ExperimentConfig,
    run_dir: Path | None = None,
    stages: str | Sequence[str] = "all",
    *,
    progress: bool = True,
) -> RunSummary:
    """Run pipeline stages with resume: work already recorded in the run directory is skipped.

    Args:
        config: The experiment configuration.
        run_dir: The run directory (default ``runs/<run_name>``).
        stages: ``all``, one stage name, or a list of names (run in pipeline order; earlier stages must
            be complete).
        progress: Show tqdm progress bars.

    Returns:
        What this invocation did and what the run holds.

    Raises:
        RunIncomplete: items are left undone (their calls failed after retries, or a wrong key, an unknown
            model or an exhausted quota stopped the run); its message names them, says why and that a rerun
            continues, and ``.summary`` holds this summary. Nothing undone is checkpointed.
        ConfigError: an unknown stage name.
        RunDirError: the run directory belongs to another configuration, or an earlier stage is incomplete.
        CredentialsError: a configured model lacks its key (checked before any work).
    """
    registry = _registry()
    check_inputs(list(registry.values()))
    order = list(registry)
    wanted = order if stages == "all" else [stages] if isinstance(stages, str) else list(stages)
    unknown = [s for s in wanted if s not in registry]
    if unknown:
        raise ConfigError(f"unknown stage {unknown[0]!r}; choose one of: all, {', '.join(order)}")

    check_credentials(config.models.all_specs(), config.resolved_model_settings())
    scope.check_datasets(config)  # a missing or corrupt replay dataset fails before any stage runs
    store = RunStore(Path(run_dir) if run_dir is not None else default_run_dir(config))
    store.bind_config(config.model_dump(mode="json"), config.config_hash(), config.fingerprint(), _blockers(store))
    ctx = RunContext(config, store, select_tasks(config, store))
    seconds: dict[str, float] = {}
    results = None
    ledger = Ledger()
    try:
        last = max(order.index(s) for s in wanted)
        recs: dict[str, list[Any]] = {}
        for stage in order[: last + 1]:
            if ledger.stop:  # a fatal provider reply: no later stage can make progress
                break
            run = stage in wanted
            spec = registry[stage]
            store.stage = stage
            t0, cpu0, runs0 = time.monotonic(), ctx.cpu_times(), ctx.counters.sandbox_runs
            with ctx.reading(_settings(spec, config)):
                if spec.checkpoint is None:  # the final stage: results.json only from complete records
                    if run and not ledger:
                        results = spec.run(spec.items(ctx, spec.input_records(recs)), ctx)[0]
                else:
                    items = ledger.runnable(stage, spec.items(ctx, spec.input_records(recs)), spec.independent)
                    recs[stage] = (
                        _execute(ctx, stage, spec.run, items, progress, ledger) if run else _load(ctx, stage, items, ledger)
                    )
            if run:
                seconds[stage] = time.monotonic() - t0
                log.info("stage %s: %.1f s", stage, seconds[stage])
                _add_time(store, stage, seconds[stage])
                _add_cpu(store, stage, cpu0, ctx.cpu_times())
                _add_runs(store, stage, ctx.counters.sandbox_runs - runs0)
        calls = ctx.call_counts()
    finally:
        ctx.close()
        store.stage = None
        store.close()
    summary = summarize(store.root, seconds, ctx.counters, results, calls)
    if ledger:
        summary = dataclasses.replace(summary, undone=ledger.counts())
        raise RunIncomplete(ledger.message(), ledger, summary)
    try:  # the stages ended cleanly: their logs are kept compressed (a later run reopens them)
        store.compress_logs()
    except OSError as exc:  # a full disk, say: the logs stay plain and complete, readable as they are
        log.warning("the run's logs were left uncompressed: %s", exc)
    return summary


def _settings(stage: Stage, config: ExperimentConfig) -> Any:
    """What ``stage`` sees as ``ctx.config``: its declared settings (a :class:`SettingsView`), or the whole
    configuration for a stage that declares no inputs."""
    if stage.inputs is None:
        return config
    return SettingsView(config, stage.name, (*stage.inputs.settings, *stage.inputs.selects))


def _blockers(store: RunStore) -> Callable[[list[str]], dict[str, list[str]]]:
    """For :meth:`RunStore.bind_config`: the stages holding records in ``store`` that depend on changed parts."""

    def has_records(name: str) -> bool:
        return logfiles.has_content(store.checkpoint_path(name))

    return lambda parts: blocking_stages(parts, registered_stages(), has_records)


def _add_time(store: RunStore, stage: str, seconds: float) -> None:
    path = store.root / "stage_seconds.json"
    times = store.read_json("stage_seconds.json") if path.exists() else {}
    times[stage] = round(times.get(stage, 0.0) + seconds, 3)
    store.write_json("stage_seconds.json", times)


SANDBOX_RUNS = "stage_sandbox_runs.json"
"""Programs each stage ran in the sandbox, over every invocation of the run (the end-of-run summary's count)."""


def _add_runs(store: RunStore, stage: str, runs: int) -> None:
    path = store.root / SANDBOX_RUNS
    counts = store.read_json(SANDBOX_RUNS) if path.exists() else {}
    counts[stage] = int(counts.get(stage, 0)) + runs
    store.write_json(SANDBOX_RUNS, counts)


def _add_cpu(store: RunStore, stage: str, before: tuple[float, float], after: tuple[float, float]) -> None:
    """Add a stage's user and system CPU seconds (this process, its sandbox workers and their programs) to
    ``stage_cpu.json``."""
    path = store.root / "stage_cpu.json"
    cpu = store.read_json("stage_cpu.json") if path.exists() else {}
    mine = cpu.setdefault(stage, {"user_s": 0.0, "system_s": 0.0})
    mine["user_s"] = round(mine["user_s"] + after[0] - before[0], 3)
    mine["system_s"] = round(mine["system_s"] + after[1] - before[1], 3)
    store.write_json("stage_cpu.json", cpu)
