"""Packing two f32 values as the 16-bit pair of a WGMMA register operand (``cvt.rn.{f16,bf16}x2.f32``),
shared by the chained-dots lowering (P as the second dot's register A) and the GEMM lowering's
computed operands (:func:`~tileorch.transforms.tileas.convert_to_cutlass.stage_computed_b`)."""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, i32
from xdsl.ir import SSAValue

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
