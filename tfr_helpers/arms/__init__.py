"""The study's arms, one package each (settings, records, stages, report, view), listed by the arms' registry
(``tfr_helpers.records.arm_registry``); no arm imports another.

The pipeline loads first: its study composes every arm's stages as it loads, so an arm's module imported before
anything else (a test, a notebook, a fresh interpreter) would otherwise be asked for its stages half-loaded.
"""

import tfr_helpers.pipeline  # noqa: F401
