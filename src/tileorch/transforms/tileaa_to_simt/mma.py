"""The SIMT lowering's ``nv_tileaa.dot`` on tensor cores: warp-level ``mma.sync``
(``nvvm.mma.sync``) over operands staged in shared memory.

Which dots (:func:`plan_dot`, also the driver's remark per dot): on sm_80+, A and B of one of

* f16 (``m16n8k16``; an f32 accumulator, or an f16 one: the products are summed in f32 and the
  result rounded to f16 once),
* bf16 (``m16n8k16``, f32 accumulator),
* tf32 (each element rounded to nearest with ``cvt.rn.tf32.f32``) (``m16n8k8``, f32 accumulator),
* f32 (cuTile's f32 dot, which tileiras computes in f32): to f32 accuracy as "3xTF32", each
  element split into a tf32 big part ``hi`` (``x`` with its 13 low mantissa bits cleared: exact,
  never overflows) and a tf32 small part ``lo = tf32(x - hi)`` (``|x - hi| < 2^-10 |x|``), and each
  atom's product as the three ``m16n8k8`` tf32 products ``a_lo b_hi' + a_hi' b_lo + a_hi b_hi``
  (small terms first; the dropped ``a_lo b_lo`` is below 2^-20 of ``|a b|``), where ``hi'`` and
  ``lo`` are 0 for an infinite or NaN ``x`` (``x - hi`` is NaN): the cross terms never make
  ``inf * 0``, the big product carries IEEE's infinities and NaNs; three planes per operand; each
  dot's products are summed from zero on the tensor cores (whose f32 sums truncate) and added to
  the accumulator once with a rounded ``add.f32``;
  ``TILEORCH_F32_DOT=tf32`` runs f32 dots as one tf32 product (``F32_DOT_ENV``, part of the compile
  cache's key),
* i8 read signed or unsigned per operand (``m16n8k32``, i32 accumulator),
* e4m3/e5m2 on sm_89+ (``m16n8k32``, f32 accumulator);

any other dot keeps the scalar loop of ``FunctionLowering.op_nv_tileaa_dot`` (the remark says why), so
does every dot when the environment sets ``TILEORCH_SIMT_MMA=0`` (for measuring the difference; part
of the compile cache's key).

How (a mixin of ``FunctionLowering``, :meth:`MmaDotLowering._dot_on_mma`), with ``e`` elements per
32-bit word (2 for 16-bit types, 1 for tf32, 4 for 8-bit ones), so that every atom's K is 8 words:

1. after a barrier, every thread writes its slots of A (a run of its blocked layout along K as one
   vector store) and of B into the scratch in the form the fragments read: ``A'[batch][Mp][W]`` (row ``m``, K along a row) and ``B'[batch][Np][W]`` (B
   transposed: row ``n``, K along a row), each element as its mma type's bits (bf16 through
   ``cvt.rn.bf16.f32``, tf32 rounded, fp8 through ``cvt.rn.satfinite``: exact for elements of those
   types); ``Mp``/``Np`` are M and N rounded up to 16 and 8, a row is ``W`` words, K rounded up to
   the atom plus 4 words (``W % 8 == 4``: the 8 rows x 4 words a fragment load touches fall in 32
   distinct banks); padding rows and K past the end are zeroed first (one more barrier) when the
   tile is ragged against the atom.  The accumulator is written to ``D[batch][Mp][Np]`` (f32, or i32)
   unless it is one constant (then the C fragments are that constant); barrier;
2. work item = (batch, a 16-row block, ``wn`` consecutive 8-column blocks), items dealt to the
   warps round-robin; per item a warp reads its C fragments from ``D``, runs ``mma.sync`` over K
   (fragments of A: words ``(g, t)``, ``(g + 8, t)``, ``(g, t + 4)``, ``(g + 8, t + 4)`` of the
   atom's 16 x 8-word block of ``A'``; of B: ``(g, t)``, ``(g, t + 4)`` of the 8 x 8-word block of
   ``B'``, ``g = lane / 4``, ``t = lane % 4``: the PTX ISA's layouts for all these shapes, which is
   what ``ldmatrix`` of the 8-row x 4-word quarters gives each lane, whatever the element type: one
   ``ldmatrix.x4`` for A, one per two column blocks for B) and writes D back over C
   (``(g, 2t..2t+1)`` and ``(g + 8, 2t..2t+1)``);
3. barrier; every thread reads its accumulator slots from ``D``.

``mma.sync`` runs with every lane of a warp: the item loop's bounds are constants and a guard
``item < items`` is uniform per warp.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (BFloat16Type, Float16Type, Float32Type, Float64Type, FloatTF32Type, IntegerType,
                                   VectorType, f16, f32, i8, i16, i32)
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch import settings
from tileorch.diagnostics import format_error
from tileorch.dialects import llvm_ext
from tileorch.dialects.nv_tileaa.ops import dot_signedness
from tileorch.lazy_import import lazy_module
from tileorch.transforms.tileaa_to_simt.emit import FP8_KINDS, SHARED_PTR, Emitter, Tile, position

payload = lazy_module("tileorch.dialects.nvvm_payload")  # mma.sync ops: imported when a dot is lowered

MMA_ENV = "TILEORCH_SIMT_MMA"
F32_DOT_ENV = "TILEORCH_F32_DOT"
"""``tf32``: f32 x f32 dots run as tf32 products (10-bit mantissas), on the tensor-core tiers too;
anything else (the default ``f32``): to f32 accuracy (3xTF32 on the SIMT path's ``mma.sync``)."""


def f32_dots_as_tf32() -> bool:
    """Whether f32 x f32 dots may run as tf32 (``TILEORCH_F32_DOT=tf32``)."""
    return settings.value(F32_DOT_ENV) == "tf32"


def is_f32_dot(op: Operation) -> bool:
    """Whether the ``nv_tileaa.dot`` ``op`` multiplies f32 by f32 tiles (cuTile's f32 dot, computed
    to f32 accuracy; operands converted to tf32 by the program are tf32 tiles, not these)."""
    return all(isinstance(v.type.element_type, Float32Type) for v in (op.lhs, op.rhs))
MAX_SCRATCH = 227 * 1024
"""Shared memory a Hopper CTA may opt into (as ``MAX_DYNAMIC_SMEM`` of the SIMT lowering)."""
ITEM_BLOCKS = 4
"""8-column blocks a warp computes per work item (sharing the item's A fragments), at most."""


@dataclass(frozen=True)
class MmaPlan:
    """How one dot runs on ``mma.sync``: the operands' mma types, the accumulator kind
    (``"f32"``, ``"f16"``: summed in f32, ``"s32"``) and the dot's static shape."""

    type_a: payload.MMATypes
    type_b: payload.MMATypes
    acc: str
    batch: tuple[int, ...]
    m: int
    n: int
    k: int
    split: bool = False
    """3xTF32: the f32 operands as big and small tf32 parts, three products per atom."""
    chunk: int = 0
    """K steps (atoms along K) staged at a time, when the whole K does not fit the shared memory
    (0: all of them at once)."""

    @property
    def per_word(self) -> int:
        """Elements per 32-bit word of a fragment."""
        return {payload.MMATypes.TF32: 1, payload.MMATypes.F16: 2, payload.MMATypes.BF16: 2}.get(self.type_a, 4)

    @property
    def atom(self) -> tuple[int, int, int]:
        return payload.MMA_SYNC_SHAPES[self.type_a]

    def describe(self) -> str:
        m, n, k = self.atom
        types = self.type_a.value if self.type_a == self.type_b else f"{self.type_a.value} x {self.type_b.value}"
        out = "f32, rounded to the f16 accumulator" if self.acc == "f16" else self.acc
        if self.split:
            return (f"mma.sync m{m}n{n}k{k} tf32 -> f32, three per atom to f32 accuracy (3xTF32: each f32 "
                    f"operand split into big and small tf32 parts; TILEORCH_F32_DOT=tf32 for one tf32 product)")
        return f"mma.sync m{m}n{n}k{k} {types} -> {out}"


def _mma_type(t: Attribute, signed: bool, sm: int) -> payload.MMATypes | str:
    """The mma type of operand element ``t``, or why there is none."""
    if isinstance(t, Float16Type):
        return payload.MMATypes.F16
    if isinstance(t, BFloat16Type):
        return payload.MMATypes.BF16
    if isinstance(t, Float32Type | FloatTF32Type):
        return payload.MMATypes.TF32
    if isinstance(t, IntegerType) and t.width.data == 8:
        return payload.MMATypes.S8 if signed else payload.MMATypes.U8
    if type(t) in FP8_KINDS:
        if sm < 89:
            return f"{t} operands need sm_89 or newer for mma.sync"
        return payload.MMATypes(FP8_KINDS[type(t)])
    if isinstance(t, Float64Type):  # (PTX has one: mma.sync .f64, DMMA, from sm_80)
        return "this lowering's mma.sync takes no f64 operands (the f64 mma.sync, DMMA, is not supported yet)"
    return f"this lowering's mma.sync takes no {t} operands"


def plan_dot(op: Operation, sm: int | None) -> MmaPlan | str:
    """The :class:`MmaPlan` of the ``nv_tileaa.dot`` ``op`` on a target of compute capability
    ``sm``, or why it keeps the scalar loop."""
    if settings.value(MMA_ENV) == "0":
        return f"mma.sync turned off ({MMA_ENV}=0)"
    if sm is None or sm < 80:
        return "mma.sync needs sm_80 or newer" + ("" if sm is None else f" (the target is sm_{sm})")
    a_t, b_t, acc_t = (v.type for v in (op.lhs, op.rhs, op.acc))
    shapes = [tuple(t.get_shape()) for t in (a_t, b_t, acc_t)]
    if any(d < 0 for s in shapes for d in s):
        return "dynamic tile shapes"
    (a_s, b_s, c_s) = shapes
    if not (a_s[:-2] == b_s[:-2] == c_s[:-2]):
        return "operands of different batch shapes"
    signed_a, signed_b = dot_signedness(op)
    ta, tb = _mma_type(a_t.element_type, signed_a, sm), _mma_type(b_t.element_type, signed_b, sm)
    for why in (ta, tb):
        if not isinstance(why, payload.MMATypes):  # (an MMATypes is a str too)
            return why
    integer = (payload.MMATypes.S8, payload.MMATypes.U8)
    fp8 = (payload.MMATypes.E4M3, payload.MMATypes.E5M2)
    if ta != tb and not ((ta in integer and tb in integer) or (ta in fp8 and tb in fp8)):
        return f"{a_t.element_type} x {b_t.element_type} operands"
    acc = acc_t.element_type
    if ta in integer:
        kind = "s32" if acc == i32 else None
    elif isinstance(acc, Float32Type):
        kind = "f32"
    elif isinstance(acc, Float16Type) and ta == payload.MMATypes.F16:
        kind = "f16"
    else:
        kind = None
    if kind is None:
        return f"a {acc} accumulator for {ta.value} operands"
    split = is_f32_dot(op) and not f32_dots_as_tf32()
    plan = MmaPlan(ta, tb, kind, a_s[:-2], a_s[-2], b_s[-1], a_s[-1], split)
    steps = _blocks(plan)[2]
    for chunk in (0, *range(-(-steps // 2), 0, -1)):  # all of K, else the fewest chunks that fit
        chunked = replace(plan, chunk=chunk)
        if (chunk == 0 or chunk < steps) and sum(_regions(chunked)) <= MAX_SCRATCH:
            return chunked
    return f"its operands in mma form need more than {MAX_SCRATCH} bytes of shared memory"


def _blocks(plan: MmaPlan) -> tuple[int, int, int]:
    """(row blocks, column blocks, K steps) of the plan's atom over its padded tile."""
    am, an, ak = plan.atom
    return -(-plan.m // am), -(-plan.n // an), -(-plan.k // ak)


def _row_words(plan: MmaPlan) -> int:
    """Words of a row of ``A'``/``B'``: the K steps' (of a chunk) 8 words each, plus 4 (bank skew)."""
    return 8 * (plan.chunk or _blocks(plan)[2]) + 4


def _regions(plan: MmaPlan) -> tuple[int, int, int]:
    """Bytes of ``A'``, ``B'`` and ``D`` (each a multiple of 16; a split plan's ``A'`` and ``B'``
    are three planes each: the big parts, the big parts of finite elements, the small parts)."""
    mb, nb, _ = _blocks(plan)
    batch = 1
    for d in plan.batch:
        batch *= d
    w = _row_words(plan)
    planes = 3 if plan.split else 1
    return (planes * batch * mb * 16 * w * 4, planes * batch * nb * 8 * w * 4,
            -(-batch * mb * 16 * nb * 8 * 4 // 16) * 16)


def dot_remarks(module: Operation, sm: int | None) -> list[str]:
    """One located ``remark:`` per ``nv_tileaa.dot`` of ``module``: how the SIMT path computes it."""
    out = []
    for op in module.walk():
        if op.name != "nv_tileaa.dot":
            continue
        plan = plan_dot(op, sm)
        shape = "x".join(str(d) for d in op.acc.type.get_shape()) + f"x{op.lhs.type.get_shape()[-1]}"
        if isinstance(plan, MmaPlan):
            out.append(format_error(op, f"the SIMT path computes this {shape} dot on tensor cores with "
                                        f"{plan.describe()} (operands through shared memory)", "remark"))
        else:
            out.append(format_error(op, f"the SIMT path computes this {shape} dot with scalar FMA loops, "
                                        f"slowly: {plan}", "remark"))
    return out


class MmaDotLowering:
    """``nv_tileaa.dot`` on ``mma.sync`` (a mixin of ``FunctionLowering``: uses its ``threads``,
    ``smem``, ``scratch_bytes``, ``flat``, ``ragged``)."""

    def _dot_on_mma(self, e: Emitter, plan: MmaPlan, a: Tile, b: Tile, acc: Tile) -> Tile:
        mb, nb, ks = _blocks(plan)
        mp, np_ = mb * 16, nb * 8
        w = _row_words(plan)
        size_a, size_b, size_d = _regions(plan)
        off_a, off_b, off_d = 0, size_a, size_a + size_b
        self.scratch_bytes = max(self.scratch_bytes, off_d + size_d)
        konst = _constant(e, acc)
        esize = 4 // plan.per_word
        lo_a, lo_b = (size_a // 3, size_b // 3) if plan.split else (None, None)
        d_index = self._d_index(plan, mp, np_)
        ak = plan.atom[2]
        per = plan.chunk or ks  # K steps staged at a time
        for c in range(-(-ks // per)):  # K in chunks of `per` steps when all of it does not fit
            steps = min(per, ks - c * per)
            k0, klen = c * per * ak, min(per * ak, plan.k - c * per * ak)
            window = (k0, klen) if plan.chunk else None
            e.barrier()
            if (c == 0 and (mp != plan.m or np_ != plan.n)) or klen != steps * ak:
                self._zero_words(e, (size_a + size_b) // 4)  # padding rows, K past the end (and a chunk's stale K)
                e.barrier()
            self._stage_operand(e, a, plan.type_a, off_a, mp, w, esize, transposed=False, lo=lo_a, window=window)
            self._stage_operand(e, b, plan.type_b, off_b, np_, w, esize, transposed=True, lo=lo_b, window=window)
            if konst is None and c == 0:
                for s, v in enumerate(acc.slots):
                    f = self.flat(e, s, acc.shape)

                    def write(b_: Emitter, f=f, v=v):
                        value = b_.v(arith.ExtFOp(v, f32)) if plan.acc == "f16" else v
                        b_.store(value, self._d_ptr(b_, off_d, d_index(b_, f, acc.shape)))

                    if self.ragged(acc.shape):
                        e.if_(e.in_range(f, acc.numel), write)
                    else:
                        write(e)
            e.barrier()
            self._mma_items(e, plan, (off_a, off_b, off_d), w, konst if c == 0 else None, (lo_a or 0, lo_b or 0),
                            steps)
        e.barrier()
        out = []
        for s in range(len(acc.slots)):
            f = self.flat(e, s, acc.shape)
            if self.ragged(acc.shape):
                f = e.v(arith.SelectOp(e.in_range(f, acc.numel), f, e.const(0)))
            v = e.load(self._d_ptr(e, off_d, d_index(e, f, acc.shape)), i32 if plan.acc == "s32" else f32)
            out.append(e.v(arith.TruncFOp(v, f16)) if plan.acc == "f16" else v)
        return Tile(acc.shape, acc.element, out)

    # -- staging ------------------------------------------------------------------------------
    def _zero_words(self, e: Emitter, words: int) -> None:
        """Zero the first ``words`` 32-bit words of the scratch (every thread a share)."""
        rounds = -(-words // self.threads)
        zero = e.const(0)

        def one(b: Emitter, r: SSAValue, _):
            at = b.add_i(b.mul_i(r, b.const(self.threads)), b.tid)

            def store(bb: Emitter):
                bb.store(zero, bb.gep(self.smem, at, i32, SHARED_PTR))

            if rounds * self.threads != words:
                b.if_(b.in_range(at, words), store)
            else:
                store(b)
            return []

        e.for_(e.const(0), e.const(rounds), e.const(1), [], one)

    def _stage_operand(self, e: Emitter, t: Tile, mma: payload.MMATypes, offset: int, rows: int, w: int, esize: int,
                       transposed: bool, lo: int | None = None, window: tuple[int, int] | None = None) -> None:
        """Write the slots of operand ``t`` as ``X'[batch][rows][w words]`` at byte ``offset``:
        A's element ``(.., m, k)`` in row ``m``, B's ``(.., k, n)`` (``transposed``) in row ``n``;
        with ``lo`` (3xTF32), the big tf32 parts there, those of finite elements ``lo`` bytes after
        and the small parts ``2 lo`` bytes after; with ``window = (k0, klen)`` only the elements of K
        ``k0 .. k0 + klen - 1``, at K ``k - k0`` (a chunk of K)."""
        vec = self.vec(t.shape)
        # A's runs lie along K, contiguous in A' too: one vector store of a run (4 to 16 bytes,
        # aligned: rows are multiples of 16 bytes, runs start at multiples of their size)
        run = vec if not transposed and vec > 1 and t.shape[-1] % vec == 0 and vec * esize in (4, 8, 16) else 1
        for s0 in range(0, len(t.slots), run):
            f = self.flat(e, s0, t.shape)
            if lo is None:
                planes = [(0, [_mma_bits(e, v, mma, t.element) for v in t.slots[s0:s0 + run]])]
            else:
                parts = [_split_tf32(e, v) for v in t.slots[s0:s0 + run]]
                planes = [(j * lo, [p[j] for p in parts]) for j in range(3)]
            for plane, bits in planes:
                self._write_staged(e, t, f, bits, offset + plane, rows, w, esize, transposed, window)

    def _write_staged(self, e: Emitter, t: Tile, f: SSAValue, bits: list[SSAValue], offset: int, rows: int, w: int,
                      esize: int, transposed: bool, window: tuple[int, int] | None = None) -> None:
        """Store the words ``bits`` of ``t``'s run at flat index ``f`` into its staged plane at byte
        ``offset`` (a vector store for a run; guarded where the tile is ragged, and to the K window's
        elements with one: runs never straddle its bounds, multiples of the atom's K)."""
        elem = {1: i8, 2: i16, 4: i32}[esize]

        def write(b: Emitter, f=f, bits=bits):
            coords = b.unravel(f, t.shape)
            batch = b.ravel(coords[:-2], t.shape[:-2]) if len(t.shape) > 2 else None
            row, k = (coords[-1], coords[-2]) if transposed else (coords[-2], coords[-1])
            if window is not None:
                k = b.v(arith.SubiOp(k, b.const(window[0])))
                b.if_(b.in_range(k, window[1]), lambda bb: self._store_staged(bb, batch, row, k, bits, offset, rows,
                                                                              w, esize, elem))
                return
            self._store_staged(b, batch, row, k, bits, offset, rows, w, esize, elem)

        if self.ragged(t.shape):
            e.if_(e.in_range(f, t.numel), write)
        else:
            write(e)

    def _store_staged(self, b: Emitter, batch, row, k, bits, offset, rows, w, esize, elem) -> None:
        """Store ``bits`` at (batch, row, k) of the staged plane at byte ``offset``."""
        if batch is not None:
            row = b.add_i(b.mul_i(batch, b.const(rows)), row)
        pos = b.add_i(b.mul_i(row, b.const(w * 4 // esize)), k)
        if offset:
            pos = b.add_i(pos, b.const(offset // esize))
        ptr = b.gep(self.smem, pos, elem, SHARED_PTR)
        if len(bits) == 1:
            b.store(bits[0], ptr)
            return
        value = b.v(llvm_ext.PoisonOp(VectorType(bits[0].type, [len(bits)])))
        for j, x in enumerate(bits):
            value = b.v(llvm.InsertElementOp(value, x, b.const(j)))
        b.add(llvm.StoreOp(value, ptr, alignment=len(bits) * esize))

    def _d_index(self, plan: MmaPlan, mp: int, np_: int):
        """``index(e, f, shape)``: the ``D`` element of the accumulator's flat index ``f``."""
        if mp == plan.m and np_ == plan.n:
            return lambda e, f, shape: f

        def index(e: Emitter, f: SSAValue, shape) -> SSAValue:
            coords = e.unravel(f, shape)
            return e.ravel(coords, (*shape[:-2], mp, np_))

        return index

    def _d_ptr(self, e: Emitter, off_d: int, index: SSAValue) -> SSAValue:
        return e.gep(self.smem, e.add_i(index, e.const(off_d // 4)), i32, SHARED_PTR)

    # -- the warps' work -------------------------------------------------------------------------
    def _mma_items(self, e: Emitter, plan: MmaPlan, offsets: tuple[int, int, int], w: int,
                   konst: SSAValue | None, lo: tuple[int, int] = (0, 0), steps: int | None = None) -> None:
        """The warps' ``mma.sync`` work items over the staged operands (a split plan: the planes of
        finite big parts ``lo`` bytes after ``A'`` and ``B'``, the small parts ``2 lo`` after)."""
        off_a, off_b, off_d = offsets
        lo_a, lo_b = lo[0] // 4, lo[1] // 4  # in words
        mb, nb, ks = _blocks(plan)
        ks = ks if steps is None else steps  # the K steps of the staged chunk
        mp, np_ = mb * 16, nb * 8
        wn = next(x for x in (ITEM_BLOCKS, 2, 1) if nb % x == 0)
        groups = nb // wn
        batch = 1
        for d in plan.batch:
            batch *= d
        items = batch * mb * groups
        warps = self.threads // 32
        rounds = -(-items // warps)
        warp = e.v(arith.ShRUIOp(e.tid, e.const(5)))
        lane = e.v(arith.AndIOp(e.tid, e.const(31)))
        g = e.v(arith.ShRUIOp(lane, e.const(2)))
        t = e.v(arith.AndIOp(lane, e.const(3)))
        r8 = e.v(arith.AndIOp(lane, e.const(7)))  # ldmatrix: the row this lane addresses ...
        j_lo = e.v(arith.AndIOp(e.v(arith.ShRUIOp(lane, e.const(3))), e.const(1)))  # ... of matrix 2 j_hi + j_lo
        j_hi = e.v(arith.ShRUIOp(lane, e.const(4)))
        acc_type = i32 if plan.acc == "s32" else f32
        reg = VectorType(f16, [2]) if plan.type_a == payload.MMATypes.F16 else i32

        def item_body(b: Emitter, item: SSAValue) -> None:
            bi = b.v(arith.DivUIOp(item, b.const(mb * groups)))
            rest = b.v(arith.RemUIOp(item, b.const(mb * groups)))
            bm, bg = b.v(arith.DivUIOp(rest, b.const(groups))), b.v(arith.RemUIOp(rest, b.const(groups)))
            row = b.add_i(b.add_i(b.mul_i(bi, b.const(mp)), b.mul_i(bm, b.const(16))), g)  # D / A' row of c0
            col0 = b.add_i(b.mul_i(bg, b.const(wn * 8)), b.mul_i(t, b.const(2)))  # D column of c0, block 0
            # ldmatrix: lane 8j + r gives row r of matrix j; A's four matrices are (rows 0-7, words
            # 0-3), (rows 8-15, words 0-3), (rows 0-7, words 4-7), (rows 8-15, words 4-7) of the
            # atom's block (registers a0..a3); B's x4 covers two column blocks: (block c, words
            # 0-3), (c, 4-7), (c + 1, 0-3), (c + 1, 4-7) (b0, b1 of each)
            a_row = b.add_i(b.add_i(b.mul_i(bi, b.const(mp)), b.mul_i(bm, b.const(16))),
                            b.add_i(r8, b.mul_i(j_lo, b.const(8))))
            a_word = b.add_i(b.add_i(b.mul_i(a_row, b.const(w)), b.mul_i(j_hi, b.const(4))), b.const(off_a // 4))
            n_row = b.add_i(b.add_i(b.mul_i(bi, b.const(np_)), b.mul_i(bg, b.const(wn * 8))),
                            b.add_i(r8, b.mul_i(j_hi, b.const(8))))
            b_word = b.add_i(b.add_i(b.mul_i(n_row, b.const(w)), b.mul_i(j_lo, b.const(4))), b.const(off_b // 4))
            # C fragment j of block c: row + 8 * (j >= 2), column col0 + 8 * c + j % 2
            d_at = [[b.add_i(b.mul_i(b.add_i(row, b.const(8 * (j // 2))), b.const(np_)),
                             b.add_i(col0, b.const(8 * c + j % 2))) for j in range(4)] for c in range(wn)]
            if konst is not None:
                init = [konst] * (4 * wn)
            else:
                init = [b.load(self._d_ptr(b, off_d, d_at[c][j]), acc_type) for c in range(wn) for j in range(4)]
            base = None
            if plan.split:  # 3xTF32: the products summed from zero, then added to C once, rounded to nearest
                base, init = init, [b.fconst(0.0)] * (4 * wn)  # (the tensor cores' f32 sums truncate)

            def k_step(lb: Emitter, ks_i: SSAValue | None, accs: list[SSAValue]) -> list[SSAValue]:
                kw = lb.mul_i(ks_i, lb.const(8)) if ks_i is not None else None

                def matrices(base: SSAValue, extra: int, num: int) -> list[SSAValue]:
                    at = base if kw is None else lb.add_i(base, kw)
                    if extra:
                        at = lb.add_i(at, lb.const(extra))
                    got = lb.v(payload.LdMatrixOp(lb.gep(self.smem, at, i32, SHARED_PTR), num))
                    words = [lb.v(llvm.ExtractValueOp(position(i), got, i32)) for i in range(num)] if num > 1 else [got]
                    return [lb.v(llvm.BitcastOp(x, reg)) for x in words] if reg != i32 else words

                def b_fragments(extra: int) -> list[SSAValue]:
                    got = []
                    for c in range(0, wn, 2):
                        got += matrices(b_word, 8 * c * w + extra, 4 if c + 1 < wn else 2)
                    return got

                frag_a, frag_b = matrices(a_word, 0, 4), b_fragments(0)
                # 3xTF32: a_lo b_hi', then a_hi' b_lo, then a_hi b_hi (the small terms first)
                pairs = ([(matrices(a_word, 2 * lo_a, 4), b_fragments(lo_b)),
                          (matrices(a_word, lo_a, 4), b_fragments(2 * lo_b)), (frag_a, frag_b)]
                         if plan.split else [(frag_a, frag_b)])
                out = []
                for c in range(wn):
                    acc_c = accs[4 * c:4 * c + 4]
                    for fa, fb in pairs:
                        d = lb.v(payload.MmaSyncOp(fa, fb[2 * c:2 * c + 2], acc_c, plan.type_a, plan.type_b))
                        acc_c = [lb.v(llvm.ExtractValueOp(position(j), d, acc_type)) for j in range(4)]
                    out += acc_c
                return out

            if ks == 1:
                accs = k_step(b, None, init)
            else:
                accs = b.for_(b.const(0), b.const(ks), b.const(1), init, k_step)
            if base is not None:
                accs = [b.v(arith.AddfOp(x, y)) for x, y in zip(base, accs)]
            for c in range(wn):
                for j in range(4):
                    b.store(accs[4 * c + j], self._d_ptr(b, off_d, d_at[c][j]))

        def round_body(b: Emitter, r: SSAValue, _) -> list[SSAValue]:
            item = b.add_i(b.mul_i(r, b.const(warps)), warp)
            if rounds * warps != items:  # uniform per warp: whole warps skip the last round
                b.if_(b.in_range(item, items), lambda bb: item_body(bb, item))
            else:
                item_body(b, item)
            return []

        if rounds == 1:
            round_body(e, e.const(0), [])
        else:
            e.for_(e.const(0), e.const(rounds), e.const(1), [], round_body)


def _constant(e: Emitter, acc: Tile) -> SSAValue | None:
    """The one constant every slot of ``acc`` holds (as an f32 for an f16 accumulator), or None."""
    first = acc.slots[0]
    if any(v is not first for v in acc.slots) or not isinstance(first.owner, arith.ConstantOp):
        return None
    if isinstance(first.type, Float16Type):
        return e.fconst(first.owner.value.value.data, f32)
    return first


def _split_tf32(e: Emitter, v: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """The f32 ``v`` as 3xTF32's three words: ``hi`` (``v``'s 13 low mantissa bits cleared), ``hi'``
    (``hi``, or 0 where ``v`` is infinite or NaN) and ``lo = tf32(v - hi)`` (0 there too: ``v - hi``
    is NaN exactly there)."""
    hi_bits = e.v(arith.AndIOp(e.v(arith.BitcastOp(v, i32)), e.const(-(1 << 13))))
    rest = e.v(arith.SubfOp(v, e.v(arith.BitcastOp(hi_bits, f32))))
    finite = e.v(arith.CmpfOp(rest, rest, "ord"))
    zero = e.const(0)
    lo = e.v(arith.BitcastOp(e.round_to_tf32(rest), i32))
    return hi_bits, e.v(arith.SelectOp(finite, hi_bits, zero)), e.v(arith.SelectOp(finite, lo, zero))


def _mma_bits(e: Emitter, v: SSAValue, mma: payload.MMATypes, elt: Attribute) -> SSAValue:
    """The bits of register value ``v`` (an element of type ``elt``) as the mma type ``mma`` reads
    them: f16 itself, bf16 as ``i16``, tf32 as ``i32`` (rounded to nearest), 8-bit types as ``i8``."""
    if mma == payload.MMATypes.F16:
        return v
    if mma == payload.MMATypes.BF16:
        return e.f32_to_bf16_bits(v)
    if mma == payload.MMATypes.TF32:
        return e.v(arith.BitcastOp(e.round_to_tf32(v), i32))
    if mma in (payload.MMATypes.E4M3, payload.MMATypes.E5M2):
        return e.f32_to_f8_bits(v, elt)
    return v


__all__ = ["F32_DOT_ENV", "ITEM_BLOCKS", "MMA_ENV", "MmaDotLowering", "MmaPlan", "dot_remarks", "f32_dots_as_tf32",
           "is_f32_dot", "plan_dot"]
