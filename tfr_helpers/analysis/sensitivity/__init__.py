"""Sensitivity of the run's numbers to how strong the benchmark's tests are (EvalPlus's tiers, the corrected
reference): :mod:`evalplus_strength`. Not an arm: it reads the base study's records."""
