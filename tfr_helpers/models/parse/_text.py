"""Shared reading of reply text: reasoning blocks, fenced code blocks, bare code amid prose, Python checks."""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from dataclasses import dataclass

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
_THINK_OPEN = re.compile(r"^[ \t]*<(think|thinking|reasoning)>", re.I | re.M)  # at a line start, not in a string
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.I)
_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$")
_NOT_PYTHON = {"pycon", "pytb", "python-traceback", "pyi"}
# a line that can start or continue top-level Python code when there are no fences
_CODE_LINE = re.compile(
    r"^(?:def |async def |class |import \w|from [\w.]+ import |@\w|#|if __name__"
    r"|(?:if|elif|else|for|while|with|try|except|finally)\b.*:\s*(?:#.*)?$"
    r"|(?:return|raise|assert|print|pass|yield)\b"
    r"|[A-Za-z_][\w.]*(?:\[[^\]]*\])?\s*(?::\s*[\w\[\], .|]+)?\s*[-+*/%|&]?=[^=]"
    r"|[A-Za-z_][\w.]*\("
    r"|[)\]}])"
)


def strip_reasoning(text: str) -> str:
    """The reply without ``<think>``/``<thinking>``/``<reasoning>`` blocks.

    A closing tag without its opening one (some servers drop the opening tag) cuts everything before it; an
    opening tag that is never closed (a reply cut inside its reasoning) cuts everything after it.
    """
    text = _THINK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language tag, its dedented body, and whether the fence was closed."""

    lang: str
    body: str
    closed: bool

    @property
    def python(self) -> bool:
        """Tagged as Python or not tagged at all (``py``, ``Python``, ``python3``, ``solution.py``...)."""
        tag = self.lang.lower().strip("{}.")
        if tag in _NOT_PYTHON:
            return False
        return tag == "" or tag.startswith("py") or tag.endswith(".py")


def fenced_blocks(text: str) -> tuple[list[Block], str]:
    """Every fenced block (``` or ~~~, any tag, indented inside list items too) and the text outside them.

    A fence closes at a line starting with the same fence character, at least as long as the opening one
    (prose glued after it stays outside; a tag after it opens the next block); a block still open at the end of
    the text is returned with ``closed=False`` (a reply cut at max_tokens).
    """
    blocks: list[Block] = []
    outside: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i])
        if not match:
            outside.append(lines[i])
            i += 1
            continue
        fence, width = match.group("fence"), len(match.group("indent"))
        info = match.group("info").strip()
        body: list[str] = []
        i += 1
        closed = False
        while i < len(lines):
            stripped = lines[i].strip()
            rest = stripped.lstrip(fence[0])
            if len(stripped) - len(rest) >= len(fence):
                closed = True
                if re.fullmatch(r"[\w.+-]+", rest):
                    break  # a new opening fence: the previous block was never closed, read this line again
                outside.append(rest)  # a closing fence with prose glued to it ("```The function...")
                i += 1
                break
            line = lines[i]
            # strip the list item's indentation when the body is indented with it
            body.append(line[width:] if line[:width].strip() == "" else line)
            i += 1
        lang = info.split()[0] if info else ""
        blocks.append(Block(lang, textwrap.dedent("\n".join(body)).strip("\n"), closed))
    return blocks, "\n".join(outside)


def bare_regions(text: str) -> list[str]:
    """Runs of lines that look like top-level Python code in unfenced text, each trimmed until it compiles.

    A run starts at a line such as ``def``/``import``/``@given`` and continues through indented lines, blank
    lines and further code-looking lines; a prose line at column 0 ends it. A run that does not compile is
    cut back at blank lines until it does; one that never compiles is retried from its second line.
    """
    lines = text.splitlines()
    regions: list[str] = []
    i = 0
    while i < len(lines):
        if not _CODE_LINE.match(lines[i]) or lines[i].startswith("#"):
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t" or _CODE_LINE.match(lines[i])):
            i += 1
        chunk = lines[start:i]
        while chunk and not chunk[-1].strip():
            chunk.pop()
        ends = [n for n in range(len(chunk), 0, -1) if n == len(chunk) or not chunk[n].strip()]
        good = next((c for c in ("\n".join(chunk[:n]).strip("\n") for n in ends) if compiles(c)), None)
        if good is None:
            i = start + 1  # the first line was prose that looked like code: start again after it
        else:
            regions.append(good)
            i = start + good.count("\n") + 1  # what was cut off may hold the next region
    return regions


def compiles(src: str) -> bool:
    """True when ``src`` is a Python module that compiles."""
    try:
        compile(src, "<reply>", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


def top_level_names(src: str) -> set[str]:
    """Names a module binds at top level: functions, classes, imports and assignment targets."""
    names: set[str] = set()
    for node in ast.parse(src).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def defines(src: str, name: str) -> bool:
    """True when ``src`` defines a function or class ``name`` (at any depth)."""
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name
        for n in ast.walk(ast.parse(src))
    )


def free_names(src: str) -> set[str]:
    """Names a module reads but never binds anywhere (nor are builtins): what it needs from elsewhere."""
    tree = ast.parse(src)
    read: set[str] = set()
    bound = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return read - bound
