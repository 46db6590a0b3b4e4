"""EvalPlus's benchmarks as tfr benchmarks: expected outputs from the corrected reference, run in the sandbox once
per task and cached by content; the benchmark tests as two tiers of differential checks; EvalPlus's time limits.

Registers ``humaneval_plus``, ``humaneval_plus_mini`` and ``mbpp_plus`` (not part of the default study: name them
in a params file's ``benchmarks``). A task's benchmark tests are specs ``base_0, base_1, ...`` then
``plus_0, ...``, each checking up to :data:`CHUNK` inputs in order and failing at the first output EvalPlus
would reject (:mod:`tfr_helpers.benchmarks.evalplus.harness`). Its verdicts at the two tiers
(:func:`tier_verdicts`): *base* passes when every ``base_*`` spec does, *plus* when every spec does (EvalPlus's
"base + extra"); a program run's ``passed`` is the plus tier.

Time limits follow EvalPlus's rule: each input may take ``max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR x the reference's
time on it)`` (1 s and 4.0, as in ``evalplus/config.py``), but in CPU time where EvalPlus uses wall time (:data:`CLOCK`):
the reference's CPU seconds per input, measured in the sandbox when its outputs are computed and cached with them,
and a CPU-time limit on the candidate's call, so a verdict does not change with the machine's load. The sandbox's
per-test wall budget stays the outer guard (it alone stops a call that blocks without using CPU).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks.evalplus import harness
from tfr_helpers.benchmarks.evalplus.data import (
    PlusData,
    load_humaneval_plus,
    load_humaneval_plus_mini,
    load_mbpp_plus,
    loaded,
    plus_data,
)
from tfr_helpers.benchmarks.registry import BenchmarkEntry, get_benchmark, register_benchmark
from tfr_helpers.benchmarks.sources import HUMANEVAL_PLUS, HUMANEVAL_PLUS_MINI, MBPP_PLUS
from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.launch import cache_root
from tfr_helpers.records import ProgramRun, Task
from tfr_helpers.sandbox.pool import Sandbox
from tfr_helpers.sandbox.spec import Limits, TestSpec

log = logging.getLogger(__name__)

CHUNK = 20
"""Most inputs per benchmark-test spec."""
CHUNK_SECONDS = 2.0
"""Most reference seconds per spec: inputs the reference needs long for get specs of their own, so a correct
program stays well inside the sandbox's per-test budget (10 s by default) even on a loaded machine."""
GROUND_CHUNK = 50
"""Inputs per reference run when computing expected outputs (halved for a chunk whose output does not fit)."""
MIN_TIME_LIMIT = 1.0
TIME_LIMIT_FACTOR = 4.0
GROUND_LIMITS = Limits(timeout_s=60.0, output_cap=400_000)
"""The reference's budget when its outputs are computed (its output is carried on stdout)."""
HARNESS_SOURCE = Path(harness.__file__).read_text(encoding="utf-8")
HARNESS_VERSION = hashlib.sha256(HARNESS_SOURCE.encode()).hexdigest()[:16]
CLOCK = "cpu"
"""What the reference's cached times count: CPU seconds (``time.process_time``). Part of the cache key, so
expected outputs cached with wall-clock times (an earlier harness) are never read as CPU times."""


@dataclass(frozen=True)
class Expected:
    """The reference's outputs (tagged JSON) and times (CPU seconds) on a task's inputs, per tier."""

    base: list[Any]
    base_time: list[float]
    plus: list[Any]
    plus_time: list[float]


def _encode_inputs(inputs: list[Any]) -> list[Any]:
    return [harness._tfr_ep_encode(list(args)) for args in inputs]


def _dumps(value: Any) -> str:
    """JSON of tagged values, big integers included (Python's int <-> str digit limit lifted meanwhile)."""
    return str(harness._tfr_ep_dumps(value))


def _loads(text: str) -> Any:
    with harness._TfrEpDigits():
        return json.loads(text)


def content_key(data: PlusData) -> str:
    """What the expected outputs depend on: the harness and its clock, the reference, the entry point and the
    inputs."""
    body = _dumps(
        [
            HARNESS_VERSION,
            CLOCK,
            data.dataset,
            data.entry_point,
            data.reference,
            _encode_inputs(data.base_input),
            _encode_inputs(data.plus_input),
            _not_none(data),
        ],
    )
    return hashlib.sha256(body.encode()).hexdigest()


def _not_none(data: PlusData) -> bool:
    """MBPP+ tasks whose expected output is whether the reference returns a value (EvalPlus's ground truth)."""
    return data.dataset == "mbpp" and data.entry_point in harness._TFR_EP_NOT_NONE


def _cache_file(data: PlusData) -> Path:
    number = data.task_id.split("/")[-1]
    return cache_root() / "evalplus" / data.benchmark / f"{number}-{content_key(data)[:24]}.json"


_MEMORY: dict[str, Expected] = {}


def _read_cached(data: PlusData) -> Expected | None:
    path = _cache_file(data)
    try:
        raw = _loads(path.read_text(encoding="utf-8"))
        found = Expected(**raw)
    except (OSError, ValueError, TypeError):
        return None
    if len(found.base) != len(data.base_input) or len(found.plus) != len(data.plus_input):
        return None
    return found


def _ground_spec(data: PlusData, tier: str, start: int, stop: int) -> TestSpec:
    inputs = data.base_input if tier == "base" else data.plus_input
    text = _dumps(_encode_inputs(inputs[start:stop]))
    call = f"\n_tfr_ep_reference({data.entry_point}, {text!r}, {_not_none(data)})\n"
    return TestSpec(name=f"{tier}:{start}:{stop}", source=HARNESS_SOURCE + call, kind="snippet")


def _parse_ground(stdout: str) -> tuple[list[Any], list[float]] | None:
    line = next((ln for ln in stdout.splitlines() if ln.startswith(harness._TFR_EP_MARK)), None)
    if line is None or not stdout.endswith("\n"):
        return None
    try:
        outputs, times = _loads(line[len(harness._TFR_EP_MARK) :])
    except ValueError:
        return None
    return outputs, times


def compute_expected(datas: list[PlusData], sandbox: Sandbox) -> dict[str, Expected]:
    """Run each reference on its inputs in ``sandbox`` (deep copies, timed in CPU seconds) and return its outputs.

    Raises:
        DataError: A reference fails on one of its own inputs (the message names the task and the input).
    """
    pending = [
        (d, tier, start, min(start + GROUND_CHUNK, len(inputs)))
        for d in datas
        for tier, inputs in (("base", d.base_input), ("plus", d.plus_input))
        for start in range(0, len(inputs), GROUND_CHUNK)
    ]
    parts: dict[tuple[str, str, int], tuple[list[Any], list[float]]] = {}
    while pending:
        by_task: dict[str, list[tuple[PlusData, str, int, int]]] = {}
        for item in pending:
            by_task.setdefault(item[0].task_id, []).append(item)
        groups = list(by_task.values())
        jobs = [(g[0][0].reference, [_ground_spec(*item) for item in g]) for g in groups]
        runs = sandbox.run_many(jobs, limits=GROUND_LIMITS, desc="EvalPlus expected outputs")
        pending = []
        for group, run in zip(groups, runs, strict=True):
            for item, outcome in zip(group, run.outcomes, strict=True):
                data, tier, start, stop = item
                got = _parse_ground(outcome.stdout) if outcome.status == "passed" else None
                if got is not None and len(got[0]) == stop - start:
                    parts[(data.task_id, tier, start)] = got
                elif stop - start > 1:  # too much output for one message, or a crash: split and retry
                    mid = (start + stop) // 2
                    pending += [(data, tier, start, mid), (data, tier, mid, stop)]
                else:
                    problem = run.load_error or outcome
                    raise DataError(
                        f"{data.task_id}: the reference fails on its own {tier} input #{start} "
                        f"({problem.status}: {problem.message or problem.exc_type}); EvalPlus's data or this "
                        "sandbox's limits do not fit this task"
                    )
    found = {}
    for data in datas:
        tiers: dict[str, tuple[list[Any], list[float]]] = {}
        for tier in ("base", "plus"):
            keys = sorted(k for k in parts if k[0] == data.task_id and k[1] == tier)
            tiers[tier] = ([o for k in keys for o in parts[k][0]], [t for k in keys for t in parts[k][1]])
        found[data.task_id] = Expected(tiers["base"][0], tiers["base"][1], tiers["plus"][0], tiers["plus"][1])
    return found


def expected_outputs(
    benchmark: str, sandbox: Sandbox | None = None, task_ids: set[str] | None = None
) -> dict[str, Expected]:
    """The expected outputs of the loaded tasks of an EvalPlus benchmark: memory, then the cache, then the sandbox.

    Args:
        benchmark: ``humaneval_plus``, ``humaneval_plus_mini`` or ``mbpp_plus`` (its tasks loaded).
        sandbox: Where to run the references on a cache miss (default: a sandbox of its own, started only then).
        task_ids: Only these tasks (default: every loaded task of the benchmark, computed in one batch).
    """
    datas = [d for d in loaded(benchmark) if task_ids is None or d.task_id in task_ids]
    missing = []
    for data in datas:
        if data.task_id not in _MEMORY:
            cached = _read_cached(data)
            if cached is None:
                missing.append(data)
            else:
                _MEMORY[data.task_id] = cached
    if missing:
        log.info("computing the expected outputs of %d %s tasks in the sandbox", len(missing), benchmark)
        if sandbox is None:
            with Sandbox(GROUND_LIMITS) as own:
                computed = compute_expected(missing, own)
        else:
            computed = compute_expected(missing, sandbox)
        for data in missing:
            exp = computed[data.task_id]
            atomic_write_text(_cache_file(data), _dumps(exp.__dict__))
            _MEMORY[data.task_id] = exp
    return {d.task_id: _MEMORY[d.task_id] for d in datas}


def time_limits(times: list[float]) -> list[float]:
    """EvalPlus's per-input limits: ``max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR x the reference's time)``, in CPU
    seconds (the harness stops a call at its limit with ``ITIMER_PROF``)."""
    return [max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR * t) for t in times]


def _chunks(times: list[float]) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` runs of inputs: at most :data:`CHUNK` inputs and :data:`CHUNK_SECONDS` of the
    reference's time each (a slower input alone)."""
    out, start, spent = [], 0, 0.0
    for i, t in enumerate(times):
        if i > start and (i - start >= CHUNK or spent + t > CHUNK_SECONDS):
            out.append((start, i))
            start, spent = i, 0.0
        spent += t
    return out + ([(start, len(times))] if times else [])


def plus_specs(task: Task) -> list[TestSpec]:
    """A task's benchmark tests: its base inputs, then its plus inputs, in runs of :func:`_chunks`."""
    data = plus_data(task.task_id)
    exp = _MEMORY.get(task.task_id) or expected_outputs(data.benchmark)[task.task_id]
    specs = []
    for tier, inputs, outputs, times in (
        ("base", data.base_input, exp.base, exp.base_time),
        ("plus", data.plus_input, exp.plus, exp.plus_time),
    ):
        atol, limits = data.atol, time_limits(times)
        for number, (start, stop) in enumerate(_chunks(times)):
            call = (
                f"\n_tfr_ep_judge({data.entry_point}, {_dumps(_encode_inputs(inputs[start:stop]))!r}, "
                f"{_dumps(outputs[start:stop])!r}, {limits[start:stop]!r}, {atol!r}, {data.dataset!r}, "
                f"{data.entry_point!r}, {start})\n"
            )
            specs.append(TestSpec(name=f"{tier}_{number}", source=HARNESS_SOURCE + call, kind="snippet"))
            for out in outputs[start:stop]:
                if not (isinstance(out, dict) and ("__r" in out or "__h" in out)):
                    atol = harness._tfr_ep_next_atol(atol, harness._tfr_ep_decode(out), data.dataset, data.entry_point)
    return specs


def is_evalplus(benchmark: str) -> bool:
    """Whether a benchmark's tests are EvalPlus's tiers (its verdicts come at two tiers, :func:`tier_verdicts`)."""
    return get_benchmark(benchmark).tests is plus_specs


def tier_verdicts(run: ProgramRun) -> dict[str, bool]:
    """``{"base": ..., "plus": ...}`` of a program run against :func:`plus_specs` (a load error fails both)."""
    if run.load_error is not None:
        return {"base": False, "plus": False}
    base = [o for o in run.outcomes if o.name.startswith("base_")]
    return {"base": all(o.status == "passed" for o in base), "plus": run.passed}


for _name, _label, _prefix, _source, _loader, _prompt in (
    ("humaneval_plus", "HumanEval+", "HumanEval+/", HUMANEVAL_PLUS, load_humaneval_plus, "description"),
    (
        "humaneval_plus_mini",
        "HumanEval+ Mini",
        "HumanEval+Mini/",
        HUMANEVAL_PLUS_MINI,
        load_humaneval_plus_mini,
        "description",
    ),
    ("mbpp_plus", "MBPP+", "Mbpp/", MBPP_PLUS, load_mbpp_plus, "signature"),
):
    register_benchmark(
        BenchmarkEntry(
            _name,
            _label,
            _prefix,
            _source,
            _loader,
            tests=plus_specs,
            completion_prompt=_prompt,  # type: ignore[arg-type]
            in_default_study=False,
            id_aliases=("HumanEval/",) if _prefix.startswith("HumanEval") else (),
        )
    )
