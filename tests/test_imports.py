"""Every module of the package imports on its own, in a fresh interpreter (no import cycles, no order dependence)."""

from __future__ import annotations

import json
import subprocess
import sys

# One child interpreter: list the modules, then import each one after forgetting every tfr_helpers module, so each
# import starts from nothing of the package (third-party modules stay loaded, which only makes it faster).
_CHILD = """
import importlib, json, pkgutil, sys, traceback
import tfr_helpers
names = sorted(m.name for m in pkgutil.walk_packages(tfr_helpers.__path__, "tfr_helpers."))
failures = {}
for name in names:
    for key in [k for k in sys.modules if k == "tfr_helpers" or k.startswith("tfr_helpers.")]:
        del sys.modules[key]
    try:
        importlib.import_module(name)
    except BaseException:
        failures[name] = traceback.format_exc(limit=-3)
print(json.dumps({"names": names, "failures": failures}))
"""


def test_every_module_imports_in_a_fresh_interpreter() -> None:
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True, timeout=600)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "tfr_helpers.prompts" in result["names"] and "tfr_helpers.models.base" in result["names"]
    assert not result["failures"], "modules that fail to import on their own:\n" + "\n".join(
        f"{name}:\n{tb}" for name, tb in result["failures"].items()
    )
