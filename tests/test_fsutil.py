"""The one atomic-write helper: complete content or the old content, no temp files left, usual permissions."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tfr_helpers.fsutil import atomic_path, atomic_write_bytes, atomic_write_text


def test_write_text_creates_parents_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "out.json"
    assert atomic_write_text(target, "é{}\n") == target
    assert target.read_bytes() == "é{}\n".encode()
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.json"]


def test_failure_inside_the_block_keeps_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "data.bin"
    atomic_write_bytes(target, b"old")
    with pytest.raises(ValueError, match="bad download"):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half")
            raise ValueError("bad download")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.bin"]


def test_permissions_follow_the_umask_not_mkstemp(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = atomic_write_text(tmp_path / "results.json", "{}")
    finally:
        os.umask(old)
    assert target.stat().st_mode & 0o777 == 0o644


def test_concurrent_writers_of_one_path_never_collide(tmp_path: Path) -> None:
    target = tmp_path / "shared.txt"
    texts = [f"writer {i}\n" * 1000 for i in range(8)]
    errors: list[BaseException] = []

    def write(text: str) -> None:
        try:
            for _ in range(20):
                atomic_write_text(target, text)
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(t,)) for t in texts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert target.read_text() in texts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.txt"]
