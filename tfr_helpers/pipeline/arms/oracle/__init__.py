"""The oracle-repaired arm: repair unreliable EBTs from the reference, refine on them, evaluate the refinements."""
