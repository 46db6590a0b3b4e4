"""tfr_helpers.replay: real, published LLM generations (and a researcher's own) replayed through the study.

Datasets are registered by name (:data:`DATASETS`: ``codet-codegen16b-humaneval``, ``reflexion-gpt4-humaneval``)
and resolved like benchmark data: package -> ``$TFR_REPLAY_DIR`` -> cache (``$TFR_CACHE_DIR/replay``) -> verified
download (``$TFR_REPLAY_MIRROR`` or the raw file at the pinned commit). A directory in the import format
(``code.jsonl`` / ``tests.jsonl``, see docs/replay.md) is a dataset too. :func:`load_replay` turns either into a
:class:`ReplayDataset`; the ``replay`` provider (:mod:`tfr_helpers.replay.provider`) answers coder and tester
requests from it.
"""

from tfr_helpers.replay.codet import cut_at_stops, extract_asserts
from tfr_helpers.replay.datasets import DATASETS, DatasetSpec, ReplayFile, dataset_spec
from tfr_helpers.replay.imported import load_imported, tests_sample
from tfr_helpers.replay.load import (
    clear_replay_cache,
    load_import_dir,
    load_replay,
    register_import,
    replay_hashes,
    replay_source,
)
from tfr_helpers.replay.records import ReplayCode, ReplayDataset, ReplayTask, ReplayTest, ReplayTestSample
from tfr_helpers.replay.resolve import replay_cache_root, resolve_dataset
from tfr_helpers.replay.summary import DatasetSummary, summarize

__all__ = [
    "DATASETS",
    "DatasetSpec",
    "DatasetSummary",
    "ReplayCode",
    "ReplayDataset",
    "ReplayFile",
    "ReplayTask",
    "ReplayTest",
    "ReplayTestSample",
    "clear_replay_cache",
    "cut_at_stops",
    "dataset_spec",
    "extract_asserts",
    "load_import_dir",
    "load_imported",
    "load_replay",
    "register_import",
    "replay_cache_root",
    "replay_hashes",
    "replay_source",
    "resolve_dataset",
    "summarize",
    "tests_sample",
]
