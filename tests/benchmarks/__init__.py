"""Tests of tfr_helpers.benchmarks."""
