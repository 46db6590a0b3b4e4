"""``analyze``: write a finished run's analysis, or for a multi-seed run each seed's and the aggregate over seeds;
``summary_lines``: the lines ``tfr analyze`` prints of either kind of summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tfr_helpers.analysis.arms import reports
from tfr_helpers.analysis.headlines import headline_lines, headline_numbers
from tfr_helpers.analysis.seeds.over_seeds import (
    TABLE,
    build_seeds_summary,
    load_seed_results,
    over_seeds,
    seeds_headline_table,
)
from tfr_helpers.analysis.writing.export import AnalysisOutputs, analyze_run, to_latex
from tfr_helpers.fsutil import atomic_write_text
from tfr_helpers.pipeline.engine.seed_dirs import is_multi_seed, seed_dir


def analyze_seeds(run_dir: Path | str) -> AnalysisOutputs:
    """Write a multi-seed run's analysis: each seed's own (``seeds/<k>/analysis/``) and the aggregate
    (``analysis/summary.json`` and ``analysis/seeds_headline.tex``).

    Returns:
        ``AnalysisOutputs`` of the aggregate (``tables`` holds ``seeds_headline``; figures stay per seed).

    Raises:
        RunDirError: not a multi-seed run, or a seed is unfinished.
    """
    run = Path(run_dir)
    results = load_seed_results(run)
    for seed in results:
        analyze_run(seed_dir(run, seed))
    frame = over_seeds({seed: headline_numbers(r) for seed, r in results.items()})
    summary = build_seeds_summary(run, results, frame)
    out = run / "analysis"
    path = atomic_write_text(out / "summary.json", json.dumps(summary, indent=2))
    simulated = bool(summary["simulated"])
    tex = atomic_write_text(out / f"{TABLE}.tex", to_latex(seeds_headline_table(frame, simulated), f"tab:{TABLE}"))
    return AnalysisOutputs(summary=path, tables={TABLE: tex})


def analyze(run_dir: Path | str) -> AnalysisOutputs:
    """Write ``analysis/summary.json``, the six ``.tex`` tables and the figures of a finished run.

    Args:
        run_dir: A run directory holding ``results.json``; or a multi-seed run (``seeds/<k>/``): then every seed's
            analysis and ``analysis/summary.json`` and ``seeds_headline.tex`` over seeds (``analysis.seeds.over_seeds``).

    Returns:
        The paths written.

    Raises:
        RunDirError: If ``results.json`` is missing or invalid.
    """
    run = Path(run_dir)
    if is_multi_seed(run):  # one run per seed: each seed's analysis and the aggregate over seeds (docs/seeds.md)
        return analyze_seeds(run)
    return analyze_run(run)


def _no_lines(summary: dict[str, Any]) -> list[str]:
    return []


def summary_lines(summary: dict[str, Any], run_dir: Path | str) -> list[str]:
    """The lines ``tfr analyze`` prints of a written ``summary.json``.

    One run: RQ1's headline per model and source (``rq1: ...``), then each arm report's ``analyze_lines(summary)``
    under its name (the replayed trajectory sets' steps, step classes and P(Pass->Fail | passed)). A multi-seed
    run: each headline number as mean +- SE over seeds (``seeds: ...``), then each seed's own lines
    (``seed <k> rq1: ...``), read from its summary.
    """
    if summary.get("kind") == "multi_seed":
        lines = [
            f"seeds: {r['model']} {r['number']} [{r['source']}]: {r['mean']} +- {r['se']} over {r['n_seeds']} seeds"
            for r in summary["tables"][TABLE]["rows"]
        ]
        for seed, rel in summary["per_seed_summaries"].items():
            own = json.loads((Path(run_dir) / rel).read_text(encoding="utf-8"))
            lines += [f"seed {seed} {line}" for line in summary_lines(own, seed_dir(Path(run_dir), int(seed)))]
        return lines
    lines = [f"rq1: {line}" for line in headline_lines(summary["headline"]["rq1"])]
    arms = [(r.NAME, getattr(r, "analyze_lines", _no_lines)) for r in reports()]
    return lines + [f"{name}: {line}" for name, arm_lines in arms for line in arm_lines(summary)]
