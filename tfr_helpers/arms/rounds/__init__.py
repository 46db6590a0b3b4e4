"""Multi-round backprompting: each code sample's code refined round after round on the feedback of a test suite per
round (fresh or the same), with the pass rate, suite precision and collisions per round.

- :mod:`.settings`: its keys, ``refinement.rounds``, ``round_tests`` and ``stop_when_passing``;
- :mod:`.records`: its records and its part of ``results.json`` (``RoundsResults``, key ``rounds``);
- :mod:`.stages`: ``generate_round_tests``, ``evaluate_round_suites``, ``backprompt_rounds``;
- :mod:`.report`: its table, figures, summary section and headline rows;
- :mod:`.view`: its notebook section and the case browser's Rounds row;
- :mod:`.arm`: the declaration (``ARM``) the arms' registry loads.
"""

from tfr_helpers.arms.rounds.arm import ARM

__all__ = ["ARM"]
