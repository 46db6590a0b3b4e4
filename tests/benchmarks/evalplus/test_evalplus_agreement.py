"""``tfr evaluate`` agrees with the ``evalplus`` package's own harness on real programs.

Programs: CodeT's published CodeGen-16B samples (the first of each HumanEval task, replayed) and HumanEval's
original canonical solutions on HumanEval+; sanitized MBPP's original reference solutions on MBPP+; for the first
``TFR_EVALPLUS_AGREEMENT_TASKS`` tasks of each (20 by default; 0 for all) and the tasks of :data:`KNOWN`. Both harnesses
judge every program at both tiers; the test requires agreement on at least 99.5% of the plus-tier verdicts, allows
a base-tier difference only where :data:`KNOWN` gives the reason, and prints every disagreement. Their harness limits each
input by wall time: a program it fails where ours passes is judged by it again, alone, after both finished.
``evalplus`` 0.3.1 is installed into an environment of the test's own (``uv pip install --no-deps`` with the few
modules its harness imports), never into the project's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.env import missing, require_executable
from tfr_helpers.benchmarks import load_tasks, resolve_benchmark
from tfr_helpers.benchmarks.samples import evalplus_id, evaluate_samples
from tfr_helpers.records import Task
from tfr_helpers.replay import load_replay
from tfr_helpers.sandbox import Limits, Sandbox

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
KNOWN = {
    "HumanEval/32": "evalplus 0.3.1's find_zero oracle `continue`s before it records the input as passed, so that "
    "harness fails every program on this task at both tiers; tfr records the pass"
}
"""Tasks where the two harnesses differ by design, with the reason (only the base tier may differ there)."""
TASKS = int(os.environ.get("TFR_EVALPLUS_AGREEMENT_TASKS", "20"))
"""Tasks per benchmark, the first N (CI: 20 of each and HumanEval/32, 62 programs in all; 0: every task, about 700
programs). The rule under test is the same on every task, so 20 check it as the former 40 and 80 did; the task of
:data:`KNOWN` is always in, so that its allowed difference is checked too."""


def _sample(tasks: list[Task]) -> list[Task]:
    """The first ``TASKS`` tasks and the tasks of :data:`KNOWN` (all with ``TASKS`` 0)."""
    return [t for i, t in enumerate(tasks) if i < TASKS or evalplus_id(t) in KNOWN] if TASKS else tasks


HARNESS_DEPS = ["evalplus==0.3.1", "numpy", "psutil", "wget", "appdirs", "tempdir"]


@pytest.fixture(scope="module")
def evalplus_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    uv = require_executable("uv", "pip install uv")
    venv = tmp_path_factory.mktemp("evalplus") / "venv"
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [uv, "pip", "install", "-q", "--no-deps", "--python", str(python), *HARNESS_DEPS], capture_output=True, text=True
    )
    if done.returncode != 0:
        missing(f"cannot install evalplus 0.3.1 from the package index: {done.stderr.strip()[-300:]}")
    return python


def _samples(benchmark: str) -> list[dict[str, str]]:
    tasks = _sample(load_tasks(benchmark, selected=False))
    if benchmark == "humaneval_plus":
        codet = load_replay("codet-codegen16b-humaneval").tasks
        rows = []
        for task in tasks:
            native = evalplus_id(task)
            original = next(t for t in load_tasks("humaneval", selected=False) if t.task_id == native)
            rows.append({"task_id": native, "solution": original.reference})
            if native in codet and codet[native].code_samples:
                rows.append({"task_id": native, "solution": codet[native].code_samples[0].program})
        return rows
    originals = {t.task_id.split("/")[-1]: t for t in load_tasks("mbpp", selected=False)}
    return [
        {"task_id": t.task_id, "solution": originals[t.task_id.split("/")[-1]].reference}
        for t in tasks
        if t.task_id.split("/")[-1] in originals
    ]


def _alone(
    python: Path,
    command: list[str],
    rows: list[dict[str, str]],
    suspect: set[str],
    tmp_path: Path,
) -> dict[str, list[list[str]]]:
    """Their verdicts again on the ``suspect`` tasks (where their harness failed a program ours passes), run alone
    after both harnesses finished: their harness limits each input by wall time, so a loaded machine can fail a
    program there (as in the study's own rule, a verdict the load may have decided runs again alone, and the
    alone run decides)."""
    if not suspect:
        return {}
    again, out = tmp_path / "alone.jsonl", tmp_path / "alone.json"
    again.write_text("".join(json.dumps(r) + "\n" for r in rows if r["task_id"] in suspect))
    subprocess.run([str(python), *command, str(again), str(out)], check=True, capture_output=True)
    return {k: v for k, v in json.loads(out.read_text()).items() if k in suspect}


@pytest.mark.parametrize("benchmark", ["humaneval_plus", "mbpp_plus"])
def test_verdicts_agree_with_evalplus(benchmark: str, evalplus_python: Path, tmp_path: Path) -> None:
    rows = _samples(benchmark)
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    located = resolve_benchmark(benchmark).path
    theirs_file = tmp_path / "evalplus.json"
    dataset = "humaneval" if benchmark.startswith("humaneval") else "mbpp"
    side = Path(__file__).with_name("evalplus_side.py")
    # their harness (one process) runs while ours judges the same samples in the sandbox: the two are independent
    with subprocess.Popen(
        [str(evalplus_python), str(side), dataset, str(located), str(samples), str(theirs_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as evalplus:
        with Sandbox(Limits(timeout_s=20.0)) as sandbox:
            found = evaluate_samples(benchmark, samples, sandbox)
        _, stderr = evalplus.communicate(timeout=3000)
    assert evalplus.returncode == 0, stderr[-3000:]
    theirs = json.loads(theirs_file.read_text())
    ours: dict[str, list[dict[str, bool]]] = {}
    for line in found.results_path.read_text().splitlines():
        record = json.loads(line)
        ours.setdefault(record["task_id"], []).append(record["tiers"])
    tasks = _sample(load_tasks(benchmark, selected=False))
    suspect = {
        evalplus_id(task)
        for task in tasks
        for mine, (base, plus) in zip(ours.get(task.task_id, []), theirs.get(evalplus_id(task), []), strict=False)
        if (mine["plus"] and plus != "pass") or (mine["base"] and base != "pass")
    }
    theirs.update(_alone(evalplus_python, [str(side), dataset, str(located)], rows, suspect, tmp_path))
    plus_differ, base_differ = [], []
    total = 0
    for task in tasks:
        native = evalplus_id(task)
        for index, (mine, (base, plus)) in enumerate(zip(ours.get(task.task_id, []), theirs.get(native, []), strict=True)):
            total += 1
            line = f"{native} sample {index}: tfr {mine}, evalplus base={base} plus={plus}"
            if mine["plus"] != (base == plus == "pass"):
                plus_differ.append(line)
            elif mine["base"] != (base == "pass"):
                base_differ.append(line + (f" ({KNOWN[native]})" if native in KNOWN else ""))
    print(
        f"{benchmark}: {total} programs; plus tier: {len(plus_differ)} disagreements; base tier only: {len(base_differ)}",
        *plus_differ,
        *base_differ,
        sep="\n  ",
    )
    assert total == len(rows) >= min(TASKS or 20, 20)
    if benchmark == "humaneval_plus":  # the known difference is in the sample and shows as its reason says
        assert any(line.startswith("HumanEval/32 ") for line in base_differ), base_differ
    assert len(plus_differ) <= 0.005 * total, plus_differ
    assert all(line.split()[0] in KNOWN for line in base_differ), base_differ
