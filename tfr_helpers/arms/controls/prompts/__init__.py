"""The control arm's prompt templates, one ``<name>.txt`` file each beside this module, in the renderer's format
(``tfr_helpers.prompts.render``), which loads them through the arm's declaration (``ArmDeclaration.prompts``).

- ``retry``: the task and the code with a neutral request to check and fix it; no test, no failure;
- ``placebo``: the text of ``refine``, versioned on its own, filled with content-free feedback.

The ``resample`` control renders the coder's own template, ``codegen``.
"""

TEMPLATES = ("retry", "placebo")
"""The arm's templates (``<name>.txt`` beside this module)."""
