"""The arms beyond one refinement: the oracle-repaired arm and multi-round backprompting, each a set of stages."""
