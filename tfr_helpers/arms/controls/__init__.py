"""The control arm of RQ2: the same refiner asked again on each refined feedback instance without its content
(``resample``, ``retry``, ``placebo``), and the effect of the feedback's content (feedback arm minus control).

- :mod:`.settings`: its key, ``refinement.controls``;
- :mod:`.records`: its records and its part of ``results.json`` (``ControlsResults``, key ``controls``);
- :mod:`.prompts`: its prompt templates (``retry``, ``placebo``), registered with the prompt renderer;
- :mod:`.stages`: ``control_resample``, ``control_retry``, ``control_placebo``, ``control_evaluate``;
- :mod:`.analysis`: the side-by-side rates and the content effects;
- :mod:`.report`: its table, figure and summary section;
- :mod:`.view`: its notebook section and its case-browser row;
- :mod:`.arm`: the declaration (``ARM``) the arms' registry loads.
"""

from tfr_helpers.arms.controls.arm import ARM

__all__ = ["ARM"]
