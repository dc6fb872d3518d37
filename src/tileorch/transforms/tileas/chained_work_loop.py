"""A persistent work loop written around a chain of dots (attention's ``for t in range(ct.bid(0),
total, ct.num_blocks(0))`` over (head, query tile) work items, the key loop inside) becomes one
program instance per work item, for the chained tier's own persistent kernel (part of
``tileas-program-loop-to-tiles``).

The program's loop deals the work items ``t = bid, bid + nblocks, ..`` below ``total`` to its
programs along axis ``a``.  The chained kernel's persistent schedule does the same with its
instances (CTA ``b`` of ``G`` runs instances ``b, b + G, ..``), so the loop is replaced by its body
with ``t`` read as program id ``a``, and ``total`` (computed by the program from its arguments,
before the loop) is marked (:data:`WORK_ITEMS_ATTR` on its op: the axis) as the extent of axis
``a`` of the instances: the chained lowering runs a persistent kernel whose instance grid has
``total`` along ``a`` (evaluated in the kernel; ``t`` is read as ``min(pid, total - 1)``, the op marked, which
keeps ``total`` in the IR) and the launch grid's extents elsewhere, on as
many CTAs as the program's launch has programs (at most one per SM).  Each work item runs once,
with the same body; the items' order differs (they write disjoint results: the body stores
only its own tiles, checked: no atomics, no loads of what the loop stores).  Taken only when: the
loop starts at ``get_program_id(a)``, steps by ``get_num_programs(a)``, carries only memory tokens,
holds a chain of two or more dots, its upper bound is defined before it, and the body reads
``t`` and no other program id or program count of axis ``a``.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.tileas.common import grid_axis

WORK_ITEMS_ATTR = "tileorch.work_items"


def flatten_work_loop(fn: aa.FuncOp) -> bool:
    """Rewrite the function's top-level work loop as the module doc says; whether it did."""
    block = fn.body.blocks.first
    for loop in [o for o in block.ops if isinstance(o, scf.ForOp)]:
        axis = grid_axis(loop.lb, "nv_tileaa.get_program_id")
        if axis is None or grid_axis(loop.step, "nv_tileaa.get_num_programs") != axis:
            continue
        if any(not isinstance(a.type, aa.MemTokenType) for a in loop.iter_args):
            continue
        inner = [o for o in loop.walk() if isinstance(o, scf.ForOp) and o is not loop]
        if sum(o.name == "nv_tileaa.dot" for o in loop.walk()) < 2 or not inner:
            continue
        if any("atomic" in o.name for o in loop.walk()):
            continue
        ub = loop.ub.owner
        if not isinstance(ub, Operation) or ub.parent_block() is not block:
            continue
        grid_ops = [o for o in fn.walk() if o.name in ("nv_tileaa.get_program_id", "nv_tileaa.get_num_programs")
                    and o.properties.get("axis") is not None and o.properties["axis"].value.data == axis]
        if any(loop.is_ancestor(o) or any(u.operation is not loop and loop.is_ancestor(u.operation)
                                          for u in o.results[0].uses) for o in grid_ops):
            continue  # the body reads the program's own id or count along the axis (besides t)
        body = loop.body.block
        pid = aa.GetProgramIdOp(axis)
        # t = min(pid, total - 1): pid < total in every instance the kernel runs (a no-op), and it keeps
        # the count the kernel evaluates in the IR, marked on this op
        one = arith.ConstantOp(IntegerAttr(1, loop.ub.type))
        last = arith.SubiOp(loop.ub, one.result)
        t = arith.MinSIOp(pid.results[0], last.result)
        t.attributes[WORK_ITEMS_ATTR] = IntegerAttr(axis, i32)
        copy_location(loop, [pid, one, last, t])
        block.insert_ops_before([pid, one, last, t], loop)
        body.args[0].replace_all_uses_with(t.result)
        for arg, init in zip(body.args[1:], loop.iter_args):  # the memory tokens: the loop's first ones
            arg.replace_all_uses_with(init)
        yielded = list(body.last_op.operands)
        for op in list(body.ops):
            if op is body.last_op:
                continue
            op.detach()
            block.insert_op_before(op, loop)
        for old, new in zip(loop.results, yielded):
            old.replace_all_uses_with(new)
        loop.detach()
        loop.erase(safe_erase=False)
        return True
    return False
