"""The analysis of the study's arms: the oracle-repaired arm, the rounds, repeated seeds and their headline numbers."""
