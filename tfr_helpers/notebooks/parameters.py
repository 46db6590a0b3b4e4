"""Papermill-native parameters: every notebook's ``parameters`` cell declares the experiment's keys.

One source of truth: the cell is generated from :class:`~tfr_helpers.pipeline.config.experiment.ExperimentConfig` (its
top-level keys, their types, defaults and attribute docstrings), so ``papermill nb.ipynb out.ipynb -f
papermill_params/X.yaml`` injects exactly the keys the YAML holds and ``-p tasks 5`` overrides one. The form:

- **top-level keys are the YAML's top-level keys**; a nested section (``models``, ``sampling``, ``sandbox``,
  ``concurrency``, ``model_settings``) is one dict parameter. A section given by the file or by ``-y 'sandbox:
  {timeout_s: 5}'`` replaces the cell's whole default dict, and keys it leaves out take the config model's
  defaults, exactly as ``load_config`` reads the YAML;
- the cell's defaults are the config model's defaults except :data:`QUICK_STUDY` (a quick study for interactive
  use); every shipped params file sets those keys, so a file runs the same through papermill and ``tfr stage``;
- ``run_dir`` (empty: ``runs/<run_name>`` of the project) and a notebook's own extras (:data:`EXTRAS`) follow.

The first code cell validates the keys with the same model (:func:`config_from_namespace`): a bad value stops
the notebook there with the message naming the key. ``tfr run`` injects a params file the same way
(:func:`file_parameters`). Regenerate the cells after changing the config model::

    uv run python -m tfr_helpers.notebooks          # rewrite the parameters cells
    uv run python -m tfr_helpers.notebooks --check  # exit 1 when a committed cell is stale
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from tfr_helpers.errors import ConfigError
from tfr_helpers.pipeline.config.arm_keys import ArmKeys
from tfr_helpers.pipeline.config.experiment import ExperimentConfig, config_from_dict, load_config
from tfr_helpers.records.arm_registry import arms_in_section

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
QUICK_STUDY: dict[str, Any] = {"run_name": "quick", "tasks": 3}
"""Cell defaults that differ from the config model's: a quick study (first 3 tasks per benchmark)."""
RUN_DIR_LINE = 'run_dir: str = ""  # run directory (empty: runs/<run_name> of the project)'
EXTRAS: dict[str, list[str]] = {
    "03c_beyond_one_refinement.ipynb": [
        'section_params: str = "papermill_params/smoke_beyond.yaml"  # the section study (tfr run: <params>_beyond.yaml)'
    ],
}
"""Parameters of one notebook besides the experiment's keys."""
HEADER = (
    "# Experiment parameters, generated from ExperimentConfig (`uv run python -m tfr_helpers.notebooks`).\n"
    "# papermill: -f papermill_params/X.yaml, -p tasks 5, -y 'sandbox: {timeout_s: 5}' (a section replaces its dict).\n"
    "# Defaults: a quick study (3 tasks per benchmark) on the simulated model; edit and rerun for interactive use.\n"
)
LINE_LENGTH = 125
"""The project's ruff line length."""
_INJECTED = "# Parameters\n"
"""How papermill's injected cell starts (its Python translator's comment line)."""


# -- rendering the cell ------------------------------------------------------------------------------------
def field_docs(cls: type[BaseModel]) -> dict[str, str]:
    """First sentence of each field's attribute docstring (the string right under the field), by field name."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)) or klass is BaseModel:
            continue
        try:
            tree = ast.parse(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for node, nxt in zip(body, body[1:], strict=False):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                    docs[node.target.id] = _comment(nxt.value.value)
    return docs


def section_docs(cls: type[BaseModel]) -> dict[str, str]:
    """:func:`field_docs` of a configuration section, with those of the arm keys it holds (their arm's settings)."""
    docs = field_docs(cls)
    if issubclass(cls, ArmKeys):
        for arm in arms_in_section(cls.SECTION):
            docs |= field_docs(arm.settings_model)
    return docs


def _comment(doc: str) -> str:
    """One line for an inline comment: first sentence, no ``=`` (papermill skips lines with two ``=``)."""
    text = re.sub(r":\w+:`~?(?:[\w.]*\.)?(\w+)`", r"`\1`", " ".join(doc.split()).replace("``", "`"))
    first = text.split(". ")[0].rstrip(".")
    return first.replace("==", " equals ").replace("=", " is ")


def type_name(annotation: Any) -> str:
    """An annotation papermill can parse and the kernel can evaluate (builtins only, no ``|``)."""
    origin = typing.get_origin(annotation)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if origin in (typing.Union, types.UnionType):
        return type_name(args[0]) if len(args) == 1 else "object"
    if origin is list:
        inner = type_name(args[0]) if args else "object"
        return f"list[{inner}]" if inner in ("str", "int", "float") else "list"
    if origin is dict or (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
        return "dict"
    if annotation in (str, int, float, bool):
        return str(annotation.__name__)
    return "object"


def _literal(value: Any) -> str:
    """A Python literal as ruff would format it (double quotes, None/True/False)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _line(code: str, comment: str) -> str:
    """``code  # comment`` cut to the line length ruff keeps (so formatting never rewrites the cell)."""
    if not comment:
        return code
    room = LINE_LENGTH - len(code) - 4
    if room < 12:
        return code
    return f"{code}  # {comment if len(comment) <= room else comment[: room - 3].rstrip() + '...'}"


def _entry_lines(key: str, value: Any, comment: str, indent: str) -> list[str]:
    code = f"{indent}{_literal(key)}: {_literal(value)},"
    if len(code) <= LINE_LENGTH or not isinstance(value, dict) or not value:
        return [_line(code, comment)]
    inner = [f"{indent}    {_literal(k)}: {_literal(v)}," for k, v in value.items()]
    return [f"{indent}{_literal(key)}: {{", *inner, _line(f"{indent}}},", comment)]


def _dict_lines(name: str, annotation: str, value: dict[str, Any], docs: dict[str, str], comment: str) -> list[str]:
    if not value:
        return [_line(f"{name}: {annotation} = {{}}", comment)]
    lines = [f"{name}: {annotation} = {{"]
    for key, sub in value.items():
        lines += _entry_lines(key, sub, docs.get(key, ""), "    ")
    return [*lines, _line("}", comment)]


def config_fields() -> dict[str, FieldInfo]:
    """The configuration's top-level keys: its own, then those of the arms declared at the top level."""
    return {
        **ExperimentConfig.model_fields,
        **{k: v for arm in arms_in_section(ExperimentConfig.SECTION) for k, v in arm.settings_model.model_fields.items()},
    }


def parameters_source(notebook: str = "") -> str:
    """The generated ``parameters`` cell of one notebook (see the module docstring)."""
    defaults = ExperimentConfig().model_dump(mode="json")
    docs = section_docs(ExperimentConfig)
    lines = [HEADER.rstrip("\n"), RUN_DIR_LINE]
    for name, info in config_fields().items():
        value = QUICK_STUDY.get(name, defaults[name])
        annotation, comment = type_name(info.annotation), docs.get(name, "")
        nested = info.annotation if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel) else None
        if nested is not None and isinstance(value, dict):
            lines += _dict_lines(name, annotation, value, section_docs(nested), comment)
        else:
            lines.append(_line(f"{name}: {annotation} = {_literal(value)}", comment))
    lines += EXTRAS.get(notebook, [])
    return "\n".join(lines)


# -- reading the parameters in the kernel ------------------------------------------------------------------
def parameter_names() -> list[str]:
    """The experiment's keys a parameters cell declares (``run_dir`` and extras not included)."""
    return list(config_fields())


def _injected_names(namespace: Mapping[str, Any]) -> list[str]:
    """Names papermill injected in this kernel (from its ``# Parameters`` cell in the input history)."""
    history = namespace.get("In")
    for source in reversed(history if isinstance(history, list) else []):
        if isinstance(source, str) and source.startswith(_INJECTED):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                return []
            assigns = [node for node in tree.body if isinstance(node, ast.Assign)]
            return [t.id for node in assigns for t in node.targets if isinstance(t, ast.Name)]
    return []


def config_from_namespace(namespace: Mapping[str, Any], notebook: str = "") -> ExperimentConfig:
    """Validate the experiment's keys found in a notebook's namespace (its ``globals()``).

    Raises:
        ConfigError: a bad value (naming the key), or a parameter papermill injected that no notebook declares.
    """
    known = {*parameter_names(), "run_dir", *(line.split(":")[0] for lines in EXTRAS.values() for line in lines)}
    unknown = [name for name in _injected_names(namespace) if name not in known]
    if unknown:
        raise ConfigError(
            f"unknown parameter {unknown[0]!r} (papermill -p/-f): the keys are {', '.join(parameter_names())}; "
            "nested keys go inside their section, e.g. -y 'sandbox: {timeout_s: 5}'"
        )
    data = {name: namespace[name] for name in parameter_names() if name in namespace}
    return config_from_dict(json.loads(json.dumps(data, default=str)), source="the notebook's parameters")


def file_parameters(path: Path | str) -> dict[str, Any]:
    """A params YAML's top-level keys, as papermill's ``-f`` would inject them, plus the config model's default of
    each :data:`QUICK_STUDY` key the file leaves out (so ``tfr run`` runs what ``tfr stage`` runs for any file).

    Raises:
        ConfigError: the file is missing, not YAML, not a mapping, or holds an unknown key (validated whole).
    """

    load_config(path)  # the same validation `tfr stage` applies, before any notebook starts
    data = dict(json.loads(json.dumps(yaml.safe_load(Path(path).read_text()) or {}, default=str)))
    defaults = ExperimentConfig().model_dump(mode="json")
    return {**{key: defaults[key] for key in QUICK_STUDY if key not in data}, **data}


# -- writing and checking the committed cells --------------------------------------------------------------
PARAMETERS_CELL_METADATA: dict[str, Any] = {"jupyter": {"source_hidden": True}, "collapsed": True}
"""The declared-parameters cell starts collapsed in JupyterLab (and in classic Jupyter); the HTML export leaves it
out (:mod:`tfr_helpers.notebooks.html_export`): a report shows the run's injected values, not the ~70 declarations."""


def _collapsed(cell: Any) -> bool:
    return all(cell.metadata.get(k) == v for k, v in PARAMETERS_CELL_METADATA.items())


def _parameters_cell(nb: Any, path: Path) -> Any:
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ConfigError(f"{path} has {len(cells)} cells tagged 'parameters'; it needs exactly one")
    return cells[0]


def stale_notebooks(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[str]:
    """Notebooks whose committed parameters cell differs from :func:`parameters_source` or is not collapsed."""
    import nbformat  # the notebook stack loads only when parameters cells are checked or written

    stale = []
    for path in sorted(notebooks_dir.glob("[0-9][0-9]*_*.ipynb")):
        cell = _parameters_cell(nbformat.read(str(path), as_version=4), path)
        if cell.source != parameters_source(path.name) or not _collapsed(cell):
            stale.append(path.name)
    return stale


def write_parameters_cells(notebooks_dir: Path = NOTEBOOKS_DIR) -> list[str]:
    """Rewrite each stale parameters cell (read-modify-write of that cell only; no outputs); returns the names."""
    import nbformat  # the notebook stack loads only when parameters cells are checked or written

    written = []
    for name in stale_notebooks(notebooks_dir):
        path = notebooks_dir / name
        nb = nbformat.read(str(path), as_version=4)
        cell = _parameters_cell(nb, path)
        cell.source, cell.outputs, cell.execution_count = parameters_source(name), [], None
        cell.metadata.update(PARAMETERS_CELL_METADATA)
        nbformat.write(nb, str(path))
        written.append(name)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m tfr_helpers.notebooks [--check]``."""
    argv = sys.argv[1:] if argv is None else argv
    if "--check" in argv:
        stale = stale_notebooks()
        for name in stale:
            print(f"stale parameters cell: notebooks/{name} (run `uv run python -m tfr_helpers.notebooks`)")
        return 1 if stale else 0
    for name in write_parameters_cells():
        print(f"rewrote the parameters cell of notebooks/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
