"""Feedback is a function of the test and the program only: the same study run from two clones at two paths
(each with its own virtual environment and empty caches) sends every prompt byte for byte the same and writes the
same results.json (timing fields aside: the canonical form of ``benchmarks/perf/results_digest.py``), and no
outcome message names the machine's paths."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

import tfr_helpers
from tfr_helpers.pipeline.engine.artifact_log import artifact_index, read_artifact
from tfr_helpers.results_file import read_results_bytes, results_file
from tfr_helpers.sandbox import Limits, Sandbox, TestSpec

PROJECT = Path(tfr_helpers.__file__).resolve().parents[1]
STUDY = yaml.safe_load((PROJECT / "papermill_params" / "smoke.yaml").read_text()) | {
    "run_name": "clone-paths",
    "benchmarks": ["humaneval", "mbpp"],
    "tasks": {"humaneval": 6, "mbpp": 4},
    "ebts_per_task": 2,
    "pbts_per_task": 2,
    "screening": ["llm_judge"],
}


def _clone(parent: Path) -> Path:
    """The package, pyproject and selection files copied below ``parent`` (a name with a space), with a
    virtual environment whose ``site-packages`` points at the copy, then at the running environment's packages."""
    root = parent / "tfr clone"
    shutil.copytree(PROJECT / "tfr_helpers", root / "tfr_helpers", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(PROJECT / "benchmarks", root / "benchmarks", ignore=shutil.ignore_patterns("perf"))
    shutil.copy2(PROJECT / "pyproject.toml", root / "pyproject.toml")
    (root / "study.yaml").write_text(yaml.safe_dump(STUDY))
    for path in [parent, *parent.rglob("*")]:  # readable by the sandbox's uid, as a clone is (before the venv:
        path.chmod(0o755 if path.is_dir() else 0o644)  # its interpreter is a symlink, chmod would follow it)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    venv = str(root / ".venv")
    purelib = Path(sysconfig.get_paths(vars={"base": venv, "platbase": venv})["purelib"])
    purelib.mkdir(parents=True, exist_ok=True)
    (purelib / "_clone.pth").write_text(f"{root}\n{sysconfig.get_paths()['purelib']}\n")
    return root


MACHINE_FIELDS = frozenset({"read_only_binds"})
"""Fields that describe the machine, not a result: the paths the sandbox mounts read-only (the clone's own
environment and package) are recorded on each pair's isolation record."""


def _without(value: object, fields: frozenset[str]) -> object:
    if isinstance(value, dict):
        return {k: _without(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [_without(v, fields) for v in value]
    return value


def _canonical(results: Path) -> bytes:
    """results.json in the canonical form of ``benchmarks/perf/results_digest.py`` (timing fields removed),
    without :data:`MACHINE_FIELDS`."""
    spec = importlib.util.spec_from_file_location("results_digest", PROJECT / "benchmarks" / "perf" / "results_digest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = json.loads(read_results_bytes(results))
    table = data.pop(module.SHARED_KEY, None) or []
    return module.canonical(_without(module.inline_shared(data, table), MACHINE_FIELDS))  # type: ignore[no-any-return]


def _prompts(root: Path) -> dict[str, bytes]:
    """Every prompt file of the study's run directory, by its path inside the run directory, and (under
    ``results.json``) the run's results in canonical form."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TFR_CACHE", "VIRTUAL_ENV", "PYTHON"))}
    env.update(TFR_CACHE_DIR=str(root / ".cache"), PWD=str(root))
    cmd = [str(root / ".venv" / "bin" / "python"), "-c", "from tfr_helpers.cli import main; main()", "stage", "all"]
    done = subprocess.run(
        [*cmd, "--params", "study.yaml", "--run-dir", "runs/x"], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = root / "runs" / "x"
    names = [rel for rel in sorted(artifact_index(run)) if rel.rsplit("/", 1)[-1].startswith("prompt")]
    prompts = {rel: (read_artifact(run, rel) or "").encode() for rel in names}  # lines of artifacts/<stage>.jsonl
    return prompts | {"results.json": _canonical(results_file(run) or run / "results.json.gz")}


@pytest.mark.slow
def test_two_clone_paths_send_the_same_prompts_and_write_the_same_results(tmp_path: Path) -> None:
    first = _prompts(_clone(tmp_path / "a"))
    second = _prompts(_clone(tmp_path / "elsewhere" / "b b"))
    assert first.keys() == second.keys()
    assert any("refine" in name and "pbt" in name for name in first), "the study refines on PBT feedback"
    differing = [name for name in first if first[name] != second[name]]
    assert not differing, differing
    assert b'"pair_evaluations":[{' in first["results.json"], "the results hold labelled pairs"
    texts = b"\n".join(first.values())
    assert str(tmp_path).encode() not in texts and b"always and only run by failing" not in texts


def test_outcome_messages_name_no_machine_path(sandbox: Sandbox) -> None:
    tests = [
        TestSpec("t0", "def test_open():\n    load(os.path.join(os.getcwd(), 'missing.csv'))\n", kind="function"),
        TestSpec("t1", "def test_prefix():\n    load(os.path.join(sys.prefix, 'missing.csv'))\n", kind="function"),
    ]
    program = "import os, sys\n\ndef load(path):\n    return open(path).read()\n"
    run = sandbox.run(program, tests, Limits(timeout_s=10.0))
    messages = [o.message or "" for o in run.outcomes]
    assert [o.exc_type for o in run.outcomes] == ["FileNotFoundError"] * 2, run.outcomes
    assert "'missing.csv'" in messages[0] and "'<python>/missing.csv'" in messages[1], messages
    assert not any(sys.prefix in m or "/tmp/" in m for m in messages), messages


def test_stderr_names_no_machine_path_and_no_address(sandbox: Sandbox) -> None:
    # a library's warning names its file under the interpreter's prefix (numpy's, pandas' RuntimeWarnings)
    program = "import sys\n\ndef warn():\n    print(sys.prefix + '/lib/x.py:1: RuntimeWarning', object(), file=sys.stderr)\n"
    run = sandbox.run(program, [TestSpec("t", "def test_w():\n    warn()\n", kind="function")], Limits(timeout_s=10.0))
    (outcome,) = run.outcomes
    assert outcome.status == "passed" and outcome.stderr.startswith("<python>/lib/x.py:1: RuntimeWarning"), outcome
    assert sys.prefix not in outcome.stderr and "at 0x..." in outcome.stderr, outcome.stderr
