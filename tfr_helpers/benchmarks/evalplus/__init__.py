"""HumanEval+, HumanEval+ Mini and MBPP+ (EvalPlus) as tfr benchmarks.

- :mod:`.data`: the datasets as typed tasks and each task's inputs (:class:`PlusData`);
- :mod:`.harness`: the differential check that runs inside the sandbox;
- :mod:`.memory`: EvalPlus's memory rule (``min(4 GiB, the machine's memory)``, ``EVALPLUS_MAX_MEMORY_BYTES``);
- :mod:`.expected`: expected outputs from the corrected reference (cached by content), plus inputs it gives none
  for left out;
- :mod:`.benchmark`: the two tiers of benchmark tests, EvalPlus's time limits, and the registration of the three
  benchmarks.
"""

from tfr_helpers.benchmarks.evalplus.benchmark import is_evalplus, plus_specs, tier_verdicts, time_limits
from tfr_helpers.benchmarks.evalplus.data import PlusData, plus_data
from tfr_helpers.benchmarks.evalplus.expected import (
    Expected,
    ReferenceInputError,
    compute_expected,
    expected_outputs,
    left_out,
)
from tfr_helpers.benchmarks.evalplus.memory import memory_mb

__all__ = [
    "Expected",
    "PlusData",
    "ReferenceInputError",
    "compute_expected",
    "expected_outputs",
    "is_evalplus",
    "left_out",
    "memory_mb",
    "plus_data",
    "plus_specs",
    "tier_verdicts",
    "time_limits",
]
