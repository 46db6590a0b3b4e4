"""Where a multi-seed run keeps its seeds: one run directory per seed under ``<run>/seeds/<k>/``."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from tfr_helpers.results_file import has_results

log = logging.getLogger(__name__)

SEEDS_DIR = "seeds"
"""Subdirectory of a multi-seed run holding one run directory per seed."""


def seed_dir(run_dir: Path | str, seed: int) -> Path:
    """The run directory of one seed of a multi-seed run (``<run_dir>/seeds/<seed>``)."""
    return Path(run_dir) / SEEDS_DIR / str(seed)


def is_multi_seed(run_dir: Path | str) -> bool:
    """Whether ``run_dir`` holds a multi-seed run (a ``seeds/`` directory and no results file of its own)."""
    run = Path(run_dir)
    return (run / SEEDS_DIR).is_dir() and not has_results(run)


def shown_run(run_dir: Path | str) -> Path:
    """The run directory a reader of one run's results should open: ``run_dir`` itself, or for a multi-seed run its
    first seed's (the notebooks 00-04 and ``tfr cases`` show one run; notebook 03c and ``tfr analyze`` every seed).
    """
    run = Path(run_dir)
    if not is_multi_seed(run):
        return run
    seeds = sorted(int(p.name) for p in (run / SEEDS_DIR).iterdir() if p.is_dir() and p.name.isdigit())
    try:
        listed = json.loads((run / "config.json").read_text()).get("config", {}).get("seeds") or seeds
    except (OSError, ValueError):
        listed = seeds
    first = next((int(s) for s in listed if int(s) in seeds), None)
    if first is None:
        return run
    log.info("%s is a multi-seed run: showing seed %s (%s)", run, first, seed_dir(run, first))
    return seed_dir(run, first)


def live_run(run_dir: Path | str) -> tuple[Path, str]:
    """Where a live progress view of ``run_dir`` reads ``progress.json``, and a label for its line: the run itself
    (``""``), or in a multi-seed run the seed directory written last (``"[seed k] "``)."""
    run = Path(run_dir)
    if not (run / SEEDS_DIR).is_dir():
        return run, ""
    written = [p for p in (run / SEEDS_DIR).glob("*/progress.json") if p.parent.name.isdigit()]
    if not written:
        return run, ""
    latest = max(written, key=lambda p: p.stat().st_mtime).parent
    return latest, f"[seed {latest.name}] "
