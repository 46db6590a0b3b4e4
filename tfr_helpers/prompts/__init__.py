"""Prompt templates, one file per role, and their renderer."""

from tfr_helpers.prompts.render import TEMPLATE_VERSIONS, TEMPLATES, make_request, render_prompt

__all__ = ["TEMPLATES", "TEMPLATE_VERSIONS", "make_request", "render_prompt"]
