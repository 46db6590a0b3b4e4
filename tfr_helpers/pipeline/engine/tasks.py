"""Task selection: the configured benchmarks and selections -> the run's task list (``tasks.json``)."""

from __future__ import annotations

from tfr_helpers import benchmarks
from tfr_helpers.benchmarks.subsets.library_sample import SAMPLE, library_sample
from tfr_helpers.errors import ConfigError, RunDirError
from tfr_helpers.pipeline.config.experiment import ExperimentConfig
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.records import Task


def select_tasks(config: ExperimentConfig, store: RunStore | None = None) -> dict[str, Task]:
    """Load each configured benchmark and apply its selection, in configuration order.

    Args:
        config: The experiment configuration.
        store: When given, the task list is written to ``tasks.json`` (or checked against it).

    Returns:
        Task id -> task.

    Raises:
        ConfigError: a selected id does not exist in the configured benchmarks, or ``sample`` names a benchmark
            whose tasks name no libraries.
        RunDirError: ``tasks.json`` of the run lists other tasks (the benchmark data changed).
        DataError: benchmark data is missing.
    """

    chosen: dict[str, Task] = {}
    wanted_ids: set[str] = set()
    for bench in config.benchmarks:
        tasks = benchmarks.load_tasks(bench)
        selection = config.selection_for(bench)
        if selection == "all":
            picked = tasks
        elif selection == SAMPLE:
            picked = library_sample(tasks, bench)
        elif isinstance(selection, int):
            picked = tasks[:selection]
        else:
            ids = set(selection)
            wanted_ids |= ids
            picked = [t for t in tasks if t.task_id in ids]
        chosen.update((t.task_id, t) for t in picked)
    unknown = sorted(wanted_ids - set(chosen))
    if unknown:
        raise ConfigError(
            f"tasks: unknown task id {unknown[0]!r} in benchmarks {', '.join(config.benchmarks)} "
            "(ids look like 'HumanEval/0', 'Mbpp/2', 'BigCodeBench/13'; see `tfr benchmarks list`)"
        )
    if not chosen:
        raise ConfigError("tasks: the selection is empty; select at least one task")
    if store is not None:
        listing = [{"task_id": t.task_id, "benchmark": t.benchmark} for t in chosen.values()]
        path = store.root / "tasks.json"
        if path.exists():
            if store.read_json("tasks.json").get("tasks") != listing:
                raise RunDirError(
                    f"{path} lists other tasks than this configuration selects (the benchmark data "
                    "changed?); use a new --run-dir"
                )
        else:
            store.write_json("tasks.json", {"version": 1, "tasks": listing})
    return chosen
