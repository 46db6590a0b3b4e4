"""Building matrices from replayed generations: every unique program on every unique test, in the sandbox.

Two execution semantics (:data:`~tfr_helpers.consensus.matrix.Semantics`):

- ``single`` (default): each test is its own unit (``def test_assert_k(): ...``) with its own timeout; a timeout
  or crash loses only that test.
- ``packed``: CodeT's released form (:mod:`tfr_helpers.consensus.packed`): every unique test of the task in one
  function appended to the program, each with its own alarm; a program whose packed run does not finish, or
  fails to compile together with the tests, is dropped: it does not execute.

The benchmark verdict of each unique program (its truth) is its run on the benchmark tests; the same sandbox run
then evaluates the task's test inputs for the outputs matrix (:mod:`tfr_helpers.consensus.outputs`). Results
are stored per task in the run directory with a fingerprint of everything that was run, so a second call loads
them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm.auto import tqdm

from tfr_helpers.benchmarks import benchmark_tests, load_tasks
from tfr_helpers.consensus.matrix import (
    MATRIX_VERSION,
    Semantics,
    TaskMatrix,
    TaskTruth,
    from_outcomes,
    load_task,
    save_task,
)
from tfr_helpers.consensus.outputs import exposed_inputs, output_cap, outputs_snippet, outputs_source, parse_outputs
from tfr_helpers.consensus.packed import PACKED_REPORT, PACKED_RESULT, packed_harness, packed_program, packed_source
from tfr_helpers.errors import DataError, SandboxError
from tfr_helpers.fsutil import path_name
from tfr_helpers.records import ProgramRun, Task
from tfr_helpers.replay import ReplayDataset, ReplayTask
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec
from tfr_helpers.sandbox.preload import LIGHT_PRELOAD

OUTPUTS_SPEC = "tfr_outputs"
"""Name of the outputs harness's spec in a program's benchmark run."""


@dataclass(frozen=True)
class TaskInputs:
    """A task's unique programs and tests, ready to run."""

    task_id: str
    programs: list[tuple[str, list[int]]]
    """``(program, code sample indices)`` per unique program, in first-seen order."""
    tests: list[tuple[str, int]]
    """``(test text, occurrences)`` per unique test."""
    units: list[str]
    """Per unique test, its runnable unit (a ``def test_*`` function)."""
    suites: list[list[int]]
    """Per test sample holding tests: indices into ``tests``."""
    statements: list[str]
    """Per unique test, what the packed harness runs: the assert itself (CodeT's tests), or a test unit's
    source followed by a call of its test function (imported units, whose text is the unit)."""
    inputs: list[str]
    """The call expressions the tests expose (see :func:`~tfr_helpers.consensus.outputs.exposed_inputs`)."""


def task_inputs(task: ReplayTask) -> TaskInputs:
    """Unique programs and tests of one replayed task (tests keyed by their text, as CodeT counts them)."""
    programs: dict[str, list[int]] = {}
    for code in task.code_samples:
        programs.setdefault(code.program, []).append(code.index)
    index: dict[str, int] = {}
    counts: list[int] = []
    units: list[str] = []
    statements: list[str] = []
    suites = []
    for sample in task.test_samples:
        suite = []
        for test in sample.tests:
            if test.text not in index:
                index[test.text] = len(units)
                units.append(test.source)
                unit = test.text.strip() == test.source.strip()
                statements.append(f"{test.source.rstrip()}\n{test.name}()" if unit else test.text)
                counts.append(0)
            counts[index[test.text]] += 1
            suite.append(index[test.text])
        if suite:
            suites.append(suite)
    tests = list(zip(index, counts, strict=True))
    inputs = exposed_inputs(index, task.entry_point)
    return TaskInputs(task.task_id, list(programs.items()), tests, units, suites, statements, inputs)


def verdicts(run: ProgramRun, semantics: Semantics, tests: int) -> list[bool] | None:
    """Per-test pass/fail of one program run, or None when the program did not execute."""
    if run.load_error is not None:
        return None
    if semantics == "single":
        return [o.status == "passed" for o in run.outcomes]
    out = run.outcomes[0] if run.outcomes else None
    if out is None or out.exc_type != PACKED_RESULT or len(out.message or "") != tests:
        return None  # the packed run timed out, crashed, or failed to compile: CodeT drops the program
    return [c == "1" for c in out.message or ""]


Job = tuple[str, list[TestSpec], Limits]


def test_jobs(inputs: TaskInputs, semantics: Semantics, timeout: float, base: Limits) -> list[Job]:
    """One sandbox job per unique program against the task's tests."""
    if not inputs.tests:
        return []
    if semantics == "packed":
        spec = TestSpec("codet_packed", PACKED_REPORT, "snippet")
        limits = Limits(**{**base.__dict__, "timeout_s": timeout * len(inputs.tests) + 0.1})
        harness = packed_harness(inputs.statements, timeout)
        return [(packed_program(p, harness), [spec], limits) for p, _ in inputs.programs]
    specs = [TestSpec(f"t{j}", unit, "function") for j, unit in enumerate(inputs.units)]
    limits = Limits(**{**base.__dict__, "timeout_s": timeout})
    return [(p, specs, limits) for p, _ in inputs.programs]


def outputs_budget(truth_timeout: float) -> float:
    """Seconds the outputs harness may spend on all inputs, inside the benchmark run's per-test timeout."""
    return max(truth_timeout - 0.25, truth_timeout / 2)


def truth_job(inputs: TaskInputs, specs: list[TestSpec], timeout: float, truth_timeout: float, base: Limits) -> list[Job]:
    """A program's benchmark run, followed (when the tests expose inputs) by the outputs harness."""
    limits = Limits(**{**base.__dict__, "timeout_s": truth_timeout})
    if inputs.inputs:
        source = outputs_snippet(inputs.inputs, timeout, outputs_budget(truth_timeout))
        specs = [*specs, TestSpec(OUTPUTS_SPEC, source, "snippet")]
        limits = Limits(**{**limits.__dict__, "output_cap": max(base.output_cap, output_cap(inputs.inputs))})
    return [(p, specs, limits) for p, _ in inputs.programs]


def truth_of(run: ProgramRun, n_inputs: int) -> tuple[bool, list[str] | None]:
    """A benchmark run's verdict (every benchmark test passed) and the outputs it reported (None: none)."""
    bench = [o for o in run.outcomes if o.name != OUTPUTS_SPEC]
    correct = run.load_error is None and bool(bench) and all(o.status == "passed" for o in bench)
    if not n_inputs:
        return correct, None
    if run.load_error is not None:
        return correct, None
    return correct, parse_outputs(next((o for o in run.outcomes if o.name == OUTPUTS_SPEC), None), n_inputs)


def fingerprint(inputs: TaskInputs, truth_specs: list[TestSpec], semantics: Semantics, timeouts: tuple[float, float]) -> str:
    """Hash of everything a task's stored matrix depends on (with the matrix format and both harnesses)."""
    doc = [inputs.programs, inputs.tests, inputs.units, inputs.suites, [s.source for s in truth_specs], semantics, timeouts]
    doc += [MATRIX_VERSION, inputs.inputs, outputs_source(["f(1)"], timeouts[0], outputs_budget(timeouts[1]))]
    if semantics == "packed":  # the harness itself: a change to it must not reuse stored matrices
        doc.append(packed_source(["assert True"], timeouts[0]))
        if inputs.statements != [t for t, _ in inputs.tests]:
            doc.append(inputs.statements)
    return hashlib.sha256(json.dumps(doc).encode()).hexdigest()


def run_jobs(sandbox: object, jobs: Sequence[Job], workers: int, tick: Callable[[], None]) -> list[ProgramRun]:
    """Run jobs (each with its own limits) across ``workers`` threads of one sandbox; results in order."""
    results: list[ProgramRun | None] = [None] * len(jobs)
    lock, position = threading.Lock(), [0]
    errors: list[BaseException] = []

    def drain() -> None:
        while True:
            with lock:
                i = position[0]
                position[0] += 1
            if i >= len(jobs) or errors:
                return
            try:
                program, specs, limits = jobs[i]
                results[i] = sandbox.run(program, specs, limits)  # type: ignore[attr-defined]
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                errors.append(exc)
                return
            tick()

    threads = [threading.Thread(target=drain, daemon=True) for _ in range(max(1, min(workers, len(jobs))))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [r for r in results if r is not None]


def expected_outcomes(specs: Sequence[TestSpec]) -> int | None:
    """Outcomes a run of ``specs`` reports when the program loads: one per snippet, and one per ``function``
    unit that defines one ``test_*`` function; None when it is not known in advance (unittest specs, units
    with several test functions)."""
    if any(s.kind == "unittest" or (s.kind == "function" and s.source.count("def test") != 1) for s in specs):
        return None
    return len(specs)


def rerun_short(sandbox: object, jobs: Sequence[Job], runs: list[ProgramRun]) -> list[ProgramRun]:
    """Runs again, once, a job whose loaded run reported another number of outcomes than it has tests.

    A sandbox run whose worker lost a test's outcome (seen once under heavy load, not reproduced) would shift
    every verdict after it; rerunning it gives the true count.

    Raises:
        SandboxError: The rerun reports a wrong count again (names the program and the counts).
    """

    out = list(runs)
    for i, ((program, specs, limits), run) in enumerate(zip(jobs, runs, strict=True)):
        want = expected_outcomes(specs)
        if run.load_error is not None or want is None or len(run.outcomes) == want:
            continue
        again = sandbox.run(program, specs, limits)  # type: ignore[attr-defined]
        if again.load_error is None and len(again.outcomes) != want:
            raise SandboxError(
                f"a program (sha256 {hashlib.sha256(program.encode()).hexdigest()[:16]}) reported {len(again.outcomes)} "
                f"outcomes for {want} tests twice; rerun `tfr select` (stored tasks are kept)"
            )
        out[i] = again
    return out


def benchmark_tasks(dataset: ReplayDataset) -> dict[str, Task]:
    """The benchmark tasks of a dataset's task ids.

    Raises:
        DataError: The dataset names a task the benchmark lacks.
    """
    known = {t.task_id: t for t in load_tasks(dataset.benchmark, selected=False)}
    unknown = [t for t in dataset.tasks if t not in known]
    if unknown:
        raise DataError(
            f"{dataset.name} names tasks {dataset.benchmark} lacks: {unknown[:5]}; use the benchmark's own task ids"
        )
    return {t: known[t] for t in dataset.tasks}


@dataclass(frozen=True)
class BuildStats:
    """What building the matrices took."""

    tasks: int
    cached_tasks: int
    program_runs: int
    """Sandbox runs made now (unique programs on the generated tests, and on the benchmark tests)."""
    executions: int
    """Program x test executions made now (unique programs x unique tests)."""
    seconds: float
    output_evaluations: int = 0
    """Program x input evaluations made now for the outputs matrix (unique programs x unique inputs)."""


def matrix_root(run_dir: Path, dataset: str, semantics: Semantics) -> Path:
    """Where a dataset's matrices live in a run directory."""
    return run_dir / "consensus" / path_name(dataset) / semantics


def build_matrices(
    dataset: ReplayDataset,
    run_dir: Path,
    semantics: Semantics = "single",
    timeout: float = 0.1,
    truth_timeout: float = 1.0,
    workers: int | None = None,
    batch: int = 16,
    progress: bool = False,
) -> tuple[list[TaskMatrix], dict[str, TaskTruth], BuildStats]:
    """Run (or load) every task's matrix and benchmark verdicts.

    Args:
        dataset: The replayed generations.
        run_dir: Run directory; matrices go to ``consensus/<dataset>/<semantics>/``.
        semantics: ``single`` or ``packed`` (CodeT's released protocol).
        timeout: Per-test timeout in seconds (CodeT: 0.1).
        truth_timeout: Timeout of a program's run on the benchmark tests.
        workers: Sandbox workers (default: CPU count).
        batch: Tasks run together before their files are written (a killed call resumes from the last batch).
        progress: Show a progress bar.

    Returns:
        Matrices in dataset order, truths by task id, and what it took.
    """
    t0 = time.monotonic()
    tasks = benchmark_tasks(dataset)
    root = matrix_root(run_dir, dataset.name, semantics)
    matrices: dict[str, TaskMatrix] = {}
    truths: dict[str, TaskTruth] = {}
    todo: list[tuple[TaskInputs, list[TestSpec], str]] = []
    for task_id, replay_task in dataset.tasks.items():
        inputs = task_inputs(replay_task)
        specs = benchmark_tests(tasks[task_id])
        key = fingerprint(inputs, specs, semantics, (timeout, truth_timeout))
        stored = load_task(root, task_id, key)
        if stored is not None and stored[1] is not None:
            matrices[task_id], truths[task_id] = stored[0], stored[1]
        else:
            todo.append((inputs, specs, key))
    runs = executions = evaluations = 0
    workers = workers or os.cpu_count() or 1
    if todo:
        total = sum(2 * len(i.programs) for i, _, _ in todo)
        bar = tqdm(total=total, desc=f"matrices ({semantics})", disable=not progress)
        base = Limits()
        with Sandbox(base, workers=workers, preload=LIGHT_PRELOAD) as sandbox:
            for start in range(0, len(todo), batch):
                chunk = todo[start : start + batch]
                jobs: list[Job] = []
                for inputs, specs, _ in chunk:
                    jobs += test_jobs(inputs, semantics, timeout, base)
                    jobs += truth_job(inputs, specs, timeout, truth_timeout, base)
                results = iter(rerun_short(sandbox, jobs, run_jobs(sandbox, jobs, workers, lambda: bar.update(1))))
                for inputs, _, key in chunk:
                    m = len(inputs.tests)
                    tested: list[list[bool] | None] = [None] * len(inputs.programs)
                    if m:
                        tested = [verdicts(next(results), semantics, m) for _ in inputs.programs]
                    judged = [truth_of(next(results), len(inputs.inputs)) for _ in inputs.programs]
                    correct = [c for c, _ in judged]
                    outputs = [o for _, o in judged] if inputs.inputs else []
                    matrix = from_outcomes(
                        inputs.task_id,
                        semantics,
                        inputs.programs,
                        inputs.tests,
                        inputs.suites,
                        tested,
                        inputs.inputs,
                        outputs,
                    )
                    truth = TaskTruth(task_id=inputs.task_id, correct=correct)
                    save_task(root, matrix, truth, key)
                    matrices[inputs.task_id], truths[inputs.task_id] = matrix, truth
                    runs += (2 if m else 1) * len(inputs.programs)
                    executions += m * len(inputs.programs)
                    evaluations += len(inputs.inputs) * len(inputs.programs)
        bar.close()
    ordered = [matrices[t] for t in dataset.tasks]
    stats = BuildStats(len(ordered), len(ordered) - len(todo), runs, executions, time.monotonic() - t0, evaluations)
    return ordered, truths, stats
