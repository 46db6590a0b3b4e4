"""Paths of the smoke params; the smoke study and its notebook series are the ``smoke_study`` and
``smoke_series`` fixtures of ``tests/conftest.py``, run once for all the notebook and browser tests."""

from __future__ import annotations

from tests.helpers.smoke import SMOKE_PARAMS

ROOT = SMOKE_PARAMS.parents[1]

__all__ = ["ROOT", "SMOKE_PARAMS"]
