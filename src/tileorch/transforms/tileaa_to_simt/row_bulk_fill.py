"""The row cache's fill by the Hopper bulk copy (``TILEORCH_ROW_BULK_FILL``, on by default since session 31's H100
measurement, wherever the row cache is compiled: ``TILEORCH_ROW_SMEM_CACHE=auto`` or ``1``): the row's whole tiles are copied into their slots by
``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`` before the fill loop, all in flight at
once, and the fill loop reads them from shared memory instead of loading them from global memory.

Contract (``RowBulkFill``, a mixin of ``RowCacheLowering``; the slot layout is that module's):

* planned (:meth:`bulk_plan`) when a slot holds its tile's bytes in the array's order: every tile
  dimension but the last is 1 and the last is the pair's axis, the packed runs are the layout's whole
  runs (``v`` elements, ``v * element bytes = 4 * words``), the tile has no empty slot, so thread ``tid``'s
  run ``r`` (tile elements ``(r * threads + tid) * v ..``) sits at byte ``(r * threads + tid) * 4 * words``
  of the slot, which is the tile's byte offset of those elements; and the slot's bytes are a multiple of 16.
  A plan reserves :data:`BARRIERS` mbarriers (8 bytes each) just below the slots;
* issued (:meth:`bulk_issue`) in the block of the fill loop (one loop, in no other loop: each barrier
  completes one phase), before its op that is or holds the kernel's first fill (every fill is then
  dominated by the issue), when the axis' stride is statically 1 and the row's view, its other coordinates
  and the fill loop's trip count are known there; otherwise no copy is issued and every fill takes the cache's
  global path (the reason: :data:`~tileorch.transforms.tileaa_to_simt.row_cache_lowering.DROPPED_ATTR`'s
  sibling :data:`BULK_DROPPED_ATTR`, a remark);
* the tiles bulk-copied are ``0 .. nbulk - 1``, ``nbulk`` uniform over the CTA: 0 unless tile 0's global
  address is 16-byte aligned and its other coordinates lie in the array, else the least of the slots that
  fit the launch (``nfit``), the whole tiles of the row (``extent // tile``) and the fill loop's trips (no
  copy outlives the loop that waits for it);
* thread 0 initialises the barriers (count 1), fences the initialisation (``fence.mbarrier_init``,
  ``fence.proxy.async.shared::cta``) and, per barrier ``j``, arrives with ``expect_tx`` of and issues one
  bulk copy of tiles ``[j C, min((j + 1) C, nbulk))`` (``C``: the least power of two with
  ``C * BARRIERS >= nbulk``; one contiguous run of bytes, global and shared); a CTA barrier follows (the other threads see the barriers initialised);
* the fill of tile ``k < nbulk`` waits for phase 0 of barrier ``k / C`` (a shift) (``mbarrier.try_wait.parity``)
  and takes its words from its slot (``ld.shared``, the thread's own words as the global path would
  have loaded them); a prefetched issue of such a tile loads nothing; tile ``k >= nbulk`` takes the
  cache's global path (loaded words, ``st.shared`` into a slot that fits).  One row per CTA: each
  barrier completes one phase.  At the end of the fill loop's block thread 0 waits for every barrier with
  copies (already complete where the fill loop ran; no copy outlives the block, nor writes the shared memory of
  an exited CTA).
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import StringAttr, VectorType, i8, i32, i64
from xdsl.ir import Operation, SSAValue

from tileorch import settings
from tileorch.dialects import llvm_ext, nvvm
from tileorch.dialects.llvm_ext import AddrSpaceCastOp
from tileorch.transforms.tileaa_to_simt.row_smem_cache import FILL
from tileorch.transforms.tileaa_to_simt.emit import GLOBAL_PTR, SHARED_PTR, Emitter, byte_size, cmpi, global_type

ENV = "TILEORCH_ROW_BULK_FILL"
BARRIERS = 16
"""mbarriers of a bulk-filled row (a row's whole tiles in at most this many copies, one barrier each)."""
RESERVED = 8 * BARRIERS
BULK_ATTR = "tileorch.row_bulk_fill"
"""On a SIMT kernel whose row cache is bulk-filled: the mbarriers (a remark)."""
BULK_DROPPED_ATTR = "tileorch.row_bulk_fill_dropped"
"""On a SIMT kernel whose bulk fill was planned but not issued: why (a remark)."""
MAX_SHIFT = 11
"""Barrier tiles up to ``2^11``: ``BARRIERS << 11`` tiles exceed what 227 KiB holds in 16-byte tiles."""
WAIT_TICKS = 0x989680
"""The try-wait's suspend-time hint (the pipelines' value)."""


def enabled() -> bool:
    """On unless ``TILEORCH_ROW_BULK_FILL=0`` (the default since session 31: H100, log-softmax 32000 columns 0.68 ->
    0.95 of the copy rate with the cache, CE forward + backward 0.57 -> 0.77)."""
    return settings.value(ENV) != "0"


def _fill_loop(load: Operation):
    """The ``scf.for`` whose body directly holds ``load``, or None."""
    parent = load.parent_op()
    return parent if parent is not None and parent.name == "scf.for" else None


def _outer_loop(load: Operation) -> bool:
    """``load`` has a loop around it other than the ``scf.for`` whose body holds it directly."""
    parent, direct = load.parent_op(), _fill_loop(load)
    while parent is not None:
        if parent.name in ("scf.for", "scf.while", "scf.parallel") and parent is not direct:
            return True
        parent = parent.parent_op()
    return False


class RowBulkFill:
    """The bulk fill's part of ``RowCacheLowering`` (the module's contract)."""

    row_bulk: dict | None = None

    def bulk_plan(self, fills: list[Operation]) -> None:
        """Plan the bulk fill for the kernel's pair's fill loads ``fills`` (static conditions only)."""
        from tileorch.transforms.tileaa_to_simt.row_cache_lowering import axis_of
        from tileorch.transforms.tileas.simt_layouts import vectorizable_access

        self.row_bulk = None
        self.row_bulk_state = None  # None: not issued yet; False: not issued; else (nbulk, shift)
        self.row_bulk_dropped = None
        if not enabled() or not fills:
            return
        op = fills[0]
        rt = op.results[0].type
        shape = tuple(rt.get_shape())
        mt = global_type(rt.element_type)
        v = self.vec(shape)
        numel = 1
        for d in shape:
            numel *= d
        why = None
        if axis_of(op) != len(shape) - 1 or any(d != 1 for d in shape[:-1]):
            why = "the tile spans more than the row's axis"
        elif min(v, vectorizable_access(op)) != v or (v * byte_size(mt)) % 4 or self.ragged(shape):
            why = "the tile's packed words are not its bytes in order"
        elif (numel * byte_size(mt)) % 16 or numel * byte_size(mt) != self.row_cache_size:
            why = "the tile's bytes are not its slot's or not a multiple of 16"
        if why is None and any(_outer_loop(f) for f in fills):
            why = "the fill loop runs inside another loop (its barriers complete one phase)"
        if why is not None:
            self.row_bulk_dropped = why
            return
        loops = [lp for lp in map(_fill_loop, fills) if lp is not None]
        homes = {id(lp.parent_block()): lp.parent_block() for lp in loops}
        if len(homes) != 1:
            self.row_bulk_dropped = "the fill is not in one loop"
            return
        self.row_bulk = {"loops": loops, "home": next(iter(homes.values()))}

    def _bulk_barrier(self, e: Emitter, j: SSAValue | int) -> SSAValue:
        """The shared address of barrier ``j`` (just below the slots' base)."""
        off = e.v(arith.SubiOp(self.row_cache_base_op.results[0], e.const(RESERVED)))
        j = e.const(j) if isinstance(j, int) else j
        return e.gep(self.smem, e.v(arith.AddiOp(off, e.v(arith.MuliOp(j, e.const(8))))), i8, SHARED_PTR)

    def bulk_before(self, e: Emitter, top: Operation) -> None:
        """Before ``top`` is lowered: issue the copies when ``top`` is an op of the fill loop's block that is or
        holds the kernel's first fill."""
        if self.row_bulk is None or self.row_bulk_state is not None or top.parent_block() is not self.row_bulk["home"]:
            return
        fill = next((x for x in top.walk() if self._cached(x, FILL)), None)
        if fill is not None:
            self.bulk_issue(e, fill)

    def bulk_unissued(self) -> None:
        """A fill is lowered before any copy was issued (outside the fill loop's block): no bulk fill."""
        if self.row_bulk is not None and self.row_bulk_state is None:
            self.row_bulk_state = False
            self.row_bulk_dropped = "a fill is lowered outside the fill loop's block"

    def bulk_issue(self, e: Emitter, op: Operation) -> None:
        """Issue the row's bulk copies at the first fill ``op`` lowered (the module's contract)."""
        from tileorch.transforms.tileaa_to_simt.row_cache_lowering import axis_of

        if self.row_bulk is None or self.row_bulk_state is not None:
            return
        self.row_bulk_state = False
        trips = [self.vals.get(lp.ub) for lp in self.row_bulk["loops"]]
        if not trips or any(t is None for t in trips):
            self.row_bulk_dropped = "the fill loop's trip count is not known before it"
            return
        axis = axis_of(op)
        if op.view not in self.vals or any(v not in self.vals for d, v in enumerate(op.indices) if d != axis):
            self.row_bulk_dropped = "the row's view or coordinates are not known before the fill"
            return
        view = self.get(op.view)
        idx = [e.const(0) if d == axis else self._cast_int(e, self.get(v), i32) for d, v in enumerate(op.indices)]
        ptr, inside, _, extent, _, unit = self._run_address(e, view, idx, [e.const(0)] * len(idx))
        if not unit:
            self.row_bulk_dropped = "the row's stride along the axis is not statically 1"
            return
        step = view.step[axis]
        aligned = e.v(cmpi(e.v(arith.AndIOp(e.v(llvm.PtrToIntOp(ptr, i64)), e.const(15, i64))), e.const(0, i64), "eq"))
        ok = aligned if inside is None else e.v(arith.AndIOp(aligned, inside))
        n = e.v(arith.MinSIOp(self.row_cache_nfit, e.v(arith.DivSIOp(extent, e.const(step)))))
        for t in trips:  # (a loop from 1 after its peeled first iteration still reads tiles 0 .. ub - 1)
            n = e.v(arith.MinSIOp(n, self._cast_int(e, t, i32)))
        n = e.v(arith.MaxSIOp(n, e.const(0)))
        nbulk = e.v(arith.SelectOp(ok, n, e.const(0)))
        # a barrier's tiles: 2^shift, the least power of two that puts nbulk tiles on BARRIERS barriers (a shift,
        # not a division, in the fill loop)
        shift = e.const(0)
        for i in range(MAX_SHIFT):
            more = e.v(arith.ExtUIOp(e.v(cmpi(nbulk, e.const(BARRIERS << i), "sgt")), i32))
            shift = e.v(arith.AddiOp(shift, more))
        chunk = e.v(arith.ShLIOp(e.const(1), shift))
        size = self.row_cache_size
        first = e.v(cmpi(e.tid, e.const(0), "eq"))

        def issue(b: Emitter) -> None:
            for j in range(BARRIERS):
                b.add(nvvm.MBarrierInitSharedOp(self._bulk_barrier(b, j), b.const(1)))
            b.add(nvvm.FenceMbarrierInitOp())
            b.add(nvvm.FenceProxyOp(nvvm.ProxyKind.ASYNC_SHARED, nvvm.SharedSpace.CTA))
            for j in range(BARRIERS):
                lo = b.v(arith.ShLIOp(b.const(j), shift))

                def copy(bb: Emitter, j=j, lo=lo) -> None:
                    hi = bb.v(arith.MinSIOp(bb.v(arith.AddiOp(lo, chunk)), nbulk))
                    nbytes = bb.v(arith.MuliOp(bb.v(arith.SubiOp(hi, lo)), bb.const(size)))
                    bar = self._bulk_barrier(bb, j)
                    bb.add(nvvm.MBarrierArriveExpectTxSharedOp(bar, nbytes))
                    dst = bb.gep(self.smem, bb.v(arith.AddiOp(self.row_cache_base_op.results[0],
                                                              bb.v(arith.MuliOp(lo, bb.const(size))))), i8, SHARED_PTR)
                    src = bb.gep(ptr, bb.v(arith.MuliOp(bb.v(arith.ExtSIOp(lo, i64)), bb.const(step, i64))),
                                 global_type(view.memref.element), GLOBAL_PTR)
                    cluster = bb.v(AddrSpaceCastOp(dst, nvvm.PTR_SHARED_CLUSTER))
                    bb.add(nvvm.CpAsyncBulkGlobalToSharedClusterOp(cluster, src, bar, nbytes))

                b.if_(b.v(cmpi(lo, nbulk, "slt")), copy)

        e.if_(first, issue)
        e.barrier()
        self.row_bulk_state = (nbulk, shift)

    def bulk_drain(self, e: Emitter, block) -> None:
        """At the end of the fill loop's block (``block``, before its terminator): thread 0 waits for every
        barrier that has copies (already complete where the fill loop ran; a CTA never exits with a bulk copy
        writing its shared memory)."""
        if not self.row_bulk_state or block is not self.row_bulk["home"]:
            return
        nbulk, shift = self.row_bulk_state

        def drain(b: Emitter) -> None:
            for j in range(BARRIERS):
                def wait(bb: Emitter, j=j) -> None:
                    bb.add(nvvm.MBarrierTryWaitParitySharedOp(self._bulk_barrier(bb, j), bb.const(0),
                                                              bb.const(WAIT_TICKS)))

                b.if_(b.v(cmpi(b.v(arith.ShLIOp(b.const(j), shift)), nbulk, "slt")), wait)

        e.if_(e.v(cmpi(e.tid, e.const(0), "eq")), drain)

    def bulk_words(self, e: Emitter, op: Operation, k: SSAValue, nw: int, count: int, otherwise) -> list[SSAValue] | None:
        """The fill ``op``'s words of tile ``k``: waited for and read from its slot when ``k < nbulk``, else
        ``otherwise(b)``; None when the row is not bulk-filled."""
        if not self.row_bulk_state:
            return None
        nbulk, shift = self.row_bulk_state
        from_slot = None if self.row_cache_issuing else self._bulk_read(op, k, nw, count, shift)
        empty = (lambda b: [b.const(0)] * count)
        return e.if_(e.v(cmpi(k, nbulk, "slt")), from_slot or empty, otherwise, [i32] * count)

    def _bulk_wait(self, b: Emitter, k: SSAValue, shift: SSAValue) -> None:
        """Wait for phase 0 of tile ``k``'s barrier (``k >> shift``)."""
        bar = self._bulk_barrier(b, b.v(arith.ShRSIOp(k, shift)))
        b.add(nvvm.MBarrierTryWaitParitySharedOp(bar, b.const(0), b.const(WAIT_TICKS)))

    def _bulk_read(self, op: Operation, k: SSAValue, nw: int, count: int, shift: SSAValue):
        def read(b: Emitter) -> list[SSAValue]:
            self._bulk_wait(b, k, shift)
            out = []
            for r in range(count // nw):
                vec = b.v(llvm.LoadOp(self._run_ptr(b, op, k, r, nw), VectorType(i32, [nw]), alignment=4 * nw))
                out += [b.v(llvm_ext.ExtractElementOp(vec, b.const(j))) for j in range(nw)]
            return out

        return read

    def bulk_finish(self, new: Operation) -> None:
        """Record the bulk fill (or why it was dropped) on the SIMT kernel ``new``."""
        if self.row_bulk_state:
            new.attributes[BULK_ATTR] = StringAttr(f"{BARRIERS} mbarriers")
        elif self.row_bulk_dropped is not None and enabled():
            new.attributes[BULK_DROPPED_ATTR] = StringAttr(self.row_bulk_dropped)


__all__ = ["BARRIERS", "BULK_ATTR", "BULK_DROPPED_ATTR", "ENV", "RESERVED", "RowBulkFill", "enabled"]
