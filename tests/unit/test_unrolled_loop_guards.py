"""The prefetching loops of the SIMT path near the int32 maximum, on the PTX emulator against Python's ``range``,
outputs sentinel-prefilled.  A loop whose loads the next iteration prefetches runs two iterations a trip
(:func:`tileorch.transforms.tileaa_to_simt.prefetch.unrolled`) or ``D + 1`` (``TILEORCH_PREFETCH_DEPTH=D``), each
after the first guarded by ``iv + j * step < ub``.  Session 29 (s29-rowred noticed it): with ``ub`` near
``2**31 - 1`` the sum ``iv + j * step`` wrapped negative and the guard ran an iteration ``range`` has not (the
counter ``acc`` below came out one or more too large), and a run-time step with ``n * step >= 2**31`` made the trip
loop's step negative: it ran no iteration.  The guard now compares ``j * step`` with ``ub - iv`` unsigned, and a
run-time step's trip loop counts in i64 (:mod:`tileorch.transforms.tileaa_to_simt.unrolled_trips`).

Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from test_review28_integer_loops import MAX32, emulate  # noqa: E402, F401  (the emulator, a 200,000-step limit)


C = ct.Constant
N = 8
SENTINEL = 77.0


@ct.kernel
def count_loaded_tiles(X, Y, start: int, stop: int, step: int, BN: C[int]):
    """``range(start, stop, step)``'s iterations counted, each adding a tile loaded at an index the counter
    gives (the load the loop prefetches)."""
    acc = ct.zeros((BN,), dtype=ct.float32)
    for i in range(start, stop, step):
        acc = acc + ct.load(X, index=((i - start) % 2,), shape=(BN,)) + 1.0
    ct.store(Y, index=(0,), tile=acc)


@ct.kernel
def count_loaded_tiles_by_a_constant(X, Y, start: int, stop: int, STEP: C[int], BN: C[int]):
    """The same loop with a compile-time step (the trip loop keeps the 32-bit counter where ``n * STEP`` fits)."""
    acc = ct.zeros((BN,), dtype=ct.float32)
    for i in range(start, stop, STEP):
        acc = acc + ct.load(X, index=((i - start) % 2,), shape=(BN,)) + 1.0
    ct.store(Y, index=(0,), tile=acc)


def _want(x, start, stop, step):
    acc = np.zeros(N, np.float32)
    for i in range(start, stop, step):
        acc += x[(i - start) % 2 * N:][:N] + 1.0
    return acc


@pytest.mark.parametrize("depth", ["1", "2", "3"])
@pytest.mark.parametrize("start, stop, step", [(MAX32 - 2, MAX32, 4), (MAX32 - 9, MAX32, 4), (MAX32 - 5, MAX32 - 1, 3),
                                               (MAX32 - 1, MAX32, MAX32), (MAX32 - 100, MAX32, 1 << 30),
                                               (0, 9, 2), (-7, 12, 3)])
def test_prefetching_loop_near_the_maximum(emulate, monkeypatch, depth, start, stop, step):
    """Before (depth 1, the default two-iteration trip): ``range(MAX - 2, MAX, 4)`` ran 2 iterations, not 1."""
    monkeypatch.setenv("TILEORCH_PREFETCH_DEPTH", depth)
    x = np.arange(2 * N, dtype=np.float32)
    y = emulate(count_loaded_tiles, [x, np.full(N, SENTINEL, np.float32)], [start, stop, step, N])[1]
    np.testing.assert_array_equal(y, _want(x, start, stop, step))


@pytest.mark.parametrize("depth", ["1", "3"])
@pytest.mark.parametrize("start, stop, step", [(MAX32 - 2, MAX32, 4), (MAX32 - 9, MAX32, 4), (MAX32 - 5, MAX32 - 1, 3),
                                               (MAX32 - 100, MAX32, 1 << 29), (-9, 9, 4)])
def test_prefetching_loop_with_a_constant_step_near_the_maximum(emulate, monkeypatch, depth, start, stop, step):
    """Before: ``range(MAX - 2, MAX, 4)`` ran 2 iterations (depth 1) and 3 (depth 3), not 1."""
    monkeypatch.setenv("TILEORCH_PREFETCH_DEPTH", depth)
    x = np.arange(2 * N, dtype=np.float32)
    y = emulate(count_loaded_tiles_by_a_constant, [x, np.full(N, SENTINEL, np.float32)], [start, stop, step, N])[1]
    np.testing.assert_array_equal(y, _want(x, start, stop, step))
