"""The simulated model's version: a hash of its own source, so any change to its behaviour is a new version.

Runs that use the simulated model include this version in their configuration hash
(``tfr_helpers.pipeline.fingerprint``): resuming a run after the simulator changed would mix answers of two
simulators, so the resume is refused and names the change.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path


@cache
def sim_version() -> str:
    """The first 16 hex digits of a sha256 over every ``.py`` file of this package and its subpackages (their
    paths inside the package, and text)."""
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
