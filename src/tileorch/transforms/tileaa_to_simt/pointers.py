"""The SIMT lowering of ``nv_tileaa``'s pointer-tile ops (``offset``, ``load``, ``store``,
``atomic_rmw``, ``atomic_cas``; see ``dialects/nv_tileaa/pointer_ops.py``).

Contract (a mixin of ``FunctionLowering``):

* a tile of pointers is held like any tile (``layout.py``): each thread owns the same elements
  it owns of a number tile of that shape, one ``!llvm.ptr<1>`` per slot; ``offset`` is a
  ``getelementptr`` per slot (``ptr + offset * sizeof(T)``, the offset sign-extended to i64);
  ``int_to_ptr`` an ``inttoptr`` per slot (a scalar: one);
* ``load``/``store``/``atomic_*`` of a tile: each thread accesses its own elements, scalar
  accesses each under ``scf.if`` of the element's mask (and, for a ragged tile, of the slot
  holding an element); a masked-off load yields ``other`` (zero without it); a store is
  followed by ``bar.sync`` when the kernel also loads (as ``tiled_store``);
* a weak ``load``/``store`` whose pointer tile holds consecutive addresses along its last
  dimension (``contiguity.last_dim_step`` 1: a row gather or scatter) moves each run of the
  thread's contiguous slots (up to 16 bytes) as one vector where, at run time, every element of
  the run is unmasked and the run's first address is aligned to the vector's size: a
  predicated ``ld.global.v4.b32`` issued before any branch (``Emitter.load_words_if``), an
  ``st.global.v4`` under the run's test; the scalar masked accesses otherwise;
* a scalar (or one-element replicated) ``store``/``atomic_*`` is done once per CTA, by thread
  0, between two ``bar.sync`` (the first orders the CTA's earlier accesses before it, so a
  release by thread 0 publishes them, PTX's cumulativity; the second makes an acquire by thread
  0 precede the CTA's later accesses); an atomic's old value reaches every thread through the
  shared scratch.  A scalar ``load`` is done by every thread (a uniform address);
* ordering: ``weak`` accesses are plain ``ld.global``/``st.global``; ordered loads are LLVM
  atomic loads (``ld.acquire.gpu``...), ordered stores a release fence then a relaxed atomic
  store; ``atomic_cas`` is ``llvm.cmpxchg`` with the op's ordering and scope
  (``atom.acquire.gpu.global.cas.b32``); ``atomic_rmw`` is ``llvm.atomicrmw`` monotonic
  between fences (``fence.release`` before a release/acq_rel one, ``fence.acquire`` after an
  acquire/acq_rel one: LLVM 22's NVPTX backend drops atomicrmw's own ordering and scope), so
  ``atom.global.<op>`` runs at ``.gpu`` scope.  The fences of a tile's ordered ``atomic_rmw``
  (``TILEORCH_ATOMIC_FENCES``): ``each``, every thread fences around its elements (other
  threads' earlier stores are not ordered before the release); ``holders`` (default since session 29), the CTA passes a ``bar.sync`` before a release (every thread's earlier accesses
  precede it, cumulativity) and after an acquire (the CTA's later accesses follow it), and only
  the threads holding a live element fence (a one-element tile: one thread, not every warp's
  ``MEMBAR.GPU`` and ``CCTL.IVALL``); the kernel's final atomics (nothing after them accesses
  memory but ordered atomics of the same shape, held by the same threads) pass one barrier
  before the first and none after, so the other warps end while the holders fence; a ``sys``-scope ``atomic_rmw`` is refused
  ("not supported yet") rather than compiled at a narrower scope.  A bf16 ``addf`` (held as f32)
  is an inline ``atom.global.add.noftz.bf16`` of the value rounded to bf16 (sm_90; llvmlite's IR
  has no ``bfloat``); other bf16 atomics are refused.  Scopes: ``cta`` ->
  ``syncscope("block")``, ``gpu`` -> ``"device"``, ``sys`` -> system.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (BFloat16Type, IntegerAttr, IntegerType, StringAttr, TensorType, i1,
                                   i16, i32, i64)
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch import settings
from tileorch.dialects import llvm_ext
from tileorch.dialects.nv_tileaa.attrs import PointerType
from tileorch.transforms.tileaa_to_simt.contiguity import last_dim_step
from tileorch.transforms.tileaa_to_simt.emit import (GLOBAL_PTR, Emitter, Tile, byte_size, cmpi, global_type, is_float,
                                                     memory_type, position, reg_type, supported_element)

SYNCSCOPE = {"cta": "block", "cluster": "cluster", "gpu": "device", "sys": None}
LLVM_ORDER = {"relaxed": "monotonic", "acquire": "acquire", "release": "release", "acq_rel": "acq_rel"}
RMW_BIN_OP = {"add": "add", "addf": "fadd", "max": "max", "min": "min", "umax": "umax", "umin": "umin",
              "and": "_and", "or": "_or", "xor": "_xor", "xchg": "xchg"}


def _order(op) -> tuple[str, str | None, bool]:
    """(mem_semantic, LLVM syncscope, whether ordered) of a pointer access."""
    sem = op.mem_semantic.value.data if op.mem_semantic is not None else "weak"
    scope = op.mem_scope.value.data if op.mem_scope is not None else "gpu"
    return sem, SYNCSCOPE[scope], sem != "weak"


def _pointee(t: Attribute) -> Attribute:
    e = t.element_type if isinstance(t, TensorType) else t
    assert isinstance(e, PointerType)
    return e.element


VECTOR_BYTES = 16


def contiguous_access_width(op) -> int:
    """Elements per vector access of the pointer ``load``/``store`` ``op``: 16 bytes
    (``simt_layouts.vector_bytes``) over the
    element size when it is weak and its pointer tile holds consecutive addresses along the
    last dimension (``contiguity.last_dim_step``), else 1.  The layout's run length of the tile
    may cap it (``PointerLowering._vector_width``)."""
    sem = op.mem_semantic.value.data if op.mem_semantic is not None else "weak"
    t = op.ptr.type
    if sem != "weak" or not isinstance(t, TensorType) or not t.get_shape():
        return 1
    elt = _pointee(t)
    if not supported_element(elt) or last_dim_step(op.ptr) != 1:
        return 1
    from tileorch.transforms.tileas.simt_layouts import vector_bytes

    return max(1, min(VECTOR_BYTES, vector_bytes()) // byte_size(global_type(elt)))


class PointerLowering:
    """Mixin of ``FunctionLowering``: the ``op_nv_tileaa_<pointer op>`` handlers."""

    # -- helpers ----------------------------------------------------------------------------
    def _ptr_operands(self, op, ptr: SSAValue, others: list[SSAValue | None]):
        """(scalar?, shape, per-slot pointer list, per-slot lists of each other operand (or
        None), per-slot predicate of a ragged tile's real elements (or None))."""
        p = self.get(ptr)
        scalar = not isinstance(p, Tile) or p.replicated
        n = 1 if scalar else len(p.slots)

        def slots(x) -> list:  # an operand's value per pointer slot (scalars repeat)
            if not isinstance(x, Tile):
                return [x] * n
            return [x.slots[0]] if scalar else list(x.slots)

        vals = [None if v is None else slots(self.get(v)) for v in others]
        if scalar:
            return True, (p.shape if isinstance(p, Tile) else ()), slots(p), vals, [None]
        return False, p.shape, list(p.slots), vals, None

    def _slot_guards(self, e: Emitter, shape, n: int) -> list[SSAValue | None]:
        if not self.ragged(shape):
            return [None] * n
        total = 1
        for d in shape:
            total *= d
        return [e.in_range(self.flat(e, s, shape), total) for s in range(n)]

    def _result(self, op, scalar: bool, shape, elt: Attribute, values: list[SSAValue]):
        t = op.results[0].type
        if not isinstance(t, TensorType):
            return values[0]
        if scalar:  # a replicated one-element tile
            return Tile(tuple(shape), elt, [values[0]] * self.layout.slots(tuple(shape)), True)
        return Tile(tuple(shape), elt, values)

    def _by_thread0(self, e: Emitter, fn, typ: Attribute | None) -> SSAValue | None:
        """Run ``fn`` in thread 0 only, between barriers; its value (``typ``), if any, is
        returned to every thread through the scratch."""
        e.barrier()
        first = e.v(cmpi(e.tid, e.const(0), "eq"))
        if typ is None:
            e.if_(first, lambda b: (fn(b), None)[1])
            e.barrier()
            return None
        mem = memory_type(typ)
        self.scratch_bytes = max(self.scratch_bytes, 16)

        def body(b: Emitter):
            v = fn(b)
            b.store(b.v(arith.ExtUIOp(v, mem)) if typ == i1 else v, self.smem)

        e.if_(first, body)
        e.barrier()
        v = e.load(self.smem, mem)
        e.barrier()  # the scratch may be rewritten next
        return e.v(arith.TruncIOp(v, i1)) if typ == i1 else v

    def _vector_width(self, op, shape, elt: Attribute) -> int:
        """The run length of vector accesses of the pointer ``op`` (a tile of ``shape``), 1 for
        scalar accesses: :func:`contiguous_access_width` capped by the layout's runs, when the
        run is 4, 8 or 16 bytes."""
        width = min(contiguous_access_width(op), self.vec(shape))
        return width if width > 1 and width * byte_size(global_type(elt)) in (4, 8, 16) else 1

    MAX_MASK_FACTORS = 8

    def _mask_factors(self, mask: SSAValue | None, n: int) -> list[list[SSAValue]] | None:
        """The per-slot values of the factors of a mask tile that is a conjunction (``arith.andi``
        of tiles, nested; at most :data:`MAX_MASK_FACTORS` factors), or None.  A gather's mask is
        typically ``rows_in_bounds & cols_in_bounds``: a run's all-true test is then the
        conjunction of each factor over the run, whose values repeat across slots (one row
        compare per run, the same column compares in every run), so the per-element
        predicates stay off the vector path and are needed only where a run falls back to
        elements."""
        if mask is None or not isinstance(mask.owner, arith.AndIOp):
            return None
        leaves, todo = [], [mask]
        while todo:
            v = todo.pop()
            if isinstance(v.owner, arith.AndIOp) and isinstance(v.type, TensorType):
                todo.extend(v.owner.operands)
            else:
                leaves.append(v)
            if len(leaves) + len(todo) > self.MAX_MASK_FACTORS:
                return None
        out = []
        for leaf in leaves:
            x = self.vals.get(leaf)
            if x is None:
                return None
            if not isinstance(x, Tile):
                out.append([x] * n)
            elif x.replicated or len(x.slots) != n:
                return None
            else:
                out.append(list(x.slots))
        return out

    def _vector_runs(self, e: Emitter, ptrs, masks, guards, width: int, elt: Attribute, factors=None):
        """Per run of ``width`` slots: (first slot, per-slot predicates, whether the run moves
        as one vector: every predicate holds and the first address is aligned).  With the
        mask's ``factors`` (:meth:`_mask_factors`) the all-true test is taken over each factor
        (the same conjunction, regrouped)."""
        nbytes = width * byte_size(global_type(elt))
        for s0 in range(0, len(ptrs), width):
            conds = [self._and(e, masks[s] if masks else None, guards[s]) for s in range(s0, s0 + width)]
            fast = None
            if factors is not None:
                for f in factors:
                    for s in range(s0, s0 + width):
                        fast = self._and(e, fast, f[s])
                for s in range(s0, s0 + width):
                    fast = self._and(e, fast, guards[s])
            else:
                for c in conds:
                    fast = self._and(e, fast, c)
            addr = e.v(llvm.PtrToIntOp(ptrs[s0], i64))
            aligned = e.v(cmpi(e.v(arith.AndIOp(addr, e.const(nbytes - 1, i64))), e.const(0, i64), "eq"))
            yield s0, conds, self._and(e, fast, aligned)

    @staticmethod
    def _guarded(e: Emitter, cond: SSAValue | None, fn, otherwise, typ: Attribute | None):
        if cond is None:
            return fn(e)
        if typ is None:
            e.if_(cond, lambda b: (fn(b), None)[1])
            return None
        return e.if_(cond, lambda b: [fn(b)], lambda b: [otherwise(b)], [typ])[0]

    # -- ops --------------------------------------------------------------------------------
    def op_nv_tileaa_offset(self, e, op):
        elem = global_type(_pointee(op.ptr.type))
        p, o = self.get(op.ptr), self.get(op.offset)

        def one(b: Emitter, ptr: SSAValue, off: SSAValue) -> SSAValue:
            if off.type != i64:
                off = b.v(arith.ExtSIOp(off, i64))
            return b.gep(ptr, off, elem, GLOBAL_PTR)

        if not isinstance(p, Tile) and not isinstance(o, Tile):
            self.vals[op.results[0]] = one(e, p, o)
            return
        tile = p if isinstance(p, Tile) else o
        n = len(tile.slots)
        ps = p.slots if isinstance(p, Tile) else [p] * n
        os_ = o.slots if isinstance(o, Tile) else [o] * n
        replicated = all(x.replicated for x in (p, o) if isinstance(x, Tile))
        if replicated:
            slots = [one(e, ps[0], os_[0])] * n
        else:
            slots = [one(e, a, b) for a, b in zip(ps, os_)]
        self.vals[op.results[0]] = Tile(tile.shape, op.results[0].type.element_type, slots, replicated)

    def op_nv_tileaa_int_to_ptr(self, e, op):
        x = self.get(op.source)
        if not isinstance(x, Tile):
            self.vals[op.results[0]] = e.v(llvm.IntToPtrOp.create(operands=[x], result_types=[GLOBAL_PTR]))
            return
        slots = [e.v(llvm.IntToPtrOp.create(operands=[s], result_types=[GLOBAL_PTR])) for s in x.slots]
        self.vals[op.results[0]] = Tile(x.shape, op.results[0].type.element_type, slots, x.replicated)

    def _load_one(self, b: Emitter, ptr: SSAValue, elt: Attribute, sem: str, scope: str | None) -> SSAValue:
        if sem == "weak":
            return self._load_global(b, ptr, elt)
        mt = global_type(elt)
        ld = llvm_ext.LoadOp(ptr, mt, alignment=byte_size(mt), ordering=llvm_ext.ORDERINGS[LLVM_ORDER[sem]])
        if scope is not None:
            ld.properties["syncscope"] = StringAttr(scope)
        return self._from_memory(b, b.v(ld), elt)

    def op_nv_tileaa_load(self, e, op):
        elt = _pointee(op.ptr.type)
        rtype = reg_type(elt)
        sem, scope, _ = _order(op)
        scalar, shape, ptrs, (masks, others), guards = self._ptr_operands(op, op.ptr, [op.mask, op.other])
        if guards is None:
            guards = self._slot_guards(e, shape, len(ptrs))

        def one(b: Emitter, s: int, cond: SSAValue | None) -> SSAValue:
            other = others[s] if others else None
            return self._guarded(b, cond, lambda bb, p=ptrs[s]: self._load_one(bb, p, elt, sem, scope),
                                 lambda bb, o=other: o if o is not None else bb.const(0, rtype)
                                 if not is_float(rtype) else bb.fconst(0.0, rtype), rtype)

        width = 1 if scalar else self._vector_width(op, shape, elt)
        if width == 1:
            out = [one(e, s, self._and(e, masks[s] if masks else None, guards[s])) for s in range(len(ptrs))]
        else:
            mt = global_type(elt)
            nw = width * byte_size(mt) // 4
            factors = self._mask_factors(op.mask, len(ptrs)) if masks else None
            issued = [(s0, conds, fast, e.load_words_if(fast, ptrs[s0], nw))
                      for s0, conds, fast in self._vector_runs(e, ptrs, masks, guards, width, elt, factors)]
            out = []
            for s0, conds, fast, words in issued:
                def slow(b: Emitter, s0=s0, conds=conds) -> list[SSAValue]:
                    vals = [self._to_memory(b, one(b, s0 + j, c), elt) for j, c in enumerate(conds)]
                    return b.elements_to_words(vals, mt)

                got = e.if_(fast, lambda b, words=words: list(words), slow, [i32] * nw)
                out.extend(self._from_memory(e, x, elt) for x in e.words_to_elements(got, mt, width))
        self.vals[op.results[0]] = self._result(op, scalar, shape, elt, out)
        self.vals[op.results[1]] = None

    def op_nv_tileaa_store(self, e, op):
        elt = _pointee(op.ptr.type)
        sem, scope, ordered = _order(op)
        scalar, shape, ptrs, (values, masks), guards = self._ptr_operands(op, op.ptr, [op.value, op.mask])
        if guards is None:
            guards = self._slot_guards(e, shape, len(ptrs))

        def store(b: Emitter, p: SSAValue, v: SSAValue) -> None:
            raw = self._to_memory(b, v, elt)
            if not ordered:
                b.store(raw, p)
                return
            if sem == "release":
                b.add(llvm_ext.FenceOp("release", scope))
            st = llvm.StoreOp(raw, p, alignment=byte_size(global_type(elt)))
            st.properties["ordering"] = IntegerAttr(llvm_ext.ORDERINGS["monotonic"], i64)
            b.add(st)

        def each(b: Emitter, conds):
            for s, p in enumerate(ptrs):
                cond = self._and(b, masks[s] if masks else None, conds[s])
                self._guarded(b, cond, lambda bb, p=p, v=values[s]: store(bb, p, v), None, None)

        width = 1 if scalar else self._vector_width(op, shape, elt)
        if scalar:
            self._by_thread0(e, lambda b: each(b, [None]), None)
        elif width > 1:
            mt = global_type(elt)
            for s0, conds, fast in self._vector_runs(e, ptrs, masks, guards, width, elt):
                def vector(b: Emitter, s0=s0) -> None:
                    b.store_vector([self._to_memory(b, values[s0 + j], elt) for j in range(width)], mt, ptrs[s0])

                def slow(b: Emitter, s0=s0, conds=conds) -> None:
                    for j, c in enumerate(conds):
                        self._guarded(b, c, lambda bb, p=ptrs[s0 + j], v=values[s0 + j]: store(bb, p, v), None, None)

                e.if_(fast, vector, slow)
            if self.has_loads:
                e.barrier()
        else:
            each(e, guards)
            if self.has_loads:
                e.barrier()
        self.vals[op.results[0]] = None

    def _atomic(self, e, op, operands: list[SSAValue | None], one, fences: bool = False) -> None:
        """Shared by the atomics: ``one(b, ptr, *values)`` per element, guarded by the mask;
        ``fences``: a release fence before this thread's elements and an acquire fence after
        them, as the op's ordering asks."""
        elt = _pointee(op.ptr.type)
        rtype = reg_type(elt)
        scalar, shape, ptrs, vals, guards = self._ptr_operands(op, op.ptr, [*operands, op.mask])
        masks = vals[-1]
        vals = vals[:-1]

        def zero(b: Emitter) -> SSAValue:
            return b.fconst(0.0, rtype) if is_float(rtype) else b.const(0, rtype)

        sem, scope, _ = _order(op)
        release, acquire = fences and sem in ("release", "acq_rel"), fences and sem in ("acquire", "acq_rel")
        holders = not scalar and (release or acquire) and settings.value("TILEORCH_ATOMIC_FENCES") == "holders"
        tail = holders and _in_final_atomics(op)
        barrier_before = holders and release and not (tail and _after_final_atomic(op))
        barrier_after = holders and acquire and not tail
        trim = settings.value("TILEORCH_ATOMIC_FENCE_TRIM") == "1"
        if trim and acquire and _last_access(op):
            acquire = False  # nothing after it for the acquire to order (the kernel's last access)
        # two final atomics in a row of one shape (the same threads hold their elements): the first's acquire and
        # the second's release are one fence.acq_rel after the first, made by the threads live for the first; the
        # second's release is then made only by a thread live for it and not for the first (its masks may differ)
        merged_first = trim and tail and acquire and _merges_with_next(op)
        acquire_order = "acq_rel" if merged_first else "acquire"
        merged = self.__dict__.setdefault("_merged_fences", {})
        first_live = merged.pop(id(op), False) if trim and holders and release and _merges_with_previous(op) else False

        def fence(b: Emitter, ordering: str, live: SSAValue | None) -> None:
            self._guarded(b, live, lambda bb: bb.add(llvm_ext.FenceOp(ordering, scope)), None, None)

        def each(b: Emitter, conds) -> list[SSAValue]:
            def cond(s: int) -> SSAValue | None:  # slot s's element is live
                return self._and(b, masks[s] if masks else None, conds[s])

            live = None
            if holders:  # the predicates first: whether this thread fences
                conds = [cond(s) for s in range(len(ptrs))]
                live, cond = _any(b, conds), conds.__getitem__
            if barrier_before:
                b.barrier()  # the CTA's earlier accesses, whichever thread made them, precede the release
            if release and first_live is False:
                fence(b, "release", live)
            elif release and first_live is not None:  # (None: every thread fenced after the first atomic)
                fenced = b.v(arith.XOrIOp(first_live, b.const(1, i1)))
                fence(b, "release", fenced if live is None else b.v(arith.AndIOp(live, fenced)))
            out = []
            for s, p in enumerate(ptrs):
                args = [v[s] for v in vals]
                out.append(self._guarded(b, cond(s), lambda bb, p=p, args=args: one(bb, p, *args), zero, rtype))
            if acquire:
                fence(b, acquire_order, live)
            if merged_first:
                merged[id(_next_access(op))] = live  # (this block dominates the next atomic's: both at top level)
            if barrier_after:
                b.barrier()  # the CTA's later accesses come after the acquire
            return out

        if scalar:
            out = [self._by_thread0(e, lambda b: each(b, [None])[0], rtype)]
        else:
            out = each(e, guards if guards is not None else self._slot_guards(e, shape, len(ptrs)))
        self.vals[op.results[0]] = self._result(op, scalar, shape, elt, out)
        self.vals[op.results[1]] = None

    def op_nv_tileaa_atomic_rmw(self, e, op):
        elt = _pointee(op.ptr.type)
        mode = op.rmw_mode.value.data
        _, scope, _ = _order(op)
        if op.mem_scope.value.data == "sys":
            raise NotImplementedError("a system-scope atomic_rmw (LLVM's NVPTX backend would emit it at "
                                      "device scope)")
        if isinstance(elt, BFloat16Type) and mode == "addf":
            if self.sm is not None and self.sm < 90:
                raise NotImplementedError(f"atomic_rmw addf on bf16 elements before sm_90 (atom.add.noftz.bf16 "
                                          f"is an sm_90 instruction; the target is sm_{self.sm})")
            self._atomic(e, op, [op.value], _bf16_atomic_add, fences=True)
            return
        if reg_type(elt) != elt:
            raise NotImplementedError(f"atomic_rmw {mode} on {elt} elements")

        def one(b: Emitter, p: SSAValue, v: SSAValue) -> SSAValue:
            return b.v(llvm_ext.AtomicRMWOp(RMW_BIN_OP[mode], p, v, "monotonic", scope))

        self._atomic(e, op, [op.value], one, fences=True)

    def op_nv_tileaa_atomic_cas(self, e, op):
        elt = _pointee(op.ptr.type)
        sem, scope, _ = _order(op)
        if reg_type(elt) != elt:
            raise NotImplementedError(f"atomic_cas on {elt} elements")
        failure = "acquire" if sem in ("acquire", "acq_rel") else "monotonic"
        bits = IntegerType(byte_size(elt) * 8)

        def one(b: Emitter, p: SSAValue, cmp: SSAValue, v: SSAValue) -> SSAValue:
            if is_float(elt):
                cmp, v = b.v(arith.BitcastOp(cmp, bits)), b.v(arith.BitcastOp(v, bits))
            pair = b.v(llvm_ext.CmpXchgOp(p, cmp, v, LLVM_ORDER[sem], failure, scope))
            old = b.v(llvm.ExtractValueOp(position(0), pair, bits))
            return b.v(arith.BitcastOp(old, elt)) if is_float(elt) else old

        self._atomic(e, op, [op.cmp, op.value], one)


ACCESSES = ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store", "nv_tileaa.load", "nv_tileaa.store",
            "nv_tileaa.atomic_rmw", "nv_tileaa.atomic_cas", "nv_tileaa.print", "nv_tileaa.assert")
"""Ops that access memory or have another visible effect (a final atomic run admits none after it)."""


def _final_atomic(op: Operation, like: Operation) -> bool:
    """``op`` is an ordered ``atomic_rmw`` of a tile of ``like``'s shape (a SIMT layout is a function
    of the shape alone: the same threads hold its elements)."""
    a, b = op.results[0].type, like.results[0].type
    return (op.name == "nv_tileaa.atomic_rmw" and isinstance(a, TensorType) and isinstance(b, TensorType)
            and a.get_shape() == b.get_shape() and _order(op)[0] not in ("weak", "relaxed"))


def _in_final_atomics(op: Operation) -> bool:
    """``op`` (an ordered tile ``atomic_rmw``) is in the kernel's final atomics: in the function's
    body, followed until its return by ops without regions that access no memory and by ordered
    atomics of the same shape only.  No thread accesses memory after such an atomic but the
    threads that hold its elements (program order and their own acquire fences order those), so
    no CTA barrier need follow it: the other warps end while the holders fence."""
    block = op.parent_block()
    if block is None or not isinstance(block.parent_op(), Operation) or block.parent_op().name != "nv_tileaa.func":
        return False
    later = list(block.ops)
    for o in later[later.index(op) + 1:]:
        if o.name == "nv_tileaa.return":
            return True
        if o.regions or (o.name in ACCESSES and not _final_atomic(o, op)):
            return False
    return False


def _last_access(op: Operation) -> bool:
    """``op`` is the kernel's last access: in the function's body, followed until its return only by ops
    without regions that access no memory (:data:`ACCESSES`).  An acquire fence after it orders nothing
    (an acquire constrains the accesses that follow it in the thread; the kernel's end orders the rest), and
    without it an atomic whose old value is unused need not be waited for (``TILEORCH_ATOMIC_FENCE_TRIM=1``:
    the cross entropy's 4096-column rows end in two acq_rel atomics fenced four times by thread 0; H100,
    session 32: 0.75 of the copy rate, 0.88 with the atomics relaxed, 0.97 with the loss stored instead)."""
    block = op.parent_block()
    if block is None or not isinstance(block.parent_op(), Operation) or block.parent_op().name != "nv_tileaa.func":
        return False
    later = list(block.ops)
    for o in later[later.index(op) + 1:]:
        if o.name == "nv_tileaa.return":
            return True
        if o.regions or o.name in ACCESSES:
            return False
    return False


def _next_access(op: Operation) -> Operation | None:
    """The op after ``op`` in its block that accesses memory or has regions (None: none before the block's end)."""
    later = list(op.parent_block().ops)
    return next((o for o in later[later.index(op) + 1:] if o.regions or o.name in ACCESSES), None)


def _merged_pair(first: Operation, second: Operation) -> bool:
    """``second`` is the access right after ``first``, both final atomics (:func:`_in_final_atomics`) of one shape
    (the same threads hold their elements), of one scope, the first acquiring and the second releasing:
    ``fence.acquire; fence.release`` between them is one ``fence.acq_rel`` (an acquire fence for the first, a
    release fence for the second) in a thread live for both; a thread live for the second only fences before it."""
    if _next_access(first) is not second or not _in_final_atomics(first) or not _final_atomic(second, first):
        return False
    (s1, scope1, _), (s2, scope2, _) = _order(first), _order(second)
    return scope1 == scope2 and s1 in ("acquire", "acq_rel") and s2 in ("release", "acq_rel")


def _merges_with_next(op: Operation) -> bool:
    nxt = _next_access(op)
    return nxt is not None and _merged_pair(op, nxt)


def _merges_with_previous(op: Operation) -> bool:
    earlier = list(op.parent_block().ops)
    prev = next((o for o in reversed(earlier[:earlier.index(op)]) if o.regions or o.name in ACCESSES), None)
    return prev is not None and _merged_pair(prev, op)


def _after_final_atomic(op: Operation) -> bool:
    """The last op before ``op`` that accesses memory (or has regions) is a final atomic of a tile of
    ``op``'s shape: the threads holding the elements made it, after the CTA barrier before it, and
    the others made no access since, so ``op``'s release needs no new barrier."""
    earlier = list(op.parent_block().ops)
    for o in reversed(earlier[:earlier.index(op)]):
        if o.regions or o.name in ACCESSES:
            return _final_atomic(o, op)
    return False


def _any(b: Emitter, conds: list[SSAValue | None]) -> SSAValue | None:
    """Whether this thread holds a live element: the ``or`` of the slots' predicates (None, always,
    when some slot has none)."""
    if not conds or any(c is None for c in conds):
        return None
    live = conds[0]
    for c in conds[1:]:
        live = b.v(arith.OrIOp(live, c))
    return live


def _bf16_atomic_add(b: Emitter, p: SSAValue, v: SSAValue) -> SSAValue:
    """``atom.global.add.noftz.bf16`` (sm_90) of the f32-held value rounded to bf16 (``cvt.rn``) at
    ``p``, relaxed at ``.gpu`` scope (the fences of :meth:`PointerLowering._atomic` order it); the old
    element widened back to f32.  An inline instruction: LLVM IR through llvmlite has no
    ``bfloat`` for an ``atomicrmw fadd``."""
    addr = b.v(llvm.PtrToIntOp(p, i64))
    # inline assembly: a bf16 atomicrmw fadd needs a bfloat value, a type tileorch's LLVM IR does not carry
    old = b.v(llvm.InlineAsmOp("atom.global.add.noftz.bf16 $0, [$1], $2;", "=h,l,h", [addr, b.f32_to_bf16_bits(v)],
                               [i16], has_side_effects=True))
    return b.bf16_bits_to_f32(old)


__all__ = ["PointerLowering", "SYNCSCOPE", "contiguous_access_width"]
