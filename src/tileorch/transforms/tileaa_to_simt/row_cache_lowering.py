"""The SIMT lowering of the row cache's marks (:mod:`tileorch.transforms.tileaa_to_simt.row_smem_cache`):
a ``fill`` load leaves its tile in shared memory, the ``read`` load of its pair takes it from there.

Contract (``RowCacheLowering``, a mixin of ``FunctionLowering``):

* a pair is lowered when its loads take the packed path (vector runs of 32-bit words) with the same
  layout, run width and word count, the kernel is not split over a cluster nor packed several programs a
  warp, and it is the kernel's first fill (one cache per kernel: the other fills' reads reload from global
  memory, :data:`OTHERS_ATTR` counts them); otherwise the marks are ignored (the global reload) and
  :data:`DROPPED_ATTR` says why (a remark);
* slot ``k`` (the tile index along the pair's loop axis) holds ``S = threads * words * 4`` bytes, each
  thread's words of run ``r`` at ``base + k * S + (r * threads + tid) * 4 * words`` (one ``st.shared.v4`` /
  ``ld.shared.v4`` per run, conflict-free): every thread reads back only what it wrote, so no barrier; the
  words are the fill's loaded words (its padding in the tail's padded elements);
* ``base`` is the kernel's shared scratch rounded up to 16 bytes, plus the bulk fill's barriers when it is
  planned (:mod:`tileorch.transforms.tileaa_to_simt.row_bulk_fill`: the row's whole tiles copied into their
  slots before the fill loop, ``TILEORCH_ROW_BULK_FILL=1``) (its value patched into the kernel when
  the lowering knows the scratch), the slots after it in the dynamic shared memory the launch gives
  (``%dynamic_smem_size``); slot ``k`` is used when ``k < (%dynamic_smem_size - base) / S`` (computed once;
  uniform: the fill writes it and the read reads it under the same test), otherwise the read loads from
  global memory as without the cache: never wrong, whatever the launch gave;
* a fill whose loop is prefetched writes its slot where the iteration unpacks the tile (not where its
  load is issued, so the store waits for the load there), and the loop keeps :func:`fill_depth` iterations'
  loads in flight (fewer CTAs share an SM when each holds a row: more bytes in flight per CTA; unless
  ``TILEORCH_PREFETCH_DEPTH`` is set, or the row is bulk-filled: its copies are all in flight at once);
* a read whose padding differs from its fill's (a ``NEG_INF`` first pass, a ``ZERO`` second) puts its own
  padding in the elements outside the array, on a tile that does not lie wholly inside (one uniform test);
* the kernel records ``tileorch.row_cache = [parameter, elements a slot spans along the axis, S]``: the
  launcher gives ``S * ceil(parameter / elements)`` bytes more (capped at the opt-in limit), the parameter
  being the array's extent along the axis.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, VectorType, i8, i32, i64
from xdsl.ir import Block, Operation, SSAValue

from tileorch.dialects import llvm_ext
from tileorch.transforms.tileaa_to_simt.emit import SHARED_PTR, Emitter, cmpi, global_type
from tileorch.transforms.tileaa_to_simt.row_bulk_fill import RESERVED, RowBulkFill
from tileorch.transforms.tileaa_to_simt.row_smem_cache import AXIS, FILL, READ, enabled

ATTR = "tileorch.row_cache"
"""On a SIMT kernel with a row cache: ``[parameter index, elements per slot along the axis, slot bytes]``."""
DROPPED_ATTR = "tileorch.row_cache_dropped"
"""On a SIMT kernel whose marks were ignored: why (a remark)."""
OTHERS_ATTR = "tileorch.row_cache_others"
"""On a SIMT kernel with a row cache: the fills of other pairs, whose reads reload from global memory (a remark)."""


def axis_of(op: Operation) -> int:
    return op.attributes[AXIS].value.data


SMEM_PER_SM = 228 * 1024
"""Shared memory of one Hopper SM (each resident CTA also reserves :data:`CTA_RESERVED`)."""
CTA_RESERVED = 1024
DESIGN_ROW_BYTES = 64000
"""The row the prefetch depth is chosen for: the benchmarks' 32000-wide bf16 vocabulary row (issue 21), whose
slots leave room for 3 CTAs per SM."""
IN_FLIGHT_PER_SM = 32 * 1024
"""Global bytes an SM keeps in flight to stream at the memory's rate (Little's law: ~4.3 TB/s x ~1 us of
loaded latency over 132 SMs)."""
MAX_ROW_CACHE_DEPTH = 4
"""The deepest prefetch chosen (the depths ``test_prefetch_depth.py`` holds bit-identical to one ahead)."""


def fill_depth(slot_bytes: int) -> int:
    """Iterations a loop holding a fill keeps in flight: a CTA whose row lives in shared memory shares its SM
    with few others (3 at :data:`DESIGN_ROW_BYTES`), so each keeps ``D`` tiles of ``slot_bytes`` in flight,
    ``ctas * D * slot_bytes >= IN_FLIGHT_PER_SM``, at most :data:`MAX_ROW_CACHE_DEPTH`."""
    ctas = max(1, SMEM_PER_SM // (DESIGN_ROW_BYTES + CTA_RESERVED))
    return max(1, min(MAX_ROW_CACHE_DEPTH, -(-IN_FLIGHT_PER_SM // (ctas * slot_bytes))))


def _group(op: Operation) -> int:
    return op.attributes[FILL if FILL in op.attributes else READ].value.data


def _pad_kind(op: Operation) -> str:
    return str(op.padding_value.value.data) if op.padding_value is not None else "zero"


class RowCacheLowering(RowBulkFill):
    """The row cache's part of ``FunctionLowering`` (the module's contract)."""

    row_cache_group: int | None = None
    row_cache_dropped: str | None = None

    def row_cache_setup(self, e: Emitter) -> None:
        """Choose the kernel's pair and read ``%dynamic_smem_size`` (before the ops are lowered)."""
        self.row_cache_group = None
        self.row_cache_dropped = None
        self.row_cache_issuing = False
        self.row_cache_record: list[int] | None = None
        self.row_bulk = None
        self.row_bulk_state = None
        self.row_bulk_dropped = None
        marked = [op for op in self.fn.walk() if FILL in op.attributes or READ in op.attributes]
        if not marked or not enabled():
            return
        if self.split is not None or self.per_warp > 1:
            self.row_cache_dropped = "the kernel is split over a cluster or runs several programs per warp"
            return
        group = min(_group(op) for op in marked)
        ops = [op for op in marked if _group(op) == group]
        layouts = {str(op.attributes.get("nv_tileaa.layout")) for op in ops}
        if len(layouts) != 1:
            self.row_cache_dropped = "the two loads' register layouts differ"
            return
        if len({n for op in ops for n in [self.row_cache_words(op)]}) != 1 or self.row_cache_words(ops[0]) == 0:
            self.row_cache_dropped = "the loads are not moved as vector runs of 32-bit words"
            return
        self.row_cache_group = group
        self.row_cache_others = len({_group(op) for op in marked}) - 1
        self.row_cache_fill_pad = next((_pad_kind(op) for op in ops if FILL in op.attributes), None)
        self.row_cache_size = self.threads * self.row_cache_words(ops[0]) * 4  # S, the bytes of a slot
        dyn = e.v(llvm.CallIntrinsicOp("llvm.nvvm.read.ptx.sreg.dynamic_smem_size", [], [i32]))
        # inline assembly: a constant known only after the lowering (bulk_finish sets it), opaque to LLVM till then
        self.row_cache_base_op = e.add(llvm.InlineAsmOp("mov.u32 $0, 0;", "=r", [], [i32], has_side_effects=False))
        base = self.row_cache_base_op.results[0]
        # the slots that fit (once: uniform; negative below the scratch: none) and this thread's first word
        self.row_cache_nfit = e.v(arith.DivSIOp(e.v(arith.SubiOp(dyn, base)), e.const(self.row_cache_size)))
        nw = self.row_cache_nw(ops[0])
        self.row_cache_thread = e.v(arith.AddiOp(base, e.v(arith.MuliOp(e.tid, e.const(nw * 4)))))
        self.bulk_plan([op for op in ops if FILL in op.attributes])

    def row_cache_words(self, op: Operation) -> int:
        """32-bit words a thread holds of ``op``'s tile on the packed path (0: not that path)."""
        from tileorch.transforms.tileaa_to_simt import _words
        from tileorch.transforms.tileas.simt_layouts import vectorizable_access

        rt = op.results[0].type
        shape = tuple(rt.get_shape())
        width = min(self.vec(shape), vectorizable_access(op))
        if width <= 1:
            return 0
        runs = len(range(0, self.slots_of(rt, op), width))
        return runs * _words(width, global_type(rt.element_type))

    def row_cache_depth(self, loads: list[Operation], words: int, depth: int) -> int:
        """The prefetch depth of a loop whose prefetched ``loads`` (``words`` a thread an iteration) hold the
        kernel's fill: :func:`fill_depth` unless ``TILEORCH_PREFETCH_DEPTH`` says (then ``depth``), within the
        prefetch's register budget."""
        from tileorch import settings
        from tileorch.transforms.tileaa_to_simt.prefetch import MAX_DEPTH_WORDS

        fills = [ld for ld in loads if self._cached(ld, FILL)]
        if not fills or settings.asked("TILEORCH_PREFETCH_DEPTH") is not None or self.row_bulk is not None:
            return depth  # (a bulk fill keeps the row's bytes in flight itself: row_bulk_fill.py)
        chosen = fill_depth(self.threads * self.row_cache_words(fills[0]) * 4)
        return max(depth, min(chosen, MAX_DEPTH_WORDS // max(1, words)))

    def row_cache_nw(self, op: Operation) -> int:
        """32-bit words of one run of ``op``'s tile (the packed path's vector width)."""
        from tileorch.transforms.tileaa_to_simt import _words
        from tileorch.transforms.tileas.simt_layouts import vectorizable_access

        rt = op.results[0].type
        width = min(self.vec(tuple(rt.get_shape())), vectorizable_access(op))
        return _words(width, global_type(rt.element_type))

    def _pad_fix(self, op: Operation, view, idx: list[SSAValue], shape, width: int, nw: int):
        """``fix(b, words)`` putting a read's own padding into the words its slot holds (on a tile not wholly
        inside the array), or None when the fill's padding is the read's (or the read's is ``undef``)."""
        from tileorch.transforms.tileaa_to_simt import _padding

        if not self._cached(op, READ):
            return None
        kind = _pad_kind(op)
        if kind in (self.row_cache_fill_pad, "undef"):
            return None
        rt = op.results[0].type
        elt = rt.element_type
        mt = global_type(elt)
        mem = view.memref
        slots = self.slots_of(rt, op)

        def fix(b: Emitter, words: list[SSAValue]) -> list[SSAValue]:
            inside = None
            for i, d in enumerate(shape):
                g0 = b.mul_i(idx[i], b.const(view.step[i]))
                ok = b.v(arith.AndIOp(b.v(cmpi(g0, b.const(0), "sge")),
                                      b.v(cmpi(b.add_i(g0, b.const(d)), mem.shape[view.order[i]], "sle"))))
                inside = ok if inside is None else b.v(arith.AndIOp(inside, ok))

            def padded(bb: Emitter) -> list[SSAValue]:
                pad = self._to_memory(bb, _padding(bb, kind, elt), elt)
                out = []
                for n, (_, w_, f0, extra) in enumerate(self._runs(bb, op, shape, slots)):
                    run = self._run_address(bb, view, idx, bb.unravel(f0, shape))
                    elems = bb.words_to_elements(words[n * nw:(n + 1) * nw], mt, width)
                    out += bb.elements_to_words([bb.v(arith.SelectOp(self._run_element(bb, run, j, mt, extra)[1],
                                                                     x, pad)) for j, x in enumerate(elems)], mt)
                return out

            return b.if_(inside, lambda bb: list(words), padded, [i32] * len(words))

        return fix

    def _cached(self, op: Operation, mark: str) -> bool:
        return (self.row_cache_group is not None and mark in op.attributes
                and op.attributes[mark].value.data == self.row_cache_group)

    def _slot(self, e: Emitter, op: Operation) -> tuple[SSAValue, SSAValue]:
        """(the slot ``op`` reads / writes, whether it fits: ``k < nfit``, one compare)."""
        k = self._cast_int(e, self.get(op.indices[axis_of(op)]), i32)
        self._row_cache_note(op, self.row_cache_size)
        return k, e.v(cmpi(k, self.row_cache_nfit, "slt"))

    def _run_ptr(self, e: Emitter, op: Operation, k: SSAValue, run: int, nw: int) -> SSAValue:
        """This thread's words of run ``run`` in slot ``k``."""
        off = e.v(arith.AddiOp(self.row_cache_thread, e.v(arith.MuliOp(k, e.const(self.row_cache_size)))))
        if run:
            off = e.v(arith.AddiOp(off, e.const(run * self.threads * nw * 4)))
        return e.gep(self.smem, off, i8, SHARED_PTR)

    def row_cache_fill(self, e: Emitter, op: Operation, words: list[SSAValue], nw: int | None = None) -> list[SSAValue]:
        """Leave a fill load's words (``nw`` a run; None: :meth:`row_cache_nw`) in its slot, when the load is
        the kernel's pair's fill and not being issued ahead of its iteration; the words the fill yields
        (a bulk-filled tile's from its slot, :mod:`row_bulk_fill`)."""
        if not self._cached(op, FILL) or self.row_cache_issuing:
            return words
        nw = nw if nw is not None else self.row_cache_nw(op)
        if self.row_bulk_state:
            k, _ = self._slot(e, op)
            return self.bulk_words(e, op, k, nw, len(words), lambda b: self._fill_store(b, op, words, nw))
        return self._fill_store(e, op, words, nw)

    def _fill_store(self, e: Emitter, op: Operation, words: list[SSAValue], nw: int) -> list[SSAValue]:
        k, fits = self._slot(e, op)

        def store(b: Emitter) -> None:
            for r in range(0, len(words), nw):
                vec = b.v(llvm_ext.PoisonOp(VectorType(i32, [nw])))
                for j in range(nw):
                    vec = b.v(llvm.InsertElementOp(vec, words[r + j], b.const(j)))
                b.add(llvm.StoreOp(vec, self._run_ptr(b, op, k, r // nw, nw), alignment=4 * nw))

        e.if_(fits, store)
        return list(words)

    def row_cache_fill_load(self, e: Emitter, op: Operation, nw: int, count: int, from_global) -> list[SSAValue]:
        """A (non-read) load's words: ``from_global(e)``, left in its slot when it is the pair's fill
        (:meth:`row_cache_fill`); a bulk-filled tile's from its slot (nothing loaded when issued ahead)."""
        if not self._cached(op, FILL):
            return from_global(e)
        self.bulk_unissued()
        if self.row_bulk_state and self.row_cache_issuing:
            k, _ = self._slot(e, op)
            return self.bulk_words(e, op, k, nw, count, from_global)
        if self.row_bulk_state:
            k, _ = self._slot(e, op)
            return self.bulk_words(e, op, k, nw, count, lambda b: self._fill_store(b, op, from_global(b), nw))
        return self.row_cache_fill(e, op, from_global(e), nw)

    def row_cache_read(self, e: Emitter, op: Operation, nw: int, count: int, from_global, fix_padding):
        """A read load's words: its slot's where it fits, else ``from_global(e)``; ``fix_padding(b, words)``
        puts the read's own padding in (None: the fill's padding is the read's)."""
        if not self._cached(op, READ):
            return None
        k, fits = self._slot(e, op)

        def from_slot(b: Emitter) -> list[SSAValue]:
            out = []
            for r in range(count // nw):
                vec = b.v(llvm.LoadOp(self._run_ptr(b, op, k, r, nw), VectorType(i32, [nw]), alignment=4 * nw))
                out += [b.v(llvm_ext.ExtractElementOp(vec, b.const(j))) for j in range(nw)]
            return out if fix_padding is None else fix_padding(b, out)

        return e.if_(fits, from_slot, from_global, [i32] * count)

    def _row_cache_note(self, op: Operation, size: int) -> None:
        """Record the launcher's sizing (the array's extent along the axis, when it is a kernel parameter)."""
        if self.row_cache_record is not None:
            return
        view = self.get(op.view)
        i = axis_of(op)
        extent = view.memref.shape[view.order[i]]
        index = extent.index if isinstance(extent.owner, Block) and extent.owner is self.entry_block else -1
        self.row_cache_record = [index, view.step[i], size]

    def row_cache_finish(self, new: Operation, scratch: int) -> int:
        """Patch the slots' base past the scratch, record the launch's sizing on ``new``; the scratch
        bytes the kernel now needs before its slots (16-byte aligned)."""
        if self.row_cache_group is not None and self.row_cache_record is not None and self.row_cache_record[0] < 0:
            self.row_cache_dropped = "the row's extent is not a kernel parameter (the launch gives no slot)"
        self.bulk_finish(new)
        if self.row_cache_dropped is not None:
            new.attributes[DROPPED_ATTR] = StringAttr(self.row_cache_dropped)
        if self.row_cache_group is None or self.row_cache_record is None:
            return scratch
        base = -(-scratch // 16) * 16 + (RESERVED if self.row_bulk is not None else 0)  # (the bulk fill's mbarriers)
        if self.row_cache_others:
            new.attributes[OTHERS_ATTR] = IntegerAttr(self.row_cache_others, i32)
        self.row_cache_base_op.properties["asm_string"] = StringAttr(f"mov.u32 $0, {base};")
        new.attributes[ATTR] = ArrayAttr([IntegerAttr(v, i32) for v in self.row_cache_record])
        return base


__all__ = ["ATTR", "AXIS", "DROPPED_ATTR", "OTHERS_ATTR", "RowCacheLowering", "axis_of", "fill_depth"]
