"""The README is a user's document: short, about the product only, and its cheap commands run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfr_helpers.cli import app

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_short_and_about_the_product_only() -> None:
    assert len(README.splitlines()) <= 300
    assert not re.search(r"\bsessions?\b", README, re.IGNORECASE)
    assert not re.search(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b", README), "a commit hash"
    assert not re.search(r"\b\d{1,2}:\d{2}(:\d{2})? ?UTC\b|\b20\d\d-\d\d-\d\d\b", README), "a timestamp"
    assert not re.search(r"\bissue \d+|#\d{2,}\b", README)
    assert not re.search(r"\.\./shared", README)
    assert not re.findall(r"<!--(.*?)-->", README), "a placeholder"


def test_every_linked_page_exists() -> None:
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), target


def _tfr_commands() -> list[list[str]]:
    """Every `uv run tfr ...` command of the README (code blocks and inline code)."""
    found = re.findall(r"uv run (tfr [^`\n#]+)", README)
    return [shlex.split(c.strip())[1:] for c in found]


# commands the README shows that this file runs for real (cheap, offline); the others are run by the tests named
CHEAP = {
    ("benchmarks", "list"),
    ("replay", "list"),
    ("cache", "info"),
    ("estimate", "--params", "papermill_params/openai.yaml"),
}
ELSEWHERE = {
    "run": "tests/notebooks/test_series.py, tests/notebooks/test_papermill_cli.py (smoke); the main job by hand",
    "stage": "tests/analysis/test_headline.py (the worked example), tests/pipeline (smoke)",
    "analyze": "tests/analysis/test_headline.py",
    "select": "tests/consensus/test_codet_reproduction.py",
    "evaluate": "tests/benchmarks/evalplus/test_evalplus_agreement.py (evaluate_samples on HumanEval+ and MBPP+)",
}


@pytest.mark.parametrize("argv", _tfr_commands(), ids=lambda a: " ".join(a)[:60])
def test_readme_tfr_commands_parse_and_the_cheap_ones_run(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    runner = CliRunner()
    words = [a for a in argv if not a.startswith("-")]
    group = words[:2] if words[0] in ("benchmarks", "replay", "cache") else words[:1]
    helped = runner.invoke(app, [*group, "--help"])
    assert helped.exit_code == 0, helped.output  # the command exists as written
    if tuple(argv) in CHEAP:
        done = runner.invoke(app, argv)
        assert done.exit_code == 0, done.output
    else:
        assert argv[0] in ELSEWHERE or argv[0] in {"benchmarks", "replay", "cache", "estimate"}, argv


def test_the_papermill_help_command_lists_the_declared_parameters() -> None:
    import subprocess
    import sys

    assert "uv run papermill --help-notebook notebooks/00_setup.ipynb" in README
    papermill = Path(sys.executable).parent / "papermill"
    done = subprocess.run(
        [str(papermill), "--help-notebook", "notebooks/00_setup.ipynb"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "run_name: str (default" in done.stdout and "tasks: object" in done.stdout
