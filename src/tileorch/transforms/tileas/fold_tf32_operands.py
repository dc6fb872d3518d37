"""``tileas-fold-tf32-operands``: a dot of f32 tiles converted to tf32 reads the f32 tiles.

cuTile programs ask for tf32 tensor-core math by converting f32 operands before the dot
(``ct.load(...).astype(ct.tfloat32)``, the form of cuTile's matmul samples)::

    %a32 = nv_tileaa.tiled_load ...               (tensor<MxKxf32>)
    %a   = nv_tileaa.fp_to_fp %a32                (tensor<MxKxtf32>)
    %d   = nv_tileaa.dot %a, %b, %acc             (f32 accumulator)

The tier runs a dot of f32 operands as a tf32 WGMMA, which reads tf32 from the f32 bit pattern
(the low 13 mantissa bits are ignored), so the conversion becomes the dot's own: the operand is
the f32 tile and the TMA loads feed the dot directly.  The one difference: the WGMMA truncates
the mantissa where ``cvt.rna.tf32.f32`` rounds to nearest (at most one tf32 ulp per product).
Both operands of a dot must be such conversions (the dot's operand types agree), or a permute
(``ct.transpose``) of one, which then permutes the f32 tile; a conversion with another use stays
for that use.  Each folded dot is a located remark at the dot saying so (:data:`REMARK`; the driver states it once
the tier takes the kernel: sweep 34 found the truncation unstated).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import Float32Type, FloatTF32Type, TensorType

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileaa.reduce_scan import PermuteOp
from tileorch.transforms.pass_kinds import OpTransform
from tileorch.transforms.remark_sink import sink

REMARK = ("this dot's operands converted to tf32 are read by the tf32 WGMMA from their f32 bits: the conversion is "
          "the tensor cores' truncation of the 13 low mantissa bits (toward zero), not astype(ct.tfloat32)'s "
          "rounding to nearest (at most one tf32 ulp per element; the SIMT path rounds to nearest) "
          "(tileas-fold-tf32-operands)")
"""The located remark at each dot whose tf32 conversions the tier folds."""


def is_tf32(t) -> bool:
    return isinstance(t, TensorType) and isinstance(t.element_type, FloatTF32Type)


def _f32_source(v) -> object | None:
    """The f32 tile ``v`` converts to tf32, else None."""
    cast = v.owner
    if not isinstance(cast, aa.FpToFpOp) or not is_tf32(v.type):
        return None
    src = cast.operands[0]
    if isinstance(src.type, TensorType) and isinstance(src.type.element_type, Float32Type):
        return src
    return None


def _permuted_conversion(v):
    """``(permute, f32 source)`` when ``v`` is a permute (``ct.transpose`` / ``ct.permute``) of an f32
    tile converted to tf32, else None."""
    perm = v.owner
    if not isinstance(perm, PermuteOp) or not is_tf32(v.type):
        return None
    src = _f32_source(perm.source)
    return None if src is None else (perm, src)


def _operand(dot: aa.DotOp, i: int):
    """What operand ``i`` of ``dot`` becomes (the f32 tile, or a permute of it built before the
    dot) and the ops it stops using; None when it is no tf32 conversion of an f32 tile."""
    v = dot.operands[i]
    src = _f32_source(v)
    if src is not None:
        return src, [v.owner]
    found = _permuted_conversion(v)
    if found is None:
        return None
    perm, src = found
    t = perm.result.type
    new = PermuteOp.create(operands=[src], result_types=[TensorType(Float32Type(), t.get_shape(), t.encoding)],
                           properties={"permutation": perm.permutation})
    copy_location(perm, [new])
    return new, [perm, perm.source.owner]


def fold(dot: aa.DotOp, remarks: list[str] | None = None) -> bool:
    """Both operands of ``dot`` read the f32 tiles (a ``ct.transpose`` after the conversion moves
    before it: the permute of the f32 tile); conversions left unused are erased; ``remarks`` gets
    :data:`REMARK` at the dot."""
    a, b = _operand(dot, 0), _operand(dot, 1)
    if a is None or b is None:
        return False
    if remarks is not None:
        remarks.append(format_error(dot, REMARK, "remark"))
    block = dot.parent_block()
    for i, (val, _) in enumerate((a, b)):
        if isinstance(val, PermuteOp):
            block.insert_op_before(val, dot)
            val = val.result
        dot.operands[i] = val
    for dead in (*a[1], *b[1]):
        if dead.parent is not None and not any(r.uses for r in dead.results):
            dead.detach()
            dead.erase()
    return True


@dataclass(frozen=True)
class FoldTf32Operands(OpTransform):
    name = "tileas-fold-tf32-operands"
    OP = aa.DotOp
    transform = staticmethod(fold)

    def apply(self, ctx, op) -> None:
        said = sink(self.name)
        for dot in [o for o in op.walk() if isinstance(o, aa.DotOp)]:
            fold(dot, said)
