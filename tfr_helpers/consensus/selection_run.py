"""One call for ``tfr select``: load replayed generations, build (or load) their matrices, report pass@k."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tfr_helpers.consensus.execute import BuildStats, build_matrices
from tfr_helpers.consensus.matrix import Semantics
from tfr_helpers.consensus.report import SelectionReport, expand_strategies, selection_report
from tfr_helpers.errors import ConfigError
from tfr_helpers.fsutil import path_name
from tfr_helpers.replay import ReplayDataset, load_imported, load_replay


@dataclass(frozen=True)
class Selection:
    """A selection run: the dataset, how it was executed, the report."""

    dataset: ReplayDataset
    semantics: Semantics
    report: SelectionReport
    stats: BuildStats
    run_dir: Path


def load_generations(
    benchmark: str, replay: str | None = None, codes: Path | None = None, tests: Path | None = None
) -> ReplayDataset:
    """The generations to select from: a replay dataset (name or directory) or import-format files.

    Raises:
        ConfigError: Neither or both sources given, or the generations belong to another benchmark.
        DataError: A malformed file (naming the file, line and fix).
    """
    if (replay is None) == (codes is None and tests is None):
        raise ConfigError("give either --replay NAME|DIR or --codes FILE --tests FILE (the import format)")
    if replay is not None:
        dataset = load_replay(replay)
    else:
        if codes is None or tests is None:
            raise ConfigError("selection needs both --codes and --tests (programs to rank, tests to run them on)")
        dataset = load_imported(codes, tests, name=codes.resolve().parent.name or "imported", model="unspecified")
    if dataset.benchmark != benchmark:
        raise ConfigError(
            f"{dataset.name} holds {dataset.benchmark} generations, not {benchmark}; pass --benchmark {dataset.benchmark}"
        )
    return dataset


def default_select_dir(dataset: ReplayDataset) -> Path:
    """``runs/select_<dataset>``."""
    return Path("runs") / f"select_{path_name(dataset.name)}"


def run_selection(
    dataset: ReplayDataset,
    run_dir: Path | None = None,
    strategies: Sequence[str] = ("all",),
    semantics: Semantics = "single",
    ks: Sequence[int] = (1, 2, 10),
    timeout: float = 0.1,
    truth_timeout: float = 1.0,
    workers: int | None = None,
    progress: bool = False,
) -> Selection:
    """Build or load the dataset's matrices and report pass@k of each strategy with the random baseline.

    Raises:
        ConfigError: An unknown strategy, or a non-positive k or timeout.
    """
    names = expand_strategies(strategies)
    if any(k < 1 for k in ks) or timeout <= 0 or truth_timeout <= 0:
        raise ConfigError("k values and timeouts must be positive")
    run_dir = run_dir or default_select_dir(dataset)
    matrices, truths, stats = build_matrices(
        dataset, run_dir, semantics, timeout, truth_timeout, workers=workers, progress=progress
    )
    report = selection_report(matrices, truths, names, ks)
    return Selection(dataset, semantics, report, stats, run_dir)
