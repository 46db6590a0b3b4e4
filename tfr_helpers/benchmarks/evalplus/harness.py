"""EvalPlus's differential check, as source that runs inside the sandbox in the program's own namespace.

:mod:`tfr_helpers.benchmarks.evalplus.benchmark` reads this file's text and appends one call to it per test spec, so every
name here starts with ``_tfr_ep_`` (a candidate's own ``poly`` or ``check`` is left alone); it also imports the
encoding and EvalPlus's float rule from here, so both sides share one definition. Values cross the sandbox
boundary as *tagged JSON*: JSON, with tuples, sets, frozensets, dicts, complex numbers and non-finite floats
tagged, so that types survive (``(1, 2)`` is not ``[1, 2]`` here, as in EvalPlus's own comparison), and integers
above 4,096 bits in hexadecimal (converted in linear time). An expected
output whose canonical text (its tagged JSON, a list or tuple of strings written more compactly:
:func:`_tfr_ep_pieces`) is longer than 20,000 characters travels as that text's sha256, computed piece by piece
(no encoded copy of the output is built), and is compared exactly; one of a type tagged JSON cannot hold travels
as its ``repr``.

The comparison follows ``evalplus/eval/__init__.py`` (v0.3.1): exact equality, then EvalPlus's special oracles
by entry point, then ``np.allclose(out, exp, rtol=1e-07, atol=atol)`` for outputs of the same type and
length when ``atol`` is not zero. EvalPlus sets ``atol`` to 1e-6 once an expected output is a float, for the rest
of that tier (:func:`_tfr_ep_next_atol`); a tier split over several specs passes each the state at its first
input. Each input has its own time limit, in CPU time: the reference's time is measured with
``time.process_time()`` and a candidate's call is stopped by ``ITIMER_PROF`` (SIGPROF, the process's user and
system CPU), so neither side depends on the machine's load. A call that blocks without using CPU (a sleep, a
deadlock) is left to the sandbox's per-test wall budget (EvalPlus's own harness uses wall time).
"""

import copy as _tfr_ep_copy
import hashlib as _tfr_ep_hashlib
import json as _tfr_ep_json
import math as _tfr_ep_math
import signal as _tfr_ep_signal
import sys as _tfr_ep_sys
import time as _tfr_ep_time

import numpy as _tfr_ep_np

_TFR_EP_NOT_NONE = ("check_str", "text_match_three", "text_starta_endb")
_TFR_EP_SET_EQ = (
    "similar_elements",
    "find_char_long",
    "common_in_nested_lists",
    "extract_singly",
    "larg_nnum",
    "intersection_array",
    "find_dissimilar",
    "Diff",
)
_TFR_EP_MARK = "TFR-EP-OUT "
_TFR_EP_HASHED = 20_000
"""Expected outputs whose canonical text (:func:`_tfr_ep_pieces`) is longer than this travel as its sha256
(compared by exact equality)."""


class _TfrEpDigits:
    """Lift Python's limit on int <-> str digits while values are (de)serialised (EvalPlus pickles them)."""

    def __enter__(self):
        self.saved = _tfr_ep_sys.get_int_max_str_digits()
        _tfr_ep_sys.set_int_max_str_digits(0)

    def __exit__(self, *exc):
        _tfr_ep_sys.set_int_max_str_digits(self.saved)


def _tfr_ep_loads(text):
    with _TfrEpDigits():
        return _tfr_ep_decode(_tfr_ep_json.loads(text))


def _tfr_ep_dumps(value):
    with _TfrEpDigits():
        return _tfr_ep_json.dumps(value)


def _tfr_ep_encode(value):
    kind = type(value)
    if kind is int and value.bit_length() > 4096:  # hex: linear time, and no decimal digit limit
        return {"__x": hex(value)}
    if value is None or kind in (bool, int, str):
        return value
    if kind is float:
        return value if _tfr_ep_math.isfinite(value) else {"__f": repr(value)}
    if kind is list:
        return [_tfr_ep_encode(v) for v in value]
    if kind is tuple:
        return {"__t": [_tfr_ep_encode(v) for v in value]}
    if kind is set or kind is frozenset:
        items = sorted((_tfr_ep_encode(v) for v in value), key=repr)
        return {"__s" if kind is set else "__fs": items}
    if kind is dict:
        return {"__d": [[_tfr_ep_encode(k), _tfr_ep_encode(v)] for k, v in value.items()]}
    if kind is complex:
        return {"__c": [value.real, value.imag]}
    raise TypeError(f"cannot carry a {kind.__name__} across the sandbox")


def _tfr_ep_decode(value):
    if isinstance(value, list):
        return [_tfr_ep_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    ((tag, body),) = value.items()
    if tag == "__t":
        return tuple(_tfr_ep_decode(v) for v in body)
    if tag == "__s":
        return {_tfr_ep_decode(v) for v in body}
    if tag == "__fs":
        return frozenset(_tfr_ep_decode(v) for v in body)
    if tag == "__d":
        return {_tfr_ep_decode(k): _tfr_ep_decode(v) for k, v in body}
    if tag == "__c":
        return complex(body[0], body[1])
    if tag == "__f":
        return float(body)
    if tag == "__x":
        return int(body, 16)
    raise ValueError(f"unknown tag {tag}")


def _tfr_ep_poly(xs, x):
    return sum([coeff * _tfr_ep_math.pow(x, i) for i, coeff in enumerate(xs)])


def _tfr_ep_surface_area(base_edge, height):
    slant_height = _tfr_ep_math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 4 * (base_edge * slant_height) / 2)


def _tfr_ep_digit_distance_nums(num1, num2):
    a, b = str(num1), str(num2)
    width = max(len(a), len(b))
    return sum(abs(int(x) - int(y)) for x, y in zip(a.zfill(width), b.zfill(width), strict=True))


def _tfr_ep_is_floats(x):
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    if isinstance(x, _tfr_ep_np.ndarray):
        return x.dtype == _tfr_ep_np.float64 or x.dtype == _tfr_ep_np.float32
    return False


def _tfr_ep_next_atol(atol, exp, dataset, entry_point):
    """The tier's ``atol`` after an input with expected output ``exp`` (find_zero's oracle skips the rule)."""
    if dataset == "humaneval" and entry_point == "find_zero":
        return atol
    return 1e-6 if atol == 0 and _tfr_ep_is_floats(exp) else atol


def _tfr_ep_same(inp, out, exp, atol, dataset, entry_point):
    """EvalPlus's verdict on one output; ``atol`` is the tier's state before this input."""
    exact = out == exp
    if dataset == "mbpp":
        if entry_point == "are_equivalent":
            exact = True
        elif entry_point == "sum_div":
            exact = exact or out == 0
        elif entry_point == "surface_Area":
            exact = exact or abs(out - _tfr_ep_surface_area(*inp)) <= atol
        elif entry_point == "digit_distance_nums":
            exact = exact or out == _tfr_ep_digit_distance_nums(*inp)
        elif entry_point in _TFR_EP_SET_EQ:
            exact = set(out) == set(exp)
        elif entry_point in _TFR_EP_NOT_NONE:
            exact = out == exp if isinstance(out, bool) else exp == (out is not None)
    if dataset == "humaneval" and entry_point == "find_zero":
        return abs(_tfr_ep_poly(*inp, out)) <= atol
    atol = _tfr_ep_next_atol(atol, exp, dataset, entry_point)
    if not exact and atol != 0:
        if type(out) is not type(exp):
            return False
        if isinstance(exp, (list, tuple)) and len(out) != len(exp):
            return False
        return bool(_tfr_ep_np.allclose(out, exp, rtol=1e-07, atol=atol))
    return bool(exact)


class _TfrEpTimeout(BaseException):
    """Raised in the program when one input exceeds its CPU time limit (not an Exception: ``except Exception``
    in the program cannot swallow it)."""


def _tfr_ep_alarm(signum, frame):
    raise _TfrEpTimeout()


def _tfr_ep_call(fn, args, limit):
    """``fn(*args)``, stopped with :class:`_TfrEpTimeout` once the process has spent ``limit`` s of CPU in it."""
    _tfr_ep_signal.signal(_tfr_ep_signal.SIGPROF, _tfr_ep_alarm)
    _tfr_ep_signal.setitimer(_tfr_ep_signal.ITIMER_PROF, limit)
    try:
        return fn(*args)
    finally:
        _tfr_ep_signal.setitimer(_tfr_ep_signal.ITIMER_PROF, 0)


def _tfr_ep_short(value, cap=300):
    with _TfrEpDigits():
        text = repr(value)
    return text if len(text) <= cap else text[:cap] + "..."


_TFR_EP_FLAT = frozenset((str, bool, type(None)))
_TFR_EP_SEP = "\x1f"


def _tfr_ep_flat(value):
    """A list or tuple of plain scalars in one piece (None when it holds anything else): its tagged JSON, or for
    strings none of which holds U+001F, ``L`` (list) or ``T`` (tuple), the length, ``:`` and the strings joined
    by U+001F (as exact, and several times faster to digest than JSON)."""
    kinds = set(map(type, value))
    if kinds == {str}:
        joined = _TFR_EP_SEP.join(value)
        if joined.count(_TFR_EP_SEP) == len(value) - 1:
            return f"{'L' if type(value) is list else 'T'}{len(joined)}:{joined}"
    if not kinds <= _TFR_EP_FLAT:
        if kinds == {int}:
            if max(map(int.bit_length, value)) > 4096:
                return None
        elif kinds != {float} or not all(map(_tfr_ep_math.isfinite, value)):
            return None
    text = _tfr_ep_json.dumps(value if type(value) is list else list(value))
    return text if type(value) is list else '{"__t": ' + text + "}"


_TFR_EP_NESTED = frozenset((list, tuple, dict))
_TFR_EP_WHOLE = 1000
"""A list, tuple or dict item with at most this many elements is written in one piece (the C encoder); a larger
one piece by piece, so no encoded copy of a huge output is ever built whole."""


def _tfr_ep_piece(item):
    """One item of a container as one piece: :func:`_tfr_ep_flat`'s form, else its tagged JSON."""
    kind = type(item)
    if kind is list or kind is tuple:
        flat = _tfr_ep_flat(item)
        if flat is not None:
            return flat
    return _tfr_ep_dumps(_tfr_ep_encode(item))


def _tfr_ep_pieces(value):
    """A value's canonical text in pieces, without building an encoded copy of it whole, so a large output
    (millions of tuples) is digested within about its own size in memory: ``json.dumps(_tfr_ep_encode(value))``,
    but with each list or tuple of strings written as :func:`_tfr_ep_flat` writes it."""
    kind = type(value)
    if (kind is list or kind is tuple) and len(value) > _TFR_EP_WHOLE:
        flat = _tfr_ep_flat(value)
        if flat is not None:
            yield flat
            return
        yield "[" if kind is list else '{"__t": ['
        for start in range(0, len(value), _TFR_EP_WHOLE):
            part = value[start : start + _TFR_EP_WHOLE]
            if start:
                yield ", "
            if _TFR_EP_NESTED.isdisjoint(map(type, part)):  # no container: one piece from the C encoder
                yield _tfr_ep_dumps(_tfr_ep_encode(list(part)))[1:-1]
                continue
            for i, item in enumerate(part):
                if i:
                    yield ", "
                if type(item) in _TFR_EP_NESTED and len(item) > _TFR_EP_WHOLE:
                    yield from _tfr_ep_pieces(item)
                else:
                    yield _tfr_ep_piece(item)
        yield "]" if kind is list else "]}"
    elif kind is dict and len(value) > _TFR_EP_WHOLE:
        yield '{"__d": ['
        for i, (k, v) in enumerate(value.items()):
            yield ", [" if i else "["
            yield from _tfr_ep_pieces(k)
            yield ", "
            yield from _tfr_ep_pieces(v)
            yield "]"
        yield "]}"
    else:
        yield _tfr_ep_piece(value)


def _tfr_ep_carried(value):
    """An output as it crosses the sandbox: its tagged JSON value, or ``{"__h": sha256 of its canonical text}``
    (:func:`_tfr_ep_pieces`) when that is longer than :data:`_TFR_EP_HASHED`. Raises TypeError for a type tagged
    JSON cannot hold."""
    digest, size, batch = _tfr_ep_hashlib.sha256(), 0, []
    with _TfrEpDigits():
        for piece in _tfr_ep_pieces(value):
            batch.append(piece)
            size += len(piece)
            if len(batch) >= 4096:  # one hash update per batch of pieces: far fewer calls on a huge output
                digest.update("".join(batch).encode("utf-8", "surrogatepass"))
                batch = []
        digest.update("".join(batch).encode("utf-8", "surrogatepass"))
    return _tfr_ep_encode(value) if size <= _TFR_EP_HASHED else {"__h": digest.hexdigest()}


def _tfr_ep_hashed_equal(out, digest):
    try:
        carried = _tfr_ep_carried(out)
    except TypeError:
        return False
    return isinstance(carried, dict) and carried.get("__h") == digest


def _tfr_ep_shown(entry_point, args):
    return f"{entry_point}({', '.join(_tfr_ep_short(a, 120) for a in args)})"


def _tfr_ep_reference(fn, inputs, not_none):
    """Run the reference on every input (a deep copy, timed in CPU seconds); print the outputs and times as
    one line."""
    outputs, times = [], []
    for args in _tfr_ep_loads(inputs):
        args = _tfr_ep_copy.deepcopy(args)
        start = _tfr_ep_time.process_time()
        out = fn(*args)
        times.append(_tfr_ep_time.process_time() - start)
        out = out is not None if not_none else out
        try:
            outputs.append(_tfr_ep_carried(out))
        except TypeError:
            with _TfrEpDigits():
                outputs.append({"__r": repr(out)})
    _tfr_ep_sys.stdout.write(_TFR_EP_MARK + _tfr_ep_dumps([outputs, times]) + "\n")
    _tfr_ep_sys.stdout.flush()


def _tfr_ep_judge(fn, inputs, expected, limits, atol, dataset, entry_point, first):
    """Fail at the first input whose output EvalPlus would reject (its ``fast_check``); ``first``: the index of
    the first input in its tier, ``atol``: the tier's state there."""
    with _TfrEpDigits():
        cases = zip(_tfr_ep_loads(inputs), _tfr_ep_json.loads(expected), limits, strict=True)
    for index, (args, exp, limit) in enumerate(cases, first):
        try:
            out = _tfr_ep_call(fn, _tfr_ep_copy.deepcopy(args), limit)
        except _TfrEpTimeout:
            raise AssertionError(
                f"input #{index}: {_tfr_ep_shown(entry_point, args)} gave no result within its CPU time limit "
                f"of {limit:.2f} s"
            ) from None
        if isinstance(exp, dict) and "__r" in exp:  # an output tagged JSON cannot carry: compared by repr
            ok = _tfr_ep_short(out, len(exp["__r"]) + 1) == exp["__r"]
        elif isinstance(exp, dict) and "__h" in exp:  # a huge output: its digest
            ok = _tfr_ep_hashed_equal(out, exp["__h"])
            exp = f"<an output with sha256 {exp['__h'][:12]}...>"
        else:
            exp = _tfr_ep_decode(exp)
            ok = _tfr_ep_same(args, out, exp, atol, dataset, entry_point)
            atol = _tfr_ep_next_atol(atol, exp, dataset, entry_point)
        if not ok:
            raise AssertionError(
                f"input #{index}: {_tfr_ep_shown(entry_point, args)} returned {_tfr_ep_short(out)}, "
                f"expected {_tfr_ep_short(exp)}"
            )
