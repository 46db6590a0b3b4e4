"""EvalPlus's benchmarks as tfr benchmarks: the benchmark tests as two tiers of differential checks against the
expected outputs (:mod:`.expected`), EvalPlus's time limits and memory rule, and the registration.

Registers ``humaneval_plus``, ``humaneval_plus_mini`` and ``mbpp_plus`` (not part of the default study: name them
in a params file's ``benchmarks``). A task's benchmark tests are specs ``base_0, base_1, ...`` then
``plus_0, ...``, each checking up to :data:`CHUNK` inputs in order and failing at the first output EvalPlus
would reject (:mod:`tfr_helpers.benchmarks.evalplus.harness`); a plus input the reference gave no output for is
left out (:attr:`.expected.Expected.left_out`). Its verdicts at the two tiers (:func:`tier_verdicts`): *base*
passes when every ``base_*`` spec does, *plus* when every spec does (EvalPlus's "base + extra"); a program run's
``passed`` is the plus tier.

Time limits follow EvalPlus's rule: each input may take ``max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR x the reference's
time on it)`` (1 s and 4.0, as in ``evalplus/config.py``), but in CPU time where EvalPlus uses wall time
(:data:`.expected.CLOCK`): the reference's CPU seconds per input, measured in the sandbox when its outputs are
computed and cached with them, and a CPU-time limit on the candidate's call, so a verdict does not change with the
machine's load. The sandbox's per-test wall budget stays the outer guard (it alone stops a call that blocks
without using CPU). Every spec carries EvalPlus's memory rule (:mod:`.memory`) as its address-space limit.
"""

from __future__ import annotations

from tfr_helpers.benchmarks.evalplus import harness
from tfr_helpers.benchmarks.evalplus.data import (
    load_humaneval_plus,
    load_humaneval_plus_mini,
    load_mbpp_plus,
    plus_data,
)
from tfr_helpers.benchmarks.evalplus.expected import HARNESS_SOURCE, cached, dumps, encode_inputs, expected_outputs
from tfr_helpers.benchmarks.evalplus.memory import memory_mb
from tfr_helpers.benchmarks.registry import BenchmarkEntry, get_benchmark, register_benchmark
from tfr_helpers.benchmarks.sources import HUMANEVAL_PLUS, HUMANEVAL_PLUS_MINI, MBPP_PLUS
from tfr_helpers.records import ProgramRun, Task
from tfr_helpers.sandbox.spec import TestSpec

CHUNK = 20
"""Most inputs per benchmark-test spec."""
CHUNK_SECONDS = 2.0
"""Most reference seconds per spec: inputs the reference needs long for get specs of their own, so a correct
program stays well inside the sandbox's per-test budget (10 s by default) even on a loaded machine."""
MIN_TIME_LIMIT = 1.0
TIME_LIMIT_FACTOR = 4.0


def time_limits(times: list[float]) -> list[float]:
    """EvalPlus's per-input limits: ``max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR x the reference's time)``, in CPU
    seconds (the harness stops a call at its limit with ``ITIMER_PROF``)."""
    return [max(MIN_TIME_LIMIT, TIME_LIMIT_FACTOR * t) for t in times]


def _chunks(times: list[float], skip: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` runs of inputs: at most :data:`CHUNK` inputs and :data:`CHUNK_SECONDS` of the
    reference's time each (a slower input alone), none spanning an input of ``skip`` (left out)."""
    out: list[tuple[int, int]] = []
    start, spent = 0, 0.0
    for i, t in enumerate(times):
        if i in skip:
            out += [(start, i)] if i > start else []
            start, spent = i + 1, 0.0
            continue
        if i > start and (i - start >= CHUNK or spent + t > CHUNK_SECONDS):
            out.append((start, i))
            start, spent = i, 0.0
        spent += t
    return out + ([(start, len(times))] if start < len(times) else [])


def plus_specs(task: Task) -> list[TestSpec]:
    """A task's benchmark tests: its base inputs, then its plus inputs (those with an expected output), in runs of
    :func:`_chunks`; each with EvalPlus's memory rule as its address-space limit."""
    data = plus_data(task.task_id)
    exp = cached(task.task_id) or expected_outputs(data.benchmark)[task.task_id]
    memory = memory_mb()
    specs = []
    for tier, inputs, outputs, times, skip in (
        ("base", data.base_input, exp.base, exp.base_time, frozenset[int]()),
        ("plus", data.plus_input, exp.plus, exp.plus_time, frozenset(exp.left_out)),
    ):
        atol, limits = data.atol, time_limits(times)
        for number, (start, stop) in enumerate(_chunks(times, skip)):
            call = (
                f"\n_tfr_ep_judge({data.entry_point}, {dumps(encode_inputs(inputs[start:stop]))!r}, "
                f"{dumps(outputs[start:stop])!r}, {limits[start:stop]!r}, {atol!r}, {data.dataset!r}, "
                f"{data.entry_point!r}, {start})\n"
            )
            specs.append(TestSpec(name=f"{tier}_{number}", source=HARNESS_SOURCE + call, kind="snippet", memory_mb=memory))
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
            program_preloads=("numpy",),  # the harness's one third-party import (harness.py)
        )
    )
