"""Shared test helpers (synthetic run directories, fixtures)."""
