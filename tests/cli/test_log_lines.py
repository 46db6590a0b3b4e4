"""Progress into a log: plain, throttled lines (the real tqdm on a non-TTY stream; the real CLI in a pipe)."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from tqdm import tqdm

from tfr_helpers.cli.log_lines import LogLines


def test_redraws_become_throttled_lines_and_the_last_state_is_kept() -> None:
    out = io.StringIO()
    stream = LogLines(out, every=3600.0)
    with tqdm(total=1000, file=stream, mininterval=0, desc="work") as bar:
        for _ in range(1000):
            bar.update(1)
    print("after", file=stream)
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert len(lines) == 3, lines  # the first state, the last state, then ordinary text untouched
    assert "0/1000" in lines[0] and "1000/1000" in lines[1] and lines[2] == "after"


def test_each_bar_shows_its_first_and_last_line() -> None:
    out = io.StringIO()
    stream = LogLines(out, every=3600.0)
    for name in ("a", "b"):
        with tqdm(total=10, file=stream, mininterval=0, desc=name) as bar:
            for _ in range(10):
                bar.update(1)
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == ["a", "a", "b", "b"]


@pytest.mark.slow  # runs the 164 HumanEval references in the sandbox
def test_benchmarks_verify_into_a_pipe_writes_plain_lines() -> None:
    tfr = os.path.join(os.path.dirname(sys.executable), "tfr")
    done = subprocess.run([tfr, "benchmarks", "verify", "--benchmark", "humaneval"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "164/164" in done.stdout
    assert "\r" not in done.stderr
    bars = [line for line in done.stderr.splitlines() if "humaneval run 1/1" in line]
    assert 2 <= len(bars) <= 10, done.stderr
    assert "164/164" in bars[-1]
