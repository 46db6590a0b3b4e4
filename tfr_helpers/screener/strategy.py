"""The ``learned_gold_free`` screening strategy: the shipped artefact applied to reference-free features.

Each batch of feedback is turned into :class:`~tfr_helpers.screener.view.FeedbackView` records by the one function
that reads the run context (:func:`~tfr_helpers.screener.view.views_from_context`), featurised (the prompt's
examples run on the generated code in the run's sandbox) and scored by the artefact; feedback whose probability of
being unreliable is at or above the artefact's threshold is rejected, and that probability is the decision's
``score``. A task the artefact was trained on is scored by the fold model that held it out, at that fold's own
threshold (chosen without the task), never in-sample. Every decision's reasoning names the artefact's sha256, and the
run directory gets ``screening/learned_gold_free.json``: the artefact's version, features and training data. On a
simulated coder's feedback each reasoning says it is a demo (the artefact never saw simulated data).
"""

from __future__ import annotations

import json
import os
import weakref
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tfr_helpers.errors import DataError
from tfr_helpers.models.provider_table import is_simulated
from tfr_helpers.pipeline.engine.context import RunContext
from tfr_helpers.pipeline.screening.registry import Screener, ScreeningItem, Verdict, register_screener
from tfr_helpers.records import ProgramRun
from tfr_helpers.sandbox import TestSpec
from tfr_helpers.screener.artefact import DEFAULT_ARTEFACT, Artefact, load_artefact
from tfr_helpers.screener.features import FEATURES, example_job, example_key, extract
from tfr_helpers.screener.view import views_from_context

SIMULATED_NOTE = "; simulated feedback: a demo of a screener trained on real data only, never evidence"
"""Said by every decision on a simulated coder's feedback (the main job screens its ``sim:`` rows too, as a demo)."""
PROVENANCE_FILE = "screening/learned_gold_free.json"
"""Where a run that uses the strategy records the artefact it used."""


def decide(items: Sequence[ScreeningItem], ctx: RunContext, artefact: Artefact) -> list[Verdict]:
    """The verdicts of ``artefact`` on ``items`` (see the module doc)."""
    if tuple(artefact.features) != FEATURES:
        differ = ", ".join(sorted(set(artefact.features) ^ set(FEATURES))) or "their order"
        raise DataError(f"screener artefact {artefact.sha256[:12]} was fitted on other features ({differ}); retrain it")
    if not items:
        return []
    _record_provenance(ctx, artefact.provenance())
    views = views_from_context(items, ctx)
    x = extract(views, lambda jobs: _run_examples(jobs, ctx))
    p, folds = artefact.proba(x, [v.task_id for v in views])
    out = []
    for item, prob, fold in zip(items, p.tolist(), folds, strict=True):
        threshold = artefact.threshold_of(fold)
        reject = prob >= threshold
        which = f"fold model {fold} (task held out in training)" if fold is not None else "full model (task not in training)"
        reason = (
            f"P(unreliable) = {prob:.3f} {'>=' if reject else '<'} threshold {threshold:.3f}; {which}; "
            f"artefact sha256 {artefact.sha256[:12]}, scikit-learn {artefact.sklearn_version}"
            + (SIMULATED_NOTE if is_simulated(item.coder) else "")
        )
        out.append(Verdict("reject" if reject else "accept", reason, score=prob))
    return out


def _record_provenance(ctx: RunContext, provenance: dict[str, Any]) -> None:
    """Write :data:`PROVENANCE_FILE` unless it already holds ``provenance`` (the stage calls the strategy once per
    chunk of feedback: an atomic, synced write each time cost the main job about 1,100 of them)."""
    path = ctx.store.root / PROVENANCE_FILE
    text = json.dumps(provenance, indent=2, sort_keys=True)  # as RunStore.write_json writes it
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    ctx.store.write_json(PROVENANCE_FILE, provenance)


_LOADED: dict[tuple[str, int, int], Artefact] = {}
"""Checked artefacts by (path, size, mtime): the file is read and its sha256 checked once per state, not per chunk."""


def _artefact(path: Path) -> Artefact:
    try:
        stat = path.stat()
    except OSError:
        return load_artefact(path)  # its own message for a missing file
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _LOADED:
        _LOADED.clear()
        _LOADED[key] = load_artefact(path)
    return _LOADED[key]


EXAMPLES_DESC = "learned_gold_free: prompt examples"


def _run_programs(ctx: RunContext, jobs: Sequence[tuple[str, Sequence[TestSpec]]]) -> list[ProgramRun]:
    """The examples' runs, each example under the run's budget of a generated test
    (``sandbox.generated_test_timeout_s``), not a benchmark test's.

    The examples are tests the study writes from the prompt and runs on generated code, like a generated test, and
    the code that matters here never needs long on them: in the main job every passing example took under 0.03 s,
    and a program that loops on one cost the benchmark test's 10 s per example (docs/screening.md)."""
    s = ctx.config.sandbox
    return ctx.run_programs(jobs, desc=EXAMPLES_DESC, budget_factor=s.generated_test_timeout_s / s.timeout_s)


_PREPARED: list[tuple[weakref.ref[RunContext], dict[tuple[str, tuple[str, ...]], Future[ProgramRun]]]] = []
"""The examples runs of the stage's pending feedback: the run context that made them (its sandbox limits), and the
runs by (program, tests), each done or under way."""


def _job_key(job: tuple[str, Sequence[TestSpec]]) -> tuple[str, tuple[str, ...]]:
    return job[0], tuple(spec.source for spec in job[1])


def prepare(items: Sequence[ScreeningItem], ctx: RunContext) -> None:
    """Start the prompt examples of all the stage's pending feedback in the background, before its first chunk.

    The stage calls the strategy chunk by chunk, and each chunk waited for its own examples: a program that loops
    held the stage for its whole timeout, test after test. Started here, in the pending feedback's order, as many
    at once as the sandbox has workers, they run while the stage works out the other strategies' decisions; a
    chunk waits only for its own examples (:func:`_run_examples`), and a job not prepared runs as before. The
    runs are the same as one batch's: scheduling only. On the Ray executor (one batch at a time) they run here
    as one batch."""
    keys = dict.fromkeys(example_key(i.code, i.task.description, i.task.entry_point, tuple(i.task.examples)) for i in items)
    jobs = [example_job(key) for key in keys if key[1]]
    _PREPARED.clear()
    if not jobs:
        return
    futures: dict[tuple[str, tuple[str, ...]], Future[ProgramRun]] = {}
    if ctx.config.concurrency.executor != "local":
        for job, run in zip(jobs, _run_programs(ctx, jobs), strict=True):
            done: Future[ProgramRun] = Future()
            done.set_result(run)
            futures[_job_key(job)] = done
    else:
        workers = ctx.config.concurrency.sandbox_workers or os.cpu_count() or 1
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tfr-examples")
        for job in jobs:
            futures[_job_key(job)] = pool.submit(_run_one, ctx, job)
        pool.shutdown(wait=False)  # its threads end once the queued runs are done
        ctx.on_close(lambda: pool.shutdown(wait=False, cancel_futures=True))
    _PREPARED.append((weakref.ref(ctx), futures))


def _run_one(ctx: RunContext, job: tuple[str, Sequence[TestSpec]]) -> ProgramRun:
    (run,) = _run_programs(ctx, [job])
    return run


def _run_examples(jobs: Sequence[tuple[str, Sequence[TestSpec]]], ctx: RunContext) -> list[ProgramRun]:
    """The runs of ``jobs``: those :func:`prepare` started for this context (waited for), the others run now,
    in order."""
    prepared = next((runs for made_by, runs in _PREPARED if made_by() is ctx), {})
    missing = [job for job in jobs if _job_key(job) not in prepared]
    fresh = iter(_run_programs(ctx, missing) if missing else [])
    return [prepared[_job_key(job)].result() if _job_key(job) in prepared else next(fresh) for job in jobs]


def learned_gold_free(items: Sequence[ScreeningItem], ctx: RunContext) -> list[Verdict]:
    """Reject feedback the shipped learned screener rates unreliable (docs/screening.md)."""
    return decide(items, ctx, _artefact(DEFAULT_ARTEFACT))


SCREENER = register_screener(
    Screener(
        "learned_gold_free",
        learned_gold_free,
        sandbox=True,  # the prompt's examples run on the generated code
        artefact=DEFAULT_ARTEFACT,
        scores=True,  # P(unreliable)
        prepare=prepare,  # the stage gives it all its pending items first: their examples start in one batch
    )
)
