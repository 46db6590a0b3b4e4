"""The replayed trajectories arm: real self-repair trajectories (published Reflexion logs, or the import format)
replayed offline, each step judged by RQ1's and RQ2's rules and screened, beside the study.

- :mod:`.settings`: its key, ``trajectories`` (top level);
- :mod:`.records`: its records and its part of ``results.json`` (``TrajectoriesResults``, key ``trajectories``);
- :mod:`.stages`: ``evaluate_trajectory_steps``, ``screen_trajectory_steps``, ``judge_trajectory_outcomes``,
  ``measure_test_lists``;
- :mod:`.report`: its numbers, tables, figures, summary section, headline rows and case rows;
- :mod:`.view`: its notebook section and case-browser rows;
- :mod:`.arm`: the declaration (``ARM``) the arms' registry loads.

The logs themselves are read by ``tfr_helpers.replay.trajectories`` (their loaders and records).
"""

from tfr_helpers.arms.trajectories.arm import ARM

__all__ = ["ARM"]
