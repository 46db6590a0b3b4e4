"""Repeated seeds: every headline number as mean +- standard error over seeds, next to each run's own interval.

A multi-seed run directory (``tfr_helpers.pipeline.seeds``, docs/seeds.md) holds one complete run per seed in
``seeds/<k>/``. Per seed, :func:`~tfr_helpers.analysis.headlines.headline_numbers` gives each number with its
95% interval over tasks (code samples, feedback or attempts); here the seeds' values are averaged:

- ``mean``: the mean of the seeds' values; ``se``: the standard error of that mean, the sample standard deviation
  (ddof = 1) over sqrt(n). With one seed the SE is undefined (NaN, ``--`` in the table): one run says nothing
  about seed-to-seed variation. A seed whose value is undefined (no attempts) is left out of n.
- ``low_mean`` / ``high_mean``: the mean of the seeds' per-run 95% bounds (the typical interval of one run over
  tasks: a different quantity from the SE, which is over seeds).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
from pandas.io.formats.style import Styler

from tfr_helpers.analysis.headlines import definitions, headline_numbers
from tfr_helpers.analysis.inference.stats import mean_se
from tfr_helpers.analysis.tables import SIMULATED_NOTE
from tfr_helpers.analysis.tidy.frames import frame_records
from tfr_helpers.errors import RunDirError
from tfr_helpers.pipeline.engine.codec import load_results
from tfr_helpers.pipeline.engine.seed_dirs import SEEDS_DIR, is_multi_seed, seed_dir
from tfr_helpers.records import Results
from tfr_helpers.results_file import has_results

if TYPE_CHECKING:
    pass

SEEDS_SUMMARY_VERSION = 1
TABLE = "seeds_headline"
"""File stem of the LaTeX table of headline numbers over seeds (``analysis/seeds_headline.tex``)."""
CAPTION = (
    "Headline numbers over seeds. Mean +- SE: mean over the seeds' runs +- its standard error (sample standard "
    "deviation, ddof 1, over sqrt(n); -- with one seed). Per-run 95 percent interval: the mean of the seeds' own "
    "interval bounds, over what the next column says (tasks, code samples, feedback or attempts of one run)."
)
SEED_DEFINITIONS = {
    "mean": "Mean of the per-seed values (seeds where the number is undefined are left out of n_seeds).",
    "se": "Standard error of the mean over seeds: sample standard deviation (ddof=1) / sqrt(n_seeds); "
    "null (NaN) when n_seeds is 1.",
    "low_mean/high_mean": "Mean of the seeds' own 95% interval bounds: the per-run interval over tasks, code "
    "samples, feedback or attempts named by 'interval' (not an interval over seeds).",
}


def seeds_of(run_dir: Path | str) -> list[int]:
    """The seeds of a multi-seed run: its config's ``seeds`` in order (else the ``seeds/<k>`` directories).

    Raises:
        RunDirError: ``run_dir`` is not a multi-seed run directory.
    """
    run = Path(run_dir)
    if not (run / SEEDS_DIR).is_dir():
        raise RunDirError(
            f"{run} is not a multi-seed run (no {SEEDS_DIR}/ directory); run a params file with seeds: [0, 1, 2] "
            "through `tfr stage all`, or use tfr analyze on a single run"
        )
    config = run / "config.json"
    seeds = json.loads(config.read_text()).get("config", {}).get("seeds") if config.is_file() else None
    if seeds:
        return [int(s) for s in seeds]
    return sorted(int(p.name) for p in (run / SEEDS_DIR).iterdir() if p.is_dir() and p.name.isdigit())


def load_seed_results(run_dir: Path | str) -> dict[int, Results]:
    """Each seed's results of a multi-seed run, by seed in the run's order.

    Raises:
        RunDirError: not a multi-seed run, or a seed's run is unfinished (names the seed and the command).
    """
    out = {}
    for seed in seeds_of(run_dir):
        path = seed_dir(run_dir, seed)
        if not has_results(path):
            raise RunDirError(
                f"seed {seed} of {run_dir} has no results yet; finish it: tfr stage all --params F --run-dir {run_dir}"
            )
        out[seed] = load_results(path)
    return out


def over_seeds(per_seed: Mapping[int, pd.DataFrame]) -> pd.DataFrame:
    """Aggregate per-seed headline frames (:func:`headline_numbers`) into mean +- SE rows.

    Returns:
        One row per (model, number), in first-seen order: ``model, source, number, interval, mean, se, n_seeds,
        low_mean, high_mean`` and ``per_seed`` / ``per_seed_low`` / ``per_seed_high`` (``{seed: value}``).
    """
    long = pd.concat([f.assign(seed=seed) for seed, f in per_seed.items()], ignore_index=True)
    rows = []
    for (model, number), g in long.groupby(["model", "number"], sort=False):
        mean, se = mean_se(g["value"])
        defined = g[g["value"].notna()]
        rows.append(
            {
                "model": model,
                "source": g["source"].iloc[0],
                "number": number,
                "interval": g["interval"].iloc[0],
                "mean": mean,
                "se": se,
                "n_seeds": len(defined),
                "low_mean": float(defined["low"].mean()) if len(defined) else math.nan,
                "high_mean": float(defined["high"].mean()) if len(defined) else math.nan,
                "per_seed": dict(zip(g["seed"].astype(int), g["value"], strict=True)),
                "per_seed_low": dict(zip(g["seed"].astype(int), g["low"], strict=True)),
                "per_seed_high": dict(zip(g["seed"].astype(int), g["high"], strict=True)),
            }
        )
    return pd.DataFrame(rows)


def headline_over_seeds(run_dir: Path | str) -> pd.DataFrame:
    """Every headline number of a multi-seed run as mean +- SE over seeds (see :func:`over_seeds`)."""
    return over_seeds({seed: headline_numbers(r) for seed, r in load_seed_results(run_dir).items()})


def _fmt(x: Any, digits: int = 1) -> str:
    return "--" if x is None or pd.isna(x) else f"{x:.{digits}f}"


def seeds_headline_table(frame: pd.DataFrame, simulated: bool) -> Styler:
    """The table of :func:`headline_over_seeds`: mean +- SE over seeds beside the per-run 95% interval."""
    rows = [
        {
            "Model": r["model"],
            "Number": r["number"].replace("_", " "),
            "Source": r["source"],
            "Mean +- SE over seeds": f"{_fmt(r['mean'], 2)} +- {_fmt(r['se'], 2)}",
            "Seeds": str(r["n_seeds"]),
            "Per-run 95% interval": f"[{_fmt(r['low_mean'])}, {_fmt(r['high_mean'])}]",
            "Interval over": r["interval"].removeprefix("95% "),
            "Per seed": "; ".join(f"{s}: {_fmt(v)}" for s, v in r["per_seed"].items()),
        }
        for _, r in frame.iterrows()
    ]
    table = pd.DataFrame(rows).set_index(["Model", "Number"]) if rows else pd.DataFrame()
    caption = f"{SIMULATED_NOTE.capitalize()}. {CAPTION}" if simulated else CAPTION
    return table.style.set_caption(caption)


def build_seeds_summary(run_dir: Path | str, results: Mapping[int, Results], frame: pd.DataFrame) -> dict[str, Any]:
    """The multi-seed ``summary.json``: seeds, definitions and every headline number over seeds."""
    simulated = any(r.simulated for r in results.values())
    return {
        "version": SEEDS_SUMMARY_VERSION,
        "kind": "multi_seed",
        "simulated": simulated,
        "note": SIMULATED_NOTE if simulated else "",
        "run_dir": str(run_dir),
        "seeds": list(results),
        "per_seed_summaries": {str(s): f"{SEEDS_DIR}/{s}/analysis/summary.json" for s in results},
        "definitions": {**definitions(), **SEED_DEFINITIONS},
        "tables": {
            TABLE: {
                "caption": str(seeds_headline_table(frame, simulated).caption),
                "rows": frame_records(frame, digits=4),
            }
        },
    }


__all__ = [
    "headline_over_seeds",
    "is_multi_seed",
    "load_seed_results",
    "over_seeds",
    "seeds_headline_table",
    "seeds_of",
]
