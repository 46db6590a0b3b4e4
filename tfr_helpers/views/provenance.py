"""The provenance of a report's real data, said once and collapsed: per replayed dataset and replayed trajectory set,
its repository, commit and licence, and the spec a params file names it by (the sources table's ``<details>``; LaTeX
tables keep it in ``%`` comments)."""

from __future__ import annotations

import html

from tfr_helpers.errors import ConfigError
from tfr_helpers.records import Results, present_arms
from tfr_helpers.replay.datasets import dataset_spec

COLUMNS = ("data", "kind", "model", "spec", "repository", "commit", "licence")
"""``spec``: what a params file names the data by (a coder's ``replay:...``, a ``trajectories`` entry)."""


def split_source(source: str) -> tuple[str, str]:
    """``github.com/owner/name@abc1234`` -> (``github.com/owner/name``, ``abc1234``); a source without a commit
    (an imported file) keeps its text as the repository."""
    repo, _, commit = source.partition("@")
    return repo, commit


def _no_rows(results: Results) -> list[dict[str, str]]:
    return []


def provenance_rows(results: Results) -> list[dict[str, str]]:
    """One row per replayed dataset of the run's coders, then the rows of each arm's view that replays data of its
    own (its ``provenance_rows(results)``: a replayed trajectory set) (:data:`COLUMNS`)."""
    rows = []
    for src in results.model_sources:
        if src.source != "replayed" or not src.dataset:
            continue
        try:
            spec = dataset_spec(src.dataset)
            repo, commit, licence = f"github.com/{spec.repo}", spec.commit[:12], spec.license
        except ConfigError:  # an imported dataset: its own files
            repo, commit, licence = "imported (replay_datasets)", "", src.license or "not stated"
        rows.append(
            {"data": src.dataset, "kind": "generations", "model": src.producer or "", "spec": src.model, "repository": repo}
            | {"commit": commit, "licence": licence}
        )
    for arm in present_arms(results):  # an arm's own real data (a replayed trajectory set)
        view = arm.load("view") if arm.view is not None else None
        rows += getattr(view, "provenance_rows", _no_rows)(results)
    return rows


def provenance_html(results: Results) -> str:
    """The rows as a collapsed ``<details>`` (empty when the run replays nothing)."""
    rows = provenance_rows(results)
    if not rows:
        return ""
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{c}</th>" for c in COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td style='padding:2px 8px'>{html.escape(r[c])}</td>" for c in COLUMNS) + "</tr>" for r in rows
    )
    return (
        "<details class='tfr-provenance' style='margin:6px 0'><summary><b>Provenance of the real data</b> "
        f"({len(rows)} replayed source{'' if len(rows) == 1 else 's'}: repository, commit, licence)</summary>"
        f"<table style='border-collapse:collapse;font-size:90%'><tr>{head}</tr>{body}</table></details>"
    )
