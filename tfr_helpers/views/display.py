"""Small display helpers for the notebooks: banner, overviews, generated prose."""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import yaml
from IPython.display import HTML, Markdown

from tfr_helpers.analysis.tidy.sources import model_display, skipped_frame, sources_frame
from tfr_helpers.models.provider_table import is_replayed, is_simulated
from tfr_helpers.records import Results
from tfr_helpers.views.provenance import provenance_html
from tfr_helpers.views.run_details import RUN_OUTPUTS


def simulated_banner(results_or_specs: Results | list[str]) -> HTML:
    """A red banner when the run uses the simulated model (a demo, not evidence); a green one naming the
    replayed models (real generations, published or imported); else the models used. A run with both shows
    both, saying which rows each covers (every table has a Source column)."""
    if isinstance(results_or_specs, Results):
        specs = _specs(results_or_specs.config)
    else:
        specs = list(results_or_specs)
    simulated = [s for s in specs if is_simulated(s)]
    replayed = [s for s in specs if is_replayed(s)]
    parts = []
    if simulated:
        rows = " (the rows whose source is simulated)" if len(simulated) < len(specs) else ""
        parts.append(
            "<div style='background:#fde8e8;border:2px solid #b00;padding:8px;font-weight:bold'>"
            f"SIMULATED MODEL ({html.escape(', '.join(simulated))}): every number{rows} below is a demo of the "
            "pipeline, not evidence about real LLMs.</div>"
        )
    if replayed:
        parts.append(
            "<div style='background:#e8f6e8;border:2px solid #070;padding:8px;font-weight:bold'>"
            f"REAL GENERATIONS, REPLAYED ({html.escape(', '.join(replayed))}): code and tests a real model produced "
            "earlier, published with their paper or imported; the rows whose source is replayed are evidence.</div>"
        )
    if parts:
        return HTML("".join(parts))
    return HTML(f"<div style='border:1px solid #888;padding:6px'>Models: {html.escape(', '.join(specs))}</div>")


def _specs(config: dict[str, Any]) -> list[str]:
    models = config.get("models", {}) if isinstance(config, dict) else {}
    coders = [c.get("model") if isinstance(c, dict) else c for c in models.get("coders", [])]
    found = [*coders, models.get("tester"), models.get("refiner"), models.get("judge")]
    return list(dict.fromkeys(str(s) for s in found if s))


def sources(results: Results) -> pd.DataFrame:
    """Where each model's outputs come from (simulated / replayed with dataset, producing model and license /
    live), with what the run skipped for each coder (tasks a dataset lacks, stages without a refiner or judge).

    The ``model`` column gives the name every table uses (``CodeGen-Mono-16B (CodeT)``,
    :func:`~tfr_helpers.analysis.tidy.sources.model_display`); the spec a params file names a replayed dataset by
    (``replay:...``) is in the provenance under the table (:func:`sources_table`)."""
    frame = sources_frame(results)[["model", "label", "dataset", "producer", "license", "note"]]
    skipped = skipped_frame(results)
    notes = {
        m: "; ".join(f"{r} ({n})" for r, n in zip(g["reason"], g["items"], strict=True)) for m, g in skipped.groupby("model")
    }
    frame = frame.assign(skipped=[notes.get(m, "") for m in frame["model"]])
    frame["model"] = [model_display(results, m) for m in frame["model"]]
    return frame.rename(columns={"label": "source"})


def sources_table(results: Results) -> HTML:
    """:func:`sources` as a report's first table, the run's time limit when it is not the fixed one, and the
    provenance of its real data (repository, commit, licence of every replayed dataset and trajectory set), said once
    here and collapsed (:func:`tfr_helpers.views.provenance.provenance_html`); later tables name a row's source in
    their Source column only."""
    table = sources(results).fillna("").to_html(index=False, border=0)
    limit = "" if results.time_limit.startswith("time limit: fixed") else f"{results.time_limit.capitalize()}."
    note = f"<p style='font-size:90%;margin-top:4px'>{html.escape(limit)}</p>" if limit else ""
    return HTML(f"{table}{note}{provenance_html(results)}")


def config_markdown(config: Any) -> Markdown:
    """The resolved configuration (a pydantic model or a dict) as a YAML block."""
    data = config.model_dump(mode="json") if hasattr(config, "model_dump") else config
    return Markdown("```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```")


def models_overview(config: Any) -> pd.DataFrame:
    """One row per coder: which model writes, tests, refines and judges."""
    models = config.models
    return pd.DataFrame(
        [
            {"coder": c, "tester": models.tester_for(c), "refiner": models.refiner_for(c), "judge": models.judge_for(c)}
            for c in models.coder_names
        ]
    )


def tasks_overview(results: Results) -> pd.DataFrame:
    """Tasks used per benchmark, with the first and last ids."""
    rows = []
    for bench in dict.fromkeys(results.task_benchmarks.values()):
        ids = [t for t in results.tasks if results.task_benchmarks[t] == bench]
        rows.append({"benchmark": bench, "tasks": len(ids), "first": ids[0], "last": ids[-1]})
    return pd.DataFrame(rows)


def generation_overview(results: Results) -> pd.DataFrame:
    """Per model and benchmark: codes (usable), EBTs, PBTs and test-generation failures."""
    bench = results.task_benchmarks
    rows: dict[tuple[str, str], Counter[str]] = {}
    for code in results.generated_codes:
        row = rows.setdefault((code.model, bench[code.task_id]), Counter())
        row["codes"] += 1
        row["usable codes"] += code.code is not None
    for test in results.generated_tests:
        rows.setdefault((test.model, bench[test.task_id]), Counter())[f"{test.kind.upper()}s"] += 1
    for fail in results.test_generation_failures:
        rows.setdefault((fail.model, bench[fail.task_id]), Counter())["test generation failures"] += 1
    columns = ["codes", "usable codes", "EBTs", "PBTs", "test generation failures"]
    return pd.DataFrame([{"model": m, "benchmark": b, **{c: counts[c] for c in columns}} for (m, b), counts in rows.items()])


def prose(text: str) -> Markdown:
    """Generated interpretation sentences, shown as a quoted paragraph."""
    return Markdown("> " + text.replace("\n", "\n> "))


def lines(items: list[str]) -> Markdown:
    """A list of report lines (e.g. ``RunSummary.lines()``) as a code block."""
    return Markdown("```\n" + "\n".join(items) + "\n```")


def run_paths(run_dir: str | Path) -> Markdown:
    """Links to the main outputs of a run that exist so far."""
    run = Path(run_dir)
    found = [f"- `{run / n}`" for n in RUN_OUTPUTS if (run / n).exists()]
    return Markdown("\n".join(found) or "_nothing written yet_")
