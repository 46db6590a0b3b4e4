"""Syntax checks remembered on disk answer as ``compile`` does, and a damaged table is rebuilt."""

from __future__ import annotations

import json

import pytest

from tfr_helpers.replay import syntax, units
from tfr_helpers.replay.units import compiles

SOURCES = ["x = 1\n", "def f(:\n", "a\x00b", "def test_assert_0():\n    assert f(1) == 2\n", "return 1\n"]


def _refuse(source: str) -> bool:
    raise AssertionError(f"checked again: {source!r}")


def test_the_table_answers_as_compile_does_and_serves_the_next_process(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    plain = [units._compiles(s) for s in SOURCES]
    assert plain == [True, False, False, True, False]
    with syntax.remembered(path):
        assert [compiles(s) for s in SOURCES] == plain
    assert json.loads(path.read_text())["format"] == syntax.FORMAT
    monkeypatch.setattr(units, "_compiles", _refuse)
    with syntax.remembered(path):  # every answer from the file
        assert [compiles(s) for s in SOURCES] == plain
    with pytest.raises(AssertionError, match="checked again"):
        compiles(SOURCES[0])  # outside a block: compile itself


def test_a_damaged_or_foreign_table_is_rebuilt(tmp_path):
    path = tmp_path / "t.json"
    for text in ("{not json", json.dumps({"format": "other", "compiles": {}})):
        path.write_text(text)
        with syntax.remembered(path):
            assert compiles("x = 1\n") and not compiles("def f(:\n")
        assert len(json.loads(path.read_text())["compiles"]) == 2


def test_the_table_file_depends_on_the_dataset_files(tmp_path, monkeypatch):
    monkeypatch.setenv("TFR_CACHE_DIR", str(tmp_path))
    a = syntax.table_file("codet", ["sha-a", "1"])
    assert a == syntax.table_file("codet", ["1", "sha-a"]) and a.parent == tmp_path / "replay-syntax"
    assert a != syntax.table_file("codet", ["sha-b", "1"])
