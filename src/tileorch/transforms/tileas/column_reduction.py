"""Column reductions of the result in the accumulator epilogue: ``ct.sum(f(acc), axis=0)`` (and
max, min, any combiner :class:`~tileorch.transforms.tileas.epilogue.EpilogueLowering` lowers)
stored beside C as a ``[1, tile_n]`` tile.

A column of the ``128 x tile_n`` tile is spread over every consumer thread: in the ``m64nN``
WGMMA fragment, lane ``l`` of warp ``w`` of consumer warp group ``g`` holds rows
``64g + 16w + l/4`` and ``+8`` of columns ``8i + 2(l%4) + {0, 1}``.  The reduction runs in four
steps, all in the fragment's registers until the exchange:

1. each thread folds its two rows of each of its columns (a row outside the array contributes the
   reduction's identity when the program leaves A's padding undetermined);
2. a butterfly over the lanes that share columns (``shfl.sync.bfly`` 4, 8, 16) leaves every lane
   with its warp's 16-row partial of its columns;
3. lanes 0..3 write those partials to a shared-memory scratch of ``warps x tile_n`` slots (one row
   per consumer warp: ``scratch[warp][column]``), between two ``bar.sync`` of the named barrier
   :data:`EXCHANGE_BARRIER` over the consumer threads only (the first one keeps a previous work
   tile's readers ahead of the writes);
4. consumer thread ``c`` (``c < tile_n``) folds column ``c``'s slots in warp order (the same order
   on every run: the result does not depend on timing) and stores the side output's element.

The scratch is the TMA epilogue's staging buffer when it is large enough (:func:`in_staging`: each
warp group's elected thread first waits until its previous TMA stores have read the buffer, and a
third barrier keeps the staging of C behind the last read), else :attr:`GemmConfig.scratch_bytes`
(:func:`scratch_bytes`) after the epilogue buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import i8
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nvvm
from tileorch.dialects.cutlass.attrs import RESERVED_BARRIER_ID_VALUES, BarrierId
from tileorch.dialects.cutlass.named_barrier import NamedBarrierArriveAndWaitOp
from tileorch.transforms.tileaa_to_simt.emit import SHARED_PTR, reg_type
from tileorch.transforms.tileas.epilogue import Coord, EpilogueLowering, side_reduction

EXCHANGE_BARRIER = RESERVED_BARRIER_ID_VALUES[BarrierId.EPILOGUE]
"""The named barrier of the exchange: CUTLASS's reserved epilogue barrier (id 1), which spans all
consumer threads; the kernel builder's own epilogue barriers are per warp group (14, 15) and the
allocator hands out ids from 8 up."""
SLOT_BYTES = 4
"""One partial (f32 or i32; narrower values use the slot's first bytes)."""
LANES_SHARING_COLUMNS = (4, 8, 16)
"""The butterfly masks over the lanes of a warp that hold the same columns (lane bits 2..4)."""


def scratch_bytes(column_stores: int, consumer_warps: int, tile_n: int) -> int:
    """Shared memory the exchange of ``column_stores`` column reductions needs."""
    return column_stores * consumer_warps * tile_n * SLOT_BYTES


def in_staging(need: int, epilogue_bytes: int) -> bool:
    """Whether an exchange of ``need`` bytes runs in the TMA epilogue's staging buffer of
    ``epilogue_bytes`` (0 without one) instead of a scratch of its own."""
    return 0 < need <= epilogue_bytes


@dataclass
class Fragment:
    """This thread's accumulator elements: for each of its columns, (column coordinate, [(row
    coordinate, the element, i1 row-inside-the-array or None)])."""

    columns: list[tuple[Coord, list[tuple[Coord, Callable[[], SSAValue], SSAValue | None]]]]


def lower_column_reductions(lowering: EpilogueLowering, stores: list[Operation], acc_shape: list[int],
                            fragment: Fragment, lane: SSAValue, consumer: SSAValue, scratch: SSAValue,
                            consumer_warps: int, staging_leader: SSAValue | None = None) -> None:
    """Emit, with ``lowering.e``, the column reductions ``stores`` write (``[1, tile_n]`` side
    stores, :func:`side_reduction`) and the stores.  ``lane``: the lane id; ``consumer``: the
    thread's index among the consumer threads (``0 .. 32 * consumer_warps``); ``scratch``: the
    exchange's shared memory (:func:`scratch_bytes` of ``stores``); ``staging_leader``: when the
    scratch is the TMA epilogue's staging buffer, the i1 of the thread that issues this warp
    group's TMA stores.  Every consumer thread runs this code (it holds the barriers)."""
    e = lowering.e
    tile_n = acc_shape[1]
    threads = 32 * consumer_warps
    if tile_n > threads:
        raise ValueError(f"a column reduction stores {tile_n} columns from {threads} consumer threads")
    reds = [side_reduction(st, acc_shape) for st in stores]
    warp = e.v(arith.ShRUIOp(consumer, e.const(5)))
    writer = e.v(arith.CmpiOp(lane, e.const(4), "ult"))
    consumer.name_hint, scratch.name_hint, writer.name_hint = "consumer", "scratch", "writer"
    if staging_leader is not None:  # the previous tile's TMA stores have read the staging buffer
        e.if_(staging_leader, lambda b: (b.add(nvvm.CpAsyncBulkWaitGroupOp(0, read=True)), None)[1])
    e.add(NamedBarrierArriveAndWaitOp(EXCHANGE_BARRIER, threads))
    for i, red in enumerate(reds):
        row_base = e.add_i(e.const(i * consumer_warps * tile_n), e.mul_i(warp, e.const(tile_n)))
        for col, entries in fragment.columns:
            v = lowering.fold(red, [(row, col, element, valid) for row, element, valid in entries])
            for mask in LANES_SHARING_COLUMNS:
                v = lowering.combine(red, v, e.shuffle_xor(v, mask))
            ptr = e.gep(scratch, e.add_i(row_base, col.value), v.type, SHARED_PTR)
            e.if_(writer, lambda b, v=v, ptr=ptr: (b.store(v, ptr), None)[1])
    e.add(NamedBarrierArriveAndWaitOp(EXCHANGE_BARRIER, threads))
    in_tile = e.v(arith.CmpiOp(consumer, e.const(tile_n), "ult"))
    column = Coord(e.v(arith.SelectOp(in_tile, consumer, e.const(0))), 1)  # in range for the loads
    in_tile.name_hint, column.value.name_hint = "in_tile", "column"
    for i, (red, st) in enumerate(zip(reds, stores)):
        out, slot = None, reg_type(red.results[0].type.element_type)
        for w in range(consumer_warps):
            ptr = e.gep(scratch, e.add_i(e.const((i * consumer_warps + w) * tile_n), column.value),
                        slot, SHARED_PTR)
            x = e.load(ptr, slot)
            out = x if out is None else lowering.combine(red, out, x)
        lowering.reduced(red, column, out)
        lowering.side_store(st, column, in_tile)
    if staging_leader is not None:  # C's staging may overwrite the partials once all are read
        e.add(NamedBarrierArriveAndWaitOp(EXCHANGE_BARRIER, threads))


def scratch_pointer(e, smem: SSAValue, offset: int) -> SSAValue:
    """``smem + offset`` bytes (the scratch's base)."""
    return e.gep(smem, e.const(offset), i8, SHARED_PTR)


__all__ = ["EXCHANGE_BARRIER", "Fragment", "in_staging", "lower_column_reductions", "scratch_bytes",
           "scratch_pointer"]
