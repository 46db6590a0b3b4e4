"""The consensus rankers, one module per method; each registers itself in :mod:`tfr_helpers.consensus.ranking`."""
