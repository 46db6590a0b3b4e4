"""Inside the forked child: load the program as module ``solution`` and run the tests, one message per step.

Messages go to the worker over a dedicated pipe as ``<nonce> <json>`` lines: ``loaded`` / ``load_error``,
then per test ``start`` (the worker arms the wall-clock deadline) and ``result``, finally ``done``.
A test passes only when this code sends a ``result`` saying so; exiting early (``os._exit``, ``sys.exit``,
a signal) leaves the test without a result and the worker records ``crashed``/``timeout``.

Known limitation: tests run in the same interpreter as the program, so a program deliberately built to
fool comparisons (an object whose ``__eq__`` always returns True, or code that walks stack frames to find
the nonce and the pipe) can still forge a pass. That is outside this study's threat model.

A test that raised is reported as :func:`~tfr_helpers.sandbox.outcome.exc_outcome` builds it.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import os
import random
import sys
import time
import types
import unittest
from json.encoder import encode_basestring_ascii as _enc_str
from typing import Any

from tfr_helpers.sandbox.outcome import MACHINE_PATHS, exc_outcome, machine_paths, scrub
from tfr_helpers.sandbox.rewrite import assert_helpers, compile_test, patch_unittest
from tfr_helpers.sandbox.spec import Limits

_REAL_BUILTINS = dict(builtins.__dict__)
_AssertionError = AssertionError
_dumps, _write, _perf, _times = json.dumps, os.write, time.perf_counter, os.times
_random_seed, _sha256 = random.seed, hashlib.sha256  # captured: the code under test may replace them


def _cpu() -> float:
    """CPU seconds of this process and its reaped children (user + system)."""
    t = _times()
    return t[0] + t[1] + t[2] + t[3]


_FINITE = (float("-inf"), float("inf"))


def _encode(value: Any) -> str:
    """JSON text of a message, as ``json.dumps`` would write it for these exact types.

    A small encoder over the C string escaper: the first ``json.dumps`` in a freshly forked child costs
    ~80 copy-on-write page faults (~0.2 ms) against ~30 for this. Anything unusual goes to ``json.dumps``.
    """
    kind = type(value)
    if kind is str:
        return _enc_str(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and value == value and value not in _FINITE:
        return float.__repr__(value)
    if kind is dict and all(type(k) is str for k in value):
        return "{" + ", ".join(_enc_str(k) + ": " + _encode(v) for k, v in value.items()) + "}"
    return _dumps(value)


def seed_rngs(*key: str) -> int:
    """Seed ``random`` and, when loaded, numpy's global RNG from ``key`` (run seed, test identity).

    Returns:
        The 64-bit seed used (a SHA-256 prefix of the key, independent of the string-hash seed).
    """
    digest = _sha256("\0".join(key).encode("utf-8", "surrogatepass")).digest()
    seed = int.from_bytes(digest[:8], "big")
    _random_seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed(seed & 0xFFFFFFFF)
        except Exception:  # noqa: BLE001 - a program may have replaced numpy.random
            pass
    return seed


class Channel:
    """Writes nonce-tagged JSON lines to the worker."""

    def __init__(self, fd: int, nonce: str) -> None:
        self.fd, self.nonce = fd, nonce

    def send(self, **msg: Any) -> None:
        data = (self.nonce + " " + _encode(msg) + "\n").encode()
        while data:
            data = data[_write(self.fd, data) :]


def _version_tag(namespace: dict[str, Any]) -> Any:
    """A ctypes view of CPython's version tag of ``namespace`` (PEP 509: every change of the dict changes it), or
    None where that field is not known to behave so (another interpreter or version, or a probe that fails)."""
    if sys.implementation.name != "cpython" or not (3, 11) <= sys.version_info[:2] <= (3, 13):
        return None
    try:
        import ctypes  # loaded by the worker already (privileges)

        probe: dict[str, int] = {}
        used = ctypes.c_ssize_t.from_address(id(probe) + 16)  # PyDictObject: refcount, type, ma_used, tag
        tag = ctypes.c_uint64.from_address(id(probe) + 24)
        seen = [tag.value]
        probe["k"] = 1
        seen.append(tag.value)
        probe["k"] = 2
        seen.append(tag.value)
        del probe["k"]
        seen.append(tag.value)
        if used.value != 0 or len(set(seen)) != 4:
            return None
        return ctypes.c_uint64.from_address(id(namespace) + 24)
    except Exception:  # noqa: BLE001 - then every restore compares the whole namespace
        return None


_BUILTINS_TAG = _version_tag(builtins.__dict__)
_clean_tag = [_BUILTINS_TAG.value if _BUILTINS_TAG is not None else None]
"""The version tag of ``builtins.__dict__`` when it last held exactly :data:`_REAL_BUILTINS`."""


def _restore() -> None:
    """Undo builtins / std stream patches made by the code under test before our code runs again.

    Builtins untouched since they were last restored (their version tag unchanged) are left alone: comparing and
    rewriting all of them touches every builtin object, about a hundred pages a forked child copies."""
    if _BUILTINS_TAG is None or _BUILTINS_TAG.value != _clean_tag[0]:
        for key in [k for k in builtins.__dict__ if k not in _REAL_BUILTINS]:
            del builtins.__dict__[key]
        builtins.__dict__.update(_REAL_BUILTINS)
        if _BUILTINS_TAG is not None:
            _clean_tag[0] = _BUILTINS_TAG.value
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__


class Capture:
    """Per-test capture of fds 1 and 2 (already redirected to files in the working directory)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap

    def reset(self) -> None:
        for stream, fd in ((sys.__stdout__, 1), (sys.__stderr__, 2)):
            try:
                stream.flush()  # type: ignore[union-attr]
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
            except (OSError, ValueError, AttributeError):
                pass

    def read(self) -> tuple[str, str]:
        out = []
        for stream, fd in ((sys.__stdout__, 1), (sys.__stderr__, 2)):
            try:
                stream.flush()  # type: ignore[union-attr]
            except (OSError, ValueError, AttributeError):
                pass
            try:
                out.append(os.pread(fd, self.cap, 0).decode("utf-8", "replace"))
            except OSError:
                out.append("")
        # stderr as messages are: a library's warning names its file under the interpreter's prefix, an object its
        # address (stdout stays the program's output, byte for byte: the consensus screeners compare it)
        return out[0], scrub(out[1])


class _Result(unittest.TestResult):
    """Keeps the first problem reported for one test method."""

    def __init__(self) -> None:
        super().__init__()
        self.problem: tuple[str, BaseException | None, str] | None = None
        self.ok = False

    def _set(self, kind: str, exc: BaseException | None, text: str = "") -> None:
        if self.problem is None:
            self.problem = (kind, exc, text)

    def addError(self, test: Any, err: Any) -> None:  # noqa: N802 - unittest API
        self._set("error", err[1])

    def addFailure(self, test: Any, err: Any) -> None:  # noqa: N802
        self._set("failed", err[1])

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:  # noqa: N802
        if err is not None:
            self._set("failed" if issubclass(err[0], test.failureException) else "error", err[1])

    def addSuccess(self, test: Any) -> None:  # noqa: N802
        self.ok = True

    def addSkip(self, test: Any, reason: str) -> None:  # noqa: N802
        self.ok, self.skip = True, reason

    def addExpectedFailure(self, test: Any, err: Any) -> None:  # noqa: N802
        self.ok = True

    def addUnexpectedSuccess(self, test: Any) -> None:  # noqa: N802
        self._set("failed", None, "unexpected success")


class ProgramRunner:
    """Runs one program and its tests from a resume point, reporting each step over ``channel``."""

    def __init__(self, job: dict[str, Any], workdir: str, channel: Channel) -> None:
        self.job, self.workdir, self.ch = job, workdir, channel
        self.limits = Limits(**job["limits"])
        self.capture = Capture(self.limits.output_cap)
        self.program_path = os.path.join(workdir, "solution.py")
        self.module = types.ModuleType("solution")
        self.hypothesis_core: Any = None
        MACHINE_PATHS[:] = machine_paths(workdir)
        # the run seed alone prefixes every RNG seed of this run (see Limits.seed): a test's draws depend on the
        # test, never on the program under test, so the same test draws the same values on every program
        self.seed_key = (str(self.limits.seed),)

    def _write_file(self, path: str, text: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)

    def run(self, start_spec: int, start_sub: int) -> None:
        """Load the program, then run specs ``start_spec..`` (sub-tests of the first from ``start_sub``); only
        spec ``start_spec`` with ``fresh_per_test`` (the worker forks a fresh child for the next one)."""
        self._write_file(self.program_path, self.job["program"])
        self.module.__file__ = self.program_path
        sys.modules["solution"] = self.module
        sys.path.insert(0, self.workdir)
        for setup in dict.fromkeys(t["setup"] for t in self.job["tests"] if t["setup"]):
            try:
                exec(setup, self.module.__dict__)  # noqa: S102 - MBPP test_imports the program relies on
            except BaseException:  # noqa: BLE001
                pass
        self.capture.reset()
        seed_rngs(*self.seed_key, "<program>")
        t0 = _perf()
        try:
            exec(compile(self.job["program"], self.program_path, "exec"), self.module.__dict__)  # noqa: S102
        except BaseException as exc:  # noqa: BLE001
            _restore()
            out, err = self.capture.read()
            self.ch.send(
                t="load_error",
                outcome=exc_outcome("<program>", exc, {self.program_path}, stdout=out, stderr=err, duration_s=_perf() - t0),
            )
            return
        _restore()
        self.ch.send(t="loaded")
        if any(t["kind"] == "function" for t in self.job["tests"]) and (
            "hypothesis" in sys.modules
            or "hypothesis" in self.job["program"]
            or any("hypothesis" in t["source"] or "hypothesis" in t["setup"] for t in self.job["tests"])
        ):  # importing hypothesis only to register a profile costs a light worker's child ~0.2 s
            self._hypothesis_profile()
        # every spec starts from the names the program defined, whichever specs ran before it in this child
        # (after a timeout or crash the next spec runs in a re-forked child: the outcome must not depend on that)
        loaded = dict(self.module.__dict__)
        stop = start_spec + 1 if self.limits.fresh_per_test else len(self.job["tests"])
        for i in range(start_spec, min(stop, len(self.job["tests"]))):
            self.module.__dict__.clear()
            self.module.__dict__.update(loaded)
            self._run_spec(i, self.job["tests"][i], start_sub if i == start_spec else 0)
        self.ch.send(t="done")

    def _hypothesis_profile(self) -> None:
        """Hypothesis as the study runs it: ``max_examples`` from the limits, no database, no deadline, and no
        explain phase (its report names the lines "always and only run by failing test cases", which include
        the harness's own file: feedback would depend on where the project lives).

        Repeatable runs (``hypothesis_derandomize``) draw from a seed of (run seed, test), set per test in
        :meth:`_execute` (Hypothesis's ``global_force_seed``, what its pytest plugin's ``--hypothesis-seed``
        sets), rather than from the test's own digest: the same test draws the same examples on every
        program, and another run seed (the reference's rerun) draws other examples.
        """
        try:
            from hypothesis import HealthCheck, Phase, settings  # optional in the program's interpreter
        except ImportError:
            return
        settings.register_profile(
            "tfr",
            max_examples=self.limits.hypothesis_max_examples,
            derandomize=False,
            database=None,
            deadline=None,
            print_blob=False,
            phases=[p for p in Phase if p.name != "explain"],
            suppress_health_check=[HealthCheck.too_slow],
        )
        settings.load_profile("tfr")
        self.hypothesis_core = sys.modules.get("hypothesis.core") if self.limits.hypothesis_derandomize else None

    def _execute(self, i: int, sub: int, name: str, fn: Any, keep: set[str]) -> None:
        """Run ``fn()`` as one test and send its outcome."""
        self.ch.send(t="start", spec=i, sub=sub, name=name)
        self.capture.reset()
        spec = self.job["tests"][i]
        seed = seed_rngs(*self.seed_key, spec["setup"], spec["source"], name)
        if self.hypothesis_core is not None:
            self.hypothesis_core.global_force_seed = seed  # type: ignore[attr-defined]
        c0 = _cpu()
        t0 = _perf()
        try:
            fn()
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt are test errors too
            _restore()
            out, err = self.capture.read()
            times = dict(duration_s=_perf() - t0, cpu_s=_cpu() - c0)
            outcome = exc_outcome(name, exc, keep, stdout=out, stderr=err, **times)
        else:
            _restore()
            out, err = self.capture.read()
            outcome = dict(name=name, status="passed", stdout=out, stderr=err, duration_s=_perf() - t0, cpu_s=_cpu() - c0)
        self.ch.send(t="result", spec=i, sub=sub, outcome=outcome)

    def _run_spec(self, i: int, spec: dict[str, Any], first_sub: int) -> None:
        test_path = os.path.join(self.workdir, f"test_{i}.py")
        self._write_file(test_path, spec["setup"] + "\n" + spec["source"] if spec["setup"] else spec["source"])
        keep = {self.program_path, test_path}
        # tests run in the program's own namespace, as if appended to it (what the benchmark harnesses do:
        # BigCodeBench references use names that only their test module imports)
        ns = self.module.__dict__
        ns.update(assert_helpers())
        base = dict(ns)
        source = (spec["setup"] + "\n" if spec["setup"] else "") + spec["source"]

        def load() -> None:
            exec(compile_test(source, test_path), ns)  # noqa: S102

        if spec["kind"] == "snippet":
            if first_sub == 0:
                self._execute(i, 0, spec["name"], load, keep)
            return
        # function / unittest: define the module first (its failure is one outcome for the spec)
        self.ch.send(t="start", spec=i, sub=-1, name=spec["name"])
        self.capture.reset()
        seed_rngs(*self.seed_key, spec["setup"], spec["source"], "<module>")
        try:
            load()
        except BaseException as exc:  # noqa: BLE001
            _restore()
            self.ch.send(t="result", spec=i, sub=-1, outcome=exc_outcome(spec["name"], exc, keep))
            return
        _restore()
        new = [k for k, v in ns.items() if k not in base or base[k] is not v]
        if spec["kind"] == "function":
            tests = [(k, ns[k]) for k in new if k.startswith("test") and callable(ns[k]) and not isinstance(ns[k], type)]
        else:
            tests = self._unittest_cases(ns, new)
        if not tests:
            self.ch.send(
                t="result",
                spec=i,
                sub=-1,
                outcome=dict(
                    name=spec["name"],
                    status="error",
                    exc_type="NoTestsFound",
                    message="no test_* functions found" if spec["kind"] == "function" else "no TestCase tests found",
                ),
            )
            return
        for sub, (name, fn) in enumerate(tests):
            if sub >= first_sub:
                self._execute(i, sub, name, fn, keep)

    def _unittest_cases(self, ns: dict[str, Any], new: list[str]) -> list[tuple[str, Any]]:
        patch_unittest()
        loader = unittest.TestLoader()
        cases: list[tuple[str, Any]] = []
        for key in new:
            cls = ns[key]
            if isinstance(cls, type) and issubclass(cls, unittest.TestCase):
                for method in loader.getTestCaseNames(cls):
                    cases.append((f"{cls.__name__}.{method}", _CaseRunner(cls, method)))
        return cases


class _CaseRunner:
    """Callable running one TestCase method (setUpClass once per class) and raising its first problem."""

    _class_state: dict[type, BaseException | None] = {}

    def __init__(self, cls: type, method: str) -> None:
        self.cls, self.method = cls, method

    def __call__(self) -> None:
        if self.cls not in self._class_state:
            try:
                self.cls.setUpClass()  # type: ignore[attr-defined]
                self._class_state[self.cls] = None
            except BaseException as exc:  # noqa: BLE001
                self._class_state[self.cls] = exc
        if self._class_state[self.cls] is not None:
            raise self._class_state[self.cls]  # type: ignore[misc]
        result = _Result()
        self.cls(self.method).run(result)
        if result.problem is not None:
            _kind, problem, text = result.problem
            if problem is None:
                raise _AssertionError(text)
            raise problem
        if not result.ok:
            raise RuntimeError("the test method reported no result (TestCase.run was tampered with?)")


_WARM_JOB_TESTS = (
    {"name": "passes", "source": "assert f(2) == 3\n", "kind": "snippet"},
    {"name": "fails", "source": "assert f(2) == 4\n", "kind": "snippet"},
    {"name": "function", "source": "def test_f():\n    assert f(1) == 2\n", "kind": "function"},
)


def warm_up(directory: str, times: int = 20) -> None:
    """Run a known trivial program through this module's own code ``times`` times, in the worker, before it forks.

    A forked child writes every page it touches that it shares with its worker: Python's adaptive interpreter
    writes into a function's code as it warms it up and specialises it, and a type's attribute lookups write
    into the interpreter's method cache. The worker never runs the runner's code itself, so without this each
    child warms the same code from cold, page faults and all (~80 of a trivial check's ~640 here). Run in the
    worker, the code and the caches a child inherits are warm. Only the worker's caches change: what this
    leaves elsewhere is undone (the ``solution`` module, ``sys.path``, the machine paths, the line cache of the
    files it wrote, the descriptors 1 and 2, which it points at files in ``directory`` meanwhile), and every
    child seeds its random generators itself before it runs anything (:func:`seed_rngs`).
    """
    import linecache
    import shutil

    tests = [{"setup": "", "timeout_s": None, "memory_mb": None, **t} for t in _WARM_JOB_TESTS]
    job = {"program": "def f(x):\n    return x + 1\n", "tests": tests, "limits": Limits().__dict__}
    os.makedirs(directory, exist_ok=True)
    for stream in (sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()  # type: ignore[union-attr]
        except (OSError, ValueError, AttributeError):
            pass
    saved, path, cached = (os.dup(1), os.dup(2)), list(sys.path), set(linecache.cache)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for _ in range(times):
            for fd, name in ((1, ".warm_stdout"), (2, ".warm_stderr")):
                out = os.open(os.path.join(directory, name), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(out, fd)
                os.close(out)
            ProgramRunner(dict(job), directory, Channel(null, "0" * 32)).run(0, 0)
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, null):
            os.close(fd)
        sys.modules.pop("solution", None)
        sys.path[:] = path
        MACHINE_PATHS.clear()
        for key in set(linecache.cache) - cached:
            linecache.cache.pop(key, None)
        shutil.rmtree(directory, ignore_errors=True)
