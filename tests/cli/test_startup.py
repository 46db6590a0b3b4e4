"""``tfr`` starts without the notebook stack: only ``tfr run`` needs papermill and nbformat."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NOTEBOOK_STACK = ("papermill", "nbformat", "jsonschema", "nbclient")


@pytest.mark.slow  # a fresh interpreter importing the CLI (its commands' modules: pandas, scipy...)
def test_importing_the_cli_loads_no_notebook_package() -> None:
    code = f"import json, sys, tfr_helpers.cli; print(json.dumps([m for m in {NOTEBOOK_STACK!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
