"""A chain of two dots written without a key loop (attention over at most one key tile: ``S = q k^T``, the
softmax, ``O = P v``, all tiles in one go) gets a key loop of one trip, so the chained tier pipelines it as
any attention (part of ``tileas-program-loop-to-tiles``).

The key tiles the program reads are the K and V tiles at a constant key-tile index ``c`` (the same in both
loads).  The rewrite puts every op that reads those loads or the first dot (directly or not) and does not
read the second dot, and the second dot, into ``for j in [c, c + 1)`` with ``j`` for ``c`` in the two loads'
key index; the second dot accumulates onto the loop-carried accumulator (its ``acc`` operand before the
loop), and every other value the program reads after the loop leaves it as a loop result (carried from a
zero tile: the one trip replaces it).  The program computes the same: the loop runs once, with ``j = c``.
Taken only when the kernel has exactly two dots, none in a loop, both in the kernel's top block, the
second reading the first's result through its A, each operand load ``tiled_load`` whose key dimension is at a
constant index, and the moved ops produce no memory token read outside them.  The key dimension of a load is
the tile dimension its dot's key axis (N of ``q k^T``'s B, K of ``P v``'s B) comes from through the operand's
permutes and unit-dim reshapes (:func:`_traced_dim`); where that trace fails, the load's one tile dimension of
the key tile's extent at a constant index (two such: left alone).  Sweep 30 found the trace missing: a head dim
equal to the key tile's width (64 / 64, the commonest attention tile) left such chains on the SIMT path with the
warning "this dot is not in a loop".  The rewrite is stated at the second dot (``remarks``; the driver prints
it once the tier takes the kernel).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Block, Operation, SSAValue

from tileorch.diagnostics import copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.constants import constant_int
from tileorch.transforms.tileas.common import dot_operand_load, operand_chain


def _traced_dim(operand: SSAValue, dim: int) -> int | None:
    """The tile dimension of the ``tiled_load`` behind dot operand ``operand`` (:func:`operand_chain`) that the
    operand's dimension ``dim`` comes from: through ``permute`` (result dimension i is source dimension
    ``permutation[i]``) and ``reshape`` that only adds or drops unit dimensions; None through any other reshape or
    a unit dimension."""
    chain = operand_chain(operand)
    if chain is None:
        return None
    for value, source in zip(chain, chain[1:]):
        op = value.owner
        if op.name == "nv_tileaa.permute":
            dim = list(op.permutation.get_values())[dim]
        elif op.name == "nv_tileaa.reshape":
            to, frm = list(value.type.get_shape()), list(source.type.get_shape())
            big_to = [i for i, n in enumerate(to) if n != 1]
            big_frm = [i for i, n in enumerate(frm) if n != 1]
            if dim not in big_to or [to[i] for i in big_to] != [frm[i] for i in big_frm]:
                return None
            dim = big_frm[big_to.index(dim)]
    return dim


def _key_index(load: Operation, extent: int, dim: int | None = None) -> tuple[int, int] | None:
    """(operand position, constant) of ``load``'s index along tile dimension ``dim`` (the traced key dimension)
    when that index is a constant and the dimension's extent is ``extent``; without ``dim``, of its one index at
    a constant whose tile dimension is ``extent``."""
    tile = list(load.result.type.get_shape())
    hits = [(i, constant_int(x)) for i, x in enumerate(load.indices)
            if i < len(tile) and tile[i] == extent and constant_int(x) is not None and dim in (None, i)]
    return hits[0] if len(hits) == 1 else None


def _depends(op: Operation, roots: set[int], memo: dict[int, bool]) -> bool:
    """Whether ``op`` reads (through its operands, transitively in the block) a result of an op in ``roots``."""
    if id(op) in memo:
        return memo[id(op)]
    memo[id(op)] = False
    hit = id(op) in roots or any(isinstance(x.owner, Operation) and _depends(x.owner, roots, memo)
                                 for x in op.operands)
    hit = hit or any(_depends(inner, roots, memo) for r in op.regions for b in r.blocks for inner in b.ops)
    memo[id(op)] = hit
    return hit


REMARK = ("this chain of two dots has no key loop (all keys in one tile): the chained tier runs it as a key loop "
          "of one trip (tileas-program-loop-to-tiles, loopless_chain.py)")


def wrap_loopless_chain(fn: aa.FuncOp, remarks: list[str] | None = None) -> bool:
    """Rewrite the kernel as the module doc says; whether it did (then its located remark appended to ``remarks``)."""
    block = fn.body.blocks.first
    dots = [o for o in fn.walk() if isinstance(o, aa.DotOp)]
    if len(dots) != 2 or any(d.parent_block() is not block for d in dots):
        return False
    if any(isinstance(o, scf.ForOp | scf.WhileOp) for o in block.ops):
        return False
    d1, d2 = sorted(dots, key=block.get_operation_index)
    k_load, v_load = dot_operand_load(d1.rhs), dot_operand_load(d2.rhs)
    if k_load is None or v_load is None or k_load is v_load:
        return False
    if not _depends(d2.lhs.owner, {id(d1)}, {}) if isinstance(d2.lhs.owner, Operation) else True:
        return False
    bn = d1.result.type.get_shape()[-1]
    # the key axis: N of the first dot's B (its dimension 1), K of the second's B (its dimension 0)
    keys = [_key_index(k_load, bn, _traced_dim(d1.rhs, 1)), _key_index(v_load, bn, _traced_dim(d2.rhs, 0))]
    if None in keys or keys[0][1] != keys[1][1]:
        return False
    c = keys[0][1]
    memo: dict[int, bool] = {}
    after_d2: dict[int, bool] = {}
    at = block.get_operation_index(d2)
    moved = [o for o in block.ops if block.get_operation_index(o) < at and
             _depends(o, {id(k_load), id(v_load), id(d1)}, memo)] + [d2]
    if any(_depends(o, {id(d2)}, after_d2) for o in moved[:-1]):
        return False
    moved_ids = {id(o) for o in moved}
    if isinstance(d2.acc.owner, Operation) and id(d2.acc.owner) in moved_ids:
        return False  # (the accumulator's initial value must be defined before the loop)
    escaping = []
    for o in moved:
        for r in o.results:
            outside = [u for u in r.uses if id(_top(u.operation, block)) not in moved_ids]
            if not outside:
                continue
            if not isinstance(r.type, TensorType) or (o is not d2 and isinstance(r.type, aa.MemTokenType)):
                return False
            escaping.append(r)
    if d2.result not in escaping:
        return False
    escaping.remove(d2.result)
    _build_loop(block, d2, moved, escaping, [(k_load, keys[0][0]), (v_load, keys[1][0])], c)
    if remarks is not None:
        from tileorch.diagnostics import format_error

        remarks.append(format_error(d2, REMARK, "remark"))
    return True


def _top(op: Operation, block: Block) -> Operation:
    while op.parent_block() is not block:
        op = op.parent_op()
    return op


def _build_loop(block: Block, d2: Operation, moved: list[Operation], escaping: list[SSAValue],
                loads: list[tuple[Operation, int]], c: int) -> None:
    """:func:`wrap_loopless_chain`'s loop ``for j in [c, c + 1)`` at ``d2``'s place."""
    iv_type = loads[0][0].indices[loads[0][1]].type
    lb = arith.ConstantOp(IntegerAttr(c, iv_type))
    ub = arith.ConstantOp(IntegerAttr(c + 1, iv_type))
    step = arith.ConstantOp(IntegerAttr(1, iv_type))
    zeros = [arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(
        r.type, [0 if isinstance(r.type.element_type, IntegerType) else 0.0] * math.prod(r.type.get_shape())))
        for r in escaping]
    head = [lb, ub, step, *zeros]
    copy_location(d2, head)
    block.insert_ops_before(head, d2)
    body = Block(arg_types=[iv_type, d2.acc.type, *(r.type for r in escaping)])
    init = d2.acc
    outside = {id(r): [u for u in r.uses if id(_top(u.operation, block)) not in {id(o) for o in moved}]
               for r in [d2.result, *escaping]}
    for op in moved:
        op.detach()
        body.add_op(op)
    for load, pos in loads:
        load.operands[1 + pos] = body.args[0]  # operand 0 is the view, then the indices
    d2.operands[2] = body.args[1]
    body.add_op(scf.YieldOp(d2.result, *escaping))
    loop = scf.ForOp(lb.result, ub.result, step.result, [init, *(z.result for z in zeros)], body)
    copy_location(d2, [loop])
    block.insert_op_after(loop, head[-1])
    for r, res in zip([d2.result, *escaping], loop.results):
        for use in outside[id(r)]:
            use.operation.operands[use.index] = res

