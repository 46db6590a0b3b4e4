"""Extract the program from a code-generation or refinement reply."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from tfr_helpers.models.parse._text import (
    bare_regions,
    compiles,
    defines,
    fenced_blocks,
    free_names,
    strip_reasoning,
    top_level_names,
)


@dataclass(frozen=True)
class ParsedCode:
    """Code extracted from a reply; ``code`` is None and ``error`` says why when nothing was usable."""

    code: str | None
    error: str | None = None
    truncated: bool = False
    """The reply ended inside a code fence that was never closed (typically cut at ``max_tokens``); ``code`` is
    then what the block held, when that compiles."""


def parse_code(text: str | None, entry_point: str | None = None) -> ParsedCode:
    """Extract the program a person would take from a reply.

    Reads, after dropping ``<think>`` blocks: fenced blocks with any Python tag (```` ```py ````,
    ```` ```Python ````, ```` ```python3 ````) or none, fences indented inside list items, and, when no
    fenced block holds the program, code written without fences amid prose. Among the blocks that compile
    and define ``entry_point`` it takes the last self-contained one (a model's corrected or final version),
    adding the imports and helpers it uses from the reply's other blocks.

    Args:
        text: The raw reply (None for a failed call).
        entry_point: Function the code must define; when given and no block defines it, that is the error.

    Returns:
        ``ParsedCode(code, None, truncated)`` or ``ParsedCode(None, error, truncated)``.
    """
    if not text or not text.strip():
        return ParsedCode(None, "empty response")
    answer = strip_reasoning(text.replace("\r\n", "\n"))
    if not answer.strip():
        return ParsedCode(None, "the reply holds only a <think> block and no answer")
    blocks, outside = fenced_blocks(answer)
    truncated = any(not b.closed for b in blocks)
    python = [b.body for b in blocks if b.python and b.body.strip()]
    candidates = [c for c in python if compiles(c)]
    if entry_point:
        # a block tagged as another language that is in fact Python defining the entry point
        candidates += [b.body for b in blocks if not b.python and compiles(b.body) and defines(b.body, entry_point)]
    if not _choose(candidates, entry_point):
        candidates += bare_regions(outside)
    code = _choose(candidates, entry_point)
    if code is not None:
        return ParsedCode(code.strip() + "\n", None, truncated)
    if truncated and not any(compiles(b.body) for b in blocks if not b.closed):
        error = "the reply was cut inside a code block (unterminated fence) and the partial code does not compile"
    elif python and not any(compiles(c) for c in python):
        error = "fenced code does not compile"
    elif candidates and entry_point:
        error = f"no code block defines {entry_point!r}"
    else:
        error = "no code block and the text is not Python"
    return ParsedCode(None, error, truncated)


def _choose(candidates: list[str], entry_point: str | None) -> str | None:
    """The last self-contained candidate defining the entry point, with what it needs from the others."""
    if entry_point:
        defining = [c for c in candidates if defines(c, entry_point)]
    else:
        defining = [c for c in candidates if _defines_something(c)] or candidates
    if not defining:
        return None
    whole = [c for c in defining if not free_names(c)]
    chosen = (whole or defining)[-1]
    needed = free_names(chosen)
    extra = [_bindings(c, needed) for c in candidates if c is not chosen and top_level_names(c) & needed]
    extra = [e for e in extra if e and not (entry_point and defines(e, entry_point))]
    return "\n\n".join([*extra, chosen])


def _defines_something(src: str) -> bool:
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.parse(src).body)


def _bindings(src: str, needed: set[str]) -> str:
    """The imports of ``src`` and its top-level definitions of ``needed`` names, in source order."""
    lines = src.splitlines()
    body = ast.parse(src).body
    keep = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (top_level_names(ast.unparse(node)) & needed):
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            keep.append("\n".join(lines[start - 1 : node.end_lineno]))
    return src if len(keep) == len(body) else "\n\n".join(keep)
