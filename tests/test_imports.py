"""Every module of the package imports on its own, in a fresh interpreter (no import cycles, no order dependence)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

# Child interpreters (one per core, each taking every n-th module): list the modules, then import each one after
# forgetting every tfr_helpers module, so each import starts from nothing of the package (third-party modules stay
# loaded, which only makes it faster).
_CHILD = """
import importlib, json, pkgutil, sys, traceback
import tfr_helpers
names = sorted(m.name for m in pkgutil.walk_packages(tfr_helpers.__path__, "tfr_helpers."))
part, parts = int(sys.argv[1]), int(sys.argv[2])
failures = {}
for name in names[part::parts]:
    for key in [k for k in sys.modules if k == "tfr_helpers" or k.startswith("tfr_helpers.")]:
        del sys.modules[key]
    try:
        importlib.import_module(name)
    except BaseException:
        failures[name] = traceback.format_exc(limit=-3)
print(json.dumps({"names": names, "failures": failures}))
"""


@pytest.mark.slow  # about 250 fresh imports of the package
def test_every_module_imports_in_a_fresh_interpreter() -> None:
    parts = min(os.cpu_count() or 1, 4)
    children = [
        subprocess.Popen([sys.executable, "-c", _CHILD, str(i), str(parts)], stdout=subprocess.PIPE, text=True)
        for i in range(parts)
    ]
    results = []
    for child in children:
        out, _ = child.communicate(timeout=600)
        assert child.returncode == 0, out[-3000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    names = results[0]["names"]
    assert all(r["names"] == names for r in results)  # every child saw the same modules, so each was imported once
    assert "tfr_helpers.prompts" in names and "tfr_helpers.models.base" in names
    failures = {name: tb for r in results for name, tb in r["failures"].items()}
    assert not failures, "modules that fail to import on their own:\n" + "\n".join(
        f"{name}:\n{tb}" for name, tb in failures.items()
    )
