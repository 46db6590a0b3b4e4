"""Results of a run in progress: ``results.json`` when finalized, else a provisional view of the checkpoints.

The notebooks show RQ1 right after ``evaluate_code_test_pairs`` and RQ2 right after
``evaluate_refined_codes``, before ``finalize_results`` writes ``results.json``. This module assembles the
same :class:`~tfr_helpers.records.Results` in memory from the records already checkpointed (the lists of
stages not run yet are empty). It never writes to the run directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tfr_helpers.errors import RunDirError
from tfr_helpers.models.providers import is_simulated
from tfr_helpers.pipeline.config import scope
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import RESULTS_FIELDS, decode_records, load_results
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.engine.tasks import select_tasks
from tfr_helpers.pipeline.study import CHECKPOINTS
from tfr_helpers.records import Results


def results_so_far(run_dir: str | Path) -> Results:
    """``results.json`` if the run is finalized, else a provisional :class:`Results` from the checkpoints.

    Raises:
        RunDirError: ``run_dir`` has no ``config.json``/``tasks.json`` (no stage has run there yet).
    """
    run = shown_run(run_dir)  # a multi-seed run shows its first seed (docs/seeds.md)
    if (run / "results.json").is_file():
        return load_results(run)
    try:
        config = json.loads((run / "config.json").read_text(encoding="utf-8"))
        tasks = json.loads((run / "tasks.json").read_text(encoding="utf-8"))["tasks"]
    except (OSError, ValueError, KeyError) as exc:
        raise RunDirError(
            f"{run} is not a started run ({exc}); run the first notebook or `tfr stage generate_codes` first."
        ) from None
    lists: dict[str, list[Any]] = {name: [] for name in RESULTS_FIELDS.values()}
    store = RunStore(run)
    for checkpoint in CHECKPOINTS.values():
        for entry in store.read_checkpoint(checkpoint):
            for record in decode_records(entry["data"]):
                field = RESULTS_FIELDS.get(type(record))
                if field is not None:  # the records of stages beyond the seven (oracle arm, rounds) wait for results.json
                    lists[field].append(record)
    resolved = config["config"]
    experiment = config_from_dict(resolved, source=str(run / "config.json"))
    return Results.model_validate(
        dict(
            run_name=resolved.get("run_name", run.name),
            simulated=any(is_simulated(s) for s in experiment.models.all_specs()),
            model_sources=scope.model_sources(experiment),
            skipped=scope.skipped_work(experiment, select_tasks(experiment)),
            config={**resolved, "config_hash": config.get("config_hash")},
            tasks=[t["task_id"] for t in tasks],
            task_benchmarks={t["task_id"]: t["benchmark"] for t in tasks},
            **lists,
        )
    )
