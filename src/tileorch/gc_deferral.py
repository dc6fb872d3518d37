"""Cyclic garbage collection deferred while tileorch compiles (issue 22).

A compile builds and rewrites a large graph of cyclic objects (xDSL operations, blocks, uses;
the compiler's modules on the first compile of a process), and CPython's default collector runs
a young-generation collection every 700 net container allocations and a full one, walking every
object of the process, every 100 of those.  :func:`gc_deferred` raises the thresholds to
:data:`GC_THRESHOLD` (young) and at least 50 (older generations) for the block and restores the
caller's thresholds when the block is left, by a return or an exception.  Garbage is still
collected, in larger steps; a block inside another one (or a process whose first threshold is
already that high) changes nothing.  The collector is not disabled: a compile that makes
garbage cycles faster than it frees them (a long pattern rewrite) still has them collected;
except in the process's first compile (:func:`first_compile`), whose objects are mostly the
imported compiler's, moved to the oldest generation unexamined when it ends (:func:`gc_deferred`).

Stdlib only; every layer may use it (the backend, the driver, the launchers, the CLI).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

GC_THRESHOLD = 1_000_000
"""Allocations between young-generation collections while a compile runs (CPython's default is
700): the collector walking the IR every few hundred allocations cost ~12% of a GEMM compile.  Above
what one compile allocates (net, from a zero young count, over the 280 cuTile programs of
``tools/ptx_identity.py``: median 18 thousand; the chained attention kernels of head dim 128 or more
96-111 thousand, ``benchmarks/compile_time.py``'s causal attention 190 thousand), so that the young
collection runs once, after the block, over the dead IR: at 100 thousand (sessions 14-44) those kernels had one inside, which walked the live IR,
moved it to the middle generation, where it died and was walked again (session 45: the collector's
CPU over a round of ``benchmarks/tier_lower_cpu.py``'s set 0.29-0.30 -> 0.17-0.23 s, the round's
peak memory no higher).  A compile that makes garbage cycles beyond this still has them collected."""


COMPILER_MODULE = "tileorch.backend.compile"
"""The module whose absence from ``sys.modules`` marks a block as the process's first compile (see
:func:`gc_deferred`): every compile imports it."""


def first_compile() -> bool:
    """Whether the compiler has not been imported yet: the block about to run is the process's first
    compile (or the cuTile launcher's export before it), whose allocations are mostly the classes,
    functions and tables of the modules it imports, alive until the process ends."""
    return COMPILER_MODULE not in sys.modules


@contextmanager
def gc_deferred() -> Iterator[None]:
    """Run the block with the cyclic garbage collector's thresholds raised (see the module's doc;
    nested: once).  The thresholds are the caller's again after the block, whatever it raised.

    The outermost block of a process's :func:`first_compile` with the collector enabled and nothing
    frozen (``gc.get_freeze_count() == 0``) runs with the collector off instead and, when it ends,
    moves every object the collector tracks to the oldest generation without examining them
    (``gc.freeze()`` then ``gc.unfreeze()``), then turns the collector on again: the objects the
    compiler's imports made (~150 thousand for a SIMT compile: classes, functions, op definitions)
    are never garbage, and the young-generation collections that walked them (one inside the first
    compile, one at its end; one more each for the cuTile launcher's export: 40-90 ms of a cold
    launch on the 2-core machine) find almost nothing to free (a few hundred objects).  Garbage
    cycles among the objects moved are freed by the next full collection, as for any old object.
    A caller that froze objects (a pre-fork server, tests/conftest.py) keeps them frozen: then the
    thresholds are raised as for any other block.  Any block but the first compile's costs two
    threshold calls and a ``sys.modules`` lookup: ``gc.get_freeze_count`` counts the frozen objects one
    by one, so it is asked only in the first compile."""
    old = gc.get_threshold()
    if old[0] >= GC_THRESHOLD:
        yield
        return
    # first_compile() first: gc.get_freeze_count() walks the frozen objects (O(n): 0.175 s a call with the
    # 1.1 M objects an xdist worker froze mid-run, once per compile: session 36's CI +800 CPU s)
    promote = first_compile() and gc.isenabled() and gc.get_freeze_count() == 0
    gc.set_threshold(GC_THRESHOLD, max(old[1], 50), max(old[2], 50))
    if promote:
        gc.disable()
    try:
        yield
    finally:
        gc.set_threshold(*old)
        if promote:
            if gc.get_freeze_count() == 0:  # (nobody froze objects meanwhile: unfreeze thaws only ours)
                gc.freeze()
                gc.unfreeze()
            gc.enable()


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


__all__ = ["COMPILER_MODULE", "GC_THRESHOLD", "collector_off_until_exit", "first_compile", "gc_deferred"]
