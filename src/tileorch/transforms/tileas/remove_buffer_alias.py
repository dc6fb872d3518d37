"""``tileas-remove-buffer-alias`` (seed 003, D20): collapse buffer aliases introduced by
``arith.select`` and ``scf.while``, to a fixed point.

A buffer is a shared/tensor-memory tile whose root is an ``nv_tileas.alloc_tensor``; ops that
write into a buffer (``copy`` / ``tiled_load`` ``into``, ``insert_slice``) return a new value of
the same buffer.  Rewrites:

* ``select(c, x, x)`` is ``x``; a select between two versions of one buffer is that buffer's
  later version when both are in one block;
* a select between two fresh, otherwise unused ``alloc_tensor`` of one type is a single
  allocation;
* an ``scf.while`` slot whose yield is a version of the buffer it was entered with carries that
  buffer: uses of the slot's arguments and result become uses of the buffer.

Diagnostics (tileiras'): "RemoveBufferAlias: not supported operation type" (a select between
buffers this pass cannot prove to be one), "Yielded alias not implemented yet" (a while loop
yields a different buffer than the one it carries), "TileASRemoveBufferAliasPass failed to
converge".
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import Rewriter

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.pass_kinds import FunctionTransform

MAX_ITERATIONS = 32


def is_buffer(v: SSAValue) -> bool:
    lay = ts.layout_of(v.type)
    return lay is not None and lay.kind in ("smem", "tmem")


def root(v: SSAValue, assume: dict | None = None) -> SSAValue | None:
    """The alloc_tensor result ``v`` is a version of, or None (``assume`` maps block
    arguments to the buffer they are known to carry)."""
    seen = 0
    while seen < 1000:
        seen += 1
        if assume and v in assume:
            return assume[v]
        owner = v.owner
        if isinstance(owner, ts.AllocTensorOp):
            return v
        if isinstance(owner, ts.CopyOp | ts.TiledLoadOp) and owner.dst is not None:
            v = owner.dst
        elif isinstance(owner, ts.InsertSliceOp):
            v = owner.dest
        else:
            return None
    return None


def _simplify_select(sel: arith.SelectOp) -> bool:
    a, b = sel.lhs, sel.rhs
    if not (is_buffer(a) and is_buffer(b)):
        return False
    if a is b:
        sel.result.replace_all_uses_with(a)
        Rewriter.erase_op(sel)
        return True
    ra, rb = root(a), root(b)
    if ra is not None and ra is rb:
        later = _later(a, b)
        if later is None:
            raise LocatedError(sel, "RemoveBufferAlias: not supported operation type "
                                    "(two versions of one buffer from different blocks)")
        sel.result.replace_all_uses_with(later)
        Rewriter.erase_op(sel)
        return True
    if ra is a and rb is b and a.type == b.type and a.uses.get_length() == 1 and b.uses.get_length() == 1:
        sel.result.replace_all_uses_with(a)
        Rewriter.erase_op(sel)
        Rewriter.erase_op(b.owner)
        return True
    raise LocatedError(sel, "RemoveBufferAlias: not supported operation type "
                            f"(select between buffers rooted at different allocations)")


def _later(a: SSAValue, b: SSAValue) -> SSAValue | None:
    oa, ob = a.owner, b.owner
    if isinstance(oa, Block) or isinstance(ob, Block) or oa.parent_block() is not ob.parent_block():
        return None
    block = oa.parent_block()
    return a if block.get_operation_index(oa) > block.get_operation_index(ob) else b


def _simplify_while(loop: scf.WhileOp) -> bool:
    changed = False
    after = loop.after_region.block
    yld = after.last_op
    cond = loop.before_region.block.last_op
    if not isinstance(yld, scf.YieldOp) or not isinstance(cond, scf.ConditionOp):
        return False
    for i, init in enumerate(loop.arguments):
        if not is_buffer(init):
            continue
        r_init = root(init)
        before_arg = loop.before_region.block.args[i]
        assume = {before_arg: r_init, after.args[i]: r_init}
        r_yield = root(yld.operands[i], assume) if i < len(yld.operands) else None
        if r_init is None or r_yield is not r_init:
            raise LocatedError(loop, "Yielded alias not implemented yet")
        # the slot always holds the one buffer: read it directly
        uses = [u for u in before_arg.uses if not (u.operation is cond and u.index == i + 1)]
        for u in uses:
            u.operation.operands[u.index] = r_init
            changed = True
        if i < len(cond.args) and cond.args[i] is before_arg:
            for arg in (after.args[i], loop.results[i]):
                for u in list(arg.uses):
                    if u.operation is yld and u.index == i:
                        continue
                    u.operation.operands[u.index] = r_init
                    changed = True
    return changed


def remove_buffer_alias(func: Operation) -> None:
    for _ in range(MAX_ITERATIONS):
        changed = False
        for op in list(func.walk()):
            if op.parent is None:
                continue
            if isinstance(op, arith.SelectOp) and isinstance(op.result.type, TensorType):
                changed |= _simplify_select(op)
            elif isinstance(op, scf.WhileOp):
                changed |= _simplify_while(op)
        if not changed:
            return
    raise LocatedError(func, "TileASRemoveBufferAliasPass failed to converge")


@dataclass(frozen=True)
class RemoveBufferAlias(FunctionTransform):
    """Collapse buffer aliases from arith.select and scf.while."""

    name = "tileas-remove-buffer-alias"
    transform = staticmethod(remove_buffer_alias)
