"""``tileas-column-loop-to-tiles``: a second loop over the output's column tiles, after a K loop whose result it
reads, becomes the grid's axis 1, so the tier's dot on the K loop's result (the epilogue dot,
:mod:`tileorch.transforms.tileas.epilogue_dot`) compiles it.

A fused MLP block written as two loops (``h = sum_k x[bm, k] @ W1[k, 0]``, then for each column tile ``j`` of
the output ``y[bm, j] = f(h) @ W2[0, j]``)::

    %h = scf.for %k = ... iter_args(%a = %zeros) { ... nv_tileaa.dot ... }
    %g = f(%h)
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%b = %zeros) {
      %e = nv_tileaa.tiled_load %W2[%c0, %j]
      %y = nv_tileaa.dot %g, %e, %b
      nv_tileaa.tiled_store g(%y), %Y[%bm, %j]
      scf.yield %zeros
    }
    nv_tileaa.return

is, for each ``j``, the tile program of ``(program id 0, program id 1) = (bm, j)``: its iterations are
independent and each writes its own tiles.  The body replaces the loop with ``%j`` the program id 1 and each
carried value its initial one, when, and only when, the rewrite cannot change what the program computes:

* the loop follows (in the function's block) a loop holding a dot and reads that loop's result
  (:func:`tileorch.transforms.tileas.same_range_loops.reads_first`), and holds a dot itself, no loop or branch;
* it runs from the constant 0 by the constant 1 to a count of the tiles along the axis ``%j`` indexes
  (``ct.cdiv(W2.shape[1], tn)`` or of the stored array's: :func:`tileas.tile_order.is_tile_count`);
* ``%j`` is read only as one tile index of tile loads and stores, and every store of the body is a tile store
  whose last (column) index is ``%j`` (each iteration writes tiles no other writes); no body load reads an array the body stores, and no load
  of the function reads an array the loop stores (so no iteration sees another's stores);
* each carried value is a memory-free value the body yields as it was given (the constant its initial value is,
  or itself): every iteration starts from the same values; the loop's results are read as those values;
* the function reads neither program id 1 nor the grid's extent along it, and after the loop only ops that
  write no memory come.

Then the program's grid covers the rows only (``(M tiles,)``) and the kernel covers the output's column tiles
itself: the GEMM host side walks C's tile space (the tier's GEMM kernels do not read the launch grid), computing
``f(h)`` once per work tile and looping the second dot over the column tiles (``GemmConfig.epi_loop``).  A loop
that does not match is left alone (``tileas-fuse-split-loops`` then refuses it at the loop, with
:func:`column_loop_refusal`'s reason)."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import format_error
from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas import launch_grid_axes as grid_axes
from tileorch.transforms.tileas.common import constant_int
from tileorch.transforms.tileas.same_range_loops import WRITES, reads_first
from tileorch.transforms.tileas.tile_order import Axis, coordinate_axes, is_tile_count

REMARK = ("a loop over the output's column tiles after the K loop whose result it reads (a second dot on it per "
          "column tile, e.g. an MLP block's y[:, j] = f(x @ W1) @ W2[:, j]) runs as the grid's axis 1 "
          "(tileas-column-loop-to-tiles): its iterations are independent tile programs, so the kernel computes "
          "the K loop once per row tile and loops the second dot over the column tiles itself")


MOST_HIDDEN = 256
"""The widest first accumulator the second dot reads from registers (``epilogue_dot.check_epilogue_dot``)."""


def _memref(view: SSAValue) -> SSAValue | None:
    """The array (``make_memref``'s base pointer, through ``assume``) a tile view reads, or None."""
    v = view
    while isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.block_tile":
        v = v.owner.operands[0]
    if not isinstance(v.owner, aa.MakeMemrefOp):
        return None
    base = v.owner.operands[0]
    while isinstance(base.owner, Operation) and base.owner.name == "nv_tileaa.assume":
        base = base.owner.operands[0]
    return base


def _same_constant(x: SSAValue, y: SSAValue) -> bool:
    return x is y or (isinstance(x.owner, arith.ConstantOp) and isinstance(y.owner, arith.ConstantOp)
                      and x.owner.value == y.owner.value and x.type == y.type)


def _dot_b_load(v: SSAValue) -> aa.TiledLoadOp | None:
    """The tile load a dot's B operand ``v`` is, through single-operand ops (a transpose, a cast), or None."""
    while isinstance(v.owner, Operation) and not isinstance(v.owner, aa.TiledLoadOp) and len(v.owner.operands) == 1:
        v = v.owner.operands[0]
    return v.owner if isinstance(v.owner, aa.TiledLoadOp) else None


def _column_axes(iv: SSAValue, ops: list[Operation], dots: list[aa.DotOp]) -> Axis:
    """The uses of ``iv`` that bound the kernel's column tiles: its tile stores' (the output's columns, which the
    kernel covers) and its dots' B loads' (the launcher checks that B has the output's columns,
    :func:`tileorch.launchers.cutile.epi_operand`); an operand like a bias may have fewer."""
    bounding = [o for o in ops if isinstance(o, aa.TiledStoreOp)] + [x for x in map(_dot_b_load, (d.rhs for d in dots))
                                                                      if x is not None]
    return coordinate_axes(iv, bounding)


def _reads_axis_1(fn: Operation) -> bool:
    return any(o.name in ("nv_tileaa.get_program_id", "nv_tileaa.get_num_programs") and o.axis.value.data == 1
               and any(True for _ in o.results[0].uses) for o in fn.walk())


def column_loop_refusal(loop: scf.ForOp, fn: Operation) -> str | None:
    """Why ``loop`` (an op of ``fn``'s block, after a dot loop whose result it reads) is not a column-tile loop the
    pass rewrites, in the program's terms; None when it is (module doc)."""
    body = loop.body.block
    ops = list(body.ops)
    if any(o.regions for o in ops):
        return "its body holds a loop or a branch"
    dots = [o for o in ops if isinstance(o, aa.DotOp)]
    if not dots:
        return "its body holds no dot"
    width = max(d.lhs.type.get_shape()[-1] for d in dots)
    if width > MOST_HIDDEN:
        return (f"its dot's K (the first loop's N, the hidden width) is {width} columns: the second dot takes its A "
                f"from the first accumulator's registers, at most {MOST_HIDDEN} columns (a 128x{MOST_HIDDEN} f32 "
                f"accumulator is {MOST_HIDDEN // 2} registers a thread in each consumer warp group, beside "
                f"{MOST_HIDDEN // 4} of the packed operand and the second accumulator, of 232); split the hidden "
                f"dimension into chunks of at most {MOST_HIDDEN} columns (y = sum over chunks c of "
                "f(x @ W1[:, c]) @ W2[c, :]: one launch per chunk, the later ones adding onto y), or store "
                "f(x @ W1) and multiply it by W2 as a second GEMM")
    if constant_int(loop.lb) != 0 or constant_int(loop.step) != 1:
        return "it does not run from 0 by 1"
    iv = body.args[0]
    if not is_tile_count(loop.ub, coordinate_axes(iv, ops)):
        return ("its trip count is not the tile count of an axis its index indexes (ct.cdiv(W2.shape[1], tn) or "
                "ct.cdiv(Y.shape[1], tn))")
    if not is_tile_count(loop.ub, _column_axes(iv, ops, dots)):
        return ("its trip count is not the tile count of the stored array's columns or of the second dot's B "
                "(ct.cdiv(Y.shape[1], tn) or ct.cdiv(W2.shape[1], tn)): the kernel covers every column tile of the "
                "output, more than the loop's when the array it counts has fewer")
    for use in iv.uses:
        user = use.operation
        if not isinstance(user, aa.TiledLoadOp | aa.TiledStoreOp) or user.parent_block() is not body \
                or sum(x is iv for x in user.indices) != 1:
            return f"its index is read other than as one tile index of a load or store ({user.name})"
    stored = set()
    for o in ops:
        if o.name.split(".")[-1] in WRITES:
            if not isinstance(o, aa.TiledStoreOp) or list(o.indices)[-1] is not iv:
                return (f"it writes memory other than by tile stores at column tile j ({o.name}): iterations "
                        "could write the same elements")
            stored.add(_memref(o.view))
    if None in stored:
        return "it stores to a view the pass does not trace to its array"
    if any(isinstance(o, aa.TiledLoadOp) and _memref(o.view) in stored for o in fn.walk()):
        return "the program loads from an array the loop stores (an iteration could see another's stores)"
    for arg, init, out in zip(body.args[1:], loop.iter_args, ops[-1].operands):
        if isinstance(arg.type, aa.MemTokenType) or not (out is arg or _same_constant(out, init)):
            return ("it carries a value from one iteration to the next (an accumulator over j; each iteration "
                    "must start from the same values, e.g. acc = ct.zeros(...) again)")
    if _reads_axis_1(fn):
        return "the program reads program id 1 or the grid's extent along it"
    after = loop.next_op
    while after is not None:
        if after.name.split(".")[-1] in WRITES or after.regions:
            return "memory is written after it (it would run once per column tile)"
        after = after.next_op
    return None


def column_loop(loop: scf.ForOp, fn: Operation) -> bool:
    """Whether ``loop`` (an op of ``fn``'s block) is a column-tile loop the pass rewrites: it follows a dot loop
    whose result it reads, and :func:`column_loop_refusal` has no reason against it."""
    earlier, op = [], loop.prev_op
    while op is not None:
        earlier.append(op)
        op = op.prev_op
    if not any(isinstance(o, scf.ForOp) and any(isinstance(d, aa.DotOp) for d in o.walk()) and reads_first(o, loop)
               for o in earlier):
        return False
    return column_loop_refusal(loop, fn) is None


def _rewrite(loop: scf.ForOp) -> None:
    body = loop.body.block
    pid = aa.GetProgramIdOp(1)
    loop.parent_block().insert_op_before(pid, loop)
    body.args[0].replace_all_uses_with(pid.results[0])
    for arg, init in zip(body.args[1:], loop.iter_args):
        arg.replace_all_uses_with(init)
    for r, init in zip(loop.results, loop.iter_args):
        r.replace_all_uses_with(init)
    for o in list(body.ops)[:-1]:
        o.detach()
        loop.parent_block().insert_op_before(o, loop)
    loop.detach()
    loop.erase()


def column_loops_to_tiles(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Rewrite every column-tile loop of ``module`` (:func:`column_loop`); the number.  ``remarks`` gets the
    located remark (at the loop's dot) of each."""
    count = 0
    for fn in [f for f in module.walk() if isinstance(f, aa.FuncOp)]:
        for loop in [o for o in fn.body.blocks.first.ops if isinstance(o, scf.ForOp)]:
            if column_loop(loop, fn):
                if remarks is not None:
                    dot = next(o for o in loop.body.block.ops if isinstance(o, aa.DotOp))
                    remarks.append(format_error(dot, REMARK, "remark"))
                _rewrite(loop)
                grid_axes.covered_whole(fn, [1])  # each launched program loops over all the column tiles
                count += 1
    return count


class ColumnLoopToTiles(ModuleTransform):
    """A loop over the output's column tiles reading a K loop's result becomes the grid's axis 1 (module doc)."""

    name = "tileas-column-loop-to-tiles"
    transform = staticmethod(column_loops_to_tiles)
    states_remarks = True


__all__ = ["REMARK", "ColumnLoopToTiles", "column_loop", "column_loop_refusal", "column_loops_to_tiles"]
