"""Results of a run in progress: ``results.json`` when finalized, else a provisional view of the checkpoints.

The notebooks show RQ1 right after ``evaluate_code_test_pairs`` and RQ2 right after
``evaluate_refined_codes``, before ``finalize_results`` writes ``results.json``. This module assembles the
same :class:`~tfr_helpers.records.Results` in memory from the records already checkpointed, the arms' parts
included (the lists of stages not run yet are empty). It never writes to the run directory.
"""

from __future__ import annotations

import json
from pathlib import Path

from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.arms.declaration import arm_parts
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.assemble import assemble_results, result_lists
from tfr_helpers.pipeline.engine.codec import decode_records, load_results
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.engine.tasks import select_tasks
from tfr_helpers.pipeline.study import CHECKPOINTS
from tfr_helpers.records import Results, SkippedWork
from tfr_helpers.results_file import has_results


def results_so_far(run_dir: str | Path) -> Results:
    """``results.json`` if the run is finalized, else a provisional :class:`Results` from the checkpoints.

    Raises:
        RunDirError: ``run_dir`` has no ``config.json``/``tasks.json`` (no stage has run there yet).
    """
    run = shown_run(run_dir)  # a multi-seed run shows its first seed (docs/seeds.md)
    if has_results(run):
        return load_results(run)
    try:
        config = json.loads((run / "config.json").read_text(encoding="utf-8"))
        tasks = json.loads((run / "tasks.json").read_text(encoding="utf-8"))["tasks"]
    except (OSError, ValueError, KeyError) as exc:
        raise RunDirError(
            f"{run} is not a started run ({exc}); run the first notebook or `tfr stage generate_codes` first."
        ) from None
    store = RunStore(run)
    by_stage = {s: [r for e in store.read_checkpoint(c) for r in decode_records(e["data"])] for s, c in CHECKPOINTS.items()}
    resolved = config["config"]
    experiment = config_from_dict(resolved, source=str(run / "config.json"))
    return assemble_results(
        experiment,
        {**resolved, "config_hash": config.get("config_hash")},
        {t["task_id"]: t["benchmark"] for t in tasks},
        select_tasks(experiment),
        result_lists(r for records in by_stage.values() for r in records),
        skipped=[r for records in by_stage.values() for r in records if isinstance(r, SkippedWork)],
        **arm_parts(experiment, by_stage),  # the arms' parts as finalize_results builds them
    )
