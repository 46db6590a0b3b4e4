"""What a fork-server worker loads before it forks: its preloaded modules and, when warm, Hypothesis's state.

A worker (:mod:`tfr_helpers.sandbox.worker`) imports :data:`LIGHT_PRELOAD` or :data:`PRELOAD` (or the list its
pool names) once at start-up, so that a forked child finds them loaded. A warm worker also computes, once, what
every child that draws with Hypothesis would otherwise compute again: the Unicode tables behind ``st.text()``
(:func:`warm_unicode_tables`) and the constants of the local modules loaded so far (:func:`warm_local_constants`).
Neither changes a drawn example. This module imports only the standard library: the parent side reads the
preload lists without importing the worker.
"""

from __future__ import annotations

import ctypes
import errno
import shutil
import sys
import tempfile
from collections.abc import Sequence

LIGHT_PRELOAD = (
    "unittest",
    "collections",
    "itertools",
    "functools",
    "math",
    "re",
    "json",
    "random",
    "datetime",
    "typing",
    "string",
    "heapq",
    "bisect",
    "statistics",
    "fractions",
    "decimal",
    "copy",
    "operator",
    "hashlib",
)
"""Preloads of the light workers (HumanEval/MBPP-style programs): stdlib only, to keep forks cheap."""

PRELOAD = (
    *LIGHT_PRELOAD,
    "numpy",
    "pandas",
    "matplotlib",
    "matplotlib.pyplot",
    "scipy",
    "scipy.stats",
    "sklearn",
    # the sklearn/scipy submodules BigCodeBench imports most (importing them costs a child ~80 ms each time)
    "sklearn.preprocessing",
    "sklearn.linear_model",
    "sklearn.decomposition",
    "sklearn.model_selection",
    "sklearn.metrics",
    "scipy.optimize",
    "seaborn",
    "hypothesis",
    "unittest.mock",
    "doctest",  # with pdb, which it imports: ~8 ms of a child's CPU, in 31 of BigCodeBench's 338 selected tasks
)
"""Preloads of the heavy workers (BigCodeBench programs and Hypothesis tests): the light ones plus the
third-party libraries."""

MADV_COLLAPSE = 25
"""``madvise`` advice (Linux 6.1+): back a range with transparent huge pages now, whatever the THP settings."""
HUGE_PAGE = 2 << 20
HUGE_MIN_RANGES = 32
"""A worker collapses its memory only when it has at least this many 2 MiB ranges of it (64 MiB): the heavy
workers (~75), not the light or hypothesis ones (a few), whose forks are cheap already and whose collapses after
each child cost more than they save (``docs/performance.md``)."""

TABLES_ENV = "TFR_HYPOTHESIS_TABLES"
"""Environment variable of a warm worker naming where Hypothesis keeps its Unicode tables (``pool._worker_env``)."""


def warm_unicode_tables(home: str | None) -> None:
    """Compute once, in the worker, the Unicode tables behind ``st.text()`` / ``st.characters()``.

    A forked child cannot keep Hypothesis's on-disk cache (its view hides it), so without this every child
    that draws text recomputes the category map and the characters UTF-8 can encode: ~1.5 s of CPU. Pure
    functions of the Unicode database: loaded from (or written to) Hypothesis's own cache files in ``home``
    (the worker's cache directory; a temporary one when unset), the same values a child computes. Called
    before the filesystem view is mounted, which would hide ``home``.
    """
    if "hypothesis" not in sys.modules:
        return
    try:
        from hypothesis import configuration  # this Hypothesis version's internals (ImportError below)
        from hypothesis import strategies as st
        from hypothesis.internal import charmap
    except ImportError:  # another Hypothesis version: its children compute the tables themselves
        return
    scratch = None if home else tempfile.mkdtemp(prefix="tfr-hypothesis-")
    configuration.set_hypothesis_home_dir(home or scratch)
    try:
        charmap.charmap()
        charmap.categories()
        charmap.intervals_from_codec("utf-8")
        st.text().validate()
        st.characters().validate()
    except Exception:  # noqa: BLE001 - an optimisation only
        pass
    finally:
        configuration.set_hypothesis_home_dir(None)  # children use Hypothesis's own default again
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def warm_local_constants() -> None:
    """Collect, once in the worker, Hypothesis's constants of the local modules loaded so far.

    Hypothesis draws some examples from the constants of the *local* modules in ``sys.modules`` and scans
    every module it has not seen on its first draw in a process (~2,000 preloaded modules per child). Called
    after the filesystem view is mounted, so the worker reads exactly the files its children could (the
    sandbox's own source stays hidden); a child then scans only the modules it adds (the program, its tests,
    their imports) and draws from the same union as before: every example, and so every verdict, is unchanged
    (``tests/sandbox/test_warm_workers.py``).
    """
    if "hypothesis" not in sys.modules:
        return
    try:
        from hypothesis.internal.conjecture.providers import _get_local_constants  # version-specific (below)
    except ImportError:  # another Hypothesis version: its children do the scan themselves
        return
    try:
        _get_local_constants()
    except Exception:  # noqa: BLE001 - an optimisation only
        pass


def warm_plotting() -> None:
    """Draw and render a few small figures, once, in a worker that preloaded matplotlib (pandas, seaborn, sklearn).

    A child's first figure otherwise does what every such child repeats: pyplot resolves its backend, the font
    manager scores the fonts for the default family and loads its font file, the renderer and the text layout
    fill their caches, pandas imports its plotting modules, seaborn and scikit-learn their lazily imported helpers
    (``docs/performance.md``). Those are imports and caches of pure functions of the installed files and the rc
    settings, so a child computes the same values from them. What else the figures leave is undone: they are closed
    (the next figure is number 1 again, as in a fresh process), the rc settings and matplotlib's unit converters
    are restored (pandas registers its own while it plots), and warnings are ignored meanwhile without being
    recorded, so a child still shows each warning its own code triggers (``tests/sandbox/test_warm_workers.py``).
    """
    if "matplotlib.pyplot" not in sys.modules:
        return
    import io
    import warnings

    try:
        import matplotlib
        import matplotlib.pyplot as plt
        import matplotlib.units
    except ImportError:
        return
    converters = list(matplotlib.units.registry.items())
    try:
        with warnings.catch_warnings(), matplotlib.rc_context():
            warnings.simplefilter("ignore")
            fig, ax = plt.subplots()
            ax.plot([0, 1], [0, 1], label="a")
            ax.bar([0, 1], [1, 2])
            ax.set_title("t")
            ax.set_xlabel("x")
            ax.set_ylabel("y")
            ax.legend()
            fig.savefig(io.BytesIO(), format="png")
            plt.close("all")
            _warm_libraries(plt)
    except Exception:  # noqa: BLE001 - an optimisation only
        pass
    finally:
        plt.close("all")
        matplotlib.units.registry.clear()
        matplotlib.units.registry.update(converters)


def _warm_libraries(plt: object) -> None:
    """The pandas, seaborn and scikit-learn part of :func:`warm_plotting` (each only when the worker preloaded it)."""
    if "pandas" in sys.modules:
        import pandas as pd

        frame = pd.DataFrame({"k": ["a", "b", "a"], "v": [1.0, 2.0, 3.0]})
        frame["v"].plot(kind="bar")
        frame.plot(x="k", y="v")
        plt.close("all")  # type: ignore[attr-defined]
        if "seaborn" in sys.modules:
            import seaborn as sns

            sns.boxplot(x="k", y="v", data=frame)
            plt.close("all")  # type: ignore[attr-defined]
            sns.histplot(frame["v"], bins=2)
            plt.close("all")  # type: ignore[attr-defined]
        if "sklearn.linear_model" in sys.modules:
            from sklearn.linear_model import LinearRegression

            LinearRegression().fit(frame[["v"]], frame["v"]).predict(frame[["v"]])


def collapse_huge_pages(ranges: Sequence[int] | None = None, min_ranges: int = 0) -> list[int]:
    """Back the worker's private anonymous memory (Python's arenas, the malloc heap) with 2 MiB pages before it
    forks; returns the start of each 2 MiB range so backed (none where the kernel cannot: before Linux 6.1, THP
    off; none when it has fewer than ``min_ranges`` candidates). Given ``ranges`` (a former call's), collapses
    those again, and only those.

    A fork copies the page table entries of every written private page and the child's exit drops them: for a
    heavy worker (~145 MiB anonymous, ~37,000 entries) most of a fork's system time. A range backed by one huge
    page is one entry to copy, whatever the child does afterwards (a write to it copies one 4 KiB page, as
    before). A write of the worker itself while a child lives splits its range back into 4 KiB entries: the
    worker collapses its ranges again after each child (an already collapsed range costs one system call).
    Only the physical backing changes: the mappings, their sizes (``RLIMIT_AS``) and every byte stay the same,
    so a program's behaviour cannot change.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if ranges is None:
        ranges = []
        try:
            with open("/proc/self/maps") as fh:
                maps = fh.read().splitlines()
        except OSError:
            return []
        for line in maps:
            fields = line.split()
            if fields[1].startswith("rw") and (len(fields) == 5 or fields[5] == "[heap]"):
                lo, hi = (int(x, 16) for x in fields[0].split("-"))
                ranges += range(-(-lo // HUGE_PAGE) * HUGE_PAGE, hi // HUGE_PAGE * HUGE_PAGE, HUGE_PAGE)
        if len(ranges) < min_ranges:
            return []
    done = []
    for start in ranges:
        if libc.madvise(start, HUGE_PAGE, MADV_COLLAPSE) == 0:
            done.append(start)
        elif ctypes.get_errno() not in (errno.EINVAL, errno.EBUSY, errno.ENOMEM, errno.EAGAIN):
            break  # e.g. no madvise at all: nothing else will work either
    return done
