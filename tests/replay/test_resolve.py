"""Resolving replay files: package -> TFR_REPLAY_DIR -> cache -> verified download (a real loopback server)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from tests.benchmarks.test_resolve import _closed_port
from tests.replay.conftest import LoopbackServer
from tfr_helpers.errors import DataError
from tfr_helpers.replay import DATASETS, load_replay, replay_source, resolve_dataset
from tfr_helpers.replay.datasets import REFLEXION

NAME = "reflexion-gpt4-humaneval"


def test_override_directory_is_used(replay_env: Path) -> None:
    for spec in DATASETS.values():
        found = resolve_dataset(spec)
        assert {f.origin for f in found.values()} == {"override"} and set(found) == {f.role for f in spec.files}
    assert replay_source(NAME) == f"override {replay_env / 'reflexion'}"


def test_missing_override_directory_is_an_error(isolated_replay: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_REPLAY_DIR", str(isolated_replay / "typo"))
    with pytest.raises(DataError, match="typo.*does not exist"):
        load_replay(NAME)


def test_download_verifies_then_caches(
    shared_replay: Path, isolated_replay: Path, loopback_server: LoopbackServer, monkeypatch
) -> None:
    shutil.copytree(shared_replay / "reflexion", loopback_server.root / "reflexion")
    monkeypatch.setenv("TFR_REPLAY_MIRROR", loopback_server.url(""))
    found = resolve_dataset(REFLEXION)
    cache = isolated_replay / "replay" / "reflexion"
    assert {f.origin for f in found.values()} == {"download"}
    for file in REFLEXION.files:
        assert (cache / file.name).read_bytes() == (shared_replay / "reflexion" / file.name).read_bytes()
    assert len(load_replay(NAME).tasks) == 164
    assert replay_source(NAME) == f"cache {cache}"
    assert len(loopback_server.requests) == 2  # one per file; later resolutions used the cache
    assert not list(cache.glob("*.part"))


def test_a_download_with_a_wrong_hash_names_dataset_and_hash_and_leaves_nothing(
    shared_replay: Path, isolated_replay: Path, loopback_server: LoopbackServer, monkeypatch
) -> None:
    shutil.copytree(shared_replay / "reflexion", loopback_server.root / "reflexion")
    tests_file = REFLEXION.file("tests")
    served = loopback_server.root / "reflexion" / tests_file.name
    served.write_bytes(served.read_bytes() + b"\n")
    monkeypatch.setenv("TFR_REPLAY_MIRROR", loopback_server.url(""))
    with pytest.raises(DataError) as info:
        load_replay(NAME)
    assert f"replay dataset {NAME}" in str(info.value) and f"expected {tests_file.sha256}" in str(info.value)
    # the code file downloaded fine, but nothing of this failed download reaches the cache
    assert not [p for p in isolated_replay.rglob("*") if p.is_file()]


def test_a_corrupt_override_file_names_dataset_and_hash(shared_replay: Path, isolated_replay: Path, monkeypatch):
    root = isolated_replay.parent / "override"
    shutil.copytree(shared_replay / "reflexion", root / "reflexion")
    code = root / "reflexion" / REFLEXION.file("code").name
    code.write_bytes(code.read_bytes().replace(b"HumanEval/0", b"HumanEval/9", 1))
    monkeypatch.setenv("TFR_REPLAY_DIR", str(root))
    with pytest.raises(DataError, match=rf"{NAME}: {code} \(override\) .* expected {REFLEXION.file('code').sha256}"):
        load_replay(NAME)


def test_offline_with_nothing_found_names_the_fix(isolated_replay: Path, monkeypatch) -> None:
    monkeypatch.setenv("TFR_REPLAY_MIRROR", f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(DataError) as info:
        load_replay(NAME)
    assert "TFR_REPLAY_DIR" in str(info.value) and "reflexion/" in str(info.value) and "127.0.0.1" in str(info.value)
    assert not [p for p in isolated_replay.rglob("*") if p.is_file()]


def test_an_installed_package_comes_first(shared_replay: Path, isolated_replay: Path, tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(shared_replay / "reflexion", tmp_path / "site" / "replaydata" / "files" / "reflexion")
    (tmp_path / "site" / "replaydata" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setenv("TFR_REPLAY_DIR", str(shared_replay))  # the package beats the override
    spec = dataclasses.replace(REFLEXION, package=("replaydata-dist", "replaydata", "files"))
    found = resolve_dataset(spec)
    assert {f.origin for f in found.values()} == {"package"}
    assert found["code"].path == tmp_path / "site" / "replaydata" / "files" / "reflexion" / spec.file("code").name
    assert found["code"].detail.startswith("package replaydata-dist ? reflexion/")


def test_unknown_dataset_name_lists_the_registered_ones(isolated_replay: Path) -> None:
    from tfr_helpers.errors import ConfigError

    with pytest.raises(ConfigError, match="codet-codegen16b-humaneval, reflexion-gpt4-humaneval"):
        load_replay("codet-gpt5")
