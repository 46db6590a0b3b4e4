"""Render the prompt template files (``<name>.txt``) into chat messages.

The base study's templates sit in this folder; an arm's own templates sit in its package (``ArmDeclaration.prompts``:
a package whose ``TEMPLATES`` names its ``<name>.txt`` files) and load here
alike, so a template is named, versioned and fingerprinted the same wherever its file lives.

File format: ``version: <v>`` and ``variables: a, b`` header lines, then ``--- system`` / ``--- user``
sections whose ``${name}`` placeholders are filled with :class:`string.Template` (values are inserted
verbatim, so code containing ``$`` or braces is safe).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tfr_helpers.errors import ConfigError
from tfr_helpers.prompts.messages import Message, ModelRequest
from tfr_helpers.records import Role, Task, TaskView
from tfr_helpers.records.arm_registry import arms

_DIR = Path(__file__).parent
BASE_TEMPLATES = ("codegen", "ebt", "pbt", "refine", "judge", "judge_reasoning")
"""The base study's templates (files in this folder), one per role."""


@cache
def _arm_files() -> dict[str, Path]:
    """Each arm's own templates (``ArmDeclaration.prompts``: its package's ``TEMPLATES``), name -> file.

    Raises:
        ConfigError: An arm's template has a name another template has already.
    """
    files: dict[str, Path] = {}
    for arm in arms():
        if arm.prompts is None:
            continue
        module = arm.load("prompts")
        for name in module.TEMPLATES:
            if name in BASE_TEMPLATES or name in files:
                raise ConfigError(f"arm {arm.name!r} declares the prompt template {name!r}, already taken: rename it")
            files[name] = Path(str(module.__file__)).parent / f"{name}.txt"
    return files


def templates() -> tuple[str, ...]:
    """Template names: the base study's (one per role), then each arm's own (the controls' ``retry`` and
    ``placebo``), read off the arms' registry on first use (an arm's package may import what imports this module)."""
    return (*BASE_TEMPLATES, *_arm_files())


@cache
def template_versions() -> dict[str, str]:
    """Each template's version (its ``version:`` header line)."""
    return {name: load_template(name).version for name in templates()}


def __getattr__(name: str) -> object:
    """``TEMPLATES`` and ``TEMPLATE_VERSIONS``: :func:`templates` and :func:`template_versions`, on first use."""
    if name == "TEMPLATES":
        return templates()
    if name == "TEMPLATE_VERSIONS":
        return template_versions()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


VARIABLES = ("description", "entry_point", "signature", "code", "feedback", "n_tests")
"""Every variable a template may use; anything else passed to :func:`render_prompt` is an error."""


@dataclass(frozen=True)
class PromptTemplate:
    """One parsed template file."""

    name: str
    version: str
    variables: tuple[str, ...]
    sections: tuple[tuple[str, str], ...]


@cache
def load_template(name: str) -> PromptTemplate:
    """Parse ``<name>.txt``.

    Raises:
        ConfigError: Unknown template name.
    """
    if name not in templates():
        raise ConfigError(f"unknown prompt template {name!r}; known templates: {', '.join(templates())}")
    lines = _arm_files().get(name, _DIR / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    header: dict[str, str] = {}
    sections: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("--- "):
            sections.append((line[4:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        elif ":" in line:
            key, _, value = line.partition(":")
            header[key.strip()] = value.strip()
    variables = tuple(v.strip() for v in header.get("variables", "").split(",") if v.strip())
    return PromptTemplate(
        name=name,
        version=header["version"],
        variables=variables,
        sections=tuple((role, "\n".join(body).strip() + "\n") for role, body in sections),
    )


def render_prompt(template: str, **variables: object) -> list[Message]:
    """Fill one template.

    Args:
        template: One of :func:`templates`.
        **variables: Values for the template's placeholders (from :data:`VARIABLES`; unused ones are ignored).

    Returns:
        The system and user messages.

    Raises:
        ConfigError: Unknown template, a variable outside :data:`VARIABLES`, or a required variable missing.
    """
    tpl = load_template(template)
    unknown = sorted(set(variables) - set(VARIABLES))
    if unknown:
        raise ConfigError(f"prompt template {template!r} got unknown variables {unknown}; allowed: {', '.join(VARIABLES)}")
    missing = [v for v in tpl.variables if variables.get(v) is None]
    if missing:
        raise ConfigError(f"prompt template {template!r} needs variables {missing}; pass them to render_prompt")
    values = {k: str(variables[k]) for k in tpl.variables}
    return [
        Message(role=role, content=string.Template(body).substitute(values))  # type: ignore[arg-type]
        for role, body in tpl.sections
    ]


def make_request(
    template: str, *, role: Role, sample_index: int = 0, task: Task | TaskView | None = None, **variables: object
) -> ModelRequest:
    """Render a template into a :class:`ModelRequest` carrying its name, version and variables.

    A full ``task`` is reduced to its :meth:`~tfr_helpers.records.Task.view` here, the one place requests
    are built: the reference solution and the benchmark tests never reach a provider.
    """
    messages = render_prompt(template, **variables)
    used = load_template(template).variables
    return ModelRequest(
        messages=tuple(messages),
        role=role,
        template=template,
        template_version=template_versions()[template],
        sample_index=sample_index,
        variables=tuple((k, str(variables[k])) for k in used),
        task=task.view() if isinstance(task, Task) else task,
    )
