"""Packing two f32 values as the 16-bit pair of a WGMMA register operand (``cvt.rn.{f16,bf16}x2.f32``),
shared by the chained-dots lowering (P as the second dot's register A) and the GEMM lowering's
computed operands (:func:`~tileorch.transforms.tileas.convert_to_cutlass.stage_computed_b`)."""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, i32
from xdsl.ir import Operation, SSAValue

from tileorch.transforms.tileaa_to_simt.emit import Emitter


def rounded_from(v: SSAValue) -> SSAValue:
    """The f32 value that ``v`` is a 16-bit rounding of, when ``v`` is one (``truncf`` of an f32,
    or its ``extf`` back to f32, or the f32 of ``cvt.rn.bf16.f32`` bits), else ``v``: packing with
    ``cvt.rn.{f16,bf16}x2.f32`` rounds the f32 to the same bits, so a cast to the operand type
    followed by the pack costs one instruction per pair instead of three per element."""
    op = v.owner
    if isinstance(op, arith.ExtFOp) and isinstance(op.input.type, (Float16Type, BFloat16Type)):
        v, op = op.input, op.input.owner
    if isinstance(op, arith.TruncFOp) and isinstance(op.input.type, Float32Type):
        return op.input
    if isinstance(op, arith.BitcastOp) and isinstance(op.input.owner, arith.ShLIOp):  # bf16 bits -> f32
        ext = op.input.owner.lhs.owner
        asm = ext.input.owner if isinstance(ext, arith.ExtUIOp) else None
        if isinstance(asm, llvm.InlineAsmOp) and asm.asm_string.data == "cvt.rn.bf16.f32 $0, $1;":
            return asm.operands[0]
    return v


def pack16(e: Emitter, lo: SSAValue, hi: SSAValue, dtype: str, volatile: bool = False) -> SSAValue:
    """Two values packed as the ``dtype`` pair of a WGMMA register-A operand (``lo`` in the low
    half), rounded once from f32 (:func:`rounded_from`); ``volatile``: the ``cvt`` stays where it
    is emitted (the chained lowering's ``_pack_after_wait``)."""
    lo, hi = (e.to_f32(rounded_from(x)) for x in (lo, hi))
    return e.v(llvm.InlineAsmOp(f"cvt.rn.{dtype}x2.f32 $0, $1, $2;", "=r,f,f", [hi, lo], [i32],
                                has_side_effects=volatile))


def pack16_exact(e: Emitter, lo: SSAValue, hi: SSAValue, dtype: str) -> SSAValue:
    """:func:`pack16`, pinned where it is emitted (``volatile``), except that two values already of the
    ``dtype`` operand type that are not a rounding of an f32 (an f16 product, a ``maximum`` of f16
    elements) are packed by their bits, ``mov.b32 {lo, hi}`` (exact: the same bits as through f32 and
    back), also pinned: a register A's fragment, written only after the WGMMAs reading it retired."""
    from xdsl.dialects.builtin import i16

    if str(lo.type) == dtype == str(hi.type) and rounded_from(lo) is lo and rounded_from(hi) is hi:
        halves = [e.v(arith.BitcastOp(x, i16)) for x in (lo, hi)]
        return e.v(llvm.InlineAsmOp("mov.b32 $0, {$1, $2};", "=r,h,h", halves, [i32], has_side_effects=True))
    return pack16(e, lo, hi, dtype, volatile=True)


def rounded_from_fp8(v: SSAValue) -> SSAValue:
    """The f32 value that ``v`` is an fp8 rounding of, when ``v`` is one (the SIMT emitter's ``round_to_fp8``:
    ``llvm.nvvm.ff.to.{e4m3,e5m2}x2.rn`` of the f32, its low byte widened back through ``cvt.rn.f16x2``), else
    ``v``: packing with ``cvt.rn.satfinite.{e4m3,e5m2}x2.f32`` rounds the f32 to the same byte (nearest even,
    saturating: what cuTile's ``astype`` to an 8-bit float means, ``emit.FP8_KINDS``), so a cast to fp8 followed
    by the pack costs the pack alone."""
    op = v.owner
    if not (isinstance(op, arith.ExtFOp) and isinstance(op.input.type, Float16Type)):
        return v
    half = op.input.owner
    pair = half.operands[0].owner if isinstance(half, Operation) and half.operands else None
    if not (isinstance(pair, llvm.CallIntrinsicOp) and pair.intrin.data.endswith("x2.to.f16x2.rn")):
        return v
    ext = pair.operands[0].owner
    trunc = ext.operands[0].owner if isinstance(ext, arith.ExtUIOp) else None
    call = trunc.operands[0].owner if isinstance(trunc, arith.TruncIOp) else None
    if isinstance(call, llvm.CallIntrinsicOp) and call.intrin.data.startswith("llvm.nvvm.ff.to.") and \
            len(call.operands) == 2:
        return call.operands[1]  # (the low byte: the second operand)
    return v


def pack8x4(e: Emitter, vals: list[SSAValue], dtype: str, volatile: bool = False) -> SSAValue:
    """Four values packed as the four ``dtype`` (``e4m3`` / ``e5m2``) bytes of one 32-bit WGMMA register-A operand
    (``vals[0]`` in the lowest byte), each rounded once from f32 (:func:`rounded_from_fp8`): two
    ``cvt.rn.satfinite.{dtype}x2.f32`` (the first source operand in the high byte) and one ``mov.b32 {lo, hi}``.
    ``volatile``: the instructions stay where they are emitted (as :func:`pack16`'s)."""
    from xdsl.dialects.builtin import i16

    xs = [e.to_f32(rounded_from_fp8(x)) for x in vals]
    halves = [e.v(llvm.InlineAsmOp(f"cvt.rn.satfinite.{dtype}x2.f32 $0, $1, $2;", "=h,f,f", [hi, lo], [i16],
                                   has_side_effects=volatile)) for lo, hi in ((xs[0], xs[1]), (xs[2], xs[3]))]
    return e.v(llvm.InlineAsmOp("mov.b32 $0, {$1, $2};", "=r,h,h", halves, [i32], has_side_effects=volatile))


def fp8_fragment_order(i: int) -> int:
    """The f32 accumulator register (of a 32-column chunk's 16: ``d[4 g + 2 h + j]`` is row ``r + 8 h``, column
    ``8 g + 2 (lane % 4) + j``) that byte ``i % 4`` of register-A operand ``i // 4`` (``a0..a3`` of an 8-bit
    ``m64 k32`` WGMMA: row ``r + 8 (q % 2)``, K ``16 (q // 2) + 4 (lane % 4) + byte``) takes, P's element order
    kept per thread (no shuffle): register ``q`` of the chunk takes column groups ``g = 2 (q // 2)`` and ``+ 1``
    of its rows, ``j = 0, 1`` each.  The K position ``16 h2 + 4 t + 2 i1 + i0`` then holds P's key
    ``16 h2 + 8 i1 + 2 t + i0`` (:func:`fp8_key_of_position`): the second dot's B rows are permuted alike."""
    q, byte = divmod(i, 4)
    return 4 * (2 * (q // 2) + byte // 2) + 2 * (q % 2) + byte % 2


def fp8_key_of_position(k: int) -> int:
    """The key (P's column, B's row) at K position ``k`` of the fp8 register-A chunk layout of
    :func:`fp8_fragment_order`: within each 16 keys, position ``4 t + 2 i1 + i0`` holds key ``8 i1 + 2 t + i0``."""
    base, r = divmod(k, 16)
    t, i1, i0 = r // 4, (r // 2) % 2, r % 2
    return 16 * base + 8 * i1 + 2 * t + i0
