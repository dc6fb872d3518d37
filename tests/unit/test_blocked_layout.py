"""``#nv_tileaa.blocked`` (dialects/nv_tileaa/blocked.py): the layout ``on_shape`` gives a tile of
power-of-two extents, read per dimension as Triton reads a blocked encoding (lane and warp
coordinates along each dimension, linearized fastest dimension first), puts every element in
the thread the SIMT lowering's flat formula puts it in (``(f // v) % T`` for the row-major index
``f``), and each thread's elements in the slot order of the formula (repeats of the sweep,
fastest dimension first).  The reference below is written from those two definitions only."""

from __future__ import annotations

import itertools
import math

import pytest

pytest.importorskip("xdsl")

from tileorch.dialects.nv_tileaa.blocked import BlockedLayoutAttr  # noqa: E402


def _per_dimension_thread(lay: BlockedLayoutAttr, coords) -> tuple[int, tuple]:
    """(thread, repeat coordinates) of the element at ``coords`` read per dimension."""
    e, ln, w, order = lay.elems_, lay.lanes_, lay.warps_, lay.order_
    lane = warp = 0
    lane_scale = warp_scale = 1
    reps = []
    for d in order:  # fastest first
        c = coords[d]
        lane += ((c // e[d]) % ln[d]) * lane_scale
        warp += ((c // (e[d] * ln[d])) % w[d]) * warp_scale
        lane_scale *= ln[d]
        warp_scale *= w[d]
        reps.append(c // (e[d] * ln[d] * w[d]))
    return lane + 32 * warp, tuple(reversed(reps))


def _flat(shape, threads, v, coords) -> tuple[int, int]:
    f = 0
    for c, n in zip(coords, shape):
        f = f * n + c
    return (f // v) % threads, (f // (v * threads)) * v + f % v


CASES = [((1, 1024), 128, 8), ((4, 1024), 512, 8), ((64, 8), 64, 4), ((32, 64), 128, 8), ((1, 1), 32, 8),
         ((256, 2), 64, 4), ((2, 4, 16), 64, 4), ((8,), 128, 4), ((16, 16), 32, 8), ((4, 2, 8, 8), 256, 2),
         ((1024,), 32, 8), ((2, 512), 128, 4)]


@pytest.mark.parametrize("shape,threads,v", CASES)
def test_on_shape_reads_per_dimension_as_the_flat_formula(shape, threads, v):
    lay = BlockedLayoutAttr.flat(threads, v).on_shape(shape)
    run = lay.flat_run()
    assert run == BlockedLayoutAttr.flat(threads, v).run_of(shape)
    assert math.prod(lay.lanes_) == 32 and lay.threads == threads
    slots_seen: dict[int, list] = {}
    for coords in itertools.product(*(range(n) for n in shape)):
        thread, slot = _flat(shape, threads, run, coords)
        t2, reps = _per_dimension_thread(lay, coords)
        assert t2 == thread, (coords, lay)
        slots_seen.setdefault(thread, []).append((reps, coords, slot))
    for held in slots_seen.values():  # the formula's slot order = repeats, then the run, row-major
        assert [s for _, _, s in sorted(held)] == sorted(s for _, _, s in held)


def test_rows_of_a_run_count_not_a_power_of_two_sweep_across_row_ends():
    lay = BlockedLayoutAttr.flat(128, 8).on_shape((3, 1000))
    assert lay.flat_run() == 8 and lay.lanes_ == [1, 32] and lay.warps_ == [1, 4]


def test_same_placement():
    base = BlockedLayoutAttr.flat(64, 4)
    assert base.on_shape((64, 8)).same_placement(base.on_shape((512,)))
    assert not base.on_shape((64, 8)).same_placement(base.on_shape((256, 2)))
    assert not base.on_shape((64, 8)).same_placement(BlockedLayoutAttr.flat(128, 4).on_shape((64, 8)))
    column_major = BlockedLayoutAttr([4, 1], [2, 16], [1, 2], [0, 1])
    assert column_major.flat_run() is None and not column_major.same_placement(column_major)
