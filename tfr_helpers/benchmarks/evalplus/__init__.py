"""HumanEval+, HumanEval+ Mini and MBPP+ (EvalPlus) as tfr benchmarks.

- :mod:`.data`: the datasets as typed tasks and each task's inputs (:class:`PlusData`);
- :mod:`.harness`: the differential check that runs inside the sandbox;
- :mod:`.benchmark`: expected outputs from the corrected reference (cached by content), the two tiers of
  benchmark tests, EvalPlus's time limits, and the registration of the three benchmarks.
"""

from tfr_helpers.benchmarks.evalplus.benchmark import (
    Expected,
    compute_expected,
    expected_outputs,
    is_evalplus,
    plus_specs,
    tier_verdicts,
    time_limits,
)
from tfr_helpers.benchmarks.evalplus.data import PlusData, plus_data

__all__ = [
    "Expected",
    "PlusData",
    "compute_expected",
    "expected_outputs",
    "is_evalplus",
    "plus_data",
    "plus_specs",
    "tier_verdicts",
    "time_limits",
]
