"""Finished logs are gzip-compressed: read the same, appended to in plain form, a torn copy read as far as it goes."""

from __future__ import annotations

import gzip
from pathlib import Path

from tfr_helpers import logfiles


def test_a_compressed_log_reads_as_its_plain_form(tmp_path: Path) -> None:
    log = tmp_path / "calls" / "s.jsonl"
    log.parent.mkdir()
    log.write_bytes(b'{"a": 1}\n{"b": "\xc3\xa9"}\n')
    assert logfiles.compress(log) == tmp_path / "calls" / "s.jsonl.gz" and not log.exists()
    assert logfiles.read_text(log) == '{"a": 1}\n{"b": "\u00e9"}\n'
    assert logfiles.exists(log) and logfiles.has_content(log)
    assert logfiles.logs_in(log.parent) == [log]
    assert logfiles.read_bytes(tmp_path / "none.jsonl") == b"" and not logfiles.exists(tmp_path / "none.jsonl")


def test_an_append_after_compression_puts_the_log_back_and_loses_nothing(tmp_path: Path) -> None:
    log = tmp_path / "c.jsonl"
    log.write_text("1\n2\n")
    logfiles.compress(log)
    logfiles.prepare_append(log)
    assert log.read_text() == "1\n2\n" and not logfiles.gz_path(log).exists()
    with open(log, "a") as fh:
        fh.write("3\n")
    logfiles.compress(log)
    assert logfiles.read_text(log) == "1\n2\n3\n"


def test_the_plain_log_wins_over_a_stale_compressed_copy(tmp_path: Path) -> None:
    log = tmp_path / "c.jsonl"
    logfiles.gz_path(log).write_bytes(gzip.compress(b"old\n"))  # a crash after the plain file was put back
    log.write_text("old\nnew\n")
    assert logfiles.read_text(log) == "old\nnew\n"
    logfiles.prepare_append(log)
    assert not logfiles.gz_path(log).exists() and log.read_text() == "old\nnew\n"


def test_a_torn_compressed_log_reads_as_far_as_it_decompresses(tmp_path: Path) -> None:
    log = tmp_path / "c.jsonl"
    whole = "".join(f'{{"key": "{i}", "pad": "{"x" * (i % 97)}"}}\n' for i in range(3000)).encode()
    member = gzip.compress(whole)
    logfiles.gz_path(log).write_bytes(member[: len(member) // 2])
    text = logfiles.read_text(log)
    assert 0 < len(text) < len(whole) and whole.decode().startswith(text)
    logfiles.gz_path(log).write_bytes(member + gzip.compress(b"more\n"))  # members written one after another
    assert logfiles.read_bytes(log) == whole + b"more\n"
