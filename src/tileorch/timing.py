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
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

TOTAL = "total"
REST = "(rest)"


class Timer:
    """Nested wall-clock phases, in the order they started."""

    def __init__(self) -> None:
        self.entries: dict[str, float] = {}
        self._stack: list[str] = []
        self._start = time.perf_counter()
        self.total = 0.0

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        path = "/".join((*self._stack, name.replace("/", "_")))
        self.entries.setdefault(path, 0.0)  # the parent is listed before its children
        self._stack.append(name.replace("/", "_"))
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.entries[path] += time.perf_counter() - t0
            self._stack.pop()

    def as_dict(self) -> dict[str, float]:
        """The entries and ``total`` (the time so far while the scope is still open)."""
        return {**self.entries, TOTAL: self.total or time.perf_counter() - self._start}


_CURRENT: ContextVar[Timer | None] = ContextVar("tileorch_timer", default=None)


def active() -> Timer | None:
    return _CURRENT.get()


@contextmanager
def collect() -> Iterator[Timer]:
    """A timing scope: the phases run inside it are recorded into the yielded :class:`Timer`
    (whose ``total`` is set on exit).  Inside another scope it yields that scope's timer (one
    report per compile, however the driver's functions call each other)."""
    outer = _CURRENT.get()
    if outer is not None:
        yield outer
        return
    timer = Timer()
    token = _CURRENT.set(timer)
    try:
        yield timer
    finally:
        timer.total = time.perf_counter() - timer._start
        _CURRENT.reset(token)


@contextmanager
def timed(name: str) -> Iterator[None]:
    """Record the enclosed block as phase ``name`` of the active scope (nothing without one)."""
    timer = _CURRENT.get()
    if timer is None:
        yield
        return
    with timer.phase(name):
        yield


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
