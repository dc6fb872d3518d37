"""Which launch order of the program instances balances a grid whose programs differ in work.

Programs of a tile kernel are independent, so the order in which the hardware starts them is the
compiler's to choose.  When a program's main loop runs a trip count that grows with its program
id along one axis (causal attention: query block ``bm`` visits ``cdiv((bm + 1) * TILE_M, TILE_N)``
key tiles), launching in id order starts the heaviest programs last, and the SMs that take them
finish long after the others (the tail).  Launching them heaviest first (longest processing time
first) leaves the short programs for the end, where they fill the gaps.

:func:`heavy_first_axis` is the analysis: the one program-id axis along which the loop's upper
bound is non-decreasing (and not constant), found by a sign analysis over the scalar ops that
compute it; the lowering then reads that program id as ``count - 1 - block id``, a bijection of
the grid, so every program still runs exactly once.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

INCREASING, CONSTANT, DECREASING = 1, 0, -1
"""Signs of a value's dependence on a program id: non-decreasing (and not constant), independent,
non-increasing.  ``None`` is unknown."""

_PASS_THROUGH = {"nv_tileaa.extsi", "nv_tileaa.extui", "nv_tileaa.trunci", "arith.extsi", "arith.extui",
                 "arith.trunci", "arith.index_cast", "arith.index_castui"}
_ADD = {"nv_tileaa.addi", "arith.addi"}
_SUB = {"nv_tileaa.subi", "arith.subi"}
_MUL = {"nv_tileaa.muli", "arith.muli"}
_DIV = {"arith.divsi", "arith.divui", "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi", "arith.shrsi",
        "arith.shrui"}
_MIN_MAX = {"arith.minsi", "arith.minui", "arith.maxsi", "arith.maxui"}


def _constant(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _join(a: int | None, b: int | None) -> int | None:
    """The sign of a monotone combination (sum, min, max) of values of signs ``a`` and ``b``."""
    if a is None or b is None:
        return None
    if a == CONSTANT:
        return b
    if b == CONSTANT or a == b:
        return a
    return None


def dependence_sign(value: SSAValue, axis: int, depth: int = 32) -> int | None:
    """How ``value`` (an integer scalar of the tier's IR) moves as program id ``axis`` grows: one
    of :data:`INCREASING`, :data:`CONSTANT`, :data:`DECREASING`, or None when the ops computing it
    are not all understood (sums, differences, products and quotients by positive constants,
    min/max, casts; kernel arguments, constants and other axes' ids are constants)."""
    op = value.owner
    if not isinstance(op, Operation):
        return CONSTANT  # a block argument of the kernel (a scalar parameter)
    if depth == 0:
        return None
    if op.name == "nv_tileaa.get_program_id":
        if op.operands:
            return None  # a dynamic-persistent loop's id: not the launch's
        return INCREASING if op.properties["axis"].value.data == axis else CONSTANT
    if op.name in ("nv_tileaa.get_num_programs", "arith.constant") or not op.operands:
        return CONSTANT if len(op.results) == 1 else None
    signs = [dependence_sign(o, axis, depth - 1) for o in op.operands]
    if op.name in _PASS_THROUGH:
        return signs[0]
    if op.name in _ADD or op.name in _MIN_MAX:
        return _join(signs[0], signs[1])
    if op.name in _SUB:
        neg = None if signs[1] is None else -signs[1]
        return _join(signs[0], neg)
    if op.name in _MUL:
        for x, other in ((0, 1), (1, 0)):
            c = _constant(op.operands[x])
            if c is not None:
                if c == 0:
                    return CONSTANT
                return signs[other] if c > 0 or signs[other] is None else -signs[other]
        return CONSTANT if signs == [CONSTANT, CONSTANT] else None
    if op.name in _DIV:
        c = _constant(op.operands[1])
        if signs[1] == CONSTANT and (c is None or c > 0):
            # a quotient by a positive constant keeps the numerator's order; by an unknown
            # kernel argument only when the numerator is constant
            return signs[0] if c is not None else (CONSTANT if signs[0] == CONSTANT else None)
        return None
    return CONSTANT if all(s == CONSTANT for s in signs) else None


def heavy_first_axis(trip_count: SSAValue) -> int | None:
    """The program-id axis (0..2) to launch in reverse order so that the programs with the most
    loop iterations start first: the only axis along which ``trip_count`` (the loop's upper bound
    with a constant lower bound) is :data:`INCREASING`, or None (no axis, several, or unknown)."""
    signs = [dependence_sign(trip_count, a) for a in range(3)]
    if None in signs or DECREASING in signs:
        return None
    grows = [a for a, s in enumerate(signs) if s == INCREASING]
    return grows[0] if len(grows) == 1 else None


__all__ = ["CONSTANT", "DECREASING", "INCREASING", "dependence_sign", "heavy_first_axis"]
