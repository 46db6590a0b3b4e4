"""Results of a run in progress: ``results.json`` when finalized, else a provisional view of the checkpoints.

The notebooks show RQ1 right after ``evaluate_code_test_pairs`` and RQ2 right after
``evaluate_refined_codes``, before ``finalize_results`` writes ``results.json``. This module assembles the
same :class:`~tfr_helpers.records.Results` in memory from the records already checkpointed, the arms' parts
included, with the builder ``finalize_results`` uses (the lists of stages not run yet are empty). It never writes to
the run directory.
"""

from __future__ import annotations

import json
from pathlib import Path

from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.config.experiment import config_from_dict
from tfr_helpers.pipeline.engine.codec import decode_records, load_results
from tfr_helpers.pipeline.engine.seed_dirs import shown_run
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.engine.tasks import select_tasks
from tfr_helpers.pipeline.stages.finalize_results import build_results, run_records
from tfr_helpers.pipeline.study import CHECKPOINTS
from tfr_helpers.records import Results
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
    experiment = config_from_dict(config["config"], source=str(run / "config.json"))
    seconds = store.read_json("stage_seconds.json") if (run / "stage_seconds.json").exists() else {}
    every = select_tasks(experiment)
    selected = {t["task_id"]: every[t["task_id"]] for t in tasks if t["task_id"] in every}  # the run's, in its order
    return build_results(experiment, selected, run_records(experiment, by_stage, seconds))
