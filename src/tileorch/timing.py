"""Compile-time measurement, as ``mlir-opt --mlir-timing`` reports it: wall time per phase and
per pass.

The compile driver opens a :func:`collect` scope and wraps each phase (read, parse, verify,
each pass of each pipeline, LLVM translation, llvmlite code generation, ptxas, the cache) in
:func:`timed`; code run outside a scope records nothing.  The result is an ordered
``dict[str, float]`` of wall seconds: a phase's key is its name (``parse``, ``lower``), a pass
inside a pipeline is ``pipeline/pass`` (``lower/convert-scf-to-cf``, ``tile-program/tileas-tier/
tileas-plan-cta``), and ``total`` is the whole compile.  A name recorded twice at the same place
accumulates.  A parent's time includes its children's; the children of a parent need not add
up to it (what the parent does between them is its own time).

>>> from tileorch import timing
>>> with timing.collect() as t:                                   # doctest: +SKIP
...     with timing.timed("parse"): ...
>>> print(timing.format_report(t.as_dict()))                      # doctest: +SKIP
"""

from __future__ import annotations

import time
from contextvars import ContextVar  # (a C module: no ``contextlib``/``collections`` on a relaunch's import path)

TOTAL = "total"
REST = "(rest)"


class Timer:
    """Nested wall-clock phases, in the order they started."""

    def __init__(self) -> None:
        self.entries: dict[str, float] = {}
        self._stack: list[str] = []
        self._start = time.perf_counter()
        self.total = 0.0

    def phase(self, name: str) -> _Phase:
        """A context manager recording the enclosed block as phase ``name`` (nested under the open ones)."""
        return _Phase(self, name)

    def as_dict(self) -> dict[str, float]:
        """The entries and ``total`` (the time so far while the scope is still open)."""
        return {**self.entries, TOTAL: self.total or time.perf_counter() - self._start}


class _Phase:
    """:meth:`Timer.phase`'s context manager (a class, not ``contextlib.contextmanager``: a cache
    hit in a new process enters these, and ``contextlib`` costs it ``collections`` and
    ``functools``)."""

    __slots__ = ("timer", "name", "path", "t0")

    def __init__(self, timer: Timer, name: str):
        self.timer, self.name = timer, name.replace("/", "_")

    def __enter__(self) -> None:
        timer = self.timer
        path = self.path = "/".join((*timer._stack, self.name))
        timer.entries.setdefault(path, 0.0)  # the parent is listed before its children
        timer._stack.append(self.name)
        self.t0 = time.perf_counter()

    def __exit__(self, *exc) -> bool:
        timer = self.timer
        timer.entries[self.path] += time.perf_counter() - self.t0
        timer._stack.pop()
        return False


_CURRENT: ContextVar[Timer | None] = ContextVar("tileorch_timer", default=None)


def active() -> Timer | None:
    return _CURRENT.get()


class collect:  # noqa: N801  (used as a function: ``with timing.collect() as timer``)
    """A timing scope: the phases run inside it are recorded into the :class:`Timer` that
    ``with collect() as timer`` gives (whose ``total`` is set on exit).  Inside another scope it
    gives that scope's timer (one report per compile, however the driver's functions call each
    other)."""

    __slots__ = ("timer", "token")

    def __enter__(self) -> Timer:
        outer = _CURRENT.get()
        if outer is not None:
            self.token = None
            return outer
        timer = self.timer = Timer()
        self.token = _CURRENT.set(timer)
        return timer

    def __exit__(self, *exc) -> bool:
        if self.token is not None:
            self.timer.total = time.perf_counter() - self.timer._start
            _CURRENT.reset(self.token)
        return False


class timed:  # noqa: N801  (used as a function: ``with timing.timed("parse")``)
    """Record the enclosed block as phase ``name`` of the active scope (nothing without one)."""

    __slots__ = ("name", "phase")

    def __init__(self, name: str):
        self.name = name

    def __enter__(self) -> None:
        timer = _CURRENT.get()
        self.phase = None if timer is None else _Phase(timer, self.name)
        if self.phase is not None:
            self.phase.__enter__()

    def __exit__(self, *exc) -> bool:
        if self.phase is not None:
            self.phase.__exit__()
        return False


def format_report(timings: dict[str, float], title: str = "tileorch compile timing report") -> str:
    """An aligned table (wall seconds, percent of the total, indented names), as
    ``--mlir-timing`` prints it."""
    total = timings.get(TOTAL) or sum(v for k, v in timings.items() if "/" not in k and k != TOTAL)
    rows = [(k, v) for k, v in timings.items() if k != TOTAL]
    bar = "===" + "-" * 73 + "==="
    lines = [bar, title.center(len(bar)).rstrip(), bar,
             f"  Total Execution Time: {total:.4f} seconds", "",
             "  ----Wall Time----  ----Name----"]
    for key, seconds in rows:
        depth = key.count("/")
        pct = 100.0 * seconds / total if total > 0 else 0.0
        lines.append(f"  {seconds:8.4f} ({pct:5.1f}%)  {'  ' * depth}{key.rsplit('/', 1)[-1]}")
    rest = total - sum(v for k, v in rows if "/" not in k)
    if rows and rest > 0.0005:  # what no phase covers (contexts, the driver's own work), as MLIR's "Rest"
        lines.append(f"  {rest:8.4f} ({100.0 * rest / total:5.1f}%)  {REST}")
    pct = 100.0 if total > 0 else 0.0
    lines.append(f"  {total:8.4f} ({pct:5.1f}%)  {TOTAL}")
    return "\n".join(lines) + "\n"


def parse_report(text: str) -> dict[str, float]:
    """The timings a :func:`format_report` table shows (``pipeline/pass`` keys rebuilt from the
    indentation): the inverse of :func:`format_report`, for tests and benchmarks."""
    import re

    out: dict[str, float] = {}
    stack: list[str] = []
    for line in text.splitlines():
        m = re.match(r"^  \s*([0-9.]+) \(\s*[0-9.]+%\)  ( *)(\S.*)$", line)
        if not m:
            continue
        depth, name = len(m.group(2)) // 2, m.group(3)
        if name in (TOTAL, REST) and depth == 0:
            if name == TOTAL:
                out[TOTAL] = float(m.group(1))
            continue
        stack[depth:] = [name]
        out["/".join(stack)] = float(m.group(1))
    return out
