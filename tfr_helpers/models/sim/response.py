"""How the simulated model writes its answers: one fenced block that names the model as simulated."""

from __future__ import annotations

import textwrap


def banner(model: str) -> str:
    """The comment line opening every code block of the simulated model."""
    return f"# simulated model {model} (not an LLM)"


def code_answer(model: str, code: str, intro: str) -> str:
    """A prose line and one ```python block whose first line is the simulated-model banner."""
    return f"{intro} (simulated model {model}, not an LLM)\n\n```python\n{banner(model)}\n{code.strip()}\n```\n"


def tests_answer(model: str, imports: list[str], functions: list[str], intro: str) -> str:
    """One ```python block: module-level imports, then one ``def test_...`` per test, blank-line separated."""
    unique = list(dict.fromkeys(line for line in imports if line.strip()))
    body = "\n".join(unique) + "\n\n\n" + "\n\n\n".join(f.strip() for f in functions)
    return code_answer(model, body, intro)


def no_code_answer(model: str) -> str:
    """A response with no code at all (exercises the parser's 'no code' outcome)."""
    return (
        f"I am the simulated model {model}, not an LLM, and this answer deliberately holds no code. "
        "Think about the edge cases first.\n"
    )


def indent(source: str, level: int = 1) -> str:
    """``source`` indented by ``level`` blocks of four spaces."""
    return textwrap.indent(source.strip("\n"), "    " * level)
