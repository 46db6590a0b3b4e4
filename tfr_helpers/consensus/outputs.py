"""The outputs matrix: what each program returns on the test inputs the generated tests expose.

A test of the form ``assert <call> == <expected>`` (CodeT's asserts, generated example-based tests), where
``<call>`` is an expression calling the entry point, exposes an **input**: the call expression itself
(``f(3)``, ``sorted(f([2, 1]))``). Either side of the ``==`` may hold the call. A task's inputs are the unique
call expressions over all its tests, in first-seen order; asserts inside ``def test_*`` units count too.

Each program evaluates every input of its task once, in the same sandbox run as its benchmark tests, through
the harness of :func:`outputs_source`: each input in its own ``try`` with its own ``timeout`` s alarm (as
CodeT's packed tests), inside a budget for all of them. The value recorded per input is a capped ``repr``
(:data:`REPR_CAP` characters, longer ones cut and tagged with a hash of the whole ``repr``), or a token of its
own: ``<raises TypeError>`` for an exception, ``<timeout>`` for an input cut by its alarm, ``<not run>`` for
inputs left when the budget ran out. The harness writes its answer as one JSON line on fd 1 (after clearing
what the program printed), prefixed by :data:`OUTPUTS_MARK`. A run that gives no such line (the program did not
load, or the whole run was killed) has no outputs: its row is None.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable

from tfr_helpers.consensus.codeblob import IMPORTS, loads_expression
from tfr_helpers.records import TestOutcome

REPR_CAP = 120
"""Characters of a value's ``repr`` kept; longer ones keep 100 characters and a 16-hex hash of the rest."""
OUTPUTS_MARK = "TFR_OUTPUTS "
"""Prefix of the harness's answer line on stdout."""
RAISES = "<raises "
"""Prefix of the value of an input whose call raised (``<raises ValueError>``)."""
ERROR_VALUES = ("<timeout>", "<not run>")
"""Values that are not outputs either (with the ``<raises ...>`` ones)."""


def _calls(node: ast.AST, entry_point: str) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == entry_point for n in ast.walk(node))


def exposed_inputs(tests: Iterable[str], entry_point: str) -> list[str]:
    """The unique call expressions exposed by ``tests`` (``assert <call> == <expected>``), first-seen order.

    Args:
        tests: Test texts: assert statements, or ``def test_*`` units holding such asserts.
        entry_point: The function under test.

    Returns:
        The input expressions, unparsed (so ``f( 1 )`` and ``f(1)`` are one input); empty when no test has
        that form or a text does not parse.
    """
    seen: dict[str, None] = {}
    for text in tests:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assert) or not isinstance(node.test, ast.Compare):
                continue
            cmp = node.test
            if len(cmp.ops) != 1 or not isinstance(cmp.ops[0], ast.Eq):
                continue
            sides = [s for s in (cmp.left, cmp.comparators[0]) if _calls(s, entry_point)]
            if len(sides) == 1:
                seen.setdefault(ast.unparse(sides[0]), None)
    return list(seen)


def outputs_source(inputs: list[str], timeout: float, budget: float) -> str:
    """The harness that evaluates ``inputs`` after the program and prints their values (see the module doc).

    Args:
        inputs: Call expressions.
        timeout: Alarm of one input, seconds.
        budget: Seconds for all inputs; inputs not started within it are ``<not run>``.
    """
    return f"_inputs = {inputs!r}\n" + _harness(timeout, budget)


def outputs_snippet(inputs: list[str], timeout: float, budget: float) -> str:
    """:func:`outputs_source` as sent to the sandbox: the harness and the inputs compiled once, here.

    Each input is compiled as an expression (one that does not compile stays text, and ``eval`` raises its
    ``SyntaxError`` in the sandbox); the harness and the compiled inputs travel as one marshalled blob
    (:mod:`~tfr_helpers.consensus.codeblob`), so a program's run compiles neither.
    """
    codes: list[object] = []
    for src in inputs:
        try:
            codes.append(compile(src, "<test input>", "eval"))
        except (SyntaxError, ValueError):
            codes.append(src)
    harness = compile(_harness(timeout, budget), "<tfr outputs harness>", "exec")
    return f"{IMPORTS}\n_harness, _inputs = {loads_expression((harness, tuple(codes)))}\nexec(_harness)\n"


def _harness(timeout: float, budget: float) -> str:
    """The harness's statements, reading the inputs (texts or compiled expressions) from ``_inputs``."""
    return f"""import hashlib as _h, json as _j, os as _o, signal as _s, time as _t
class _OutputTimeout(BaseException):
    pass
def _alarm(signum, frame):
    raise _OutputTimeout()
def _value(v):
    r = repr(v)
    if len(r) > {REPR_CAP}:
        r = r[:100] + '...#' + _h.sha256(r.encode('utf-8', 'surrogatepass')).hexdigest()[:16]
    return r
_out = []
_end = _t.monotonic() + {budget!r}
_s.signal(_s.SIGALRM, _alarm)
for _src in _inputs:
    _left = _end - _t.monotonic()
    if _left <= 0:
        _out.append('<not run>')
        continue
    _s.setitimer(_s.ITIMER_REAL, min({timeout!r}, _left))
    try:
        _r = _value(eval(_src))
    except _OutputTimeout:
        _r = '<timeout>'
    except BaseException as _e:
        _r = '{RAISES}' + type(_e).__name__ + '>'
    finally:
        _s.setitimer(_s.ITIMER_REAL, 0)
    _out.append(_r)
_line = ({OUTPUTS_MARK!r} + _j.dumps(_out) + '\\n').encode()
_o.ftruncate(1, 0)
_o.lseek(1, 0, 0)
while _line:
    _line = _line[_o.write(1, _line):]
"""


def output_cap(inputs: list[str]) -> int:
    """Bytes of stdout the harness's answer can need (so the sandbox keeps all of it)."""
    return 4096 + len(inputs) * (4 * REPR_CAP + 8)


def parse_outputs(outcome: TestOutcome | None, n_inputs: int) -> list[str] | None:
    """The values the harness reported in its spec's ``outcome``, or None when it reported none."""
    if outcome is None:
        return None
    stdout = outcome.stdout or ""
    at = stdout.rfind(OUTPUTS_MARK)
    if at < 0:
        return None
    try:
        values = json.loads(stdout[at + len(OUTPUTS_MARK) :].splitlines()[0])
    except (ValueError, IndexError):
        return None
    if not isinstance(values, list) or len(values) != n_inputs or not all(isinstance(v, str) for v in values):
        return None
    return values


def is_value(output: str) -> bool:
    """True for a returned value, False for ``<raises ...>``, ``<timeout>`` and ``<not run>``."""
    return not output.startswith(RAISES) and output not in ERROR_VALUES
