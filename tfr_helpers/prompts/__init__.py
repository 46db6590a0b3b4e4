"""Prompt templates, one file per role, and their renderer."""

from tfr_helpers.prompts.render import make_request, render_prompt, template_versions, templates


def __getattr__(name: str) -> object:
    """``TEMPLATES`` and ``TEMPLATE_VERSIONS`` (:func:`templates`, :func:`template_versions`), on first use."""
    if name in ("TEMPLATES", "TEMPLATE_VERSIONS"):
        from tfr_helpers.prompts import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TEMPLATES", "TEMPLATE_VERSIONS", "make_request", "render_prompt", "template_versions", "templates"]
