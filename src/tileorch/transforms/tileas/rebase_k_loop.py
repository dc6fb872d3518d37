"""Rebase a tier kernel's K loop onto ``range(trip)``: the one rewrite built on :mod:`k_range`.

A lowering that walks its loop as stages ``0 .. trip - 1`` (the chained-dots kernel: the
producer's ring slot, the consumer's phase and pipelining all count from 0) takes any
``scf.for %iv = start to stop step step`` once the loop is rebased: every loop with those bounds
(the consumer's and the producer agent's copies) runs ``%i = 0 to trip step 1`` with
``trip = ceil(max(stop - start, 0) / step)`` (:meth:`KLoop.emit <tileorch.transforms.tileas.k_range.KLoop.emit>`,
computed once before the agent switch), and its body reads ``start + step * %i`` where it read the iv.
The program's own expressions of the iv (tile indices, masks ``j * BN + arange(BN)``) are then
evaluated from the rebased counter as written.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Block, BlockArgument, Operation

from tileorch.dialects.constants import constant_int
from tileorch.transforms.tileaa_to_simt.emit import Emitter
from tileorch.transforms.tileas.k_range import KLoop, TileMap


def _entry_ancestor(op: Operation, entry: Block) -> Operation | None:
    while op is not None and op.parent_block() is not entry:
        op = op.parent_op()
    return op


def rebase_k_loop(loop: scf.ForOp, entry: Block) -> str | None:
    """Rebase ``loop`` (and every loop with its bounds) onto ``range(trip)``; ``entry``: the
    kernel's entry block, where the trip count is computed (before the op holding the loop).
    Returns None when the loop already runs from 0 in steps of 1 (nothing changes), the range as
    a remark's words when rebased, and raises ``ValueError`` (the reason) when it cannot: bounds
    that are not i32 or not defined in ``entry`` before the loop."""
    if constant_int(loop.lb) == 0 and constant_int(loop.step) == 1:
        return None
    anchor = _entry_ancestor(loop, entry)
    bounds = (loop.lb, loop.ub, loop.step)
    for v in bounds:
        if not isinstance(v.type, IntegerType) or v.type.width.data != 32:
            raise ValueError(f"a loop bound of type {v.type} (i32 is supported)")
        if isinstance(v, BlockArgument):
            if v.owner is not entry:
                raise ValueError("a loop bound defined inside a region")
        elif v.owner.parent_block() is not entry or not v.owner.is_before_in_block(anchor):
            raise ValueError("a loop bound computed after the agents start")
    kl = KLoop(loop, *bounds, TileMap())
    tmp = Block()
    e = Emitter(tmp, 128)
    trip, _, _ = kl.emit(e, lambda v: v)
    zero, one = e.const(0), e.const(1)
    trip.name_hint = "trip"
    for op in list(tmp.ops):
        op.detach()
        entry.insert_op_before(op, anchor)
    step_c = constant_int(loop.step)
    for other in [o for o in entry.walk() if isinstance(o, scf.ForOp) and (o.lb, o.ub, o.step) == bounds]:
        body = other.body.blocks.first
        i = body.args[0]
        scaled = None if step_c == 1 else arith.MuliOp(i, other.step)
        iv = arith.AddiOp(other.lb, i if scaled is None else scaled.result)
        i.replace_all_uses_with(iv.result)
        if scaled is not None:
            scaled.operands[0] = i
            body.insert_op_before(scaled, body.first_op)
            body.insert_op_after(iv, scaled)
        else:
            iv.operands[1] = i
            body.insert_op_before(iv, body.first_op)
        iv.result.name_hint = "iv"
        other.operands[0], other.operands[1], other.operands[2] = zero, trip, one
    return kl.describe().split(" with ")[0]


__all__ = ["rebase_k_loop"]
