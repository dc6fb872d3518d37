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
        _inline_body(block, loop)
        return True
    return False


def _inline_body(block, loop: scf.ForOp) -> None:
    """Replace ``loop`` (its induction variable's uses already rewritten) by its body's ops, in ``block``: the
    carried memory tokens are the loop's first ones, its results the yielded values."""
    body = loop.body.block
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


def _static_count(loop: scf.ForOp) -> int | None:
    """The trip count of ``for g in range(G)`` (constant bounds 0 .. G, step 1), else None."""
    from tileorch.dialects.constants import constant_int

    lb, ub, step = (constant_int(v) for v in (loop.lb, loop.ub, loop.step))
    return ub if lb == 0 and step == 1 and ub is not None and ub > 1 else None


def flatten_inner_work_loop(fn: aa.FuncOp) -> bool:
    """A static loop over work items inside each program (GQA's ``for g in range(G)`` over the query heads
    sharing one KV head, the key loop and the store inside) becomes ``G`` times as many program instances
    along an axis ``a`` the program reads (its highest): the loop is replaced by its body with
    ``g = t % G`` and every read of program id ``a`` by ``t // G``, for ``t = min(pid(a), total - 1)``
    marked as :func:`flatten_work_loop` marks its work index, ``total = num_programs(a) * G`` (the chained
    tier's persistent kernel runs ``total`` instances along ``a``).  Instance ``t`` computes what iteration
    ``t % G`` of program ``t // G`` did; the iterations write disjoint results (each stores its own tiles:
    no atomics, no loads of a stored array in the loop, checked).  Taken only when: the loop is at the top
    of the kernel with constant bounds ``0 .. G`` (step 1), carries only memory tokens, holds a chain of
    two or more dots in an inner loop and tile stores whose indices read ``g`` (each item its own tiles), the
    kernel has no work loop of its own, and nothing reads the program count along ``a``."""
    if any(WORK_ITEMS_ATTR in o.attributes for o in fn.walk()):
        return False
    block = fn.body.blocks.first
    for loop in [o for o in block.ops if isinstance(o, scf.ForOp)]:
        count = _static_count(loop)
        if count is None or any(not isinstance(a.type, aa.MemTokenType) for a in loop.iter_args):
            continue
        inner = [o for o in loop.walk() if isinstance(o, scf.ForOp) and o is not loop]
        if sum(o.name == "nv_tileaa.dot" for o in loop.walk()) < 2 or not inner:
            continue
        stores = [o for o in loop.walk() if isinstance(o, aa.TiledStoreOp)]
        if not stores or any("atomic" in o.name or "scatter" in o.name for o in loop.walk()):
            continue
        stored = {id(s.view) for s in stores}
        if any(isinstance(o, aa.TiledLoadOp) and id(o.view) in stored for o in loop.walk()):
            continue
        if not all(any(_reads(x, loop.body.block.args[0]) for x in st.indices) for st in stores):
            continue  # a store at the same tile in every iteration: the items' results would race
        pids = [o for o in fn.walk() if isinstance(o, aa.GetProgramIdOp) and not o.operands]
        axes = sorted({o.axis.value.data for o in pids})
        if not axes:
            continue
        axis = axes[-1]
        if any(isinstance(o, aa.GetNumProgramsOp) and o.axis.value.data == axis and o.results[0].uses
               for o in fn.walk()):
            continue
        _replace_by_work_items(block, loop, axis, count, [o for o in pids if o.axis.value.data == axis])
        return True
    return False


def _reads(v, iv, depth: int = 64) -> bool:
    """Whether scalar ``v`` is computed from ``iv`` (through its defining ops' operands)."""
    if v is iv:
        return True
    op = v.owner
    if depth == 0 or not isinstance(op, Operation):
        return False
    return any(_reads(x, iv, depth - 1) for x in op.operands)


def _replace_by_work_items(block, loop: scf.ForOp, axis: int, count: int, pids: list[Operation]) -> None:
    """:func:`flatten_inner_work_loop`'s rewrite of ``loop`` (``count`` trips) over axis ``axis``."""
    first = block.first_op
    pid = aa.GetProgramIdOp(axis)
    programs = aa.GetNumProgramsOp.build(properties={"axis": IntegerAttr(axis, i32)}, result_types=[i32])
    g_count = arith.ConstantOp(IntegerAttr(count, i32))
    total = arith.MuliOp(programs.results[0], g_count.result)
    one = arith.ConstantOp(IntegerAttr(1, i32))
    last = arith.SubiOp(total.result, one.result)
    t = arith.MinSIOp(pid.results[0], last.result)
    t.attributes[WORK_ITEMS_ATTR] = IntegerAttr(axis, i32)
    program = arith.DivUIOp(t.result, g_count.result)
    item = arith.RemUIOp(t.result, g_count.result)
    new = [pid, programs, g_count, total, one, last, t, program, item]
    copy_location(loop, new)
    block.insert_ops_before(new, first)
    for old in pids:
        old.results[0].replace_all_uses_with(program.result)
        old.detach()
        old.erase()
    body = loop.body.block
    iv = body.args[0]
    if iv.type != i32:
        cast = arith.IndexCastOp(item.result, iv.type)
        copy_location(loop, [cast])
        block.insert_op_before(cast, loop)
        iv.replace_all_uses_with(cast.result)
    else:
        iv.replace_all_uses_with(item.result)
    _inline_body(block, loop)
