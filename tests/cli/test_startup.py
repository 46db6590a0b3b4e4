"""``tfr`` starts without the notebook stack (only ``tfr run`` needs papermill and nbformat) and without the analysis
stack (only the commands that analyse need pandas, matplotlib and seaborn; ``tfr run``'s own process loads them
beside its first notebooks)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NOTEBOOK_STACK = ("papermill", "nbformat", "jsonschema", "nbclient")
ANALYSIS_STACK = ("pandas", "matplotlib", "seaborn", "statsmodels", "sklearn")


@pytest.mark.slow  # a fresh interpreter importing the CLI (its commands' modules: pandas, scipy...)
def test_importing_the_cli_loads_no_notebook_package() -> None:
    code = f"import json, sys, tfr_helpers.cli; print(json.dumps([m for m in {NOTEBOOK_STACK!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


@pytest.mark.slow  # a fresh interpreter importing the CLI and the runner of ``tfr run``
def test_importing_the_cli_and_the_notebook_runner_loads_no_analysis_package() -> None:
    code = (
        "import json, sys, tfr_helpers.cli, tfr_helpers.notebooks.running; "
        f"print(json.dumps([m for m in {ANALYSIS_STACK!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
