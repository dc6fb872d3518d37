"""``tileaa-narrow-widened-dot-operands``: an f32 dot whose two operands are 16-bit float tiles widened to f32
multiplies the 16-bit tiles.

A user who widens both operands before the product (``a.astype(ct.float32) @ b.astype(ct.float32)`` of f16 loads,
to "compute in f32") writes a dot of f32 tiles::

    %a32 = nv_tileaa.fp_to_fp %a : tensor<64x64xf16> -> tensor<64x64xf32>
    %b32 = nv_tileaa.fp_to_fp %b : tensor<64x64xf16> -> tensor<64x64xf32>
    %d = nv_tileaa.dot %a32, %b32, %acc : ... -> tensor<64x64xf32>

which cuTile computes in f32: without this rewrite the TMA/WGMMA tier refuses it (its f32 dots multiply tf32) and the
SIMT path runs it as 3xTF32.  Widening f16 / bf16 to f32 is exact, and the product of two f16 (11-bit significands,
exponents -24 .. 15: products between 2^-48 and 2^32) is exact in f32; the product of two bf16 (8-bit significands)
is exact in f32 unless it leaves f32's exponent range (bf16 has f32's: a product past 2^128 overflows, one below
2^-149 underflows, where the tensor core's handling of that product may differ from f32 arithmetic's).  So the dot
of the 16-bit tiles accumulating in f32 (``%d = nv_tileaa.dot %a, %b, %acc``) has the same products: the 16-bit
tensor cores compute it (on both paths), accumulating in f32 (the tensor core's accumulation order and rounding,
as for every WGMMA dot, not a sequential f32 sum).

Taken when both operands are ``fp_to_fp`` widenings from the SAME 16-bit type (f16 x f16 or bf16 x bf16: the
tensor cores multiply two operands of one type) and the accumulator is f32; the widenings stay for their other uses
(dead ones are erased).  Each rewritten dot is a located remark at the dot (the decision is visible).  Any other f32
dot (an f32 array, f16 x bf16, one operand widened) is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, TensorType
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.pass_kinds import ModuleTransform

REMARK = ("the operands of this f32 dot are {t} tiles widened to f32: computed as a {t} x {t} dot accumulating in "
          "f32 (tileaa-narrow-widened-dot-operands; each product of two {t} values is exact in f32{x}, and the "
          "products are accumulated in f32), on the {t} tensor cores")
"""The located remark at each rewritten dot (``{t}``: f16 or bf16; ``{x}``: bf16's range caveat)."""


def _element(v: SSAValue):
    return v.type.element_type if isinstance(v.type, TensorType) else None


def _widened_from(v: SSAValue):
    """The 16-bit source of ``v`` when ``v`` is an ``fp_to_fp`` widening of an f16 / bf16 tile to f32, else None."""
    op = v.owner
    if not isinstance(op, aa.FpToFpOp) or not isinstance(_element(v), Float32Type):
        return None
    return op.source if isinstance(_element(op.source), (Float16Type, BFloat16Type)) else None


def narrowable(dot: Operation) -> tuple[SSAValue, SSAValue] | None:
    """The 16-bit sources of ``dot``'s two operands when the rewrite applies to it, else None."""
    if not isinstance(dot, aa.DotOp) or not isinstance(_element(dot.acc), Float32Type):
        return None
    a, b = _widened_from(dot.lhs), _widened_from(dot.rhs)
    if a is None or b is None or type(_element(a)) is not type(_element(b)):
        return None
    return a, b


def narrow_widened_dot_operands(module: Operation, remarks: list[str] | None = None) -> int:
    """Rewrite every dot :func:`narrowable` finds under ``module``; returns how many.  ``remarks`` gets one located
    remark per rewritten dot."""
    from tileorch.diagnostics import format_error

    done = 0
    for dot in [op for op in module.walk() if isinstance(op, aa.DotOp)]:
        sources = narrowable(dot)
        if sources is None:
            continue
        widenings = [dot.lhs.owner, dot.rhs.owner]
        dot.operands[0], dot.operands[1] = sources
        for w in dict.fromkeys(widenings):
            if not w.results[0].uses:
                w.detach()
                w.erase()
        if remarks is not None:
            t = "f16" if isinstance(_element(sources[0]), Float16Type) else "bf16"
            remarks.append(format_error(dot, REMARK.format(t=t, x="" if t == "f16" else " unless it leaves f32's exponent range"), "remark"))
        done += 1
    return done


@dataclass(frozen=True)
class NarrowWidenedDotOperands(ModuleTransform):
    """An f32 dot of two f16 (or two bf16) tiles widened to f32 multiplies the 16-bit tiles (exact products)."""

    name = "tileaa-narrow-widened-dot-operands"
    transform = staticmethod(narrow_widened_dot_operands)
    states_remarks = True
