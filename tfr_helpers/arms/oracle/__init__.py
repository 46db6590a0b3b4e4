"""The oracle-repaired arm: each unreliable EBT repaired from the reference (its expected value replaced by the
reference's output), the same refiner on the repaired feedback, and the comparison with the original feedback.

- :mod:`.settings`: its key, ``refinement.oracle_repair``;
- :mod:`.records`: its records and its part of ``results.json`` (``OracleRepairResults``, key ``oracle_repair``);
- :mod:`.stages`: ``oracle_repair_tests``, ``oracle_refine_codes``, ``oracle_evaluate_refined``;
- :mod:`.report`: its tables, summary section and headline rows;
- :mod:`.view`: its notebook section;
- :mod:`.arm`: the declaration (``ARM``) the arms' registry loads.
"""

from tfr_helpers.arms.oracle.arm import ARM

__all__ = ["ARM"]
