"""BigCodeBench's stratified sample: one task per library group by a hash of its id, the committed list in the docs."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.subsets.library_sample import library_group, library_sample
from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.tasks import select_tasks
from tfr_helpers.records import Task

DOCS = Path(__file__).resolve().parents[2] / "docs" / "performance.md"
ROW = re.compile(r"^\| (BigCodeBench/\d+) \| ([a-z+]+|\(standard library\)) \|$", re.MULTILINE)


def _task(task_id: str, libs: list[str]) -> Task:
    return Task(
        task_id=task_id,
        benchmark="bigcodebench",
        description="d",
        entry_point="task_func",
        signature="def task_func():",
        reference="def task_func():\n    return 1\n",
        tests="import unittest\n",
        test_format="unittest",
        libraries=libs,
    )


def _h(task_id: str) -> str:
    return hashlib.sha256(task_id.encode()).hexdigest()


def test_one_task_per_library_group_the_smallest_hash_in_the_benchmarks_order() -> None:
    tasks = [
        _task("BigCodeBench/1", ["os", "pandas"]),
        _task("BigCodeBench/2", ["pandas", "re"]),  # the same group as 1: standard modules do not count
        _task("BigCodeBench/3", ["os"]),
        _task("BigCodeBench/4", ["json", "itertools"]),  # standard library only, as 3
        _task("BigCodeBench/5", ["numpy", "pandas"]),
    ]
    assert library_group(tasks[0]) == library_group(tasks[1]) == ("pandas",)
    assert library_group(tasks[2]) == library_group(tasks[3]) == ()
    assert library_group(tasks[4]) == ("numpy", "pandas")
    pandas = min(("BigCodeBench/1", "BigCodeBench/2"), key=_h)
    stdlib = min(("BigCodeBench/3", "BigCodeBench/4"), key=_h)
    want = [t for t in ("BigCodeBench/1", "BigCodeBench/2", "BigCodeBench/3", "BigCodeBench/4") if t in (pandas, stdlib)]
    assert [t.task_id for t in library_sample(tasks, "bigcodebench")] == [*want, "BigCodeBench/5"]
    assert library_sample(list(reversed(tasks)), "bigcodebench") == list(reversed(library_sample(tasks, "bigcodebench")))


def test_only_bigcodebench_has_a_sample() -> None:
    plain = _task("HumanEval/0", ["math"]).model_copy(update={"benchmark": "humaneval"})
    with pytest.raises(ConfigError, match="defined for bigcodebench only, not humaneval"):
        library_sample([plain], "humaneval")


def test_the_committed_sample_is_the_rules_and_the_docs_list_it(shared_benchmarks: Path) -> None:
    tasks = load_tasks("bigcodebench")
    sample = library_sample(tasks, "bigcodebench")
    listed = ROW.findall(DOCS.read_text())
    assert listed, "docs/performance.md lists the sample as '| BigCodeBench/N | group |' rows"
    assert [(t.task_id, "+".join(library_group(t)) or "(standard library)") for t in sample] == listed
    assert len(sample) == len({library_group(t) for t in tasks}) == 40
    config = config_from_dict({"benchmarks": ["bigcodebench", "mbpp"], "tasks": {"bigcodebench": "sample"}})
    chosen = select_tasks(config)
    assert [t for t in chosen if t.startswith("BigCodeBench/")] == [t.task_id for t in sample]
    assert sum(t.startswith("MBPP/") for t in chosen) == len(load_tasks("mbpp"))  # the other benchmark in full


def test_the_configuration_says_where_sample_applies() -> None:
    with pytest.raises(ConfigError, match=r"tasks: 'sample' .* not humaneval; .*tasks: \{bigcodebench: sample\}"):
        config_from_dict({"benchmarks": ["humaneval", "bigcodebench"], "tasks": "sample"})
    with pytest.raises(ConfigError, match="tasks"):
        config_from_dict({"tasks": {"bigcodebench": "samples"}})
    config = config_from_dict({"benchmarks": ["humaneval", "bigcodebench"], "tasks": {"bigcodebench": "sample"}})
    assert (config.selection_for("bigcodebench"), config.selection_for("humaneval")) == ("sample", "all")
