"""``tileas-fold-dot-accumulate``: ``acc += ct.matmul(a, b)`` becomes ``acc = ct.mma(a, b, acc)``.

cuTile writes ``acc += a @ b`` as a dot into a zero accumulator of the operands' type, a cast to
the accumulator's type and an add::

    %p = nv_tileaa.dot %a, %b, %zero      (f16 result)
    %w = nv_tileaa.fp_to_fp %p            (to f32; absent when the dot is already f32)
    %s = nv_tileaa.addf %acc, %w          (%acc carried by the loop, %s yielded back)

A bf16 dot accumulates in f32 (cuTile's only bf16 MMA), so ``a @ b`` of bf16 tiles is an f32 dot
rounded to bf16 and widened back to f32 for the add: two ``fp_to_fp`` between the dot and the add.

Inside a loop that carries ``%acc``, this is one dot accumulating into ``%acc``, the form the
tier's MMA lowering takes (one accumulator carried by the K loop).  The partial products are then
not rounded to the narrower type before the add (an f32-accumulating MMA: at least as accurate).
An integer dot (int8 operands, i32 result) added with ``addi`` folds the same way (exact: i32
addition wraps the same in any order).
Only single-use ``%p`` / casts (at most two), a zero accumulator constant and a loop-carried ``%acc`` are
rewritten; anything else is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.dialects import nv_tileaa as aa


def _is_zero(v: SSAValue) -> bool:
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
        vals = op.value.get_values() if hasattr(op.value, "get_values") else []
        return len(set(float(x) for x in vals)) == 1 and float(vals[0]) == 0.0
    if isinstance(op, Operation) and op.name == "nv_tileaa.splat":
        src = op.operands[0].owner
        return isinstance(src, arith.ConstantOp) and float(src.value.value.data) == 0.0
    return False


def _carried(v: SSAValue, add: Operation) -> bool:
    """``v`` is a loop-carried block argument of an ``scf.for`` that yields ``add``'s result back
    in its place."""
    if not isinstance(v, BlockArgument) or v.index == 0:
        return False
    loop = v.block.parent_op()
    if not isinstance(loop, scf.ForOp):
        return False
    yielded = v.block.last_op
    return isinstance(yielded, scf.YieldOp) and yielded.operands[v.index - 1] is add.results[0]


def fold(add: Operation) -> bool:
    for acc, other in ((add.operands[0], add.operands[1]), (add.operands[1], add.operands[0])):
        if not _carried(acc, add):
            continue
        casts = []
        prod = other
        while isinstance(prod.owner, aa.FpToFpOp) and len(casts) < 2:
            casts.append(prod.owner)
            prod = prod.owner.operands[0]
        dot = prod.owner
        if not isinstance(dot, aa.DotOp) or not _is_zero(dot.acc):
            continue
        if len(list(dot.result.uses)) != 1 or any(len(list(c.results[0].uses)) != 1 for c in casts):
            continue
        if dot.result.type.get_shape() != acc.type.get_shape():
            continue
        new = aa.DotOp(dot.lhs, dot.rhs, acc)
        for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
            if key in dot.properties:
                new.properties[key] = dot.properties[key]
        add.parent_block().insert_op_before(new, add)
        add.results[0].replace_all_uses_with(new.result)
        for op in (add, *casts, dot):
            op.detach()
            op.erase()
        return True
    return False


@dataclass(frozen=True)
class FoldDotAccumulate(ModulePass):
    name = "tileas-fold-dot-accumulate"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for add in [o for o in op.walk() if isinstance(o, aa.AddFOp | aa.AddIOp)]:
            if add.parent is not None:
                fold(add)
