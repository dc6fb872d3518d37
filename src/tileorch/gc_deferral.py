"""Cyclic garbage collection deferred while tileorch compiles (issue 22).

A compile builds and rewrites a large graph of cyclic objects (xDSL operations, blocks, uses;
the compiler's modules on the first compile of a process), and CPython's default collector runs
a young-generation collection every 700 net container allocations and a full one, walking every
object of the process, every 100 of those.  :func:`gc_deferred` raises the thresholds to
:data:`GC_THRESHOLD` (young) and at least 50 (older generations) for the block and restores the
caller's thresholds when the block is left, by a return or an exception.  Garbage is still
collected, in larger steps; a block inside another one (or a process whose first threshold is
already that high) changes nothing.  The collector is not disabled: a compile that makes
garbage cycles faster than it frees them (a long pattern rewrite) still has them collected.

Stdlib only; every layer may use it (the backend, the driver, the launchers, the CLI).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GC_THRESHOLD = 100_000
"""Allocations between young-generation collections while a compile runs (CPython's default is
700): the collector walking the IR every few hundred allocations cost ~12% of a GEMM compile."""


@contextmanager
def gc_deferred() -> Iterator[None]:
    """Run the block with the cyclic garbage collector's thresholds raised (see the module's doc;
    nested: once).  The thresholds are the caller's again after the block, whatever it raised."""
    old = gc.get_threshold()
    if old[0] >= GC_THRESHOLD:
        yield
        return
    gc.set_threshold(GC_THRESHOLD, max(old[1], 50), max(old[2], 50))
    try:
        yield
    finally:
        gc.set_threshold(*old)


def collector_off_until_exit() -> None:
    """Turn the cyclic collector off for the rest of the process: for a one-shot program whose
    process ends when its command is done (``tileorch compile``: :func:`tileorch.cli.main.program`
    ends it with ``os._exit``, freeing nothing object by object).  Even deferred, the collector
    made two or three young-generation collections during a cold compile, each walking the
    hundred thousand objects that the compiler's imports and the IR had made (live: they found
    a few hundred to a few thousand objects to free), 0.05-0.1 s of a cold compile; what a
    single compile leaves uncollected is small (its peak memory did not change).  Nothing else
    calls this: a process that goes on (the API, the tests) keeps its collector."""
    gc.disable()


__all__ = ["GC_THRESHOLD", "collector_off_until_exit", "gc_deferred"]
