"""``tileas-program-loop-to-tiles``: a persistent tile loop written in the program becomes a grid
of tile programs, so the tier compiles its body like any tile kernel and the kernel builder's
persistent scheduler walks the tiles instead.

cuTile programs write persistence as ``for t in range(ct.bid(0), tiles_m * tiles_n,
ct.num_blocks(0))`` with the tile coordinates ``t // tiles_n`` and ``t % tiles_n`` (or the
transposed raster).  Such a loop is rewritten when, and only when, the rewrite cannot change what
the program computes:

The output tile grid is the stored tiles' (``tiled_store`` indices); a body without a tile store
(its result leaves through ``atomic_add``/scatter at element indices) takes the coordinates of its
one dot's operand tiles instead: A's non-K index (rows) and B's (columns), with the trip count
checked against their tile counts (``ct.cdiv(A.shape[0], tm) * ct.cdiv(B.shape[1], tn)``).

* the loop starts at ``get_program_id(a)`` and steps by ``get_num_programs(a)`` (each t once, over
  all programs of the grid), or walks a 2-D grid the program linearised (starts at ``bid(a) + bid(b) *
  num_blocks(a)``, steps by ``num_blocks(a) * num_blocks(b)``), and its upper bound is a product of two tile counts
  (``get_dim_size`` of tiled views) one of which, ``X``, divides t;
* t is used only as ``t // X`` and ``t % X`` (signed or unsigned, any number of each; X the tile
  count of the axis ``t % X`` indexes) or only in the grouped raster of
  :mod:`tileorch.transforms.tileas.tile_order` (both one-to-one onto the tile grid), and the loop
  carries only memory tokens;

then ``t // X`` becomes program id 0 and ``t % X`` program id 1 (swapped when the remainder indexes
a stored tile's rows), the body replaces the loop, and the non-negativity facts of program ids and
tile counts fold away the floor-division sign fix-ups cuTile emits.  A loop that does not match is
left alone (the tier then refuses the kernel with a located reason, or compiles the loop as it is).
The rewritten kernel no longer reads the launch grid: it is meant for a launcher that covers the
tile space itself (the tier's GEMM host side does).  Last, :func:`canonicalize_program_axes`
renumbers the program axes of a batched GEMM so that the stored tile's rows, columns and batch are
axes 0, 1 and 2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.constants import constant_int
from tileorch.transforms.remark_sink import sink
from tileorch.transforms.tileas import launch_grid_axes as grid_axes
from tileorch.transforms.tileas.chained_work_loop import flatten_inner_work_loop, flatten_work_loop
from tileorch.transforms.tileas.loopless_chain import wrap_loopless_chain
from tileorch.transforms.tileas.common import dot_operand_load as _dot_operand_load
from tileorch.transforms.tileas.common import grid_axis
from tileorch.transforms.tileas.common import operand_chain as _operand_chain
from tileorch.transforms.tileas.tile_order import coordinate_axes, grouped_coordinates, is_tile_count

DIVS = ("arith.floordivsi", "arith.divsi", "arith.divui", "nv_tileaa.divi", "nv_tileaa.floordivi")
REMS = ("arith.remsi", "arith.remui", "nv_tileaa.remi")
MULS = ("arith.muli", "nv_tileaa.muli")
PURE = ("arith.", "nv_tileaa.get_", "nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.muli")
"""Scalar ops left dead by the rewrite (erased)."""
NONNEG = ("nv_tileaa.get_program_id", "nv_tileaa.get_num_programs", "nv_tileaa.get_dim_size")


def _owner_name(v: SSAValue) -> str:
    return v.owner.name if isinstance(v.owner, Operation) else ""


NONNEG_OF_NONNEG = ("arith.ceildivsi", "arith.ceildivui", "arith.divsi", "arith.divui", "arith.muli", "arith.addi",
                    "nv_tileaa.muli", "nv_tileaa.addi")
"""Ops whose result is non-negative when their operands are (``ct.cdiv`` of an array extent)."""


def _nonneg(v: SSAValue, depth: int = 8) -> bool:
    if _owner_name(v) in NONNEG:
        return True
    c = constant_int(v)
    if c is not None:
        return c >= 0
    owner = v.owner
    if depth == 0 or not isinstance(owner, Operation):
        return False
    if owner.name == "nv_tileaa.assume":  # #nv_tileaa.bounded<lo, ?> with lo >= 0 (array extents)
        bounded = getattr(owner.predicate, "lower", None) if hasattr(owner, "predicate") else None
        lo = getattr(bounded, "data", bounded)
        if isinstance(lo, int) and lo >= 0:
            return True
        return _nonneg(owner.operands[0], depth - 1)
    if owner.name in NONNEG_OF_NONNEG:
        return all(_nonneg(x, depth - 1) for x in owner.operands)
    return False


def _match(loop: scf.ForOp) -> Callable[[Block, Operation], None] | None:
    """The coordinate rewrite when ``loop`` is a program-written persistent tile loop."""
    axis = grid_axis(loop.lb, "nv_tileaa.get_program_id")
    if (axis is None or grid_axis(loop.step, "nv_tileaa.get_num_programs") != axis) and not _linearised_grid(loop):
        return None
    if any(not isinstance(a.type, aa.MemTokenType) for a in loop.iter_args):
        return None
    ub = loop.ub.owner
    if not isinstance(ub, Operation) or ub.name not in MULS:
        return None
    scope = list(loop.walk())
    rewrite = _coordinate_rewrite(loop.body.block.args[0], scope)
    if rewrite is None:
        return _batched_rewrite(loop, ub, scope)
    rows, cols = rewrite[1]
    # the trip count is rows x columns of the stored tile grid: then t walks exactly the output tiles
    f, g = ub.operands
    if not any(is_tile_count(x, coordinate_axes(rows, scope)) and is_tile_count(y, coordinate_axes(cols, scope))
               for x, y in ((f, g), (g, f))):
        return None
    return rewrite[0]


ADDS = ("arith.addi", "nv_tileaa.addi")


def _batched_rewrite(loop: scf.ForOp, ub: Operation, scope: list[Operation]
                     ) -> Callable[[Block, Operation], None] | None:
    """The coordinate rewrite of a persistent loop over the tiles of a batched GEMM: the bound is
    ``L * P`` with ``P = X * Y`` (either order), ``t // P`` the batch index, ``(t % P) // X`` one tile
    coordinate and ``t % X`` (or ``(t % P) % X``) the other, X counting the tiles of the axis the
    remainder indexes, Y those of the other, L the batch count (extent-1 tiles) of an array the batch
    index reads; t used only so (cuTile's floor-division sign fix-ups between them).  ``t // P``
    becomes program id 2, the two coordinates program ids 0 and 1 (the remainder's the column axis
    unless it indexes the stored tile's rows)."""
    t = loop.body.block.args[0]
    stores = [op for op in scope if isinstance(op, aa.TiledStoreOp) and len(op.indices) >= 3]
    if not stores or any(list(op.indices[-3:]) != list(stores[0].indices[-3:]) for op in stores):
        return None
    b_idx, r_idx, c_idx = stores[0].indices[-3:]
    for per, count in (tuple(ub.operands), tuple(ub.operands)[::-1]):
        factors = _pair(per, MULS)
        if factors is None:
            continue
        batch, rems_p, minor = [], [], []
        for use in t.uses:
            user = use.operation
            if use.index != 0 or user.name not in DIVS + REMS:
                break
            if user.operands[1] == per:
                (batch if user.name in DIVS else rems_p).append(user)
            elif user.name in REMS and user.operands[1] in factors:
                minor.append(user)
            else:
                break
        else:
            if not batch or not rems_p:
                continue
            # (t % P) or its sign fix-up, divided by (or taken modulo) a factor of P
            remainders = {op.results[0] for op in rems_p}
            remainders |= {u.operation.results[0] for r in list(remainders) for u in r.uses
                           if u.operation.name == "arith.select"}
            major = []
            for r in remainders:
                for use in r.uses:
                    user = use.operation
                    if use.index == 0 and user.name in DIVS + REMS and user.operands[1] in factors:
                        (major if user.name in DIVS else minor).append(user)
            divisors = {op.operands[1] for op in major + minor}
            if not major or not minor or len(divisors) != 1:
                continue
            x = divisors.pop()
            y = factors[1] if factors[0] == x else factors[0]
            outputs = tuple(op.results[0] for op in batch + major + minor)
            if not _only_feeds(t, outputs):
                continue
            major_vals = {op.results[0] for op in major}
            minor_vals = {op.results[0] for op in minor}
            if not _derives_from(b_idx, {op.results[0] for op in batch}):
                continue
            if _derives_from(c_idx, minor_vals) and _derives_from(r_idx, major_vals):
                minor_at, major_at, axes = c_idx, r_idx, (0, 1)
            elif _derives_from(r_idx, minor_vals) and _derives_from(c_idx, major_vals):
                minor_at, major_at, axes = r_idx, c_idx, (1, 0)
            else:
                continue
            if not (is_tile_count(x, coordinate_axes(minor_at, scope))
                    and is_tile_count(y, coordinate_axes(major_at, scope))
                    and is_tile_count(count, coordinate_axes(b_idx, scope))):
                continue

            def rewrite(block: Block, before: Operation, batch=batch, major=major, minor=minor, axes=axes) -> None:
                pid_major, pid_minor, pid_b = aa.GetProgramIdOp(axes[0]), aa.GetProgramIdOp(axes[1]), \
                    aa.GetProgramIdOp(2)
                block.insert_ops_before([pid_major, pid_minor, pid_b], before)
                for ops, pid in ((batch, pid_b), (major, pid_major), (minor, pid_minor)):
                    for op in ops:
                        op.results[0].replace_all_uses_with(pid.results[0])

            return rewrite
    return None


def _pair(v: SSAValue, names: tuple[str, ...]) -> tuple[SSAValue, SSAValue] | None:
    owner = v.owner
    if isinstance(owner, Operation) and owner.name in names and len(owner.operands) == 2:
        return owner.operands[0], owner.operands[1]
    return None


def _linearised_grid(loop: scf.ForOp) -> bool:
    """Whether ``loop`` walks a 2-D launch grid linearised by the program: it starts at
    ``bid(a) + bid(b) * num_blocks(a)`` and steps by ``num_blocks(a) * num_blocks(b)`` (``a != b``, the
    operands in either order): each t once over the programs of the grid, as the 1-D form."""
    start, step = _pair(loop.lb, ADDS), _pair(loop.step, MULS)
    if start is None or step is None:
        return False
    steps = {grid_axis(x, "nv_tileaa.get_num_programs") for x in step}
    for first, rest in (start, start[::-1]):
        a = grid_axis(first, "nv_tileaa.get_program_id")
        mul = _pair(rest, MULS)
        if a is None or mul is None:
            continue
        for pid, count in (mul, mul[::-1]):
            b = grid_axis(pid, "nv_tileaa.get_program_id")
            if b is not None and b != a and grid_axis(count, "nv_tileaa.get_num_programs") == a and steps == {a, b}:
                return True
    return False


def _coordinate_rewrite(t: SSAValue, scope: list[Operation]):
    """(a function rewriting the tile coordinates of index ``t`` into program ids, the (row, column)
    coordinate values) when ``t`` numbers the stored tiles in a raster or grouped order
    (:mod:`tileorch.transforms.tileas.tile_order`) and has no other use; else None."""
    stores = [op for op in scope if isinstance(op, aa.TiledStoreOp) and len(op.indices) >= 2]
    if not stores:  # the result leaves by atomics / scatters: the dot's operand tiles name the output tile
        stores = _dot_anchor(scope)
        if not stores:
            return None
    found = _split_uses(t, stores, scope)
    if found is not None:
        divs, rems = found
        rows = stores[0].indices[-2]
        cols = stores[0].indices[-1]
        return (lambda block, before: _coordinates_to_program_ids(divs, rems, scope, block, before, stores)), \
            (rows, cols)
    rows, cols = stores[0].indices[-2], stores[0].indices[-1]
    if any(op.indices[-2] != rows or op.indices[-1] != cols for op in stores):
        return None
    order = grouped_coordinates(t, rows, cols, scope)
    if order is None or not _only_feeds(t, (rows, cols)):
        return None

    def rewrite(block, before):
        pid_r, pid_c = aa.GetProgramIdOp(0), aa.GetProgramIdOp(1)
        block.insert_ops_before([pid_r, pid_c], before)
        rows.replace_all_uses_with(pid_r.results[0])
        cols.replace_all_uses_with(pid_c.results[0])

    return rewrite, (rows, cols)


@dataclass(frozen=True)
class _Anchor:
    """The (row, column) tile coordinates of a program's output when no tile store names them."""

    indices: tuple[SSAValue, SSAValue]


def _operand_load(v: SSAValue) -> Operation | None:
    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileaa.fp_to_fp", "nv_tileaa.permute",
                                                              "nv_tileaa.reshape", "nv_tileaa.assume"):
        v = v.owner.operands[0]
    return v.owner if isinstance(v.owner, aa.TiledLoadOp) and len(v.owner.indices) == 2 else None


def _dot_anchor(scope: list[Operation]) -> list[_Anchor]:
    """For a program with one dot in a K loop and no tile store: the A tile's non-K index (rows) and
    the B tile's (columns), the coordinates of the output tile the dot computes; else []."""
    dots = [op for op in scope if isinstance(op, aa.DotOp)]
    if len(dots) != 1:
        return []
    loop = dots[0].parent_op()
    if not isinstance(loop, scf.ForOp):
        return []
    iv = loop.body.block.args[0]
    coords = []
    for operand in (dots[0].lhs, dots[0].rhs):
        load = _operand_load(operand)
        if load is None:
            return []
        other = [x for x in load.indices if x is not iv]
        if len(other) != 1 or len(list(load.indices)) - 1 != 1:
            return []
        coords.append(other[0])
    return [_Anchor((coords[0], coords[1]))]


def _only_feeds(t: SSAValue, outputs: tuple[SSAValue, ...]) -> bool:
    """Every use of ``t`` (transitively, through scalar ops) ends in ``outputs``: replacing the
    outputs leaves ``t`` and everything computed from it dead."""
    seen: set[Operation] = set()
    work = [t]
    while work:
        v = work.pop()
        if v in outputs:
            continue
        for use in v.uses:
            op = use.operation
            if op in seen:
                continue
            if not op.name.startswith(PURE) or op.regions:
                return False
            seen.add(op)
            work.extend(op.results)
    return True


def _derives_from(v: SSAValue, roots: set[SSAValue], depth: int = 8) -> bool:
    if v in roots:
        return True
    if depth == 0 or not isinstance(v.owner, Operation):
        return False
    return any(_derives_from(o, roots, depth - 1) for o in v.owner.operands)


def _fold_sign_fixups(region_ops: list[Operation]) -> None:
    """Fold what non-negative program ids and tile counts decide: ``x < 0`` is false, then the
    ``xor``/``and``/``select`` of cuTile's floor-division fix-up."""
    changed = True
    while changed:
        changed = False
        for op in list(region_ops):
            if op.parent is None:
                continue
            value = None
            if isinstance(op, arith.CmpiOp) and op.predicate.value.data in (2, 6) \
                    and _nonneg(op.lhs) and constant_int(op.rhs) == 0:  # slt / ult against 0
                value = False
            elif isinstance(op, arith.XOrIOp) and _bool(op.lhs) is False and _bool(op.rhs) is False:
                value = False
            elif isinstance(op, arith.AndIOp) and (_bool(op.lhs) is False or _bool(op.rhs) is False):
                value = False
            elif isinstance(op, arith.SelectOp) and _bool(op.cond) is not None:
                op.result.replace_all_uses_with(op.lhs if _bool(op.cond) else op.rhs)
                op.detach()
                op.erase()
                changed = True
                continue
            if value is not None:
                c = arith.ConstantOp.from_int_and_width(int(value), 1)
                op.parent_block().insert_op_before(c, op)
                op.results[0].replace_all_uses_with(c.result)
                op.detach()
                op.erase()
                changed = True


def _bool(v: SSAValue) -> bool | None:
    c = constant_int(v)
    if c is None or getattr(v.type, "width", None) is None or v.type.width.data != 1:
        return None
    return bool(c)


def _dce(ops: list[Operation]) -> None:
    for op in reversed(ops):
        if op.parent is not None and op.name.startswith(PURE) \
                and all(not r.uses for r in op.results) and not op.regions:
            op.detach()
            op.erase()


def _coordinates_to_program_ids(divs: list[Operation], rems: list[Operation], scope: list[Operation],
                                block, before: Operation, anchors: list | None = None) -> None:
    """t // X becomes program id 0 and t % X program id 1 (swapped when the remainder indexes the
    rows of every tile stored in ``scope``, or of the ``anchors``), both created in ``block`` before
    ``before``."""
    stored_rows = [op.indices[-2] for op in (anchors if anchors is not None else scope)
                   if isinstance(op, aa.TiledStoreOp | _Anchor) and len(op.indices) >= 2]
    rem_results = {op.results[0] for op in rems}
    q_axis, r_axis = 0, 1
    if stored_rows and all(_derives_from(v, rem_results) for v in stored_rows):
        q_axis, r_axis = 1, 0
    pid_q, pid_r = aa.GetProgramIdOp(q_axis), aa.GetProgramIdOp(r_axis)
    block.insert_ops_before([pid_q, pid_r], before)
    for ops, pid in ((divs, pid_q), (rems, pid_r)):
        for op in ops:
            op.results[0].replace_all_uses_with(pid.results[0])
            op.detach()
            op.erase()


def flatten(loop: scf.ForOp, rewrite: Callable[[Block, Operation], None]) -> None:
    """Replace ``loop`` by its body with the tile coordinates as program ids (see the module doc)."""
    body = loop.body.block
    block = loop.parent_block()
    rewrite(block, loop)
    for arg, init in zip(body.args[1:], loop.iter_args):
        arg.replace_all_uses_with(init)
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    moved = []
    for op in list(body.ops):
        if op is yielded:
            break
        op.detach()
        block.insert_op_before(op, loop)
        moved.append(op)
    for res, value in zip(loop.results, yielded.operands):
        res.replace_all_uses_with(value)
    loop.detach()
    loop.erase(safe_erase=False)
    _fold_sign_fixups([o for top in list(block.ops) for o in top.walk()])
    _dce(list(block.ops))


def _split_uses(t: SSAValue, stores: list[Operation], scope: list[Operation]
                ) -> tuple[list[Operation], list[Operation]] | None:
    """(the t // X ops, the t % X ops) when t is used only that way and X counts the tiles along
    the axis of the stored tile grid that ``t % X`` indexes (then t // X indexes the other)."""
    divs, rems, divisors = [], [], set()
    for use in t.uses:
        user = use.operation
        if use.index != 0 or user.name not in DIVS + REMS:
            return None
        (divs if user.name in DIVS else rems).append(user)
        divisors.add(user.operands[1])
    if not divs or not rems or len(divisors) != 1:
        return None
    x = divisors.pop()
    rem_results = {op.results[0] for op in rems}
    minor = [v for v in stores[0].indices[-2:] if _derives_from(v, rem_results)]
    if len(minor) != 1 or not is_tile_count(x, coordinate_axes(minor[0], scope)):
        return None
    return divs, rems


def split_linear_program_id(fn: aa.FuncOp) -> bool:
    """A kernel that numbers its tiles with one program id and splits it into coordinates
    (``bm, bn = pid // tiles_n, pid % tiles_n``, the transposed raster, or the grouped raster of
    :mod:`tileorch.transforms.tileas.tile_order`) gets them as program ids 0 and 1 instead (the
    tile grid the GEMM host side walks).  Only when program id 0 has no other use and no other
    program id is read."""
    pids = [o for o in fn.walk() if isinstance(o, aa.GetProgramIdOp) and o.results[0].uses]
    if len(pids) != 1 or pids[0].axis.value.data != 0 or pids[0].operands:
        return False
    found = _coordinate_rewrite(pids[0].results[0], list(fn.walk()))
    if found is None:
        return False
    found[0](pids[0].parent_block(), pids[0])
    body = fn.body.blocks.first
    _fold_sign_fixups([o for top in list(body.ops) for o in top.walk()])
    _dce(list(body.ops))
    return True


def _operand_slice(v: SSAValue, block: Block) -> list[Operation] | None:
    """The ops from a dot operand back to its ``tiled_load`` (load first), each in ``block`` and
    each result used once along the path, the load's token unused; None otherwise."""
    chain = _operand_chain(v)
    if chain is None or any(x.owner.parent_block() is not block or sum(1 for _ in x.uses) != 1 for x in chain):
        return None
    load = chain[-1].owner
    return None if any(True for _ in load.result_token.uses) else [x.owner for x in reversed(chain)]


def wrap_loopless_dot(fn: aa.FuncOp) -> bool:
    """A kernel whose one dot is not in a loop (``ct.mma(ct.load(A, (bm, c)), ct.load(B, (c, bn)),
    acc)``: K fits one tile) gets a K loop of one trip, ``for k in [c, c + 1)``, around the two
    operand loads and the dot, with ``k`` for the constant K tile index ``c`` of both loads.  The
    program computes the same (the loop runs once with ``k = c``); the GEMM lowering then reads it
    as a K loop over the program's own K range.  Only when each operand is a chain of single-use
    ops from one ``tiled_load`` whose token is unused, and each load has exactly one constant
    index, the same ``c`` in both."""
    dots = [o for o in fn.walk() if isinstance(o, aa.DotOp)]
    if len(dots) != 1:
        return False
    dot = dots[0]
    block = dot.parent_block()
    if block is None or block is not fn.body.blocks.first:
        return False
    slices = [_operand_slice(v, block) for v in (dot.lhs, dot.rhs)]
    if None in slices:
        return False
    ks = []
    for sl in slices:
        consts = [(i, constant_int(x)) for i, x in enumerate(sl[0].indices) if constant_int(x) is not None]
        if len(consts) != 1:
            return False
        ks.append(consts[0])
    if ks[0][1] != ks[1][1]:
        return False
    c = ks[0][1]
    iv_type = slices[1][0].indices[ks[1][0]].type
    lb = arith.ConstantOp(IntegerAttr(c, iv_type))
    ub = arith.ConstantOp(IntegerAttr(c + 1, iv_type))
    step = arith.ConstantOp(IntegerAttr(1, iv_type))
    body = Block(arg_types=[iv_type, dot.acc.type])
    for op in (lb, ub, step):
        block.insert_op_before(op, dot)
    init = dot.acc
    outside = list(dot.result.uses)
    moved = sorted((op for sl in slices for op in sl), key=lambda o: block.get_operation_index(o))
    for op in [*moved, dot]:
        op.detach()
        body.add_op(op)
    for sl, (i, _) in zip(slices, ks):
        sl[0].operands[1 + i] = body.args[0]  # operand 0 is the view, then the indices
    dot.operands[2] = body.args[1]
    body.add_op(scf.YieldOp(dot.result))
    loop = scf.ForOp(lb.result, ub.result, step.result, [init], body)
    block.insert_op_after(loop, step)
    for use in outside:
        use.operation.operands[use.index] = loop.results[0]
    return True


TILE_GRID_IDS = "tileorch.tile_grid_ids"
"""On a kernel whose program ids this pass rewrote (a persistent loop or a linear id turned into
tile coordinates, a tile-0 axis given a program id, the axes renumbered): its program ids are the
output tile grid's, no longer the launch grid's (the GEMM host side walks the tile grid)."""

SINGLE_TILE_AXES = "tileorch.single_tile_axes"
"""On a kernel rewritten by :func:`single_tile_axes`: the grid axes (0 rows, 1 columns) along which
the program computes only tile 0; the host side must check that the output has one tile there."""


def single_tile_axes(fn: aa.FuncOp) -> list[int]:
    """A GEMM that stores only tile 0 along the output's rows or columns (``ct.load(B, index=(k,
    0))``, ``ct.store(C, index=(bm, 0))``: N fits one tile, the grid is 1-D) reads that axis's
    tile index from a program id of its own instead: the constant 0 of every store's index on
    that axis and of the dot operand's non-K index (A's rows, B's columns) becomes
    ``get_program_id`` of the axis, so the kernel builder's tile walk applies.  The program
    computes the same only when the output has one tile along the axis; the axes are recorded in
    :data:`SINGLE_TILE_AXES` for the launcher to check (it runs the program as written, on the
    SIMT path, otherwise).  Only axes whose program id the kernel does not read.  A kernel of two dots whose
    second dot follows the K loop outside every loop (an epilogue dot, ``relu(X W1) W2`` on a 1-D grid) is taken
    too: the output's columns are that dot's, so its B's column index (read untransposed at tile ``(0, 0)``) is
    the one that becomes program id 1."""
    dots = [o for o in fn.walk() if isinstance(o, aa.DotOp)]
    stores = [o for o in fn.walk() if isinstance(o, aa.TiledStoreOp)]
    if len(dots) not in (1, 2) or not stores:
        return []
    dot = next((d for d in dots if isinstance(d.parent_op(), scf.ForOp)), None)
    if dot is None:
        return []
    loop = dot.parent_op()
    iv = loop.body.block.args[0]
    loads = [_dot_operand_load(v) for v in (dot.lhs, dot.rhs)]
    # a second dot after the K loop (an epilogue dot, ``relu(X W1) W2`` on a 1-D grid): the output's columns are
    # its B's columns, read at the constant 0 (the K index, the first dot's N, is the constant 0 too)
    second = _epilogue_dot_b(fn, dots, dot)
    if len(dots) == 2:
        if second is None:
            return []
        loads[1] = second
    if None in loads or any(_matrix_offset(ld) is None for ld in loads):
        return []
    used = {o.axis.value.data for o in fn.walk() if isinstance(o, aa.GetProgramIdOp) and any(True for _ in o.results[0].uses)}
    done = []
    for axis, ld in ((0, loads[0]), (1, loads[1])):
        if axis in used:
            continue
        site = []  # (op, operand index) of the constant 0s that become the program id
        for st in stores:
            idx = list(st.indices)
            if len(idx) < 2 or constant_int(idx[len(idx) - 2 + axis]) != 0:
                site = None
                break
            site.append((st, 2 + len(idx) - 2 + axis))  # operands: tile, view, indices...
        if not site:
            continue
        free = [i for i, x in enumerate(ld.indices) if x is not iv and i >= _matrix_offset(ld)]
        if ld is second and axis == 1:
            free = [_matrix_offset(ld) + 1]  # (its row index, the second dot's K, is the constant 0 as well)
        if len(free) != 1 or constant_int(ld.indices[free[0]]) != 0:
            continue
        site.append((ld, 1 + free[0]))  # operands: view, indices...
        pid = aa.GetProgramIdOp(axis)
        fn.body.blocks.first.insert_op_before(pid, fn.body.blocks.first.first_op)
        for op, k in site:
            op.operands[k] = pid.results[0]
        done.append(axis)
    if done:
        from xdsl.dialects.builtin import DenseArrayBase, i32

        fn.attributes[SINGLE_TILE_AXES] = DenseArrayBase.from_list(i32, done)
        grid_axes.covered_whole(fn, done)  # (the axes' one tile: computed by any launched program)
    return done


def _epilogue_dot_b(fn: aa.FuncOp, dots: list, main: Operation) -> Operation | None:
    """For a kernel of two dots, ``main`` in a loop and the other one outside every loop (in the function's body,
    after the loop: an epilogue dot on the K loop's result): the ``tiled_load`` of that second dot's B when it is
    read untransposed at the constant tile index 0 on both its axes, else None."""
    others = [d for d in dots if d is not main]
    if len(others) != 1 or others[0].parent_op() is not fn:
        return None
    chain = _operand_chain(others[0].rhs)
    if chain is None or any(isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.permute" for v in chain):
        return None
    ld = chain[-1].owner
    off = _matrix_offset(ld) if isinstance(ld, aa.TiledLoadOp) else None
    if off is None or any(constant_int(ld.indices[off + i]) != 0 for i in (0, 1)):
        return None
    return ld


def _matrix_offset(ld: Operation) -> int | None:
    """Where a dot operand load's matrix indices start: 0 for a 2-D tile, 1 for a ``1 x R x C``
    tile of a batched program (its leading index is the batch's), None otherwise."""
    idx = list(ld.indices)
    if len(idx) == 2:
        return 0
    if len(idx) == 3 and list(ld.result.type.get_shape())[0] == 1:
        return 1
    return None


def batch_axis_to_2(fn: aa.FuncOp) -> bool:
    """A batched program (every store a ``1 x M x N`` tile) whose batch index is program id ``p``
    != 2 for every load and store (``ct.load(A, index=(ct.bid(0), 0, k), ...)``: cuTile's form with
    M and N one tile each) gets program axes ``p`` and 2 swapped in every ``get_program_id`` and
    ``get_num_programs``: the same tiles on the correspondingly permuted grid, the batch where
    the GEMM host side walks it.  Then :func:`single_tile_axes` can give the constant M and N
    tile indices program ids 0 and 1.  Only when axes 0..2 other than ``p`` are not read."""
    from xdsl.dialects.builtin import IntegerAttr, i32

    views = [o for o in fn.walk() if isinstance(o, aa.TiledStoreOp | aa.TiledLoadOp) and len(o.indices) == 3]
    stores = [o for o in views if isinstance(o, aa.TiledStoreOp)]
    if not stores or any(list(st.tile.type.get_shape())[0] != 1 for st in stores):
        return False
    axes = {grid_axis(o.indices[0], "nv_tileaa.get_program_id") for o in views}
    if len(axes) != 1 or None in axes or 2 in axes:
        return False
    p = axes.pop()
    read = {o.axis.value.data for o in fn.walk() if isinstance(o, aa.GetProgramIdOp | aa.GetNumProgramsOp)
            and any(True for _ in o.results[0].uses)}
    if read != {p}:
        return False
    for op in fn.walk():
        if isinstance(op, aa.GetProgramIdOp | aa.GetNumProgramsOp) and op.axis.value.data in (p, 2):
            op.properties["axis"] = IntegerAttr(2 if op.axis.value.data == p else p, i32)
    grid_axes.permuted(fn, {p: 2, 2: p})
    return True


def stores_transposed_tile(store: Operation) -> bool:
    """Whether a 2-D ``tiled_store`` writes the transpose of a tile (``ct.transpose``/``ct.permute``
    with permutation ``[1, 0]``, through casts and layout conversions): its first index numbers
    the columns of the tile that was computed, its second the rows."""
    v = store.tile
    for _ in range(64):
        owner = v.owner
        if not isinstance(owner, Operation):
            return False
        if owner.name == "nv_tileaa.permute":
            return list(owner.permutation.get_values()) == [1, 0]
        if owner.name not in ("nv_tileaa.fp_to_fp", "nv_tileas.convert_layout", "nv_tileaa.assume") or \
                not owner.operands:
            return False
        v = owner.operands[0]
    return False


def canonicalize_program_axes(fn: aa.FuncOp) -> bool:
    """Number the grid the way the GEMM host side walks it: the stored tile's rows along program
    axis 0, its columns along 1, a batch (the leading index of a ``1 x M x N`` tile) along 2.
    A 2-D program that stores at ``(ct.bid(1), ct.bid(0))`` (rows along the grid's second axis)
    gets its two axes swapped the same way.

    cuTile programs may put the batch on ``ct.bid(0)`` (the form of cuTile's batched matmul
    sample); when every stored tile is a ``1 x M x N`` tile indexed by program ids with the same
    distinct axes, every ``get_program_id`` and ``get_num_programs`` is renamed by one permutation
    of the axes, which computes the same tiles on the correspondingly permuted grid (the tier's
    launcher covers the tile space itself)."""
    from xdsl.dialects.builtin import IntegerAttr, i32

    stores = [o for o in fn.walk() if isinstance(o, aa.TiledStoreOp)]
    if not stores:
        return False
    roles = None
    for st in stores:
        idx = list(st.indices)
        if len(idx) == 3 and list(st.tile.type.get_shape())[0] == 1:
            order = [idx[1], idx[2], idx[0]]
        elif len(idx) == 2:  # ``bn, bm = ct.bid(0), ct.bid(1)``: the transposed grid
            # a transposed tile (``ct.transpose(acc)`` stored at ``(bn, bm)``) has its rows along the
            # other index: its columns are the stored tile's rows
            order = list(idx)[::-1] if stores_transposed_tile(st) else list(idx)
        else:
            return False
        axes = [grid_axis(v, "nv_tileaa.get_program_id") for v in order]
        if None in axes or len(set(axes)) != len(axes):
            return False
        if roles is None:
            roles = axes
        elif roles != axes:
            return False
    perm = {old: new for new, old in enumerate(roles)}
    rest = [a for a in range(3) if a not in perm]
    for new in range(3):
        if new not in perm.values():
            perm[rest.pop(0)] = new
    if all(k == v for k, v in perm.items()):
        return False
    for op in fn.walk():
        if isinstance(op, aa.GetProgramIdOp | aa.GetNumProgramsOp):
            op.properties["axis"] = IntegerAttr(perm[op.axis.value.data], i32)
    grid_axes.permuted(fn, perm)
    return True


@dataclass(frozen=True)
class ProgramLoopToTiles(ModulePass):
    """Also: a linear program id split into tile coordinates (:func:`split_linear_program_id`) and
    the program axes renumbered (:func:`canonicalize_program_axes`).  Only kernels with exactly one
    dot are rewritten (the launch grid of the others is the program's; but for an epilogue dot's kernel,
    :func:`single_tile_axes`); a dot outside any loop gets a one-trip K loop (:func:`wrap_loopless_dot`)."""

    name = "tileas-program-loop-to-tiles"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, aa.FuncOp)]:
            # one dot: the GEMM lowering, whose host side covers the tile space itself; kernels with
            # two chained dots (attention) launch on the program's own grid and keep its numbering
            if sum(o.name == "nv_tileaa.dot" for o in fn.walk()) != 1:
                if sum(o.name == "nv_tileaa.dot" for o in fn.walk()) > 1:
                    # a work loop around a chain (or a static one inside each program): the chained kernel's
                    # instances
                    if not (flatten_work_loop(fn) or flatten_inner_work_loop(fn)
                            or wrap_loopless_chain(fn, sink(self.name))) and single_tile_axes(fn):
                        # a GEMM with a dot after its K loop on a 1-D grid (its output one column tile)
                        fn.attributes[TILE_GRID_IDS] = UnitAttr()
                continue
            renumbered = False
            for loop in [o for o in fn.body.blocks.first.ops if isinstance(o, scf.ForOp)]:
                rewrite = _match(loop)
                if rewrite is not None and any(o.name == "nv_tileaa.dot" for o in loop.walk()):
                    before = grid_axes.program_id_ops(fn)
                    flatten(loop, rewrite)
                    grid_axes.replaced(fn, before)  # every launched program walks all of the loop's tiles
                    renumbered = True
            wrap_loopless_dot(fn)
            before = grid_axes.program_id_ops(fn)
            if split_linear_program_id(fn):
                grid_axes.replaced(fn, before, grid_axes.LINEAR)  # launched programs: the first tiles of a raster
                renumbered = True
            renumbered |= bool(single_tile_axes(fn))
            renumbered |= canonicalize_program_axes(fn)
            if renumbered:
                fn.attributes[TILE_GRID_IDS] = UnitAttr()
