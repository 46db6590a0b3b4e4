"""The package's modules: none is named like a test, and modules are imported by name in three places only (the
plugin loader, through which the provider builder loads a provider, the sandbox worker's preloads, and the arms'
registry, which loads the arm packages and their stages, report and view on first use); every other import is one a
reader and the import contracts can see."""

from __future__ import annotations

from pathlib import Path

import tfr_helpers

PACKAGE_DIR = Path(tfr_helpers.__file__).parent
IMPORTS_BY_NAME = {"plugins.py", "sandbox/worker.py", "records/arm_registry.py"}


def test_no_product_module_is_named_like_a_test() -> None:
    named = sorted(str(p.relative_to(PACKAGE_DIR)) for p in PACKAGE_DIR.rglob("test_*.py"))
    assert not named, f"product modules named test_*.py (name them for what they hold): {named}"


def test_modules_are_imported_by_name_only_by_the_plugin_loader_and_the_sandbox_worker() -> None:
    users = {str(p.relative_to(PACKAGE_DIR)) for p in PACKAGE_DIR.rglob("*.py") if "import_module" in p.read_text()}
    assert users == IMPORTS_BY_NAME
