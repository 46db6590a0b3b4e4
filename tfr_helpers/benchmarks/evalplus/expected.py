"""Expected outputs of EvalPlus's tasks: the corrected reference run on its own inputs in the sandbox, once per
task, and cached by content.

The reference runs under EvalPlus's memory rule (:mod:`.memory`), as every candidate does, and is timed in CPU
seconds (:data:`CLOCK`); those times set the candidates' per-input limits. One task's trouble stays that task's:

- a **plus** input the reference gives no output for (an error such as ``MemoryError``, a timeout) is recorded
  in the task's :attr:`Expected.left_out` (index -> reason) and left out of its plus tier, as EvalPlus would have
  no oracle for it; every other input and task is still computed and cached;
- a **base** input the reference fails is an error (:class:`ReferenceInputError`), raised once every other task
  is computed and cached.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tfr_helpers.benchmarks.evalplus import harness
from tfr_helpers.benchmarks.evalplus.data import PlusData, loaded
from tfr_helpers.benchmarks.evalplus.memory import memory_mb
from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.launch import cache_root
from tfr_helpers.records import LeftOutInput, TestOutcome
from tfr_helpers.sandbox.pool import Sandbox
from tfr_helpers.sandbox.spec import Limits, TestSpec

log = logging.getLogger(__name__)

GROUND_CHUNK = 50
"""Inputs per reference run when computing expected outputs (halved for a chunk whose output does not fit)."""
GROUND_LIMITS = Limits(timeout_s=60.0, output_cap=400_000)
"""The reference's budget when its outputs are computed (its output is carried on stdout; its address space is
EvalPlus's rule, carried by each spec)."""
HARNESS_SOURCE = Path(harness.__file__).read_text(encoding="utf-8")
HARNESS_VERSION = hashlib.sha256(HARNESS_SOURCE.encode()).hexdigest()[:16]
CLOCK = "cpu"
"""What the reference's cached times count: CPU seconds (``time.process_time``). Part of the cache key, so
expected outputs cached with wall-clock times (an earlier harness) are never read as CPU times."""


@dataclass(frozen=True)
class Expected:
    """The reference's outputs (tagged JSON) and times (CPU seconds) on a task's inputs, per tier.

    A left-out plus input keeps its place (output None, time 0.0) so indices stay EvalPlus's.
    """

    base: list[Any]
    base_time: list[float]
    plus: list[Any]
    plus_time: list[float]
    left_out: dict[int, str] = field(default_factory=dict)
    """Plus inputs the reference gave no output for: index -> reason. Left out of the plus tier."""


class ReferenceInputError(DataError):
    """References that fail their own base inputs (task id -> the problem); every other task was computed."""

    def __init__(self, failures: dict[str, str]) -> None:
        self.failures = failures
        first, problem = next(iter(failures.items()))
        more = f" (and {len(failures) - 1} more tasks)" if len(failures) > 1 else ""
        super().__init__(f"{first}: {problem}{more}; EvalPlus's data or this sandbox's limits do not fit this task")


def encode_inputs(inputs: list[Any]) -> list[Any]:
    """A tier's inputs as tagged JSON values (one argument list each)."""
    return [harness._tfr_ep_encode(list(args)) for args in inputs]


def dumps(value: Any) -> str:
    """JSON of tagged values, big integers included (Python's int <-> str digit limit lifted meanwhile)."""
    return str(harness._tfr_ep_dumps(value))


def _loads(text: str) -> Any:
    with harness._TfrEpDigits():
        return json.loads(text)


def content_key(data: PlusData) -> str:
    """What the expected outputs depend on: the harness, its clock and memory limit, the reference, the entry
    point and the inputs."""
    body = dumps(
        [
            HARNESS_VERSION,
            CLOCK,
            memory_mb(),
            data.dataset,
            data.entry_point,
            data.reference,
            encode_inputs(data.base_input),
            encode_inputs(data.plus_input),
            not_none(data),
        ],
    )
    return hashlib.sha256(body.encode()).hexdigest()


def not_none(data: PlusData) -> bool:
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
        raw["left_out"] = {int(k): str(v) for k, v in raw.get("left_out", {}).items()}
        found = Expected(**raw)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    if len(found.base) != len(data.base_input) or len(found.plus) != len(data.plus_input):
        return None
    return found


def _ground_spec(data: PlusData, tier: str, start: int, stop: int) -> TestSpec:
    inputs = data.base_input if tier == "base" else data.plus_input
    text = dumps(encode_inputs(inputs[start:stop]))
    call = f"\n_tfr_ep_reference({data.entry_point}, {text!r}, {not_none(data)})\n"
    return TestSpec(name=f"{tier}:{start}:{stop}", source=HARNESS_SOURCE + call, kind="snippet", memory_mb=memory_mb())


def _parse_ground(stdout: str) -> tuple[list[Any], list[float]] | None:
    line = next((ln for ln in stdout.splitlines() if ln.startswith(harness._TFR_EP_MARK)), None)
    if line is None or not stdout.endswith("\n"):
        return None
    try:
        outputs, times = _loads(line[len(harness._TFR_EP_MARK) :])
    except ValueError:
        return None
    return outputs, times


def _reason(problem: TestOutcome) -> str:
    return f"{problem.status}: {problem.message or problem.exc_type}"


Part = tuple[PlusData, str, int, int]


def compute_expected(datas: list[PlusData], sandbox: Sandbox) -> dict[str, Expected]:
    """Run each reference on its inputs in ``sandbox`` (deep copies, timed in CPU seconds) and return its outputs.

    A plus input the reference fails on is left out (:attr:`Expected.left_out`); every input and task is tried.

    Raises:
        ReferenceInputError: A reference fails on one of its own base inputs (after every task was computed;
            the message names the task and the input).
    """
    found, base = _compute(datas, sandbox)
    if base:
        raise ReferenceInputError(base)
    return found


def _compute(datas: list[PlusData], sandbox: Sandbox) -> tuple[dict[str, Expected], dict[str, str]]:
    """The expected outputs of the tasks whose base inputs all gave one, and task id -> the base problem of the
    others."""
    pending: list[Part] = [
        (d, tier, start, min(start + GROUND_CHUNK, len(inputs)))
        for d in datas
        for tier, inputs in (("base", d.base_input), ("plus", d.plus_input))
        for start in range(0, len(inputs), GROUND_CHUNK)
    ]
    parts: dict[tuple[str, str, int], tuple[list[Any], list[float]]] = {}
    failed: dict[tuple[str, str, int], str] = {}
    while pending:
        by_task: dict[str, list[Part]] = {}
        for item in pending:
            by_task.setdefault(item[0].task_id, []).append(item)
        groups = list(by_task.values())
        jobs = [(g[0][0].reference, [_ground_spec(*item) for item in g]) for g in groups]
        runs = sandbox.run_many(jobs, limits=GROUND_LIMITS, desc="EvalPlus expected outputs")
        pending = []
        for group, run in zip(groups, runs, strict=True):
            if run.load_error is not None or len(run.outcomes) != len(group):  # the reference did not load
                reason = _reason(run.load_error) if run.load_error is not None else "the reference did not run"
                failed |= {(data.task_id, tier, start): reason for data, tier, start, _ in group}
                continue
            for (data, tier, start, stop), outcome in zip(group, run.outcomes, strict=True):
                got = _parse_ground(outcome.stdout) if outcome.status == "passed" else None
                if got is not None and len(got[0]) == stop - start:
                    parts[(data.task_id, tier, start)] = got
                elif stop - start > 1:  # too much output for one message, or a failing input: split and retry
                    mid = (start + stop) // 2
                    pending += [(data, tier, start, mid), (data, tier, mid, stop)]
                else:
                    failed[(data.task_id, tier, start)] = _reason(outcome)
    base: dict[str, str] = {}
    for (task_id, tier, index), reason in sorted(failed.items()):
        if tier == "base" and task_id not in base:
            base[task_id] = f"the reference fails on its own base input #{index} ({reason})"
    found = {d.task_id: _assemble(d, parts, failed) for d in datas if d.task_id not in base}
    return found, base


def _assemble(data: PlusData, parts: dict[tuple[str, str, int], Any], failed: dict[tuple[str, str, int], str]) -> Expected:
    """One task's outputs and times from its computed parts, a left-out input holding its place."""
    tiers: dict[str, tuple[list[Any], list[float]]] = {}
    for tier, inputs in (("base", data.base_input), ("plus", data.plus_input)):
        outputs: list[Any] = [None] * len(inputs)
        times = [0.0] * len(inputs)
        for (task_id, part_tier, start), (outs, ts) in parts.items():
            if task_id == data.task_id and part_tier == tier:
                outputs[start : start + len(outs)] = outs
                times[start : start + len(ts)] = ts
        tiers[tier] = (outputs, times)
    left_out = {i: r for (task_id, tier, i), r in sorted(failed.items()) if task_id == data.task_id and tier == "plus"}
    return Expected(*tiers["base"], *tiers["plus"], left_out=left_out)


def expected_outputs(
    benchmark: str, sandbox: Sandbox | None = None, task_ids: set[str] | None = None
) -> dict[str, Expected]:
    """The expected outputs of the loaded tasks of an EvalPlus benchmark: memory, then the cache, then the sandbox.

    Args:
        benchmark: ``humaneval_plus``, ``humaneval_plus_mini`` or ``mbpp_plus`` (its tasks loaded).
        sandbox: Where to run the references on a cache miss (default: a sandbox of its own, started only then).
        task_ids: Only these tasks (default: every loaded task of the benchmark, computed in one batch).

    Raises:
        ReferenceInputError: A reference fails on one of its own base inputs (every other task is computed and
            cached first).
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
                computed, base = _compute(missing, own)
        else:
            computed, base = _compute(missing, sandbox)
        for data in missing:
            exp = computed.get(data.task_id)
            if exp is not None:
                atomic_write_text(_cache_file(data), dumps(dataclasses.asdict(exp)))
                _MEMORY[data.task_id] = exp
        if base:
            raise ReferenceInputError(base)
    return {d.task_id: _MEMORY[d.task_id] for d in datas}


def cached(task_id: str) -> Expected | None:
    """A task's expected outputs if this process has them (:func:`expected_outputs` computed or read them)."""
    return _MEMORY.get(task_id)


def left_out(task_id: str) -> list[LeftOutInput]:
    """The plus inputs of a task left out of its plus tier (its expected outputs computed), in input order."""
    exp = _MEMORY.get(task_id)
    if exp is None:
        return []
    return [LeftOutInput(task_id=task_id, index=i, reason=r) for i, r in sorted(exp.left_out.items())]
