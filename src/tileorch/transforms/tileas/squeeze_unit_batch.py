"""``tileas-squeeze-unit-batch-dots``: a dot over tiles with leading extent-1 (batch) dimensions,
as cuTile's batched GEMMs write it (``ct.mma`` of ``(1, tm, tk)`` and ``(1, tk, tn)`` tiles), becomes
a 2-D dot between ``nv_tileaa.reshape`` ops, so the tier assigns it an MMA atom like any GEMM.

For each ``nv_tileaa.dot`` whose three operands have only extent-1 dimensions before the last two:
the operands are reshaped to 2-D before the dot; an accumulator carried by an ``scf.for`` (the dot's
only use of it, its result yielded back) is carried in 2-D by a rebuilt loop, reshaped once before
and once after it; any other accumulator is reshaped around the dot.  The batch index stays where
the program put it: in the 3-D loads and stores.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.pass_kinds import OpTransform


def _squeezed(t) -> TensorType | None:
    if not isinstance(t, TensorType):
        return None
    shape = list(t.get_shape())
    if len(shape) < 3 or any(d != 1 for d in shape[:-2]):
        return None
    return TensorType(t.element_type, shape[-2:])


def _reshape_before(op: Operation, v: SSAValue, t: TensorType) -> SSAValue:
    r = aa.ReshapeOp(v, t)
    op.parent_block().insert_op_before(r, op)
    return r.result


def _carried(dot: aa.DotOp) -> tuple[scf.ForOp, int] | None:
    """(loop, iter-arg position) when the accumulator is a loop-carried value used by the dot only
    and the dot's result is yielded back at that position."""
    acc = dot.acc
    if not isinstance(acc, BlockArgument) or acc.index == 0:
        return None
    loop = acc.owner.parent_op()
    if not isinstance(loop, scf.ForOp) or dot.parent_block() is not acc.owner:
        return None
    if len(list(acc.uses)) != 1 or len(list(dot.results[0].uses)) != 1:
        return None
    use = next(iter(dot.results[0].uses))
    if not isinstance(use.operation, scf.YieldOp) or use.index != acc.index - 1:
        return None
    return loop, acc.index - 1


def squeeze_dot(dot: aa.DotOp) -> None:
    a2, b2, c2 = (_squeezed(v.type) for v in (dot.lhs, dot.rhs, dot.acc))
    if a2 is None or b2 is None or c2 is None:
        return
    lhs = _reshape_before(dot, dot.lhs, a2)
    rhs = _reshape_before(dot, dot.rhs, b2)
    carried = _carried(dot)
    props = dict(dot.properties)
    attrs = dict(dot.attributes)
    if carried is None:
        acc = _reshape_before(dot, dot.acc, c2)
        new = aa.DotOp.create(operands=[lhs, rhs, acc], result_types=[c2], properties=props, attributes=attrs)
        dot.parent_block().insert_op_before(new, dot)
        back = aa.ReshapeOp(new.results[0], dot.results[0].type)
        dot.parent_block().insert_op_after(back, new)
        dot.results[0].replace_all_uses_with(back.result)
        dot.detach()
        dot.erase()
        return
    loop, pos = carried
    body = loop.body.block
    old_arg = dot.acc
    new_arg = body.insert_arg(c2, old_arg.index + 1)
    new = aa.DotOp.create(operands=[lhs, rhs, new_arg], result_types=[c2], properties=props, attributes=attrs)
    body.insert_op_before(new, dot)
    dot.results[0].replace_all_uses_with(new.results[0])
    dot.detach()
    dot.erase()
    body.erase_arg(old_arg)
    inits = list(loop.iter_args)
    init = aa.ReshapeOp(inits[pos], c2)
    loop.parent_block().insert_op_before(init, loop)
    inits[pos] = init.result
    region = loop.detach_region(loop.body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, inits, region)
    loop.parent_block().insert_op_before(new_loop, loop)
    old_type = loop.results[pos].type
    back = aa.ReshapeOp(new_loop.results[pos], old_type)
    loop.parent_block().insert_op_after(back, new_loop)
    for i, r in enumerate(loop.results):
        r.replace_all_uses_with(back.result if i == pos else new_loop.results[i])
    new_loop.attributes.update(loop.attributes)
    loop.detach()
    loop.erase()


@dataclass(frozen=True)
class SqueezeUnitBatchDots(OpTransform):
    """Dots over ``1 x ... x M x K`` tiles -> 2-D dots between reshapes (see the module docstring)."""

    name = "tileas-squeeze-unit-batch-dots"
    OP = aa.DotOp
    transform = staticmethod(squeeze_dot)
