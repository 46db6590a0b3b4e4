"""Building matrices in the sandbox: CodeT's packed harness, unique programs and tests, the cache, `tfr select`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfr_helpers.cli import app
from tfr_helpers.consensus.execute import task_inputs, verdicts
from tfr_helpers.consensus.packed import PACKED_REPORT, packed_harness, packed_program
from tfr_helpers.replay import ReplayCode, ReplayTask, ReplayTest, ReplayTestSample
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

IMPORT3 = Path(__file__).parents[1] / "replay" / "data" / "import3"
PROGRAM = "def f(x):\n    return x + 1\n"


def _sample(index: int, texts: list[str]) -> ReplayTestSample:
    tests = [
        ReplayTest(name=f"test_assert_{k}", source=f"def test_assert_{k}():\n    {t}\n", text=t) for k, t in enumerate(texts)
    ]
    return ReplayTestSample(index=index, kind="ebt", tests=tests, module="")


def test_task_inputs_count_duplicate_programs_and_tests():
    code = [ReplayCode(index=i, program=p, compiles=True) for i, p in enumerate([PROGRAM, "x = 1\n", PROGRAM])]
    samples = [_sample(0, ["assert f(1) == 2", "assert f(0) == 1"]), _sample(1, []), _sample(2, ["assert f(1) == 2"])]
    inputs = task_inputs(ReplayTask(task_id="HumanEval/0", entry_point="f", code_samples=code, test_samples=samples))
    assert inputs.programs == [(PROGRAM, [0, 2]), ("x = 1\n", [1])]
    assert inputs.tests == [("assert f(1) == 2", 2), ("assert f(0) == 1", 1)]
    assert inputs.suites == [[0, 1], [0]]  # the empty sample holds no suite


def _packed(sandbox: Sandbox, tests: list[str], timeout: float = 0.1):
    spec = TestSpec("codet_packed", PACKED_REPORT, "snippet")
    program = packed_program(PROGRAM, packed_harness(tests, timeout))
    run = sandbox.run(program, [spec], Limits(timeout_s=timeout * len(tests) + 2))
    return verdicts(run, "packed", len(tests))


def test_packed_harness_one_alarm_per_test_and_function_scope():
    with Sandbox(Limits(), workers=1) as sandbox:
        # a looping test is cut by its own alarm and the next test still runs; a wrong test fails alone
        got = _packed(sandbox, ["assert f(1) == 2", "while True:\n    pass", "assert f(1) == 3", "assert f(2) == 3"])
        assert got == [True, False, False, True]
        # one test that is illegal inside a function body drops the whole program (CodeT's consequence (b))
        assert _packed(sandbox, ["assert f(1) == 2", "from math import *\nassert f(1) == 2"]) is None


@pytest.mark.usefixtures("benchmark_data")
def test_select_on_the_import_example_then_from_the_cache(tmp_path: Path):
    args = ["select", "--benchmark", "humaneval", "--codes", str(IMPORT3 / "code.jsonl"), "--tests"]
    args += [str(IMPORT3 / "tests.jsonl"), "--run-dir", str(tmp_path), "--strategy", "codet,mbr_exec_hard"]
    args += ["--timeout", "5"]  # the Hypothesis test's first example needs more than CodeT's 0.1 s
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    assert "3 tasks, semantics single" in lines[1] and "0 tasks cached" in lines[1]
    # HumanEval/0: the correct program passes both tests (CodeT 2 x 1) and beats `return False` (1 x 1);
    # HumanEval/2: one correct program; HumanEval/4: the correct one executes, the other does not compile.
    table = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in lines[4:7]}
    assert table["codet"] == [100.0, 100.0, 100.0, 0]
    assert table["random"][:2] == [66.67, 100.0]  # (1/2 + 1 + 1/2) / 3; every task has n - c < 2
    again = CliRunner().invoke(app, args)
    assert "3 tasks cached, 0 program runs" in again.output.splitlines()[1]
    assert again.output.splitlines()[2:] == lines[2:]


@pytest.mark.usefixtures("benchmark_data")
def test_select_refuses_bad_input_with_one_line(tmp_path: Path):
    runner = CliRunner()
    wrong = runner.invoke(app, ["select", "--benchmark", "mbpp", "--replay", str(IMPORT3), "--run-dir", str(tmp_path)])
    assert wrong.exit_code != 0 and "not mbpp; pass --benchmark humaneval" in str(wrong.exception)
    neither = runner.invoke(app, ["select", "--benchmark", "humaneval"])
    assert "give either --replay" in str(neither.exception)
    bad = tmp_path / "code.jsonl"
    bad.write_text('{"task_id": "HumanEval/999", "completion": "    pass\\n"}\n')
    unknown = runner.invoke(app, ["select", "--benchmark", "humaneval", "--codes", str(bad), "--tests", str(bad)])
    assert "unknown task id 'HumanEval/999'" in str(unknown.exception)


def test_a_corrupt_stored_matrix_is_one_clear_error(tmp_path: Path):
    from tfr_helpers.consensus.matrix import load_task, task_file
    from tfr_helpers.errors import DataError

    task_file(tmp_path, "HumanEval/0").write_text('{"fingerprint": "x", "matrix": {"task_id": 3}}')
    with pytest.raises(DataError, match="not a consensus matrix file .* delete it to rebuild"):
        load_task(tmp_path, "HumanEval/0")
    assert load_task(tmp_path, "HumanEval/1") is None  # never built


def test_select_refuses_bad_options():
    runner = CliRunner()
    base = ["select", "--benchmark", "humaneval", "--replay", str(IMPORT3)]
    assert "single or packed" in str(runner.invoke(app, [*base, "--semantics", "fast"]).exception)
    assert "comma-separated integers" in str(runner.invoke(app, [*base, "--k", "one"]).exception)
    assert "unknown consensus strategy 'codex'" in str(runner.invoke(app, [*base, "--strategy", "codex"]).exception)


@pytest.mark.usefixtures("benchmark_data")
def test_stored_matrices_are_reused_only_for_the_same_inputs(tmp_path: Path):
    from tfr_helpers.consensus.execute import build_matrices
    from tfr_helpers.replay import load_import_dir

    full = load_import_dir(IMPORT3)
    one = full.model_copy(update={"tasks": {"HumanEval/0": full.tasks["HumanEval/0"]}})
    first = build_matrices(one, tmp_path, "packed", timeout=0.5, workers=1)
    assert first[2].cached_tasks == 0 and first[2].executions == 2 * 2  # 2 programs x 2 tests
    again = build_matrices(one, tmp_path, "packed", timeout=0.5, workers=1)
    assert again[2].cached_tasks == 1 and again[2].program_runs == 0 and again[0] == first[0]
    other = build_matrices(one, tmp_path, "packed", timeout=0.4, workers=1)  # another timeout: run again
    assert other[2].cached_tasks == 0 and other[0][0].passes == ["11", "10"]


@pytest.mark.usefixtures("benchmark_data")
def test_a_dataset_naming_a_task_the_benchmark_lacks_is_one_error(tmp_path: Path):
    from tfr_helpers.consensus.execute import build_matrices
    from tfr_helpers.errors import DataError
    from tfr_helpers.replay import load_import_dir

    full = load_import_dir(IMPORT3)
    foreign = full.model_copy(update={"tasks": {"HumanEval/999": full.tasks["HumanEval/0"]}})
    with pytest.raises(DataError, match=r"names tasks humaneval lacks: \['HumanEval/999'\]; use the benchmark's own"):
        build_matrices(foreign, tmp_path, "single", workers=1)
    assert not any(tmp_path.rglob("*.json"))  # refused before anything ran or was stored


def test_a_run_that_lost_an_outcome_is_rerun_once_then_refused():
    from tfr_helpers.consensus.execute import rerun_short
    from tfr_helpers.errors import SandboxError
    from tfr_helpers.records import Isolation, ProgramRun, TestOutcome

    isolation = Isolation(network="none", uid_drop=False)

    def run(n: int) -> ProgramRun:
        return ProgramRun(outcomes=[TestOutcome(name=f"t{i}", status="passed") for i in range(n)], isolation=isolation)

    class Fake:
        def __init__(self, n: int) -> None:
            self.n, self.calls = n, 0

        def run(self, program, specs, limits):
            self.calls += 1
            return run(self.n)

    specs = [TestSpec(f"t{j}", f"def test_{j}():\n    assert f(1) == 2\n", "function") for j in range(3)]
    jobs = [("p0", specs, Limits()), ("p1", specs, Limits())]
    good = Fake(3)
    fixed = rerun_short(good, jobs, [run(3), run(2)])
    assert [len(r.outcomes) for r in fixed] == [3, 3] and good.calls == 1  # only the short run ran again
    with pytest.raises(SandboxError, match="reported 2 outcomes for 3 tests twice"):
        rerun_short(Fake(2), jobs, [run(3), run(2)])
