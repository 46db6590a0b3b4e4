"""Training and evaluation data: one :class:`Example` per labelled test-fail feedback, from any real source.

The data are a plain list of (features, label, task, source) records, so any source of labelled test-fail
feedback plugs in: a run directory's replayed (or API) coders (:func:`examples_from_run`) and the examples of every
arm that gives some (its ``examples`` module, :func:`arm_examples`: the replayed trajectory steps' reproduced failing
tests, one source per trajectory set, so two runs of one model are two sources). The label is RQ1's: 1
when the feedback is unreliable (the reference fails the test too), 0 when reliable; indeterminate feedback is left
out. The label is read beside the features, never by them: :func:`examples_from_items` builds the features from the
items and matrices alone.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from tfr_helpers.benchmarks import get_task
from tfr_helpers.consensus.from_run import RunMatrix, matrices_from_records
from tfr_helpers.errors import DataError
from tfr_helpers.models.provider_table import is_simulated
from tfr_helpers.pipeline.engine.codec import decode_records
from tfr_helpers.pipeline.engine.store import RunStore
from tfr_helpers.pipeline.screening.registry import ScreeningItem
from tfr_helpers.records import GeneratedCode, GeneratedTest, PairEvaluation
from tfr_helpers.records.arm_registry import arms
from tfr_helpers.replay import replay_hashes
from tfr_helpers.screener.baselines import flags
from tfr_helpers.screener.features import FEATURES, Execute, extract
from tfr_helpers.screener.view import build_views


@dataclass(frozen=True)
class Example:
    """One labelled test-fail feedback."""

    features: tuple[float, ...]
    label: int
    """1: unreliable feedback (the reference fails the test too); 0: reliable."""
    task: str
    source: str
    """The data source: a replayed coder (``replay:...``) or one trajectory set, i.e. one run of a model
    (``trajectories:<set>``; two runs of a model are two sources, never pooled)."""
    feedback_id: str
    test: str = ""
    """:func:`source_digest` of the failing test's source: the same test text on any task or source has the same."""
    flags: tuple[float, ...] = ()
    """The trivial baselines' flags (:data:`~tfr_helpers.screener.baselines.FLAGS`), never features."""


def source_digest(source: str) -> str:
    """sha256 prefix of a test's source text with surrounding whitespace stripped (a verbatim test's identity)."""
    return hashlib.sha256(source.strip().encode()).hexdigest()[:16]


def as_arrays(examples: Sequence[Example]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(X, y, task, source)`` arrays of a list of examples."""
    x = np.array([e.features for e in examples], dtype=float)
    return (
        x,
        np.array([e.label for e in examples], dtype=int),
        np.array([e.task for e in examples]),
        np.array([e.source for e in examples]),
    )


def examples_from_items(
    items: Sequence[ScreeningItem],
    labels: Sequence[int],
    runs: Mapping[tuple[str, str], RunMatrix],
    execute: Execute,
) -> list[Example]:
    """Examples of labelled screening items (``labels[i]`` belongs to ``items[i]``)."""
    views = build_views(items, runs)
    x = extract(views, execute)
    error = FEATURES.index("fail_test_code_error")
    return [
        Example(
            tuple(float(v) for v in row),
            int(label),
            view.task_id,
            view.source,
            view.feedback_id,
            source_digest(view.test_source),
            flags(view, float(row[error])),
        )
        for row, label, view in zip(x, labels, views, strict=True)
    ]


def checkpoint_records(store: RunStore, checkpoint: str, cls: type) -> list:
    """The records of type ``cls`` in a checkpoint of the run."""
    return [r for e in store.read_checkpoint(checkpoint) for r in decode_records(e["data"]) if isinstance(r, cls)]


def arm_examples() -> list[ModuleType]:
    """The ``examples`` modules of the arms that give labelled screening examples (``ArmDeclaration.examples``)."""
    return [arm.load("examples") for arm in arms() if arm.examples is not None]


def examples_of_runs(run_dirs: Sequence[Path], execute: Execute) -> list[Example]:
    """Every labelled example of the run directories (their coders' feedback and their trajectory steps), each
    (source, feedback) once.

    Raises:
        DataError: A run directory holds neither.
    """
    out: dict[tuple[str, str], Example] = {}
    for d in run_dirs:
        found = [e for module in arm_examples() for e in module.examples(d, execute)]
        try:
            found = examples_from_run(d, execute) + found
        except DataError:
            if not found:
                raise
        out.update({(e.source, e.feedback_id): e for e in found})
    return list(out.values())


def data_provenance(run_dirs: Sequence[Path]) -> dict[str, dict[str, str]]:
    """The data the run directories were made from, by name: each replayed coder's dataset and each trajectory set,
    with the sha256 prefixes of their files (never a local path)."""
    out: dict[str, dict[str, str]] = {}
    for d in run_dirs:
        config = RunStore(d).read_json("config.json")["config"]
        for coder in config["models"]["coders"]:
            model = coder if isinstance(coder, str) else coder["model"]
            if model.startswith("replay:"):
                out[model] = replay_hashes(model.removeprefix("replay:"))
        for module in arm_examples():
            out.update(module.data_hashes(config))
    return out


def examples_from_run(run_dir: Path, execute: Execute) -> list[Example]:
    """The labelled test-fail feedback of a run directory's real (replayed or API) coders.

    Reads the checkpoints of ``generate_codes``, ``generate_tests`` and ``evaluate_code_test_pairs`` (a run need
    not be finalised). Simulated coders (``sim:``) are left out: they are a demo, never training data.

    Raises:
        DataError: The run holds no labelled test-fail feedback from a real coder.
    """
    store = RunStore(run_dir)
    codes = checkpoint_records(store, "generated_codes", GeneratedCode)
    tests = checkpoint_records(store, "generated_tests", GeneratedTest)
    pairs = [p for p in checkpoint_records(store, "test_execution_feedback", PairEvaluation) if not is_simulated(p.model)]
    code_of = {(c.model, c.task_id, c.sample_index): c.code or "" for c in codes}
    samples = Counter((c.model, c.task_id) for c in codes)
    test_of = {t.test_id: t for t in tests}
    labelled = [p for p in pairs if p.feedback is not None and p.reliability in ("reliable", "unreliable")]
    if not labelled:
        raise DataError(
            f"{run_dir} holds no labelled test-fail feedback from a real coder; run `tfr stage evaluate_code_test_pairs` "
            "on a params file with replayed or API coders first"
        )
    views = {t: get_task(t).view() for t in dict.fromkeys(p.task_id for p in labelled)}
    items = [
        ScreeningItem(
            p.feedback,
            views[p.task_id],
            p.model,
            "",
            code_of[(p.model, p.task_id, p.code_index)],
            test_of[p.test_id],
            p.generated,
            samples[(p.model, p.task_id)],
        )  # type: ignore[arg-type]
        for p in labelled
    ]
    units = {(p.model, p.task_id) for p in labelled}
    runs = matrices_from_records(codes, tests, pairs, units)
    return examples_from_items(items, [int(p.reliability == "unreliable") for p in labelled], runs, execute)
