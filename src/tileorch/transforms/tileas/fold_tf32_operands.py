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
Both operands of a dot must be such conversions (the dot's operand types agree); a conversion
with another use stays for that use.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import Float32Type, FloatTF32Type, TensorType

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.pass_kinds import OpTransform


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


def fold(dot: aa.DotOp) -> bool:
    """Both operands of ``dot`` read the f32 tiles; conversions left unused are erased."""
    a, b = _f32_source(dot.lhs), _f32_source(dot.rhs)
    if a is None or b is None:
        return False
    casts = [dot.lhs.owner, dot.rhs.owner]
    dot.operands[0], dot.operands[1] = a, b
    for cast in casts:
        if cast.parent is not None and not cast.results[0].uses:
            cast.detach()
            cast.erase()
    return True


@dataclass(frozen=True)
class FoldTf32Operands(OpTransform):
    name = "tileas-fold-tf32-operands"
    OP = aa.DotOp
    transform = staticmethod(fold)
