"""Masks that hold on a whole tile: the interior iterations of a masked loop, without the masks.

A tile program masks the columns past the sequence end (``where(j * TN + arange(TN) < seq, s,
-inf)``) or the keys after a query (``key <= row``, causal) in every iteration, though every
element passes the test in all but the last one or two.  The comparison and the select then cost
two instructions per element and iteration.  The analysis here bounds an integer tile by two
scalars computed at run time (its least and greatest element, from ``make_range`` extents,
splatted scalars, sums, differences and products by non-negative constants), so that a lowering
can test once per iteration, on scalars, whether a comparison holds on every element
(``slt``: the left tile's greatest element is below the right tile's least), and then run a copy
of the iteration in which that comparison is the constant ``true``.

:func:`interior_masks` picks the comparisons (of the loop body's top level, feeding a select);
:func:`whole_tile_test` emits the scalar test for them.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Block, Operation, SSAValue

from tileorch.transforms.dense_splat import splat_value

_PASS = ("nv_tileaa.broadcast", "nv_tileaa.expand_dims", "nv_tileaa.reshape", "nv_tileas.convert_layout",
         "nv_tileaa.assume", "nv_tileas.broadcast", "nv_tileas.expand_dim")
_HOLDS = ("slt", "sle", "sgt", "sge")
"""Predicates whose truth on every element is one scalar comparison of the operands' bounds."""


def _constant(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, Operation) and op.name == "nv_tileaa.splat":
        return _constant(op.operands[0])
    if isinstance(op, Operation) and op.name in _PASS:
        return _constant(op.operands[0])
    if isinstance(op, arith.ConstantOp):
        if isinstance(op.value, IntegerAttr):
            return op.value.value.data
        if isinstance(op.value, DenseIntOrFPElementsAttr) and isinstance(op.value.get_element_type(), IntegerType):
            splat, value = splat_value(op.value)
            return value if splat else None
    return None


def _nonneg(v: SSAValue) -> bool:
    c = _constant(v)
    return c is not None and c >= 0


def analyzable(v: SSAValue, depth: int = 16) -> bool:
    """Whether :func:`tile_bounds` can bound the integer tile ``v``."""
    op = v.owner
    if depth == 0 or not isinstance(op, Operation):
        return False
    if _constant(v) is not None or op.name in ("nv_tileaa.splat", "nv_tileaa.make_range"):
        return True
    if op.name in _PASS:
        return analyzable(op.operands[0], depth - 1)
    if op.name in ("nv_tileaa.addi", "nv_tileaa.subi"):
        return all(analyzable(o, depth - 1) for o in op.operands)
    if op.name == "nv_tileaa.muli":
        return any(_nonneg(o) and analyzable(other, depth - 1)
                   for o, other in ((op.operands[1], op.operands[0]), (op.operands[0], op.operands[1])))
    return False


def tile_bounds(low, v: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(least, greatest) element of the integer tile ``v`` (one :func:`analyzable`), as i32 scalars
    emitted by ``low`` (a fragment lowering: its ``scalar`` evaluates the program's scalars)."""
    e = low.e
    c = _constant(v)
    if c is not None:
        x = e.const(c)
        return x, x
    op = v.owner
    if op.name in _PASS:
        return tile_bounds(low, op.operands[0])
    if op.name == "nv_tileaa.splat":
        x = low._i32(low.scalar(op.operands[0]))
        return x, x
    if op.name == "nv_tileaa.make_range":
        return e.const(op.start.value.data), e.const(op.end.value.data - 1)
    if op.name in ("nv_tileaa.addi", "nv_tileaa.subi"):
        (alo, ahi), (blo, bhi) = (tile_bounds(low, o) for o in op.operands)
        if op.name == "nv_tileaa.addi":
            return e.add_i(alo, blo), e.add_i(ahi, bhi)
        return e.v(arith.SubiOp(alo, bhi)), e.v(arith.SubiOp(ahi, blo))
    k, other = ((op.operands[1], op.operands[0]) if _nonneg(op.operands[1]) and analyzable(op.operands[0])
                else (op.operands[0], op.operands[1]))
    lo, hi = tile_bounds(low, other)
    f = e.const(_constant(k))
    return e.mul_i(lo, f), e.mul_i(hi, f)


def _feeds_select(op: Operation) -> bool:
    todo, seen = [op.results[0]], set()
    while todo:
        v = todo.pop()
        for use in v.uses:
            user = use.operation
            if user.name == "nv_tileaa.select" and use.index == 0:
                return True
            if user.name in ("nv_tileaa.andi", "arith.andi", *_PASS) and id(user) not in seen:
                seen.add(id(user))
                todo.append(user.results[0])
    return False


def _unconditional(op: Operation, body: Block) -> bool:
    """``op`` runs in every iteration of the loop whose body is ``body``: no ``scf.if`` or loop
    between them (agent and pipeline regions are not branches)."""
    parent = op.parent_op()
    while parent is not None and parent.parent_block() is not None and op.parent_block() is not body:
        if parent.name in ("scf.if", "scf.for", "scf.while"):
            return False
        op, parent = parent, parent.parent_op()
    return op.parent_block() is body


def interior_masks(body: Block) -> list[Operation]:
    """The comparisons the loop ``body`` runs in every iteration that may hold on whole tiles:
    integer tile comparisons with a predicate of :data:`_HOLDS`, both operands
    :func:`analyzable`, that decide a select (directly or through ``andi``)."""
    out = []
    for op in body.walk():
        if (op.name == "nv_tileaa.cmpi" and _unconditional(op, body) and isinstance(op.results[0].type, TensorType)
                and op.predicate.data in _HOLDS and all(analyzable(o) for o in op.operands) and _feeds_select(op)):
            out.append(op)
    return out


def whole_tile_test(low, cmps: list[Operation]) -> SSAValue:
    """An i1 scalar, emitted by ``low``: every comparison of ``cmps`` holds on every element."""
    e, test = low.e, None
    for op in cmps:
        (alo, ahi), (blo, bhi) = (tile_bounds(low, o) for o in op.operands)
        p = op.predicate.data
        lhs, rhs = (ahi, blo) if p in ("slt", "sle") else (alo, bhi)
        t = e.v(arith.CmpiOp(lhs, rhs, p))
        test = t if test is None else e.v(arith.AndIOp(test, t))
    return test


__all__ = ["analyzable", "interior_masks", "tile_bounds", "whole_tile_test"]
