"""``tileas-program-loop-to-tiles``: a persistent tile loop written in the program becomes a grid
of tile programs, so the tier compiles its body like any tile kernel and the kernel builder's
persistent scheduler walks the tiles instead.

cuTile programs write persistence as ``for t in range(ct.bid(0), tiles_m * tiles_n,
ct.num_blocks(0))`` with the tile coordinates ``t // tiles_n`` and ``t % tiles_n`` (or the
transposed raster).  Such a loop is rewritten when, and only when, the rewrite cannot change what
the program computes:

* the loop starts at ``get_program_id(a)`` and steps by ``get_num_programs(a)`` (each t once, over
  all programs of the grid), and its upper bound is a product of two tile counts
  (``get_dim_size`` of tiled views) one of which, ``X``, divides t;
* t is used only as ``t // X`` and ``t % X`` (signed or unsigned, any number of each) and the
  loop carries only memory tokens;

then ``t // X`` becomes program id 0 and ``t % X`` program id 1 (swapped when the remainder indexes
a stored tile's rows), the body replaces the loop, and the non-negativity facts of program ids and
tile counts fold away the floor-division sign fix-ups cuTile emits.  A loop that does not match is
left alone (the tier then refuses the kernel with a located reason, or compiles the loop as it is).
The rewritten kernel no longer reads the launch grid: it is meant for a launcher that covers the
tile space itself (the tier's GEMM host side does).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.constants import constant_int

DIVS = ("arith.floordivsi", "arith.divsi", "arith.divui", "nv_tileaa.divi", "nv_tileaa.floordivi")
REMS = ("arith.remsi", "arith.remui", "nv_tileaa.remi")
MULS = ("arith.muli", "nv_tileaa.muli")
PURE = ("arith.", "nv_tileaa.get_", "nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.muli")
"""Scalar ops left dead by the rewrite (erased)."""
NONNEG = ("nv_tileaa.get_program_id", "nv_tileaa.get_num_programs", "nv_tileaa.get_dim_size")


def _owner_name(v: SSAValue) -> str:
    return v.owner.name if isinstance(v.owner, Operation) else ""


def _axis(v: SSAValue, name: str) -> int | None:
    if _owner_name(v) == name:
        return v.owner.axis.value.data
    return None


def _nonneg(v: SSAValue) -> bool:
    if _owner_name(v) in NONNEG:
        return True
    c = constant_int(v)
    return c is not None and c >= 0


def _match(loop: scf.ForOp) -> tuple[list[Operation], list[Operation]] | None:
    """(the t // X ops, the t % X ops) when ``loop`` is a program-written persistent tile loop."""
    axis = _axis(loop.lb, "nv_tileaa.get_program_id")
    if axis is None or _axis(loop.step, "nv_tileaa.get_num_programs") != axis:
        return None
    if any(not isinstance(a.type, aa.MemTokenType) for a in loop.iter_args):
        return None
    ub = loop.ub.owner
    if not isinstance(ub, Operation) or ub.name not in MULS:
        return None
    factors = list(ub.operands)
    if any(_owner_name(f) != "nv_tileaa.get_dim_size" for f in factors):
        return None
    # t // X and t % X with X a tile count of the stored grid, and the trip count that grid's
    # rows x columns: then t walks exactly the output tiles
    stored = [op.view.type for op in loop.walk() if isinstance(op, aa.TiledStoreOp)]
    if not stored or any(f.owner.operands[0].type not in stored for f in factors):
        return None
    rank = len(stored[0].tile.data)
    if sorted(f.owner.index.value.data for f in factors) != [rank - 2, rank - 1]:
        return None
    found = _split_uses(loop.body.block.args[0], stored)
    if found is None or found[0][0].operands[1] not in factors:
        return None
    return found


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
                                block, before: Operation) -> None:
    """t // X becomes program id 0 and t % X program id 1 (swapped when the remainder indexes the
    rows of every tile stored in ``scope``), both created in ``block`` before ``before``."""
    stored_rows = [op.indices[-2] for op in scope if isinstance(op, aa.TiledStoreOp) and len(op.indices) >= 2]
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


def flatten(loop: scf.ForOp, divs: list[Operation], rems: list[Operation]) -> None:
    """Replace ``loop`` by its body with t // X and t % X as program ids (see the module doc)."""
    body = loop.body.block
    block = loop.parent_block()
    _coordinates_to_program_ids(divs, rems, list(body.walk()), block, loop)
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


def _split_uses(t: SSAValue, stored: list) -> tuple[list[Operation], list[Operation]] | None:
    """(the t // X ops, the t % X ops) when t is used only that way, with X a tile count of the
    stored tile grid (``get_dim_size`` of a stored view, row or column axis)."""
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
    if _owner_name(x) != "nv_tileaa.get_dim_size" or x.owner.operands[0].type not in stored:
        return None
    rank = len(stored[0].tile.data)
    if x.owner.index.value.data not in (rank - 2, rank - 1):
        return None
    return divs, rems


def split_linear_program_id(fn: aa.FuncOp) -> bool:
    """A kernel that numbers its tiles with one program id and splits it into coordinates
    (``bm, bn = pid // tiles_n, pid % tiles_n``, or the transposed raster) gets them as program
    ids 0 and 1 instead (the tile grid the GEMM host side walks).  Only when program id 0 has no
    other use and no other program id is read."""
    pids = [o for o in fn.walk() if isinstance(o, aa.GetProgramIdOp) and o.results[0].uses]
    if len(pids) != 1 or pids[0].axis.value.data != 0 or pids[0].operands:
        return False
    stored = [o.view.type for o in fn.walk() if isinstance(o, aa.TiledStoreOp)]
    if not stored:
        return False
    found = _split_uses(pids[0].results[0], stored)
    if found is None:
        return False
    divs, rems = found
    _coordinates_to_program_ids(divs, rems, list(fn.walk()), pids[0].parent_block(), pids[0])
    body = fn.body.blocks.first
    _fold_sign_fixups([o for top in list(body.ops) for o in top.walk()])
    _dce(list(body.ops))
    return True


@dataclass(frozen=True)
class ProgramLoopToTiles(ModulePass):
    """Also: a linear program id split into tile coordinates (:func:`split_linear_program_id`)."""

    name = "tileas-program-loop-to-tiles"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.walk() if isinstance(f, aa.FuncOp)]:
            if not any(o.name == "nv_tileaa.dot" for o in fn.walk()):
                continue
            for loop in [o for o in fn.body.blocks.first.ops if isinstance(o, scf.ForOp)]:
                found = _match(loop)
                if found is not None and any(o.name == "nv_tileaa.dot" for o in loop.walk()):
                    flatten(loop, *found)
            split_linear_program_id(fn)
