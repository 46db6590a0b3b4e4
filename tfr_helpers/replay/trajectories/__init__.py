"""Trajectory sets: real refinement runs (per task, the ordered attempts and the feedback after each), read from
Reflexion-format logs or the package's import format, and the registry of the shipped sets (docs/replay.md)."""
