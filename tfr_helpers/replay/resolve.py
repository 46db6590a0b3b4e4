"""Locating a replay dataset's files: package -> override dir -> cache -> verified download.

Mirrors :mod:`tfr_helpers.benchmarks.resolve`, per file of a dataset:

- package: ``<module dir>/<resource>/<folder>/<file>`` when the spec names an installed distribution;
- override: ``replay_dir`` if given, else ``$TFR_REPLAY_DIR``, laid out as ``<folder>/<file>`` (the layout of
  the shared ``replay`` directory);
- cache: ``$TFR_CACHE_DIR/replay/<folder>/<file>``, default root ``platformdirs.user_cache_dir("tfr")``;
- download: ``$TFR_REPLAY_MIRROR/<folder>/<file>`` or the raw file at the pinned commit. Every missing file is
  fetched into a temporary file and its sha256 checked before any of them is moved into the cache, so a
  failed or corrupt download leaves nothing behind.

Files found locally are checked against the pinned sha256 by :func:`verify_file` when they are loaded.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
import shutil
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import platformdirs

from tfr_helpers.benchmarks.files import file_sha256
from tfr_helpers.benchmarks.resolve import ResolvedFile
from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import atomic_path, override_dir
from tfr_helpers.replay.datasets import DatasetSpec, ReplayFile

log = logging.getLogger(__name__)

DOWNLOAD_TIMEOUT_S = 60.0


def replay_cache_root() -> Path:
    """Return the replay cache directory: ``$TFR_CACHE_DIR`` (or the user cache dir) + ``/replay``."""
    root = os.environ.get("TFR_CACHE_DIR") or platformdirs.user_cache_dir("tfr")
    return Path(root).expanduser() / "replay"


def download_url(spec: DatasetSpec, file: ReplayFile) -> str:
    """URL a file is fetched from: ``$TFR_REPLAY_MIRROR/<folder>/<file>`` when set, else the canonical URL."""
    mirror = os.environ.get("TFR_REPLAY_MIRROR", "")
    return f"{mirror.rstrip('/')}/{spec.rel_path(file)}" if mirror else spec.url(file)


def verify_file(spec: DatasetSpec, file: ReplayFile, path: Path, origin: str) -> None:
    """Raise unless the file's bytes match the pinned sha256.

    Args:
        spec: The dataset.
        file: Which of its files.
        path: The file on disk.
        origin: Where it came from, for the message.

    Raises:
        DataError: Naming the dataset, the file and the expected hash.
    """
    actual = file_sha256(path)
    if actual != file.sha256:
        raise DataError(
            f"replay dataset {spec.name}: {path} ({origin}) has sha256 {actual}, expected {file.sha256}; "
            f"the file is corrupt or a different version: delete it or replace it with {spec.url(file)}"
        )


def _package_dir(spec: DatasetSpec) -> tuple[Path, str] | None:
    if spec.package is None:
        return None
    dist, module, resource = spec.package
    found = importlib.util.find_spec(module)
    if found is None or not found.submodule_search_locations:
        return None
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    return Path(next(iter(found.submodule_search_locations))) / resource, f"package {dist} {version}"


def _override_dir(replay_dir: Path | None) -> Path | None:
    return override_dir(replay_dir, "TFR_REPLAY_DIR", "replay", "<folder>/<file> (e.g. /data/replay)")


def _local(spec: DatasetSpec, file: ReplayFile, replay_dir: Path | None) -> ResolvedFile | None:
    rel = spec.rel_path(file)
    package = _package_dir(spec)
    if package is not None and (package[0] / rel).is_file():
        return ResolvedFile(package[0] / rel, "package", f"{package[1]} {rel}")
    override = _override_dir(replay_dir)
    if override is not None and (override / rel).is_file():
        return ResolvedFile(override / rel, "override", f"override {override / rel}")
    cached = replay_cache_root() / rel
    if cached.is_file():
        return ResolvedFile(cached, "cache", f"cache {cached}")
    return None


def _fetch(spec: DatasetSpec, file: ReplayFile, tmp: Path) -> str:
    url = download_url(spec, file)
    log.info("downloading %s from %s", spec.rel_path(file), url)
    try:
        with tmp.open("wb") as out, urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as resp:
            shutil.copyfileobj(resp, out)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise DataError(
            f"replay dataset {spec.name}: {file.name} is not in the override directory or the cache and the "
            f"download from {url} failed ({exc}); set TFR_REPLAY_DIR to a directory holding "
            f"{spec.rel_path(file)} (e.g. /data/replay), or allow network access to {url}"
        ) from exc
    verify_file(spec, file, tmp, f"downloaded from {url}")
    return url


def resolve_dataset(spec: DatasetSpec, replay_dir: Path | None = None) -> dict[str, ResolvedFile]:
    """Locate every file of a dataset, downloading the missing ones into the cache.

    Args:
        spec: The dataset.
        replay_dir: Override directory; when None, ``$TFR_REPLAY_DIR`` is used if set.

    Returns:
        The located files by role (``code``, ``tests``...), each with its provenance.

    Raises:
        DataError: The override directory does not exist, or a download failed or did not match its sha256
            (then no file of this download is left in the cache).
    """
    found: dict[str, ResolvedFile] = {}
    missing: list[ReplayFile] = []
    for file in spec.files:
        local = _local(spec, file, replay_dir)
        if local is None:
            missing.append(file)
        else:
            found[file.role] = local
    if not missing:
        return found
    target_dir = replay_cache_root() / spec.folder
    fetched: list[tuple[ReplayFile, str]] = []
    with ExitStack() as stack:  # a failed download or check removes every temporary file, and none becomes visible
        for file in missing:
            fetched.append((file, _fetch(spec, file, stack.enter_context(atomic_path(target_dir / file.name)))))
    # every download verified: leaving the block renamed them all into the cache
    for file, url in fetched:
        target = target_dir / file.name
        found[file.role] = ResolvedFile(target, "download", f"download {url} -> {target}")
    return found
