"""The fixed test lists a published run refined against, and reading one.

The o3-mini ``valtest`` runs (and GPT-4o's ``curated`` run) did not write their own tests: each was given a list of
LLM-written unittest cases per task (a BigCodeBench-format JSON line per task whose ``test_cases`` holds one unittest
module per test). Upstream names the ``variable-N`` lists by a share of valid tests; the study measures that share on
the reference instead (stage ``measure_test_lists``). Each list is a file of the same pinned repository as the logs,
resolved and verified by sha256 with the set that ran on it (:func:`tfr_helpers.replay.trajectories.sets.fixed_list_of`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from tfr_helpers.errors import DataError
from tfr_helpers.replay.datasets import ReplayFile
from tfr_helpers.replay.jsonl import read_jsonl

LIST_FOLDER = "valtest-tests"
"""The lists' folder below the logs' (``trajectories/reflexion-bcb/valtest-tests/<list>.jsonl``)."""


def _list(name: str, path: str, sha256: str) -> ReplayFile:
    return ReplayFile("tests", f"programming_runs/benchmarks/{path}", sha256, 147, local_name=f"{LIST_FOLDER}/{name}.jsonl")


TEST_LISTS: dict[str, ReplayFile] = {
    "variable-60": _list(
        "variable-60",
        "valtest-variable/bigcodebench_60.jsonl",
        "97b1565cc0ff31d247557be1898e099832a243dbcba31b5e34fb20556c447f02",
    ),
    "variable-70": _list(
        "variable-70",
        "valtest-variable/bigcodebench_70.jsonl",
        "d3528c4f632c913119952629c5acea2cb36263ac93eb19fcef35a5da9b8b695a",
    ),
    "variable-80": _list(
        "variable-80",
        "valtest-variable/bigcodebench_80.jsonl",
        "ef442ee10b514f67f7889b484619a6f87edd2cdd8a6d3b773004799b0ff08768",
    ),
    "variable-90": _list(
        "variable-90",
        "valtest-variable/bigcodebench_90.jsonl",
        "77850d6cd2e094aaa2d0431e55e7c9e413b89c0c8a979f9d3cceac8b1935e273",
    ),
    "variable-100": _list(
        "variable-100",
        "valtest-variable/bigcodebench_100.jsonl",
        "5154962e39f9b1d76edaa61d699ba81ac3da8ac4909904c945b55df226db18f1",
    ),
    "correct": _list(
        "correct", "valtest-correct/bigcodebench.jsonl", "0943b17fe2dcf0e3401d2b3bc533285bb6cf0979254caa6827312a1af4b0e825"
    ),
    "curated": _list(
        "curated", "valtest-curated/bigcodebench.jsonl", "11d174f0c8780281957ce720b854ef53f6d2f3e53139afa8cfafe73149254448"
    ),
    "regenerated": _list(
        "regenerated",
        "valtest-regenerated/bigcodebench.jsonl",
        "c925adbb0d728138331d1c81a75c81c2df6bdca46a985bb5412b263bf79e4147",
    ),
    "valtest": _list(
        "valtest", "valtest/bigcodebench.jsonl", "1f6e942264b8643612090f1b0e19422693382c1658afce6a484fb16bb3469d26"
    ),
}
"""Every shipped test list, by the study's name for it (the ``variable-N`` lists: upstream's ``bigcodebench_N``)."""


def list_name_of(file: ReplayFile) -> str:
    """The study's name of a list file (``variable-60``)."""
    return file.name.removeprefix(f"{LIST_FOLDER}/").removesuffix(".jsonl")


@dataclass(frozen=True)
class TestList:
    """One fixed test list: per task, its unittest modules in the list's order."""

    __test__ = False  # not a pytest test class

    name: str
    """The study's name (``variable-60``)."""
    upstream: str
    """Its path in the upstream repository."""
    tasks: dict[str, tuple[str, ...]]
    """Task id -> the list's test cases for it (one unittest module each)."""

    @property
    def tests(self) -> int:
        """Number of test cases."""
        return sum(len(v) for v in self.tasks.values())


def read_test_list(path: Path, name: str, upstream: str) -> TestList:
    """Read a list file: one JSON object per task with ``name`` (the BigCodeBench id) and ``test_cases``.

    Raises:
        DataError: A line is not JSON, or has no task id or no list of test sources.
    """
    tasks: dict[str, tuple[str, ...]] = {}
    fix = "the list file is damaged: fetch it again"
    for number, row in read_jsonl(path, fix):
        cases = row.get("test_cases")
        if isinstance(cases, str):
            try:
                cases = json.loads(cases)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number}: test_cases is not a JSON list ({exc.msg}); {fix}") from exc
        task = row.get("task_id") or row.get("name")
        if not isinstance(task, str) or not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
            raise DataError(
                f"{path}:{number} needs a task id (name) and test_cases, a list of unittest sources: the format of "
                "BigCodeBench rows with test_cases (docs/replay.md)"
            )
        tasks[task] = tuple(cases)
    return TestList(name=name, upstream=upstream, tasks=tasks)
